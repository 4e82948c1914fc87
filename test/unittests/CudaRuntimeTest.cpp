//===- CudaRuntimeTest.cpp - Kiln's CUDA runtime without a GPU ------------===//
//
// Kiln's CUDA runtime on a machine without a usable driver: every call
// reports a clear error in the thread's slot and returns (no crash, no
// abort), the first error of a thread wins, later work is a no-op, and
// cleanup calls are safe. Run as is (libcuda.so.1 absent or without a
// device; skipped where a device works), and with KILN_CUDA_DRIVER pointing
// at the toolkit's stub libcuda.so (the StubDriver test), which proves that
// every driver function the runtime resolves exists under the name it looks
// up.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/CudaRuntime.h"

#include "gtest/gtest.h"

#include <cstdlib>
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

} // namespace
