/*===- AotEntryPoints.c - The fixed part of an AOT library's C ABI --------===*
 *
 * compileToSharedLibrary (lib/Execution/AotCompiler.cpp) writes each library's C entry
 * points as one C file: a few #defines, this source, Kiln's host allocator
 * when the code allocates, then one generated wrapper per public function
 * that calls __kiln_check and __kiln_describe below and the function's
 * _mlir_ciface_ interface. Kiln's build embeds this file as a string
 * literal, so an installed kiln-compile needs no source tree.
 *
 * The including code defines, before this source:
 *   KILN_AOT_CUDA_ERRORS  (1) the error slot is Kiln's CUDA runtime's (or the
 *                         GPU emulator's), linked in with hidden symbols;
 *                         otherwise a thread-local message of its own.
 *   KILN_AOT_MEMREF_COPY  (1) the code calls memrefCopy, defined here as in
 *                         MLIR's C runner utilities so that the library does
 *                         not depend on them.
 *
 *===----------------------------------------------------------------------===*/

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KILN_EXPORT __attribute__((visibility("default")))
#define KILN_HIDDEN __attribute__((visibility("hidden")))

/* The library's error slot. kiln_last_error and every kiln_<name>_last_error
 * read it through the static __kiln_last_error, which no other library can
 * interpose. */
#if KILN_AOT_CUDA_ERRORS
const char *kilnCudaGetLastError(void);
void kilnCudaClearLastError(void);
void kilnCudaReportError(const char *message);

static const char *__kiln_last_error(void) {
  const char *message = kilnCudaGetLastError();
  return message ? message : "";
}
static void __kiln_clear_error(void) { kilnCudaClearLastError(); }
static void __kiln_report(const char *message) {
  kilnCudaReportError(message);
}
/* The return code of a call whose device work failed, or 0. */
static int __kiln_status(void) { return kilnCudaGetLastError() ? 2 : 0; }
#else
/* The message of this thread's last failed call. */
static _Thread_local const char *__kiln_error = "";
static _Thread_local char __kiln_message[512];
static const char *__kiln_last_error(void) { return __kiln_error; }
static void __kiln_clear_error(void) { __kiln_error = ""; }
static void __kiln_report(const char *message) {
  snprintf(__kiln_message, sizeof(__kiln_message), "%s", message);
  __kiln_error = __kiln_message;
}
static int __kiln_status(void) { return 0; }
#endif

KILN_EXPORT const char *kiln_last_error(void) { return __kiln_last_error(); }

/* Records that `function`'s compiled code could not allocate `bytes`. */
__attribute__((unused)) static void
__kiln_report_out_of_memory(const char *function, size_t bytes) {
  char message[256];
  snprintf(message, sizeof(message),
           "%s: out of memory: its compiled code could not allocate a "
           "temporary of %zu bytes",
           function, bytes);
  __kiln_report(message);
}

/* Checks the arguments of the C entry point `function`: the byte size of
 * inputs[i] is bytes[i], that of outputs[j] bytes[numInputs + j] (0: an
 * empty tensor, which may be NULL). Reports the first NULL pointer, or the
 * first output that overlaps an input or an earlier output, and returns 1;
 * returns 0 when the call may proceed. One loop over a table, not one
 * statement per pair: a function with many arguments made a wrapper
 * quadratic in their number (a train step's 78 buffers: 2,223 `if`s, a 45 s
 * link). */
static int __kiln_check(const char *function, const void *const *inputs,
                        void *const *outputs, const uint64_t *bytes,
                        int numInputs, int numOutputs) {
  char message[512];
  int i, j;
  if (numInputs && !inputs) {
    snprintf(message, sizeof(message), "%s: inputs is NULL", function);
    goto fail;
  }
  if (numOutputs && !outputs) {
    snprintf(message, sizeof(message), "%s: outputs is NULL", function);
    goto fail;
  }
  for (i = 0; i < numInputs; ++i)
    if (bytes[i] && !inputs[i]) {
      snprintf(message, sizeof(message), "%s: inputs[%d] is NULL", function,
               i);
      goto fail;
    }
  for (j = 0; j < numOutputs; ++j)
    if (bytes[numInputs + j] && !outputs[j]) {
      snprintf(message, sizeof(message), "%s: outputs[%d] is NULL", function,
               j);
      goto fail;
    }
  /* The code may write an output before it has read all of an input or
   * written another output: an in-place call would compute garbage.
   * Inputs may overlap each other (they are only read). */
  for (j = 0; j < numOutputs; ++j) {
    uintptr_t x = (uintptr_t)outputs[j];
    uint64_t m = bytes[numInputs + j];
    for (i = 0; m && i < numInputs + j; ++i) {
      int isInput = i < numInputs;
      uintptr_t y = (uintptr_t)(isInput ? inputs[i] : outputs[i - numInputs]);
      uint64_t n = bytes[i];
      if (n && x < y + n && y < x + m) {
        snprintf(message, sizeof(message), "%s: outputs[%d] overlaps %s[%d]",
                 function, j, isInput ? "inputs" : "outputs",
                 isInput ? i : i - numInputs);
        goto fail;
      }
    }
  }
  return 0;
fail:
  __kiln_report(message);
  return 1;
}

/* Writes the ranked memref descriptor of the contiguous row-major buffer
 * `data` with `rank` sizes at `words`: {allocated, aligned, offset 0,
 * sizes, strides}, eight-byte words as _mlir_ciface_ functions take them;
 * returns the word after it. Descriptors are built by a loop over a table
 * of ranks and sizes, not one statement per word: a deep model's backward
 * takes ~1,000 buffers, and `cc -O2` took 6 s on a wrapper written out word
 * by word. */
static int64_t *__kiln_describe(int64_t *words, const void *data, int rank,
                                const int64_t *sizes) {
  int64_t stride = 1;
  int i;
  words[0] = words[1] = (int64_t)(intptr_t)data;
  words[2] = 0;
  for (i = rank - 1; i >= 0; --i) {
    words[3 + i] = sizes[i];
    words[3 + rank + i] = stride;
    stride *= sizes[i];
  }
  return words + 3 + 2 * rank;
}

/* Describes the inputs then the outputs of a call, whose ranks are
 * ranks[0..numArgs) and sizes the concatenation `sizes`, into `words`. */
static void __kiln_describe_all(int64_t *words, const void *const *inputs,
                                void *const *outputs, int numInputs,
                                int numArgs, const int *ranks,
                                const int64_t *sizes) {
  int i;
  for (i = 0; i < numArgs; sizes += ranks[i], ++i)
    words = __kiln_describe(words,
                            i < numInputs ? inputs[i]
                                          : outputs[i - numInputs],
                            ranks[i], sizes);
}

#if KILN_AOT_MEMREF_COPY
/* memrefCopy as in MLIR's C runner utilities: copies between two strided
 * memrefs of the same shape, given as {rank, descriptor} pairs. */
typedef struct {
  int64_t rank;
  void *descriptor;
} __kiln_unranked;
KILN_HIDDEN void memrefCopy(int64_t elemSize, __kiln_unranked *src,
                            __kiln_unranked *dst) {
  int64_t rank = src->rank;
  const int64_t *s = (const int64_t *)src->descriptor;
  const int64_t *d = (const int64_t *)dst->descriptor;
  const char *from = (const char *)(intptr_t)s[1] + s[2] * elemSize;
  char *to = (char *)(intptr_t)d[1] + d[2] * elemSize;
  const int64_t *sizes = s + 3, *srcStrides = s + 3 + rank,
                *dstStrides = d + 3 + rank;
  int64_t total = 1;
  for (int64_t i = 0; i < rank; ++i)
    total *= sizes[i];
  if (total == 0)
    return;
  if (rank == 0) {
    memcpy(to, from, elemSize);
    return;
  }
  int64_t index[64] = {0};
  if (rank > 64)
    return;
  int64_t srcOffset = 0, dstOffset = 0;
  for (;;) {
    memcpy(to + dstOffset * elemSize, from + srcOffset * elemSize, elemSize);
    int64_t axis = rank - 1;
    for (; axis >= 0; --axis) {
      ++index[axis];
      srcOffset += srcStrides[axis];
      dstOffset += dstStrides[axis];
      if (index[axis] < sizes[axis])
        break;
      srcOffset -= index[axis] * srcStrides[axis];
      dstOffset -= index[axis] * dstStrides[axis];
      index[axis] = 0;
    }
    if (axis < 0)
      return;
  }
}
#endif
