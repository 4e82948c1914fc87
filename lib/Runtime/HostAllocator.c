/*===- HostAllocator.c - The heap of compiled CPU code ---------------------===*
 *
 * memref.alloc and memref.dealloc of the CPU pipeline lower to calls of
 * _mlir_memref_to_llvm_alloc / _aligned_alloc / _free (finalize-memref-to-llvm
 * with use-generic-functions); this file defines them, for the JIT
 * (lib/Runtime, registered with each ExecutionEngine) and, as text, for every
 * library kiln-compile links (its C wrapper includes it with hidden
 * visibility). One definition for both.
 *
 * Why not malloc: compiled code allocates and frees its temporaries on every
 * call, often in loops (the attention adjoint's [64, Sk] blocks, per query
 * block). Blocks of 128 KiB and more are mmap'd by glibc until a free raises
 * its dynamic threshold, and each mmap'd block is zero-filled page by page on
 * first touch: a B = 1, H = 8, S = 2048 attention forward + backward took
 * 103,000 page faults and 0.36 s per call in a fresh process, 0 faults and
 * 0.26 s once the threshold had moved (docs/CPUBackend.md, "Host memory").
 * This allocator keeps freed blocks of 64 KiB and more for reuse, so that a
 * program's steady state touches no new page, whatever malloc's state.
 *
 * Blocks are size classes of 1/8 of a power of two (at most 12.5 % unused);
 * up to kilnCacheSlots freed blocks and kilnCacheLimit bytes are kept, the
 * oldest freed first when a new one needs room. Thread-safe (one mutex): the
 * OpenMP loops of compiled code allocate from every thread. A request takes
 * the newest freed block of its class that the same thread freed, else the
 * newest of the class: two OpenMP threads that took each other's blocks
 * moved them between their cores' caches (an S = 2048 attention adjoint on
 * two threads took 72.7 ms that way, 66.4 ms with blocks kept by thread).
 * Every block has a 64-byte header before the payload (its base, class,
 * alignment, the thread that freed it and the call that tracks it), so
 * payloads are 64-byte aligned.
 *
 * Running out of memory is an error of the call, not a crash: the JIT
 * (kilnHostAllocatorCall) and every AOT wrapper enter compiled code through
 * a recovery point (KilnRecovery, a setjmp), and an allocation that fails on
 * the thread that entered jumps back to it with the bytes it asked for; the
 * blocks of 64 KiB and more that the call had allocated are released, the
 * smaller ones are lost. An allocation that fails inside an OpenMP parallel
 * region cannot leave it (the other threads of the team wait at its
 * barrier): it prints the bytes and aborts, the one case that still does.
 *
 *===----------------------------------------------------------------------===*/

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_HOST_ALLOCATOR_API
#define KILN_HOST_ALLOCATOR_API
#endif

enum {
  kilnHeaderBytes = 64,
  kilnCacheSlots = 64,
};
/* Blocks below this go to malloc's bins and back, uncached. */
static const size_t kilnCacheMinimum = (size_t)64 << 10;
/* The most bytes kept in freed blocks. */
static const size_t kilnCacheLimit = (size_t)1 << 30;

typedef struct KilnRecovery KilnRecovery;
typedef struct KilnBlockHeader KilnBlockHeader;
struct KilnBlockHeader {
  void *base;          /* what posix_memalign returned */
  size_t capacity;     /* the payload's bytes (a size class when cached) */
  size_t cacheable;    /* 64-byte alignment and a size class */
  const void *freedBy; /* the thread that freed it (kilnThreadToken) */
  KilnRecovery *owner; /* the call that releases it if it fails, or NULL */
  KilnBlockHeader *previous, *next; /* in owner's list */
};

_Static_assert(sizeof(struct KilnBlockHeader) <= kilnHeaderBytes,
               "a block's header fits before its payload");

/* A call of compiled code that turns a failed allocation into an error: its
 * jump buffer, the bytes that could not be allocated, the recovery it
 * replaced on its thread, and the blocks of kilnCacheMinimum bytes or more
 * allocated under it and not yet freed (a list under kilnCacheMutex). */
struct KilnRecovery {
  jmp_buf target;
  size_t failedBytes;
  KilnRecovery *previous;
  KilnBlockHeader *blocks;
};

/* A token of the calling thread: the address of a thread-local variable. */
static _Thread_local char kilnThreadMarker;
static const void *kilnThreadToken(void) { return &kilnThreadMarker; }

static pthread_mutex_t kilnCacheMutex = PTHREAD_MUTEX_INITIALIZER;
/* The innermost recovery point of the calling thread. */
static _Thread_local KilnRecovery *kilnRecovery;
/* Freed blocks (their payloads), oldest first. */
static void *kilnCache[kilnCacheSlots];
static int kilnCacheCount;
static size_t kilnCacheBytes;

static KilnBlockHeader *kilnHeaderOf(void *payload) {
  return (KilnBlockHeader *)((char *)payload - kilnHeaderBytes);
}

/* `size` rounded up to its class: a multiple of 2^(floor(log2 size) - 3). */
static size_t kilnSizeClass(size_t size) {
  int bits = 63 - __builtin_clzll((unsigned long long)size);
  size_t step = (size_t)1 << (bits - 3);
  return (size + step - 1) & ~(step - 1);
}

static void *kilnTakeCached(size_t capacity) {
  void *found = NULL;
  const void *self = kilnThreadToken();
  pthread_mutex_lock(&kilnCacheMutex);
  /* The newest block of the class that this thread freed, else the newest
   * of the class: the likeliest still in this core's cache (OpenMP threads
   * that took each other's blocks moved them between cores' caches). */
  int at = -1;
  for (int i = kilnCacheCount - 1; i >= 0; --i) {
    KilnBlockHeader *header = kilnHeaderOf(kilnCache[i]);
    if (header->capacity != capacity)
      continue;
    if (at < 0)
      at = i;
    if (header->freedBy == self) {
      at = i;
      break;
    }
  }
  if (at >= 0) {
    found = kilnCache[at];
    for (int j = at + 1; j < kilnCacheCount; ++j)
      kilnCache[j - 1] = kilnCache[j];
    --kilnCacheCount;
    kilnCacheBytes -= capacity;
  }
  pthread_mutex_unlock(&kilnCacheMutex);
  return found;
}

/* Whether the calling thread runs an OpenMP parallel region: libomp's
 * omp_in_parallel, linked into an AOT library built with --openmp (a weak
 * reference) or loaded globally by the JIT (dlsym). Asked on failure only. */
extern int omp_in_parallel(void) __attribute__((weak));
static int kilnInParallel(void) {
  int (*inParallel)(void) = omp_in_parallel;
  if (!inParallel)
    *(void **)&inParallel = dlsym(RTLD_DEFAULT, "omp_in_parallel");
  return inParallel && inParallel();
}

/* Puts a block of kilnCacheMinimum bytes or more on the list of the calling
 * thread's recovery, so that a failed call releases it; a smaller one, or
 * one allocated outside a call, belongs to none. */
static void *kilnTrack(void *payload) {
  KilnBlockHeader *header = kilnHeaderOf(payload);
  KilnRecovery *recovery =
      header->capacity >= kilnCacheMinimum ? kilnRecovery : NULL;
  header->owner = recovery;
  if (!recovery)
    return payload;
  pthread_mutex_lock(&kilnCacheMutex);
  header->previous = NULL;
  header->next = recovery->blocks;
  if (recovery->blocks)
    recovery->blocks->previous = header;
  recovery->blocks = header;
  pthread_mutex_unlock(&kilnCacheMutex);
  return payload;
}

/* Takes a block off its recovery's list; the caller holds kilnCacheMutex. */
static void kilnUntrackLocked(KilnBlockHeader *header) {
  KilnRecovery *recovery = header->owner;
  if (header->previous)
    header->previous->next = header->next;
  else
    recovery->blocks = header->next;
  if (header->next)
    header->next->previous = header->previous;
  header->owner = NULL;
}

static void *kilnAllocate(size_t alignment, size_t size) {
  if (alignment < kilnHeaderBytes)
    alignment = kilnHeaderBytes;
  if (size == 0)
    size = 1;
  int cacheable = alignment == kilnHeaderBytes && size >= kilnCacheMinimum;
  size_t capacity = cacheable ? kilnSizeClass(size) : size;
  if (capacity < size) /* the class overflowed size_t */
    return NULL;
  if (cacheable) {
    void *payload = kilnTakeCached(capacity);
    if (payload)
      return kilnTrack(payload);
  }
  /* The header fits before the first aligned payload address. */
  if (capacity > SIZE_MAX - alignment)
    return NULL;
  void *base = NULL;
  if (posix_memalign(&base, alignment, capacity + alignment) != 0)
    return NULL;
  void *payload = (char *)base + alignment;
  KilnBlockHeader *header = kilnHeaderOf(payload);
  header->base = base;
  header->capacity = capacity;
  header->cacheable = (size_t)cacheable;
  return kilnTrack(payload);
}

static void kilnRelease(void *payload) {
  if (!payload)
    return;
  KilnBlockHeader *header = kilnHeaderOf(payload);
  if (header->owner) {
    pthread_mutex_lock(&kilnCacheMutex);
    kilnUntrackLocked(header);
    pthread_mutex_unlock(&kilnCacheMutex);
  }
  if (!header->cacheable || header->capacity > kilnCacheLimit) {
    free(header->base);
    return;
  }
  /* Make room by freeing the oldest blocks, outside the lock. */
  void *evicted[kilnCacheSlots];
  int numEvicted = 0;
  pthread_mutex_lock(&kilnCacheMutex);
  while (kilnCacheCount > 0 &&
         (kilnCacheCount == kilnCacheSlots ||
          kilnCacheBytes + header->capacity > kilnCacheLimit)) {
    void *oldest = kilnCache[0];
    kilnCacheBytes -= kilnHeaderOf(oldest)->capacity;
    for (int j = 1; j < kilnCacheCount; ++j)
      kilnCache[j - 1] = kilnCache[j];
    --kilnCacheCount;
    evicted[numEvicted++] = oldest;
  }
  header->freedBy = kilnThreadToken();
  kilnCache[kilnCacheCount++] = payload;
  kilnCacheBytes += header->capacity;
  pthread_mutex_unlock(&kilnCacheMutex);
  for (int i = 0; i < numEvicted; ++i)
    free(kilnHeaderOf(evicted[i])->base);
}

/* Compiled code cannot use a NULL block: jumps back to the recovery point
 * of the call, or, without one or inside a parallel region, says why and
 * aborts. */
static void *kilnAllocated(void *payload, size_t size) {
  if (payload)
    return payload;
  KilnRecovery *recovery = kilnRecovery;
  if (recovery && !kilnInParallel()) {
    /* 0 would read as success: a zero-size block is a one-byte one. */
    recovery->failedBytes = size ? size : 1;
    longjmp(recovery->target, 1);
  }
  fprintf(stderr,
          "kiln: out of memory: compiled code could not allocate %zu bytes%s\n",
          size, recovery ? " inside a parallel region" : "");
  abort();
}

KILN_HOST_ALLOCATOR_API void *_mlir_memref_to_llvm_alloc(size_t size) {
  return kilnAllocated(kilnAllocate(kilnHeaderBytes, size), size);
}

KILN_HOST_ALLOCATOR_API void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                                size_t size) {
  /* A power of two, as memref.alloc's alignment attribute must be. */
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return kilnAllocated(NULL, size);
  return kilnAllocated(kilnAllocate(alignment, size), size);
}

/* Makes `recovery`, whose target the caller has just set with setjmp, the
 * calling thread's recovery point. */
KILN_HOST_ALLOCATOR_API void kilnRecoveryBegin(KilnRecovery *recovery) {
  recovery->failedBytes = 0;
  recovery->blocks = NULL;
  recovery->previous = kilnRecovery;
  kilnRecovery = recovery;
}

/* Ends `recovery`, after its call returned or jumped back: the blocks it
 * still tracks are released after a failure and merely untracked otherwise.
 * Returns the bytes that could not be allocated, 0 after a success. */
KILN_HOST_ALLOCATOR_API size_t kilnRecoveryEnd(KilnRecovery *recovery) {
  kilnRecovery = recovery->previous;
  size_t failed = recovery->failedBytes;
  pthread_mutex_lock(&kilnCacheMutex);
  KilnBlockHeader *blocks = recovery->blocks;
  for (KilnBlockHeader *block = blocks; block; block = block->next)
    block->owner = NULL;
  recovery->blocks = NULL;
  pthread_mutex_unlock(&kilnCacheMutex);
  if (failed)
    while (blocks) {
      KilnBlockHeader *next = blocks->next;
      kilnRelease((char *)blocks + kilnHeaderBytes);
      blocks = next;
    }
  return failed;
}

/* Calls a JIT-compiled packed function, `function(arguments)`, under a
 * recovery point. Returns 0, or the bytes of the allocation that failed. */
KILN_HOST_ALLOCATOR_API size_t kilnHostAllocatorCall(void (*function)(void **),
                                                     void **arguments) {
  KilnRecovery recovery;
  if (setjmp(recovery.target) == 0) {
    kilnRecoveryBegin(&recovery);
    function(arguments);
  }
  return kilnRecoveryEnd(&recovery);
}

KILN_HOST_ALLOCATOR_API void _mlir_memref_to_llvm_free(void *payload) {
  kilnRelease(payload);
}

/* The bytes and blocks kept for reuse now (tests and diagnostics). */
KILN_HOST_ALLOCATOR_API void kilnHostAllocatorCacheStats(size_t *bytes,
                                                         int *blocks) {
  pthread_mutex_lock(&kilnCacheMutex);
  *bytes = kilnCacheBytes;
  *blocks = kilnCacheCount;
  pthread_mutex_unlock(&kilnCacheMutex);
}

/* AMX tiles (kiln-matmul-kernels{amx}, bf16 matmuls): Linux gives a process
 * the 8 KiB of AMX tile state in its saved context only once it asks for it
 * (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, Linux 5.16 on); an
 * AMX instruction before that raises SIGILL. The permission is the
 * process's, for every thread. Like the blocks above, this is state the
 * kernel allocates for compiled code, so it lives here, in the JIT and in
 * every library. Asks once; returns 1 when the process may use AMX, 0 when
 * the CPU or the kernel says no. */
#if defined(__linux__) && defined(__x86_64__)
extern long syscall(long number, ...);
#endif
KILN_HOST_ALLOCATOR_API int kilnRequestAMX(void) {
#if defined(__linux__) && defined(__x86_64__)
  /* 0: not asked yet; 1: granted; 2: refused. Two threads asking at once
   * both get the kernel's same answer. */
  static int state;
  int known = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
  if (known == 0) {
    const long archPrctl = 158, requestPermission = 0x1023, tileData = 18;
    known = syscall(archPrctl, requestPermission, tileData) == 0 ? 1 : 2;
    __atomic_store_n(&state, known, __ATOMIC_RELEASE);
  }
  return known == 1;
#else
  return 0;
#endif
}
