/*===- HostAllocator.h - The heap of compiled CPU code -----------*- C -*-===*
 *
 * The functions lib/Runtime/HostAllocator.c defines: the allocation entry
 * points that the CPU pipeline's memref.alloc and memref.dealloc lower to
 * (finalize-memref-to-llvm with use-generic-functions), and the state of its
 * cache of freed blocks. C, so that the JIT, the tests and the C source the
 * AOT compiler compiles into each library declare them once.
 *
 *===----------------------------------------------------------------------===*/

#ifndef KILN_RUNTIME_HOSTALLOCATOR_H
#define KILN_RUNTIME_HOSTALLOCATOR_H

#include <stddef.h>

#ifndef KILN_HOST_ALLOCATOR_API
#define KILN_HOST_ALLOCATOR_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A block of at least `size` bytes, 64-byte aligned; NULL when the machine
 * has no memory for it. */
KILN_HOST_ALLOCATOR_API void *_mlir_memref_to_llvm_alloc(size_t size);
/* The same, aligned to `alignment` (a power of two). */
KILN_HOST_ALLOCATOR_API void *
_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
/* Returns a block of the two functions above (NULL does nothing). */
KILN_HOST_ALLOCATOR_API void _mlir_memref_to_llvm_free(void *payload);
/* Calls the JIT-compiled packed function `function(arguments)` so that an
 * allocation of its compiled code that fails ends the call instead of the
 * process: returns 0, or the bytes that could not be allocated (the call's
 * outputs are then incomplete). HostAllocator.c says what it frees. */
KILN_HOST_ALLOCATOR_API size_t kilnHostAllocatorCall(void (*function)(void **),
                                                     void **arguments);
/* Asks the OS (once per process) to let it use AMX tiles, which the bf16
 * matmul kernels of kiln-matmul-kernels{amx} run on: 1 when it may, 0 when
 * the CPU or the kernel refuses (HostAllocator.c says why it is here). */
KILN_HOST_ALLOCATOR_API int kilnRequestAMX(void);
/* The bytes and the number of freed blocks kept for reuse. */
KILN_HOST_ALLOCATOR_API void kilnHostAllocatorCacheStats(size_t *bytes,
                                                         int *blocks);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_HOSTALLOCATOR_H */
