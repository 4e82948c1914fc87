//===- main.cpp - Embedding Kiln: build, lower and run a graph ------------===//
//
// Builds `forward(x, w, b) = (y, s)` with y = matmul(x, w) + b and
// s = sum(y, axes = [1]), and `loss(x, w, b) = sum(y * y)`, from C++ with the
// kiln ops' builders; differentiates `loss` with respect to w and b with
// kiln-autodiff (typed AutodiffOptions) and lowers everything ahead of time
// with the CPU pipeline, then JIT-compiles the same with JitOptions that
// carry the autodiff and pipeline options, runs `forward` and the generated
// `loss_value_and_grad` on random inputs and checks every result against
// plain loops. Exits non-zero on any error or mismatch. See
// docs/Embedding.md.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <vector>

using namespace mlir;

namespace {
constexpr int64_t M = 4, K = 3, N = 5;

/// Adds `forward` to `module`.
LogicalResult buildGraph(ModuleOp module) {
  MLIRContext *context = module.getContext();
  Type f32 = Float32Type::get(context);
  auto tensor = [&](ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, f32);
  };
  FailureOr<func::FuncOp> forward = kiln::buildFunction(
      module, "forward", {tensor({M, K}), tensor({K, N}), tensor({N})},
      [](OpBuilder &builder, Location loc, ValueRange args) {
        Value x = args[0], w = args[1], b = args[2];
        // Result types are inferred from the operands.
        Value xw = kiln::MatmulOp::create(builder, loc, x, w);
        Value y = kiln::AddOp::create(builder, loc, xw, b); // broadcasts b
        Value s = kiln::SumOp::create(builder, loc, y,
                                      /*axes=*/ArrayRef<int64_t>{1},
                                      /*keep_dims=*/false);
        return SmallVector<Value>{y, s};
      });
  if (failed(forward))
    return failure();
  FailureOr<func::FuncOp> loss = kiln::buildFunction(
      module, "loss", {tensor({M, K}), tensor({K, N}), tensor({N})},
      [](OpBuilder &builder, Location loc, ValueRange args) {
        Value y = kiln::AddOp::create(
            builder, loc, kiln::MatmulOp::create(builder, loc, args[0], args[1]),
            args[2]);
        Value l = kiln::SumOp::create(builder, loc,
                                      kiln::MulOp::create(builder, loc, y, y),
                                      /*axes=*/ArrayRef<int64_t>{0, 1},
                                      /*keep_dims=*/false);
        return SmallVector<Value>{l};
      });
  return success(succeeded(loss));
}

/// kiln-autodiff's options: generate `loss_value_and_grad`, the loss and its
/// gradients with respect to w and b (arguments 1 and 2).
kiln::AutodiffOptions getAutodiffOptions() {
  kiln::AutodiffOptions options;
  options.function = "loss";
  options.wrt = {1, 2};
  return options;
}

/// Lowers the graph ahead of time in a context of its own, set up from a
/// DialectRegistry, with typed pipeline options.
LogicalResult lowerAheadOfTime() {
  DialectRegistry registry;
  kiln::registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  if (failed(buildGraph(*module)))
    return failure();

  kiln::KilnToCPUPipelineOptions options;
  options.fuseElementwise = true;
  // The graph-transform slot: passes on kiln ops before the lowering.
  auto addGraphPasses = [](OpPassManager &pm) {
    kiln::buildAutodiffPipeline(pm, getAutodiffOptions());
    pm.addPass(kiln::createKilnGraphSummaryPass());
  };
  if (failed(kiln::lowerToCPU(*module, options, addGraphPasses)))
    return failure();

  int llvmFuncs = 0;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == "llvm.func")
      ++llvmFuncs;
  });
  llvm::outs() << "ahead of time: lowered to " << llvmFuncs
               << " llvm.func ops\n";
  return success(llvmFuncs > 0);
}

/// `tensor` or an error message.
bool check(llvm::Expected<kiln::HostTensor> &tensor) {
  if (tensor)
    return true;
  llvm::errs() << "error: " << llvm::toString(tensor.takeError()) << "\n";
  return false;
}

/// JIT-compiles and runs the graph; returns the number of mismatches, or -1
/// after an error.
int runAndCheck() {
  kiln::JitSession session;
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(UnknownLoc::get(&session.getContext()));
  if (failed(buildGraph(*module)))
    return -1;
  llvm::outs() << "the graph:\n" << *module << "\n";

  auto x = kiln::HostTensor::random(kiln::DType::F32, {M, K}, /*seed=*/1);
  auto w = kiln::HostTensor::random(kiln::DType::F32, {K, N}, /*seed=*/2);
  auto b = kiln::HostTensor::random(kiln::DType::F32, {N}, /*seed=*/3);
  if (!check(x) || !check(w) || !check(b))
    return -1;

  kiln::JitOptions options;
  options.fuseElementwise = true; // the pipeline's options
  options.enableOpenMP = false;
  options.addGraphPasses = [](OpPassManager &pm) {
    kiln::buildAutodiffPipeline(pm, getAutodiffOptions());
  };
  FailureOr<std::unique_ptr<kiln::JitModule>> jit =
      session.compile(*module, options);
  if (failed(jit))
    return -1;
  FailureOr<SmallVector<kiln::HostTensor>> results =
      (*jit)->invoke("forward", {*x, *w, *b});
  if (failed(results) || results->size() != 2)
    return -1;
  FailureOr<SmallVector<kiln::HostTensor>> grads =
      (*jit)->invoke("loss_value_and_grad", {*x, *w, *b});
  if (failed(grads) || grads->size() != 3)
    return -1;

  // The reference, in double with plain loops.
  ArrayRef<float> xs = x->getValues<float>(), ws = w->getValues<float>(),
                  bs = b->getValues<float>();
  ArrayRef<float> ys = (*results)[0].getValues<float>(),
                  ss = (*results)[1].getValues<float>();
  ArrayRef<float> loss = (*grads)[0].getValues<float>(),
                  dw = (*grads)[1].getValues<float>(),
                  db = (*grads)[2].getValues<float>();
  int mismatches = 0;
  auto expect = [&](const char *what, int64_t i, double got, double want) {
    bool ok = std::fabs(got - want) <= 1e-5 + 1e-5 * std::fabs(want);
    if (!ok) {
      llvm::errs() << "mismatch: " << what << "[" << i << "] = " << got
                   << ", expected " << want << "\n";
      ++mismatches;
    }
  };
  // loss = sum(y^2): dloss/dw = 2 x^T y, dloss/db = 2 sum_i y[i].
  double lossRef = 0;
  std::vector<double> dwRef(K * N, 0.0), dbRef(N, 0.0);
  for (int64_t i = 0; i < M; ++i) {
    double rowSum = 0;
    for (int64_t j = 0; j < N; ++j) {
      double y = bs[j];
      for (int64_t k = 0; k < K; ++k)
        y += double(xs[i * K + k]) * double(ws[k * N + j]);
      expect("y", i * N + j, ys[i * N + j], y);
      rowSum += y;
      lossRef += y * y;
      dbRef[j] += 2 * y;
      for (int64_t k = 0; k < K; ++k)
        dwRef[k * N + j] += 2 * double(xs[i * K + k]) * y;
    }
    expect("s", i, ss[i], rowSum);
  }
  expect("loss", 0, loss[0], lossRef);
  for (int64_t i = 0; i < K * N; ++i)
    expect("dloss/dw", i, dw[i], dwRef[i]);
  for (int64_t j = 0; j < N; ++j)
    expect("dloss/db", j, db[j], dbRef[j]);

  llvm::outs() << "s = [";
  for (int64_t i = 0; i < M; ++i)
    llvm::outs() << (i ? ", " : "") << ss[i];
  llvm::outs() << "]\n";
  return mismatches;
}
} // namespace

int main() {
  llvm::outs() << "Kiln " << kiln::getVersionString() << " (headers "
               << KILN_VERSION_STRING << ")\n";
  if (failed(lowerAheadOfTime())) {
    llvm::errs() << "error: the ahead-of-time lowering failed\n";
    return EXIT_FAILURE;
  }
  int mismatches = runAndCheck();
  if (mismatches < 0) {
    llvm::errs() << "error: building, compiling or running the graph failed\n";
    return EXIT_FAILURE;
  }
  if (mismatches > 0) {
    llvm::errs() << mismatches << " results differ from the reference\n";
    return EXIT_FAILURE;
  }
  llvm::outs() << "all " << (M * N + M + 1 + K * N + N)
               << " results (forward, loss, gradients) match the reference\n";
  return EXIT_SUCCESS;
}
