//===- CudaFakeDriver.cpp - A scriptable stand-in for libcuda.so ----------===//
//
// A shared library with every driver function Kiln's CUDA runtime resolves
// (lib/Runtime/CUDA/DriverFunctions.def), under cuda.h's names, that needs
// no GPU: contexts, modules, functions, streams and events are fake handles,
// memory is host memory, and kernels do nothing. KilnCudaRuntimeTests loads
// it through KILN_CUDA_DRIVER (the CudaRuntimeFakeDriver tests) and scripts
// it through the `kilnFake*` variables below, found with dlsym: what a launch
// returns, a fault that the next synchronization reports (as a kernel's
// illegal address would), and counts of the calls whose number matters.
//
//===----------------------------------------------------------------------===//

#include "cuda.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" {

/// What cuLaunchKernel and cuLaunchKernelEx return.
__attribute__((visibility("default"))) CUresult kilnFakeLaunchResult =
    CUDA_SUCCESS;
/// Set by a launch that succeeded while this is non-zero (then cleared):
/// the asynchronous fault that every later synchronization reports, as a
/// sticky error does.
__attribute__((visibility("default"))) CUresult kilnFakeFaultOnLaunch =
    CUDA_SUCCESS;
__attribute__((visibility("default"))) CUresult kilnFakePendingFault =
    CUDA_SUCCESS;
/// Call counts.
__attribute__((visibility("default"))) int kilnFakeLaunches = 0;
__attribute__((visibility("default"))) int kilnFakeGetFunctions = 0;
__attribute__((visibility("default"))) int kilnFakeSynchronizes = 0;
__attribute__((visibility("default"))) int kilnFakeStreamCreates = 0;
__attribute__((visibility("default"))) int kilnFakeStreamDestroys = 0;
/// Calls of cuMemPoolSetAttribute(RELEASE_THRESHOLD) on the default pool,
/// and the last threshold set.
__attribute__((visibility("default"))) int kilnFakeThresholdSets = 0;
__attribute__((visibility("default"))) cuuint64_t kilnFakeThreshold = 0;

} // extern "C"

namespace {
thread_local CUcontext currentContext = nullptr;
/// A distinct non-null fake handle.
template <typename T> T makeHandle() {
  static uintptr_t next = 0x1000;
  next += 0x10;
  return reinterpret_cast<T>(next);
}

CUresult synchronize() {
  ++kilnFakeSynchronizes;
  return kilnFakePendingFault;
}

/// The codes the fake driver can name, as the real one does.
struct FakeError {
  CUresult code;
  const char *name, *text;
};
constexpr FakeError kFakeErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
};
} // namespace

extern "C" {

CUresult cuGetErrorName(CUresult error, const char **pStr) {
  for (const FakeError &known : kFakeErrors)
    if (known.code == error) {
      *pStr = known.name;
      return CUDA_SUCCESS;
    }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult error, const char **pStr) {
  for (const FakeError &known : kFakeErrors)
    if (known.code == error) {
      *pStr = known.text;
      return CUDA_SUCCESS;
    }
  *pStr = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice) {
  *pi = attrib == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED ? 1 : 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice) {
  static CUcontext primary = makeHandle<CUcontext>();
  *pctx = primary;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetCurrent(CUcontext *pctx) {
  *pctx = currentContext;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return currentContext ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
CUresult cuCtxPushCurrent(CUcontext ctx) {
  currentContext = ctx;
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext *pctx) {
  if (pctx)
    *pctx = currentContext;
  currentContext = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) { return synchronize(); }
CUresult cuModuleLoadData(CUmodule *module, const void *) {
  *module = makeHandle<CUmodule>();
  return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *, unsigned int,
                            CUjit_option *, void **) {
  *module = makeHandle<CUmodule>();
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule, const char *) {
  ++kilnFakeGetFunctions;
  *hfunc = makeHandle<CUfunction>();
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) {
  return CUDA_SUCCESS;
}
static CUresult launch() {
  ++kilnFakeLaunches;
  if (kilnFakeLaunchResult != CUDA_SUCCESS)
    return kilnFakeLaunchResult;
  if (kilnFakeFaultOnLaunch != CUDA_SUCCESS) {
    kilnFakePendingFault = kilnFakeFaultOnLaunch;
    kilnFakeFaultOnLaunch = CUDA_SUCCESS;
  }
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, unsigned, CUstream, void **,
                        void **) {
  return launch();
}
CUresult cuLaunchKernelEx(const CUlaunchConfig *, CUfunction, void **,
                          void **) {
  return launch();
}
CUresult cuStreamCreate(CUstream *phStream, unsigned int) {
  ++kilnFakeStreamCreates;
  *phStream = makeHandle<CUstream>();
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) {
  ++kilnFakeStreamDestroys;
  return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) { return synchronize(); }
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *phEvent, unsigned int) {
  *phEvent = makeHandle<CUevent>();
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent) { return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent) { return synchronize(); }
CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
  *dptr = reinterpret_cast<CUdeviceptr>(std::malloc(bytesize));
  return *dptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int) {
  return cuMemAlloc(dptr, bytesize);
}
CUresult cuMemFree(CUdeviceptr dptr) {
  std::free(reinterpret_cast<void *>(dptr));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                       CUstream) {
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), ByteCount);
  return CUDA_SUCCESS;
}
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                          CUstream) {
  auto *p = reinterpret_cast<unsigned short *>(dstDevice);
  for (size_t i = 0; i < N; ++i)
    p[i] = us;
  return CUDA_SUCCESS;
}
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                          CUstream) {
  auto *p = reinterpret_cast<unsigned int *>(dstDevice);
  for (size_t i = 0; i < N; ++i)
    p[i] = ui;
  return CUDA_SUCCESS;
}
CUresult cuMemHostRegister(void *, size_t, unsigned int) {
  return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void *) { return CUDA_SUCCESS; }
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute,
                               CUdeviceptr) {
  if (attribute != CU_POINTER_ATTRIBUTE_IS_MANAGED)
    return CUDA_ERROR_INVALID_VALUE;
  *static_cast<unsigned *>(data) = 0;
  return CUDA_SUCCESS;
}
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream) {
  return cuMemAlloc(dptr, bytesize);
}
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream) { return cuMemFree(dptr); }
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice) {
  static CUmemoryPool pool = makeHandle<CUmemoryPool>();
  *pool_out = pool;
  return CUDA_SUCCESS;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute attr,
                               void *value) {
  if (attr == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
    ++kilnFakeThresholdSets;
    kilnFakeThreshold = *static_cast<cuuint64_t *>(value);
  }
  return CUDA_SUCCESS;
}

} // extern "C"
