//===- CudaRuntime.cpp - Kiln's CUDA driver-API runtime -------------------===//
//
// The `mgpu*` functions that code lowered by MLIR's `gpu-to-llvm` and
// `#gpu.select_object` calls, written over the CUDA driver API, which is
// opened with dlopen at first use. See include/kiln/Runtime/CudaRuntime.h for
// the contract and docs/GPURuntime.md for the design.
//
// The file is linked into ahead-of-time libraries that must need nothing but
// libc (and libcuda.so.1, opened at run time): it uses no C++ library
// facility (no exceptions, RTTI, new/delete, std::string or function-local
// statics with dynamic initialization, which would pull in libstdc++), only
// the C library and pthreads.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaRuntime.h"

#include "../ErrorSlot.h"

#include "cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KILN_STRINGIFY_IMPL(x) #x
/// The symbol a cuda.h name expands to, as a string (cuMemAlloc ->
/// "cuMemAlloc_v2").
#define KILN_STRINGIFY(x) KILN_STRINGIFY_IMPL(x)

namespace {

//===----------------------------------------------------------------------===//
// The driver, opened with dlopen
//===----------------------------------------------------------------------===//

/// Function pointers to the driver API, named as the symbols they resolve
/// (cuda.h's macros turn `driver.cuMemAlloc` into `driver.cuMemAlloc_v2`).
struct Driver {
#define KILN_CUDA_REQUIRED(name) decltype(&::name) name;
#include "DriverFunctions.def"
};

Driver driver;
/// Why the driver cannot be used, or empty once it is initialized.
char driverError[1024];
pthread_once_t driverOnce = PTHREAD_ONCE_INIT;
/// KILN_CUDA_SYNC_LAUNCHES (set and not "0"): synchronize the launch's
/// stream after every launch, so that a fault is reported by the launch of
/// the kernel that caused it. Read once, with the driver.
bool syncLaunches = false;
/// KILN_CUDA_STREAM_CACHE (set and not "0") turns the per-thread stream
/// cache on (see mgpuStreamCreate). Off by default: a cached stream lives
/// as long as its thread and context, which a host that creates threads or
/// contexts freely must not pay for. Read with the driver.
bool cacheStreams = false;
/// KILN_CUDA_KEEP_POOL_MEMORY (set and not "0"): raise the release threshold
/// of the device's default memory pool (see keepPoolMemory). Off by default:
/// that pool is process-wide, shared with every library that allocates
/// from it. Read with the driver.
bool keepPools = false;

/// Whether an environment variable is set to something other than "" or
/// "0".
bool isEnabled(const char *variable) {
  const char *value = getenv(variable);
  return value && *value && strcmp(value, "0") != 0;
}

/// `CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected`, or the number
/// when the driver cannot name the code (the toolkit's stub library).
void formatResult(CUresult result, char *buffer, size_t size) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  if (name && text)
    snprintf(buffer, size, "%s: %s", name, text);
  else if (name)
    snprintf(buffer, size, "%s", name);
  else if (result == CUDA_ERROR_STUB_LIBRARY)
    snprintf(buffer, size,
             "CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda.so was "
             "loaded instead of a driver");
  else
    snprintf(buffer, size, "CUresult %d", int(result));
}

/// The library the runtime opens: KILN_CUDA_DRIVER if set (a path, used by
/// the tests to point at a stub), else the driver's soname.
const char *getDriverPath() {
  const char *path = getenv("KILN_CUDA_DRIVER");
  return path && *path ? path : "libcuda.so.1";
}

void loadDriver() {
  syncLaunches = isEnabled("KILN_CUDA_SYNC_LAUNCHES");
  cacheStreams = isEnabled("KILN_CUDA_STREAM_CACHE");
  keepPools = isEnabled("KILN_CUDA_KEEP_POOL_MEMORY");
  const char *path = getDriverPath();
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    snprintf(driverError, sizeof(driverError),
             "cannot load the CUDA driver %s (%s): is an NVIDIA driver "
             "installed?",
             path, reason ? reason : "unknown reason");
    return;
  }
#define KILN_CUDA_REQUIRED(name)                                               \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, KILN_STRINGIFY(name)));                                   \
  if (!driver.name) {                                                          \
    snprintf(driverError, sizeof(driverError),                                 \
             "the CUDA driver %s has no function %s (the driver is too old)",  \
             path, KILN_STRINGIFY(name));                                      \
    return;                                                                    \
  }
#define KILN_CUDA_OPTIONAL(name)                                               \
  driver.name = reinterpret_cast<decltype(driver.name)>(                       \
      dlsym(library, KILN_STRINGIFY(name)));
#include "DriverFunctions.def"
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS) {
    char text[256];
    formatResult(result, text, sizeof(text));
    snprintf(driverError, sizeof(driverError), "cuInit failed: %s", text);
    return;
  }
  driverError[0] = '\0';
}

/// Opens and initializes the driver once per process; reports why it cannot
/// be used (on every call, since each thread has its own slot).
bool ensureDriver() {
  pthread_once(&driverOnce, loadDriver);
  if (driverError[0]) {
    reportError("%s", driverError);
    return false;
  }
  return true;
}

/// Checks a driver call: on failure, records what was called (a printf
/// format, formatted only then) with the result's name.
__attribute__((format(printf, 2, 3))) bool check(CUresult result,
                                                 const char *format, ...) {
  if (result == CUDA_SUCCESS)
    return true;
  char what[512], text[256];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof(what), format, args);
  va_end(args);
  formatResult(result, text, sizeof(text));
  reportError("%s failed: %s", what, text);
  return false;
}

/// Like `check`, for calls that release resources: those run even after an
/// error, and a failure of theirs never replaces the first error.
void checkCleanup(CUresult result, const char *what) {
  if (!hasError)
    check(result, "%s", what);
}

//===----------------------------------------------------------------------===//
// Contexts
//===----------------------------------------------------------------------===//

/// The device used when the calling thread has no current context.
thread_local int32_t defaultDevice = 0;

constexpr int kMaxDevices = 64;
/// The retained primary contexts, per device ordinal.
CUcontext primaryContexts[kMaxDevices];
/// Whether each device supports stream-ordered allocation: 0 unknown, 1 yes,
/// 2 no.
int memoryPools[kMaxDevices];
pthread_mutex_t contextMutex = PTHREAD_MUTEX_INITIALIZER;

/// Makes a context current for its lifetime: the thread's current one if it
/// has one (PyTorch's, say), else the default device's primary context, which
/// it retains once and pushes. `ok` is false (with the error recorded) when
/// there is none.
class ScopedContext {
public:
  ScopedContext() {
    if (!ensureDriver())
      return;
    CUcontext current = nullptr;
    if (!check(driver.cuCtxGetCurrent(&current), "cuCtxGetCurrent"))
      return;
    if (current) {
      ok = true;
      return;
    }
    int32_t ordinal = defaultDevice;
    if (ordinal < 0 || ordinal >= kMaxDevices) {
      reportError("device %d is out of range", int(ordinal));
      return;
    }
    pthread_mutex_lock(&contextMutex);
    CUcontext context = primaryContexts[ordinal];
    if (!context) {
      CUdevice device;
      if (check(driver.cuDeviceGet(&device, ordinal), "cuDeviceGet(%d)",
                int(ordinal)) &&
          check(driver.cuDevicePrimaryCtxRetain(&context, device),
                "cuDevicePrimaryCtxRetain"))
        primaryContexts[ordinal] = context;
    }
    pthread_mutex_unlock(&contextMutex);
    if (!context || !check(driver.cuCtxPushCurrent(context),
                           "cuCtxPushCurrent"))
      return;
    pushed = true;
    ok = true;
  }
  ~ScopedContext() {
    if (pushed)
      checkCleanup(driver.cuCtxPopCurrent(nullptr), "cuCtxPopCurrent");
  }
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  bool ok = false;

private:
  bool pushed = false;
};

/// Sets the release threshold of `device`'s default memory pool, which
/// cuMemAllocAsync draws from, to the maximum: with the default, 0, the pool
/// returns its free memory to the driver at every synchronization, so every
/// call would map its temporaries again (the attention backward's dQ
/// accumulator is 256 MiB at S=8192, D=128). The pool then keeps up to its
/// peak use for the process. Skipped, as a mere optimization, when the
/// driver lacks the functions or they fail.
void keepPoolMemory(CUdevice device) {
  if (!driver.cuDeviceGetDefaultMemPool || !driver.cuMemPoolSetAttribute)
    return;
  CUmemoryPool pool = nullptr;
  if (driver.cuDeviceGetDefaultMemPool(&pool, device) != CUDA_SUCCESS)
    return;
  cuuint64_t threshold = UINT64_MAX;
  (void)driver.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                     &threshold);
}

/// Whether the current context's device supports cuMemAllocAsync.
bool hasMemoryPools() {
  if (!driver.cuMemAllocAsync || !driver.cuMemFreeAsync)
    return false;
  CUdevice device;
  if (driver.cuCtxGetDevice(&device) != CUDA_SUCCESS || device < 0 ||
      device >= kMaxDevices)
    return false;
  int known = __atomic_load_n(&memoryPools[device], __ATOMIC_RELAXED);
  if (!known) {
    int supported = 0;
    if (driver.cuDeviceGetAttribute(
            &supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device) !=
        CUDA_SUCCESS)
      supported = 0;
    known = supported ? 1 : 2;
    if (supported && keepPools)
      keepPoolMemory(device);
    __atomic_store_n(&memoryPools[device], known, __ATOMIC_RELAXED);
  }
  return known == 1;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

constexpr int kMaxModuleContexts = 16;

/// What mgpuModuleGetFunction returns and mgpuLaunchKernel takes: a kernel
/// of a module loaded in one context, with its name, so that a failed
/// launch says which kernel failed (a CUfunction cannot be named on every
/// driver).
struct Function {
  CUfunction function;
  CUcontext context;
  /// The caller's pointer (the host code passes the same global string at
  /// every launch): compared before the name.
  const char *lookupName;
  /// A copy, valid as long as the module.
  char *name;
};

/// What mgpuModuleLoad returns: the embedded image, the module loaded from
/// it in each context that used it, and the kernels looked up so far.
/// Loading waits for the first kernel lookup, because `#gpu.select_object`
/// loads modules from a global constructor, which runs when the library is
/// loaded: possibly before the process created its CUDA context, or without
/// any device at all.
struct Module {
  const void *data;
  bool isPTX;
  int optLevel;
  pthread_mutex_t mutex;
  int numLoaded;
  CUcontext contexts[kMaxModuleContexts];
  CUmodule modules[kMaxModuleContexts];
  /// Every Function looked up, in every context (malloc'ed, growing).
  Function **functions;
  int numFunctions;
  int functionCapacity;
};

Module *createModule(const void *data, bool isPTX, int optLevel) {
  auto *module = static_cast<Module *>(calloc(1, sizeof(Module)));
  if (!module) {
    reportError("out of host memory for a GPU module record");
    return nullptr;
  }
  module->data = data;
  module->isPTX = isPTX;
  module->optLevel = optLevel;
  pthread_mutex_init(&module->mutex, nullptr);
  return module;
}

/// Loads the image into `context` (current), with the JIT log in the error
/// for PTX.
CUmodule loadModule(Module *module) {
  CUmodule loaded = nullptr;
  if (!module->isPTX) {
    check(driver.cuModuleLoadData(&loaded, module->data), "cuModuleLoadData");
    return loaded;
  }
  char log[1024] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL,
                            CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(intptr_t(module->optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log) - 1)};
  CUresult result = driver.cuModuleLoadDataEx(&loaded, module->data, 3,
                                              options, values);
  if (result != CUDA_SUCCESS) {
    char text[256];
    formatResult(result, text, sizeof(text));
    reportError("cuModuleLoadDataEx (PTX JIT) failed: %s: %s", text, log);
    return nullptr;
  }
  return loaded;
}

/// The Function for `name` in `context`, looked up in `loaded` with the
/// driver and recorded in `module` the first time; null (with the error
/// recorded) on failure. The caller holds module->mutex.
Function *getFunction(Module *module, CUcontext context, CUmodule loaded,
                      const char *name) {
  for (int i = 0; i < module->numFunctions; ++i) {
    Function *function = module->functions[i];
    if (function->context == context &&
        (function->lookupName == name || strcmp(function->name, name) == 0))
      return function;
  }
  CUfunction handle = nullptr;
  if (!check(driver.cuModuleGetFunction(&handle, loaded, name),
             "cuModuleGetFunction(\"%s\")", name))
    return nullptr;
  if (module->numFunctions == module->functionCapacity) {
    int capacity = module->functionCapacity ? 2 * module->functionCapacity : 8;
    auto **grown = static_cast<Function **>(
        realloc(module->functions, capacity * sizeof(Function *)));
    if (!grown) {
      reportError("out of host memory for the kernels of a GPU module");
      return nullptr;
    }
    module->functions = grown;
    module->functionCapacity = capacity;
  }
  auto *function = static_cast<Function *>(malloc(sizeof(Function)));
  char *copy = strdup(name);
  if (!function || !copy) {
    free(function);
    free(copy);
    reportError("out of host memory for a GPU kernel record");
    return nullptr;
  }
  *function = Function{handle, context, name, copy};
  module->functions[module->numFunctions++] = function;
  return function;
}

/// The name of the kernel this thread launched last (truncated), for the
/// message of a fault that a later synchronization reports.
thread_local char lastLaunched[256];

void rememberLaunch(const Function *function) {
  snprintf(lastLaunched, sizeof(lastLaunched), "%s", function->name);
}

/// Like `checkCleanup`, for a synchronization: a failure there is usually an
/// asynchronous fault of an earlier kernel, so the message names the last
/// kernel this thread launched.
void checkSynchronize(CUresult result, const char *what) {
  if (hasError || result == CUDA_SUCCESS)
    return;
  char text[256];
  formatResult(result, text, sizeof(text));
  if (lastLaunched[0])
    reportError("%s failed: %s (a kernel or copy failed; the last kernel "
                "this thread launched: `%s`%s)",
                what, text, lastLaunched,
                syncLaunches ? ""
                             : "; KILN_CUDA_SYNC_LAUNCHES=1 names the "
                               "faulting one");
  else
    reportError("%s failed: %s (a kernel or copy failed)", what, text);
}

} // namespace

//===----------------------------------------------------------------------===//
// Kiln's functions
//===----------------------------------------------------------------------===//

extern "C" const char *kilnCudaGetLastError(void) { return getLastError(); }

extern "C" void kilnCudaClearLastError(void) { clearLastError(); }

extern "C" void kilnCudaReportError(const char *message) {
  reportError("%s", message);
}

extern "C" void kilnCudaSynchronize(void) {
  if (hasError)
    return;
  ScopedContext context;
  if (context.ok)
    checkSynchronize(driver.cuCtxSynchronize(), "cuCtxSynchronize");
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

extern "C" void *mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  return createModule(data, /*isPTX=*/false, 0);
}

extern "C" void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return createModule(data, /*isPTX=*/true, optLevel);
}

extern "C" void mgpuModuleUnload(void *handle) {
  auto *module = static_cast<Module *>(handle);
  if (!module)
    return;
  // Runs from a global destructor, possibly after the driver shut down at
  // process exit: failures are ignored.
  for (int i = 0; i < module->numLoaded; ++i)
    (void)driver.cuModuleUnload(module->modules[i]);
  for (int i = 0; i < module->numFunctions; ++i) {
    free(module->functions[i]->name);
    free(module->functions[i]);
  }
  free(module->functions);
  pthread_mutex_destroy(&module->mutex);
  free(module);
}

extern "C" void *mgpuModuleGetFunction(void *handle, const char *name) {
  auto *module = static_cast<Module *>(handle);
  if (hasError || !module)
    return nullptr;
  ScopedContext scope;
  if (!scope.ok)
    return nullptr;
  CUcontext context = nullptr;
  if (!check(driver.cuCtxGetCurrent(&context), "cuCtxGetCurrent"))
    return nullptr;
  CUmodule loaded = nullptr;
  pthread_mutex_lock(&module->mutex);
  for (int i = 0; i < module->numLoaded; ++i)
    if (module->contexts[i] == context)
      loaded = module->modules[i];
  if (!loaded) {
    if (module->numLoaded == kMaxModuleContexts) {
      reportError("a GPU module was loaded into more than %d contexts",
                  kMaxModuleContexts);
    } else if ((loaded = loadModule(module))) {
      module->contexts[module->numLoaded] = context;
      module->modules[module->numLoaded++] = loaded;
    }
  }
  Function *function =
      loaded ? getFunction(module, context, loaded, name) : nullptr;
  pthread_mutex_unlock(&module->mutex);
  return function;
}

/// Allows `function` to use `smem` bytes of dynamic shared memory: above
/// 48 KiB, a kernel must opt in.
static bool allowSharedMemory(const Function *function, int32_t smem) {
  constexpr int32_t kDefaultLimit = 48 * 1024;
  if (smem <= kDefaultLimit)
    return true;
  return check(driver.cuFuncSetAttribute(
                   function->function,
                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d) of "
               "kernel `%s`",
               int(smem), function->name);
}

namespace {
/// A launch's dimensions, formatted only for an error message (launches are
/// the runtime's hot path).
struct LaunchShape {
  intptr_t cluster[3]; // All 0 without a cluster.
  intptr_t grid[3];
  intptr_t block[3];
  int32_t smem;

  void format(char *buffer, size_t size) const {
    int n = 0;
    if (cluster[0])
      n = snprintf(buffer, size, "cluster %ldx%ldx%ld, ", long(cluster[0]),
                   long(cluster[1]), long(cluster[2]));
    snprintf(buffer + n, size - n,
             "grid %ldx%ldx%ld, block %ldx%ldx%ld, %d bytes of shared memory",
             long(grid[0]), long(grid[1]), long(grid[2]), long(block[0]),
             long(block[1]), long(block[2]), int(smem));
  }
};
} // namespace

/// Reports the result of launching `function` with `shape` by `what` (the
/// driver call) and, after a successful launch, remembers it and, with
/// KILN_CUDA_SYNC_LAUNCHES, waits for it, so that a fault names it.
static void finishLaunch(CUresult launched, const char *what,
                         const Function *function, const LaunchShape &shape,
                         CUstream stream) {
  char text[256], dims[200];
  if (launched != CUDA_SUCCESS) {
    shape.format(dims, sizeof(dims));
    check(launched, "%s of `%s` (%s)", what, function->name, dims);
    return;
  }
  rememberLaunch(function);
  if (!syncLaunches)
    return;
  CUresult result = driver.cuStreamSynchronize(stream);
  if (result == CUDA_SUCCESS)
    return;
  shape.format(dims, sizeof(dims));
  formatResult(result, text, sizeof(text));
  reportError("kernel `%s` (%s) failed (KILN_CUDA_SYNC_LAUNCHES: "
              "synchronized after its launch): %s",
              function->name, dims, text);
}

extern "C" void mgpuLaunchKernel(void *function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, void *stream,
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  if (hasError || !function)
    return;
  ScopedContext scope;
  if (!scope.ok)
    return;
  auto *kernel = static_cast<const Function *>(function);
  if (!allowSharedMemory(kernel, smem))
    return;
  auto *cuStream = static_cast<CUstream>(stream);
  finishLaunch(
      driver.cuLaunchKernel(kernel->function, gridX, gridY, gridZ, blockX,
                            blockY, blockZ, smem, cuStream, params, extra),
      "cuLaunchKernel", kernel,
      {{0, 0, 0}, {gridX, gridY, gridZ}, {blockX, blockY, blockZ}, smem},
      cuStream);
}

extern "C" void mgpuLaunchClusterKernel(
    void *function, intptr_t clusterX, intptr_t clusterY, intptr_t clusterZ,
    intptr_t gridX, intptr_t gridY, intptr_t gridZ, intptr_t blockX,
    intptr_t blockY, intptr_t blockZ, int32_t smem, void *stream,
    void **params, void **extra) {
  if (hasError || !function)
    return;
  ScopedContext scope;
  if (!scope.ok)
    return;
  if (!driver.cuLaunchKernelEx) {
    reportError("a cluster launch needs cuLaunchKernelEx (CUDA 12.0), which "
                "the driver lacks");
    return;
  }
  auto *kernel = static_cast<const Function *>(function);
  if (!allowSharedMemory(kernel, smem))
    return;
  // More than 8 blocks per cluster is non-portable and needs an opt-in.
  if (clusterX * clusterY * clusterZ > 8 &&
      !check(driver.cuFuncSetAttribute(
                 kernel->function,
                 CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
             "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED) of "
             "kernel `%s`",
             kernel->name))
    return;
  CUlaunchAttribute attribute;
  memset(&attribute, 0, sizeof(attribute));
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = unsigned(clusterX);
  attribute.value.clusterDim.y = unsigned(clusterY);
  attribute.value.clusterDim.z = unsigned(clusterZ);
  CUlaunchConfig config;
  memset(&config, 0, sizeof(config));
  config.gridDimX = unsigned(gridX);
  config.gridDimY = unsigned(gridY);
  config.gridDimZ = unsigned(gridZ);
  config.blockDimX = unsigned(blockX);
  config.blockDimY = unsigned(blockY);
  config.blockDimZ = unsigned(blockZ);
  config.sharedMemBytes = unsigned(smem);
  config.hStream = static_cast<CUstream>(stream);
  config.attrs = &attribute;
  config.numAttrs = 1;
  finishLaunch(
      driver.cuLaunchKernelEx(&config, kernel->function, params, extra),
      "cuLaunchKernelEx", kernel,
      {{clusterX, clusterY, clusterZ},
       {gridX, gridY, gridZ},
       {blockX, blockY, blockZ},
       smem},
      config.hStream);
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

namespace {
/// This thread's cached stream, its context, and whether a caller holds it
/// (between mgpuStreamCreate and mgpuStreamDestroy). Trivially
/// constructible; never destroyed (one stream per thread that used the
/// runtime, released with its context).
thread_local CUstream cachedStream = nullptr;
thread_local CUcontext cachedStreamContext = nullptr;
thread_local bool cachedStreamInUse = false;
} // namespace

extern "C" void *mgpuStreamCreate(void) {
  if (hasError)
    return nullptr;
  ScopedContext scope;
  if (!scope.ok)
    return nullptr;
  // Every call of a Kiln function creates a stream and destroys it at the
  // end, which costs driver work each time: the thread's first stream is
  // kept by mgpuStreamDestroy and handed out again while no one holds it
  // (a second stream at the same time, or one in another context, is a
  // fresh one). Reuse keeps the semantics: a stream orders its own work,
  // and a blocking stream is ordered after the legacy default stream's
  // earlier work however old it is.
  CUcontext context = nullptr;
  if (cacheStreams &&
      !check(driver.cuCtxGetCurrent(&context), "cuCtxGetCurrent"))
    return nullptr;
  bool cacheable = cacheStreams && !cachedStreamInUse &&
                   (!cachedStream || cachedStreamContext == context);
  if (cacheable && cachedStream) {
    cachedStreamInUse = true;
    return cachedStream;
  }
  // A blocking stream: its work is ordered after work queued before on the
  // legacy default stream, where PyTorch writes the inputs by default.
  CUstream stream = nullptr;
  if (!check(driver.cuStreamCreate(&stream, CU_STREAM_DEFAULT),
             "cuStreamCreate"))
    return nullptr;
  if (cacheable) {
    cachedStream = stream;
    cachedStreamContext = context;
    cachedStreamInUse = true;
  }
  return stream;
}

extern "C" void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  if (stream == cachedStream) {
    cachedStreamInUse = false;
    return;
  }
  ScopedContext scope;
  if (scope.ok)
    checkCleanup(driver.cuStreamDestroy(static_cast<CUstream>(stream)),
                 "cuStreamDestroy");
}

extern "C" void mgpuStreamSynchronize(void *stream) {
  // Waits even after an error: the work queued before it may still use
  // memory that the caller frees next.
  ScopedContext scope;
  if (scope.ok)
    checkSynchronize(driver.cuStreamSynchronize(static_cast<CUstream>(stream)),
                     "cuStreamSynchronize");
}

extern "C" void mgpuStreamWaitEvent(void *stream, void *event) {
  if (hasError || !event)
    return;
  ScopedContext scope;
  if (scope.ok)
    check(driver.cuStreamWaitEvent(static_cast<CUstream>(stream),
                                   static_cast<CUevent>(event), 0),
          "cuStreamWaitEvent");
}

extern "C" void *mgpuEventCreate(void) {
  if (hasError)
    return nullptr;
  ScopedContext scope;
  if (!scope.ok)
    return nullptr;
  CUevent event = nullptr;
  check(driver.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return event;
}

extern "C" void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  ScopedContext scope;
  if (scope.ok)
    checkCleanup(driver.cuEventDestroy(static_cast<CUevent>(event)),
                 "cuEventDestroy");
}

extern "C" void mgpuEventSynchronize(void *event) {
  if (!event)
    return;
  ScopedContext scope;
  if (scope.ok)
    checkSynchronize(driver.cuEventSynchronize(static_cast<CUevent>(event)),
                     "cuEventSynchronize");
}

extern "C" void mgpuEventRecord(void *event, void *stream) {
  if (hasError || !event)
    return;
  ScopedContext scope;
  if (scope.ok)
    check(driver.cuEventRecord(static_cast<CUevent>(event),
                               static_cast<CUstream>(stream)),
          "cuEventRecord");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                              bool isHostShared) {
  // Zero-size buffers (empty tensors) are never dereferenced.
  if (hasError || sizeBytes == 0)
    return nullptr;
  ScopedContext scope;
  if (!scope.ok)
    return nullptr;
  CUdeviceptr pointer = 0;
  auto bytes = static_cast<unsigned long long>(sizeBytes);
  if (isHostShared) {
    check(driver.cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL),
          "cuMemAllocManaged(%llu bytes)", bytes);
  } else if (hasMemoryPools()) {
    // Stream-ordered: no device-wide synchronization, unlike cuMemAlloc.
    check(driver.cuMemAllocAsync(&pointer, sizeBytes,
                                 static_cast<CUstream>(stream)),
          "cuMemAllocAsync(%llu bytes)", bytes);
  } else {
    check(driver.cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc(%llu bytes)",
          bytes);
  }
  return reinterpret_cast<void *>(pointer);
}

extern "C" void mgpuMemFree(void *ptr, void *stream) {
  // Frees even after an error, so a failed call does not leak.
  if (!ptr)
    return;
  ScopedContext scope;
  if (!scope.ok)
    return;
  auto pointer = reinterpret_cast<CUdeviceptr>(ptr);
  unsigned isManaged = 0;
  if (driver.cuPointerGetAttribute(&isManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   pointer) != CUDA_SUCCESS)
    isManaged = 0;
  if (!isManaged && hasMemoryPools())
    checkCleanup(driver.cuMemFreeAsync(pointer, static_cast<CUstream>(stream)),
                 "cuMemFreeAsync");
  else
    checkCleanup(driver.cuMemFree(pointer), "cuMemFree");
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           void *stream) {
  if (hasError || sizeBytes == 0)
    return;
  ScopedContext scope;
  if (!scope.ok)
    return;
  // Unified addressing: the driver tells host from device pointers.
  check(driver.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                             reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                             static_cast<CUstream>(stream)),
        "cuMemcpyAsync(%zu bytes)", sizeBytes);
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *stream) {
  if (hasError || count == 0)
    return;
  ScopedContext scope;
  if (scope.ok)
    check(driver.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, static_cast<CUstream>(stream)),
          "cuMemsetD16Async");
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *stream) {
  if (hasError || count == 0)
    return;
  ScopedContext scope;
  if (scope.ok)
    check(driver.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, static_cast<CUstream>(stream)),
          "cuMemsetD32Async");
}

extern "C" void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  if (hasError || sizeBytes == 0)
    return;
  ScopedContext scope;
  if (scope.ok)
    check(driver.cuMemHostRegister(ptr, sizeBytes, 0), "cuMemHostRegister");
}

extern "C" void mgpuMemHostUnregister(void *ptr) {
  if (!ptr)
    return;
  ScopedContext scope;
  if (scope.ok)
    checkCleanup(driver.cuMemHostUnregister(ptr), "cuMemHostUnregister");
}

namespace {
/// The start and byte size of a ranked memref given as a descriptor pointer
/// {allocated, aligned, offset, sizes[rank], strides[rank]}, which must be
/// dense (row-major, as upstream requires too).
bool getDenseExtent(int64_t rank, void *descriptor, int64_t elementSize,
                    char **start, uint64_t *sizeBytes) {
  auto *fields = static_cast<int64_t *>(descriptor);
  char *aligned = reinterpret_cast<char *>(fields[1]);
  const int64_t *sizes = fields + 3, *strides = fields + 3 + rank;
  int64_t count = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    if (sizes[i] != 1 && strides[i] != count) {
      reportError("gpu.host_register needs a dense row-major memref (dim %lld "
                  "has stride %lld, expected %lld)",
                  static_cast<long long>(i),
                  static_cast<long long>(strides[i]),
                  static_cast<long long>(count));
      return false;
    }
    count *= sizes[i];
  }
  *start = aligned + fields[2] * elementSize;
  *sizeBytes = uint64_t(count * elementSize);
  return true;
}
} // namespace

extern "C" void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementSizeBytes) {
  char *start;
  uint64_t sizeBytes;
  if (!hasError &&
      getDenseExtent(rank, descriptor, elementSizeBytes, &start, &sizeBytes))
    mgpuMemHostRegister(start, sizeBytes);
}

extern "C" void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementSizeBytes) {
  char *start;
  uint64_t sizeBytes;
  if (getDenseExtent(rank, descriptor, elementSizeBytes, &start, &sizeBytes) &&
      sizeBytes)
    mgpuMemHostUnregister(start);
}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  defaultDevice = device;
}
