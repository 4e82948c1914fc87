//===- HostAllocatorTest.cpp - The heap of compiled CPU code --------------===//
//
// lib/Runtime/HostAllocator.c: reuse of freed blocks, alignment, limits and
// threads; and what it is for: the second and later calls of a function
// whose temporaries are allocated per loop iteration touch no new page, even
// when malloc maps every large block afresh (as glibc does in a process that
// has freed no large block yet; M_MMAP_THRESHOLD pins that state here, which
// also stops glibc from raising the threshold by itself).
//
//===----------------------------------------------------------------------===//

#include "kiln/Execution/JitSession.h"
#include "kiln/Runtime/HostAllocator.h"

#include "gtest/gtest.h"

#include <malloc.h>
#include <sys/resource.h>

#include <cstdint>
#include <thread>
#include <vector>

using namespace mlir;
using namespace mlir::kiln;

namespace {

bool isAligned(void *pointer, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(pointer) % alignment == 0;
}

TEST(HostAllocatorTest, ReusesFreedLargeBlocksOfTheSameClass) {
  size_t size = 3 << 20;
  void *a = _mlir_memref_to_llvm_alloc(size);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(isAligned(a, 64));
  static_cast<char *>(a)[size - 1] = 1;
  _mlir_memref_to_llvm_free(a);
  // The same size and a slightly smaller one share the class: the block
  // comes back.
  void *b = _mlir_memref_to_llvm_alloc(size - 1000);
  EXPECT_EQ(b, a);
  // Another class while b is live: a fresh block.
  void *c = _mlir_memref_to_llvm_alloc(size * 2);
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c, b);
  _mlir_memref_to_llvm_free(b);
  _mlir_memref_to_llvm_free(c);
}

TEST(HostAllocatorTest, SmallBlocksAreNotKept) {
  size_t bytesBefore;
  int blocksBefore;
  kilnHostAllocatorCacheStats(&bytesBefore, &blocksBefore);
  void *small = _mlir_memref_to_llvm_alloc(1000);
  ASSERT_NE(small, nullptr);
  EXPECT_TRUE(isAligned(small, 64));
  _mlir_memref_to_llvm_free(small);
  size_t bytesAfter;
  int blocksAfter;
  kilnHostAllocatorCacheStats(&bytesAfter, &blocksAfter);
  EXPECT_EQ(bytesAfter, bytesBefore);
  EXPECT_EQ(blocksAfter, blocksBefore);
}

TEST(HostAllocatorTest, AlignmentsZeroSizeAndNull) {
  for (size_t alignment : {1, 16, 64, 128, 4096}) {
    for (size_t size : {0, 1, 100000}) {
      void *p = _mlir_memref_to_llvm_aligned_alloc(alignment, size);
      ASSERT_NE(p, nullptr) << alignment << " " << size;
      EXPECT_TRUE(isAligned(p, std::max<size_t>(alignment, 64)));
      _mlir_memref_to_llvm_free(p);
    }
  }
  _mlir_memref_to_llvm_free(nullptr);
}

// What compiled code does when the machine has no memory for a block: the
// call made through kilnHostAllocatorCall (the JIT's; every AOT wrapper does
// the same) ends, returning the bytes, and what it had allocated in blocks
// of 64 KiB and more is released; the code after the failed allocation never
// runs.
struct FailingCall {
  void *large = nullptr;
  void *small = nullptr;
  bool ranOn = false;
};

void allocateThenFail(void **arguments) {
  auto *call = static_cast<FailingCall *>(arguments[0]);
  call->large = _mlir_memref_to_llvm_alloc(5 << 20);
  call->small = _mlir_memref_to_llvm_alloc(1000);
  static_cast<char *>(call->small)[999] = 1;
  _mlir_memref_to_llvm_alloc(SIZE_MAX - 10);
  call->ranOn = true;
}

TEST(HostAllocatorTest, FailedAllocationEndsTheCall) {
  FailingCall call;
  void *arguments[] = {&call};
  EXPECT_EQ(kilnHostAllocatorCall(allocateThenFail, arguments), SIZE_MAX - 10);
  EXPECT_FALSE(call.ranOn);
  ASSERT_NE(call.large, nullptr);
  // The large block was released into the cache: its class comes back.
  void *again = _mlir_memref_to_llvm_alloc(5 << 20);
  EXPECT_EQ(again, call.large);
  _mlir_memref_to_llvm_free(again);
  // Blocks under 64 KiB are not tracked: the call leaves them allocated.
  _mlir_memref_to_llvm_free(call.small);
}

void allocateMisaligned(void **) {
  _mlir_memref_to_llvm_aligned_alloc(48, 100);
}

void allocateMisalignedEmpty(void **) {
  _mlir_memref_to_llvm_aligned_alloc(48, 0);
}

TEST(HostAllocatorTest, AnAlignmentThatIsNoPowerOfTwoFails) {
  EXPECT_EQ(kilnHostAllocatorCall(allocateMisaligned, nullptr), 100u);
  // A failed zero-size block counts as one byte: 0 is the call's success.
  EXPECT_EQ(kilnHostAllocatorCall(allocateMisalignedEmpty, nullptr), 1u);
}

// A block a successful call leaves allocated is the caller's: still usable
// and freed later (the call's end only forgets it).
void allocateAndKeep(void **arguments) {
  *static_cast<void **>(arguments[0]) = _mlir_memref_to_llvm_alloc(7 << 20);
}

void failInside(void **arguments) {
  EXPECT_EQ(kilnHostAllocatorCall(allocateMisaligned, nullptr), 100u);
  allocateAndKeep(arguments);
}

TEST(HostAllocatorTest, SuccessfulAndNestedCalls) {
  void *kept = nullptr;
  void *arguments[] = {&kept};
  EXPECT_EQ(kilnHostAllocatorCall(allocateAndKeep, arguments), 0u);
  ASSERT_NE(kept, nullptr);
  static_cast<char *>(kept)[(7 << 20) - 1] = 1;
  _mlir_memref_to_llvm_free(kept);
  // An inner call that fails leaves the outer one running.
  kept = nullptr;
  EXPECT_EQ(kilnHostAllocatorCall(failInside, arguments), 0u);
  ASSERT_NE(kept, nullptr);
  _mlir_memref_to_llvm_free(kept);
}

// Outside any call there is nothing to return to: the message, then abort.
TEST(HostAllocatorTest, FailureOutsideACallAborts) {
  EXPECT_DEATH(_mlir_memref_to_llvm_alloc(SIZE_MAX - 10),
               "kiln: out of memory: compiled code could not allocate "
               "18446744073709551605 bytes");
}

TEST(HostAllocatorTest, KeepsAtMostItsLimit) {
  // 40 live blocks of 64 MiB, then all freed: at most 1 GiB stays.
  std::vector<void *> blocks;
  for (int i = 0; i < 40; ++i) {
    blocks.push_back(_mlir_memref_to_llvm_alloc(size_t(64) << 20));
    ASSERT_NE(blocks.back(), nullptr);
  }
  for (void *block : blocks)
    _mlir_memref_to_llvm_free(block);
  size_t bytes;
  int count;
  kilnHostAllocatorCacheStats(&bytes, &count);
  EXPECT_LE(bytes, size_t(1) << 30);
  EXPECT_LE(count, 64);
}

TEST(HostAllocatorTest, ManyThreads) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < 2000; ++i) {
        size_t size = (size_t(64) << 10) * (1 + (i + t) % 5);
        auto *p = static_cast<unsigned char *>(_mlir_memref_to_llvm_alloc(size));
        ASSERT_NE(p, nullptr);
        p[0] = p[size - 1] = static_cast<unsigned char>(t);
        EXPECT_EQ(p[0], t);
        _mlir_memref_to_llvm_free(p);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
}

long getMinorFaults() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The attention adjoint allocates [64, Sk] f32 blocks (1 MiB here) and the
// [Dk, Sk] transposes per query block and head; the results are scalars, so
// that the runtime's own result tensors allocate nothing large per call.
constexpr const char *kTemporaries = R"mlir(
func.func @grads(%q: tensor<1x2x256x16xf32>, %k: tensor<1x2x4096x16xf32>, %v: tensor<1x2x4096x16xf32>, %do: tensor<1x2x256x16xf32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %dq, %dk, %dv = kiln.attention_grad %q, %k, %v, %do
      : tensor<1x2x256x16xf32>, tensor<1x2x4096x16xf32>, tensor<1x2x4096x16xf32>, tensor<1x2x256x16xf32>
      -> tensor<1x2x256x16xf32>, tensor<1x2x4096x16xf32>, tensor<1x2x4096x16xf32>
  %a = kiln.sum %dq {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x256x16xf32> -> tensor<f32>
  %b = kiln.sum %dk {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x4096x16xf32> -> tensor<f32>
  %c = kiln.sum %dv {axes = array<i64: 0, 1, 2, 3>} : tensor<1x2x4096x16xf32> -> tensor<f32>
  return %a, %b, %c : tensor<f32>, tensor<f32>, tensor<f32>
}
)mlir";

TEST(HostAllocatorTest, SteadyStateCallsTouchNoNewPages) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces glibc's malloc, whose mmap "
                  "threshold and page faults this measures";
#endif
  // glibc maps every block of 128 KiB and more and unmaps it on free.
  ASSERT_EQ(mallopt(M_MMAP_THRESHOLD, 128 * 1024), 1);
  JitSession session;
  FailureOr<std::unique_ptr<JitModule>> compiled =
      session.compileSource(kTemporaries, "temporaries.mlir");
  ASSERT_TRUE(succeeded(compiled));
  SmallVector<HostTensor> inputs;
  for (auto [shape, seed] :
       {std::pair<SmallVector<int64_t>, uint64_t>{{1, 2, 256, 16}, 1},
        {{1, 2, 4096, 16}, 2},
        {{1, 2, 4096, 16}, 3},
        {{1, 2, 256, 16}, 4}}) {
    llvm::Expected<HostTensor> tensor =
        HostTensor::random(DType::F32, shape, seed);
    ASSERT_TRUE(bool(tensor));
    inputs.push_back(std::move(*tensor));
  }
  // Warm up: the first call maps what the cache then keeps.
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(succeeded((*compiled)->invoke("grads", inputs)));
  long before = getMinorFaults();
  constexpr int kCalls = 3;
  for (int i = 0; i < kCalls; ++i)
    ASSERT_TRUE(succeeded((*compiled)->invoke("grads", inputs)));
  long perCall = (getMinorFaults() - before) / kCalls;
  // A call's temporaries span thousands of pages (each of the 8 query
  // blocks of the 2 heads has 1 MiB blocks of scores, probabilities and
  // their adjoints); with malloc's mapping every one would fault afresh.
  EXPECT_LT(perCall, 64) << "page faults per call";
}

} // namespace
