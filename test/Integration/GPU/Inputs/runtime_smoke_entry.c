/* The C entry point of runtime_smoke.mlir, written as kiln-compile
 * --target=cuda writes them: memref descriptors around device pointers,
 * the runtime's error slot as the return code and kiln_last_error. */
#include <stdint.h>

#define KILN_EXPORT __attribute__((visibility("default")))

const char *kilnCudaGetLastError(void);
void kilnCudaClearLastError(void);
void kilnCudaReportError(const char *message);

typedef struct {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} kiln_memref1;

void _mlir_ciface_smoke(kiln_memref1 *x, kiln_memref1 *y);

KILN_EXPORT const char *kiln_last_error(void) {
  const char *message = kilnCudaGetLastError();
  return message ? message : "";
}

KILN_EXPORT const char *kiln_smoke_signature(void) {
  return "f32[4096]->f32[4096]";
}

KILN_EXPORT int kiln_smoke(const void *const *inputs, void *const *outputs) {
  kilnCudaClearLastError();
  if (!inputs || !outputs || !inputs[0] || !outputs[0]) {
    kilnCudaReportError("kiln_smoke: a pointer is NULL");
    return 1;
  }
  kiln_memref1 x = {(void *)inputs[0], (void *)inputs[0], 0, {4096}, {1}};
  kiln_memref1 y = {outputs[0], outputs[0], 0, {4096}, {1}};
  _mlir_ciface_smoke(&x, &y);
  return kilnCudaGetLastError() ? 2 : 0;
}
