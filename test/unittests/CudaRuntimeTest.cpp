//===- CudaRuntimeTest.cpp - Kiln's CUDA runtime without a GPU ------------===//
//
// Kiln's CUDA runtime on a machine without a usable driver: every call
// reports a clear error in the thread's slot and returns (no crash, no
// abort), the first error of a thread wins, later work is a no-op, and
// cleanup calls are safe. Run as is (libcuda.so.1 absent or without a
// device; skipped where a device works), and with KILN_CUDA_DRIVER pointing
// at the toolkit's stub libcuda.so (the StubDriver test), which proves that
// every driver function the runtime resolves exists under the name it looks
// up. The CudaRuntimeFakeDriver tests run against CudaFakeDriver.cpp (a
// driver without a GPU that the tests script): what the runtime reports when
// a launch fails or a kernel faults.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaRuntime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <thread>

namespace {

/// The thread's error message, or "" when there is none.
std::string lastError() {
  const char *message = kilnCudaGetLastError();
  return message ? message : "";
}

/// Skips the test where the runtime works (a driver and a device).
#define SKIP_IF_DEVICE_WORKS()                                                 \
  do {                                                                         \
    kilnCudaClearLastError();                                                  \
    void *stream = mgpuStreamCreate();                                         \
    if (!kilnCudaGetLastError()) {                                             \
      mgpuStreamDestroy(stream);                                               \
      GTEST_SKIP() << "a CUDA device works here";                              \
    }                                                                          \
    EXPECT_EQ(stream, nullptr);                                                \
  } while (false)

bool usesStub() {
  const char *path = std::getenv("KILN_CUDA_DRIVER");
  return path && std::string(path).find("stubs") != std::string::npos;
}

TEST(CudaRuntime, ClearedSlotIsEmpty) {
  kilnCudaClearLastError();
  EXPECT_EQ(kilnCudaGetLastError(), nullptr);
  kilnCudaReportError("first");
  kilnCudaReportError("second");
  EXPECT_EQ(lastError(), "first");
  kilnCudaClearLastError();
  EXPECT_EQ(kilnCudaGetLastError(), nullptr);
}

TEST(CudaRuntime, NoDriverReportsAClearError) {
  if (usesStub())
    GTEST_SKIP() << "the StubDriver test covers the stub";
  SKIP_IF_DEVICE_WORKS();
  std::string message = lastError();
  // Either libcuda.so.1 is missing, or it is there without a device.
  bool noLibrary = message.find("cannot load the CUDA driver libcuda.so.1") !=
                   std::string::npos;
  bool noDevice = message.rfind("cuInit failed: CUDA_ERROR", 0) == 0;
  EXPECT_TRUE(noLibrary || noDevice) << message;
}

TEST(CudaRuntime, StubDriver) {
  if (!usesStub())
    GTEST_SKIP() << "run with KILN_CUDA_DRIVER=<toolkit>/stubs/libcuda.so";
  SKIP_IF_DEVICE_WORKS();
  // Every symbol resolved (a missing one is reported before cuInit runs),
  // and the stub's cuInit fails.
  EXPECT_EQ(lastError(), "cuInit failed: CUDA_ERROR_STUB_LIBRARY: the "
                         "toolkit's stub libcuda.so was loaded instead of a "
                         "driver");
}

TEST(CudaRuntime, FirstErrorWinsAndLaterWorkIsSkipped) {
  SKIP_IF_DEVICE_WORKS();
  std::string first = lastError();
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  EXPECT_EQ(mgpuEventCreate(), nullptr);
  int host = 7;
  mgpuMemcpy(&host, &host, sizeof(host), nullptr);
  mgpuMemset32(&host, 0, 1, nullptr);
  EXPECT_EQ(host, 7);
  EXPECT_EQ(lastError(), first);

  // After a clear, the next call reports the driver's state again.
  kilnCudaClearLastError();
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  EXPECT_EQ(lastError(), first);
}

TEST(CudaRuntime, ModulesLoadLazily) {
  SKIP_IF_DEVICE_WORKS();
  kilnCudaClearLastError();
  // What `#gpu.select_object` calls from a global constructor: it must not
  // touch the driver, so a library loads where there is no GPU.
  static const char image[] = "not a cubin";
  void *module = mgpuModuleLoad(const_cast<char *>(image), sizeof(image));
  ASSERT_NE(module, nullptr);
  void *jitModule = mgpuModuleLoadJIT(const_cast<char *>(image), 2);
  ASSERT_NE(jitModule, nullptr);
  EXPECT_EQ(kilnCudaGetLastError(), nullptr);

  // The first kernel lookup needs the driver.
  EXPECT_EQ(mgpuModuleGetFunction(module, "kernel"), nullptr);
  EXPECT_NE(kilnCudaGetLastError(), nullptr);
  void *params[] = {nullptr};
  mgpuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 64 * 1024, nullptr, params,
                   nullptr, 1);
  mgpuLaunchClusterKernel(nullptr, 2, 1, 1, 2, 1, 1, 32, 1, 1, 0, nullptr,
                          params, nullptr);
  mgpuModuleUnload(module);
  mgpuModuleUnload(jitModule);
  mgpuModuleUnload(nullptr);
}

TEST(CudaRuntime, CleanupOfNothingIsSafe) {
  kilnCudaClearLastError();
  mgpuMemFree(nullptr, nullptr);
  mgpuStreamDestroy(nullptr);
  mgpuEventDestroy(nullptr);
  mgpuEventSynchronize(nullptr);
  mgpuMemHostUnregister(nullptr);
  // Zero-size work is never an error.
  EXPECT_EQ(mgpuMemAlloc(0, nullptr, false), nullptr);
  mgpuMemcpy(nullptr, nullptr, 0, nullptr);
  mgpuMemset16(nullptr, 0, 0, nullptr);
  EXPECT_EQ(kilnCudaGetLastError(), nullptr);
}

TEST(CudaRuntime, HostRegisterChecksTheLayout) {
  kilnCudaClearLastError();
  // A 2x3 memref descriptor with a transposed (non-dense) layout.
  float data[6] = {};
  int64_t descriptor[] = {reinterpret_cast<int64_t>(data),
                          reinterpret_cast<int64_t>(data), 0, 2, 3, 1, 2};
  mgpuMemHostRegisterMemRef(2, descriptor, sizeof(float));
  EXPECT_EQ(lastError(), "gpu.host_register needs a dense row-major memref "
                         "(dim 1 has stride 2, expected 1)");
}

TEST(CudaRuntime, ErrorsArePerThread) {
  SKIP_IF_DEVICE_WORKS();
  kilnCudaClearLastError();
  std::string other;
  std::thread thread([&] {
    EXPECT_EQ(mgpuStreamCreate(), nullptr);
    other = lastError();
  });
  thread.join();
  EXPECT_FALSE(other.empty());
  EXPECT_EQ(kilnCudaGetLastError(), nullptr);
}

//===----------------------------------------------------------------------===//
// Against the fake driver (KILN_CUDA_DRIVER=<build>/libKilnCudaFakeDriver.so)
//===----------------------------------------------------------------------===//

/// The fake driver's variable `name` (CudaFakeDriver.cpp), or null when the
/// runtime does not run against it.
template <typename T> T *fakeVariable(const char *name) {
  const char *path = std::getenv("KILN_CUDA_DRIVER");
  if (!path || std::string(path).find("KilnCudaFakeDriver") ==
                   std::string::npos)
    return nullptr;
  // The runtime opened it first (RTLD_NOLOAD: the same instance).
  kilnCudaClearLastError();
  mgpuStreamDestroy(mgpuStreamCreate());
  void *library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  return library ? static_cast<T *>(dlsym(library, name)) : nullptr;
}

/// The error codes the fake driver can name (cuda.h's values).
constexpr int kInvalidValue = 1, kIllegalAddress = 700;

class CudaRuntimeFakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    launchResult = fakeVariable<int>("kilnFakeLaunchResult");
    if (!launchResult)
      GTEST_SKIP() << "run with KILN_CUDA_DRIVER=<build>/"
                      "libKilnCudaFakeDriver.so";
    faultOnLaunch = fakeVariable<int>("kilnFakeFaultOnLaunch");
    pendingFault = fakeVariable<int>("kilnFakePendingFault");
    launches = fakeVariable<int>("kilnFakeLaunches");
    getFunctions = fakeVariable<int>("kilnFakeGetFunctions");
    synchronizes = fakeVariable<int>("kilnFakeSynchronizes");
    ASSERT_TRUE(faultOnLaunch && pendingFault && launches && getFunctions &&
                synchronizes);
    *launchResult = *faultOnLaunch = *pendingFault = 0;
    kilnCudaClearLastError();
    module = mgpuModuleLoad(const_cast<char *>(image), sizeof(image));
    ASSERT_NE(module, nullptr);
  }
  void TearDown() override {
    if (launchResult)
      *launchResult = *faultOnLaunch = *pendingFault = 0;
    mgpuModuleUnload(module);
    kilnCudaClearLastError();
  }
  void launch(void *function, void *stream = nullptr) {
    mgpuLaunchKernel(function, 2, 3, 1, 128, 1, 1, 1024, stream, nullptr,
                     nullptr, 0);
  }
  static bool syncLaunches() {
    const char *value = std::getenv("KILN_CUDA_SYNC_LAUNCHES");
    return value && *value && std::string(value) != "0";
  }

  static constexpr char image[] = "a fake cubin";
  void *module = nullptr;
  int *launchResult = nullptr, *faultOnLaunch = nullptr,
      *pendingFault = nullptr, *launches = nullptr, *getFunctions = nullptr,
      *synchronizes = nullptr;
};

TEST_F(CudaRuntimeFakeDriver, FunctionsAreLookedUpOncePerName) {
  int before = *getFunctions;
  void *first = mgpuModuleGetFunction(module, "kernel_a");
  // Another pointer to the same name: the same function.
  std::string sameName = "kernel_a";
  void *again = mgpuModuleGetFunction(module, sameName.c_str());
  void *other = mgpuModuleGetFunction(module, "kernel_b");
  ASSERT_EQ(kilnCudaGetLastError(), nullptr) << lastError();
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  EXPECT_EQ(*getFunctions - before, 2);
}

TEST_F(CudaRuntimeFakeDriver, LaunchErrorNamesTheKernel) {
  void *function = mgpuModuleGetFunction(module, "attention_fwd_kernel");
  ASSERT_NE(function, nullptr) << lastError();
  *launchResult = kInvalidValue;
  launch(function);
  EXPECT_EQ(lastError(), "cuLaunchKernel of `attention_fwd_kernel` (grid "
                         "2x3x1, block 128x1x1, 1024 bytes of shared memory) "
                         "failed: CUDA_ERROR_INVALID_VALUE: invalid argument");
}

TEST_F(CudaRuntimeFakeDriver, ClusterLaunchErrorNamesTheKernel) {
  void *function = mgpuModuleGetFunction(module, "clustered_kernel");
  ASSERT_NE(function, nullptr) << lastError();
  *launchResult = kInvalidValue;
  mgpuLaunchClusterKernel(function, 2, 1, 1, 4, 3, 1, 128, 1, 1, 1024, nullptr,
                          nullptr, nullptr);
  EXPECT_EQ(lastError(),
            "cuLaunchKernelEx of `clustered_kernel` (cluster 2x1x1, grid "
            "4x3x1, block 128x1x1, 1024 bytes of shared memory) failed: "
            "CUDA_ERROR_INVALID_VALUE: invalid argument");
}

TEST_F(CudaRuntimeFakeDriver, AsynchronousFaultNamesAKernel) {
  void *good = mgpuModuleGetFunction(module, "good_kernel");
  void *faulty = mgpuModuleGetFunction(module, "faulty_kernel");
  ASSERT_TRUE(good && faulty) << lastError();
  void *stream = mgpuStreamCreate();
  int synchronizesBefore = *synchronizes;
  launch(good, stream);
  ASSERT_EQ(kilnCudaGetLastError(), nullptr) << lastError();
  // The launch succeeds; the kernel faults on the device afterwards.
  *faultOnLaunch = kIllegalAddress;
  launch(faulty, stream);
  if (syncLaunches()) {
    // Each launch waited for its kernel: the fault names it.
    EXPECT_EQ(*synchronizes - synchronizesBefore, 2);
    EXPECT_EQ(lastError(),
              "kernel `faulty_kernel` (grid 2x3x1, block 128x1x1, 1024 "
              "bytes of shared memory) failed (KILN_CUDA_SYNC_LAUNCHES: "
              "synchronized after its launch): CUDA_ERROR_ILLEGAL_ADDRESS: "
              "an illegal memory access was encountered");
  } else {
    // Nothing waits until the stream's synchronization, which can only
    // name the last kernel launched.
    EXPECT_EQ(*synchronizes - synchronizesBefore, 0);
    EXPECT_EQ(kilnCudaGetLastError(), nullptr) << lastError();
    mgpuStreamSynchronize(stream);
    EXPECT_EQ(lastError(),
              "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS: an "
              "illegal memory access was encountered (a kernel or copy "
              "failed; the last kernel this thread launched: "
              "`faulty_kernel`; KILN_CUDA_SYNC_LAUNCHES=1 names the "
              "faulting one)");
  }
  mgpuStreamDestroy(stream);
}

/// Whether the runtime reads `variable` as on (set, not "" or "0").
static bool envEnabled(const char *variable) {
  const char *value = std::getenv(variable);
  return value && *value && std::string(value) != "0";
}

TEST_F(CudaRuntimeFakeDriver, DefaultPoolKeepsItsMemoryOnRequest) {
  bool keep = envEnabled("KILN_CUDA_KEEP_POOL_MEMORY");
  void *first = mgpuMemAlloc(256, nullptr, false);
  void *second = mgpuMemAlloc(256, nullptr, false);
  ASSERT_TRUE(first && second) << lastError();
  mgpuMemFree(first, nullptr);
  mgpuMemFree(second, nullptr);
  // Once per device, with the first stream-ordered allocation, and only
  // when asked: the default pool is process-wide.
  EXPECT_EQ(*fakeVariable<int>("kilnFakeThresholdSets"), keep ? 1 : 0);
  if (keep) {
    EXPECT_EQ(*fakeVariable<uint64_t>("kilnFakeThreshold"), UINT64_MAX);
  }
  EXPECT_EQ(kilnCudaGetLastError(), nullptr) << lastError();
}

TEST_F(CudaRuntimeFakeDriver, StreamsAreCachedPerThreadOnRequest) {
  int *creates = fakeVariable<int>("kilnFakeStreamCreates");
  int *destroys = fakeVariable<int>("kilnFakeStreamDestroys");
  bool cached = envEnabled("KILN_CUDA_STREAM_CACHE");
  int createsBefore = *creates, destroysBefore = *destroys;
  // What three calls of a Kiln function do.
  void *streams[3];
  for (void *&stream : streams) {
    stream = mgpuStreamCreate();
    mgpuStreamSynchronize(stream);
    mgpuStreamDestroy(stream);
  }
  ASSERT_EQ(kilnCudaGetLastError(), nullptr) << lastError();
  if (cached) {
    // SetUp's first use created the thread's stream; it is handed out again.
    EXPECT_EQ(*creates - createsBefore, 0);
    EXPECT_EQ(*destroys - destroysBefore, 0);
    EXPECT_EQ(streams[0], streams[1]);
    EXPECT_EQ(streams[1], streams[2]);
  } else {
    EXPECT_EQ(*creates - createsBefore, 3);
    EXPECT_EQ(*destroys - destroysBefore, 3);
  }
  // Two streams at the same time are distinct; the second is a real one.
  void *held = mgpuStreamCreate();
  void *another = mgpuStreamCreate();
  EXPECT_NE(held, another);
  createsBefore = *creates;
  destroysBefore = *destroys;
  mgpuStreamDestroy(another);
  EXPECT_EQ(*destroys - destroysBefore, 1);
  mgpuStreamDestroy(held);
  EXPECT_EQ(*destroys - destroysBefore, cached ? 1 : 2);
  // Another thread gets its own stream.
  void *other = nullptr;
  std::thread thread([&] {
    other = mgpuStreamCreate();
    mgpuStreamDestroy(other);
  });
  thread.join();
  EXPECT_NE(other, nullptr);
  if (cached) {
    EXPECT_NE(other, streams[0]);
  }
  EXPECT_EQ(kilnCudaGetLastError(), nullptr) << lastError();
}

} // namespace
