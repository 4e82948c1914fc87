//===- CudaRuntime.h - Kiln's CUDA driver-API runtime -----------*- C++ -*-===//
//
// The C functions of Kiln's CUDA runtime (lib/Runtime/CUDA): the `mgpu*`
// entry points that MLIR's `gpu-to-llvm` conversion and the `gpu.binary`
// embedding (`#gpu.select_object`) emit calls to, and Kiln's error slot.
//
// The runtime opens the CUDA driver (`libcuda.so.1`) with dlopen at first use,
// so neither it nor a library linking it depends on CUDA at link time. It
// works in the calling thread's current context, or, when there is none, in
// the primary context of the default device (device 0, or the one set with
// mgpuSetDefaultDevice), so it shares memory with the CUDA runtime (PyTorch)
// in the same process. It never aborts: the first failure of a thread is
// recorded with the CUresult name in a thread-local slot, and the later calls
// that do work (allocations, copies, launches) are no-ops until the slot is
// cleared. See docs/GPURuntime.md.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_CUDARUNTIME_H
#define KILN_RUNTIME_CUDARUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The message of the first error this thread recorded since the last clear,
/// or NULL when there is none. Valid until the next clear on this thread.
const char *kilnCudaGetLastError(void);

/// Clears this thread's error slot, so later calls do their work again.
void kilnCudaClearLastError(void);

/// Records `message` as this thread's error unless one is already recorded
/// (the first error wins).
void kilnCudaReportError(const char *message);

/// Blocks until all work of the current (or default primary) context has
/// finished; reports an error like the other calls.
void kilnCudaSynchronize(void);

/// The entry points of MLIR's GPU host ABI (as declared by `gpu-to-llvm` and
/// `#gpu.select_object` in MLIR 22). Handles are opaque pointers: a module is
/// Kiln's own record (loaded lazily, once per context), a function too (the
/// CUfunction and the kernel's name, which launch errors quote), the others
/// are the driver's CUstream and CUevent.
///
/// With KILN_CUDA_SYNC_LAUNCHES=1 in the environment (read at the first
/// call), every launch synchronizes its stream, so that an asynchronous
/// fault is reported by the launch of the kernel that caused it.
/// With KILN_CUDA_STREAM_CACHE=1, mgpuStreamDestroy keeps the calling
/// thread's first stream for its next mgpuStreamCreate (docs/GPURuntime.md).
void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra);
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
void mgpuMemHostUnregister(void *ptr);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);
void mgpuSetDefaultDevice(int32_t device);

#ifdef __cplusplus
}
#endif

#endif // KILN_RUNTIME_CUDARUNTIME_H
