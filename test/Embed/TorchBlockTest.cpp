//===- TorchBlockTest.cpp - A PyTorch-written block trained through Kiln --===//
//
// scripts/fixtures/gen_block_torchfx.py exported the transformer block of
// scripts/export_torch.py, written in PyTorch, through torch.fx to a kiln
// JSON graph in float64, with PyTorch autograd's loss and gradients. Here the
// graph is imported with lifted parameters, differentiated by kiln-autodiff
// with respect to every parameter and run by the JIT, all through the public
// API of kiln/Kiln.h; the loss and every gradient entry must match.
//
//===----------------------------------------------------------------------===//

#include "kiln/Kiln.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kiln;

namespace {

/// |kiln - torch| <= kTolerance * max(1, |torch|), both in float64.
constexpr double kTolerance = 1e-9;

std::string readFile(StringRef name) {
  std::string path = std::string(KILN_TORCHFX_FIXTURE_DIR) + "/" + name.str();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer)) << "cannot read " << path;
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

/// A fixture tensor {"dtype", "shape", "data"} (data as JSON numbers).
HostTensor decodeTensor(const llvm::json::Object &object) {
  std::optional<StringRef> dtypeName = object.getString("dtype");
  std::optional<DType> dtype =
      dtypeName ? parseDType(*dtypeName) : std::nullopt;
  const llvm::json::Array *shapeArray = object.getArray("shape");
  const llvm::json::Array *dataArray = object.getArray("data");
  EXPECT_TRUE(dtype && shapeArray && dataArray);
  if (!dtype || !shapeArray || !dataArray)
    return {};
  SmallVector<int64_t> shape;
  for (const llvm::json::Value &d : *shapeArray)
    shape.push_back(d.getAsInteger().value_or(-1));
  std::vector<double> data;
  for (const llvm::json::Value &v : *dataArray)
    data.push_back(v.getAsNumber().value_or(NAN));
  llvm::Expected<HostTensor> tensor = HostTensor::fromDoubles(*dtype, shape, data);
  EXPECT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  return tensor ? std::move(*tensor) : HostTensor();
}

HostTensor fromAttr(DenseElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  std::vector<double> data;
  for (const APFloat &v : value.getValues<APFloat>())
    data.push_back(v.convertToDouble());
  llvm::Expected<HostTensor> tensor =
      HostTensor::fromDoubles(DType::F64, type.getShape(), data);
  EXPECT_TRUE(bool(tensor)) << llvm::toString(tensor.takeError());
  return tensor ? std::move(*tensor) : HostTensor();
}

TEST(TorchBlockTest, LossAndEveryGradientMatchPyTorchAutograd) {
  std::string graphText = readFile("graph.json");
  std::string refText = readFile("ref.json");
  llvm::Expected<llvm::json::Value> ref = llvm::json::parse(refText);
  ASSERT_TRUE(bool(ref)) << llvm::toString(ref.takeError());
  const llvm::json::Object &refObject = *ref->getAsObject();

  JitSession session;
  MLIRContext &context = session.getContext();
  Location loc = FileLineColLoc::get(&context, "graph.json", 0, 0);
  GraphJsonImportOptions importOptions;
  importOptions.liftParameters = true;
  OwningOpRef<ModuleOp> module =
      importGraphJson(graphText, &context, loc, importOptions);
  ASSERT_TRUE(module);
  FailureOr<SmallVector<GraphParameter>> parameters =
      readGraphJsonParameters(graphText, &context, loc);
  ASSERT_TRUE(succeeded(parameters));
  const llvm::json::Array &gradients = *refObject.getArray("gradients");
  ASSERT_EQ(parameters->size(), gradients.size());

  // The lifted parameters are the leading arguments; differentiate with
  // respect to all of them.
  AutodiffOptions autodiff;
  autodiff.function = "torch_block";
  for (size_t i = 0; i < parameters->size(); ++i)
    autodiff.wrt.push_back(i);
  JitOptions jitOptions;
  jitOptions.addGraphPasses = [&](OpPassManager &pm) {
    buildAutodiffPipeline(pm, autodiff);
  };
  FailureOr<std::unique_ptr<JitModule>> jit =
      session.compile(*module, jitOptions);
  ASSERT_TRUE(succeeded(jit));

  SmallVector<HostTensor> inputs;
  for (const GraphParameter &parameter : *parameters)
    inputs.push_back(fromAttr(parameter.value));
  const llvm::json::Object &refInputs = *refObject.getObject("inputs");
  inputs.push_back(decodeTensor(*refInputs.getObject("tokens")));
  inputs.push_back(decodeTensor(*refInputs.getObject("labels")));
  FailureOr<SmallVector<HostTensor>> results =
      (*jit)->invoke("torch_block_value_and_grad", inputs);
  ASSERT_TRUE(succeeded(results));
  ASSERT_EQ(results->size(), 1 + parameters->size());

  double worstAbs = 0, worstRel = 0;
  size_t entries = 0;
  auto compare = [&](double got, double want, const std::string &what) {
    double err = std::abs(got - want);
    worstAbs = std::max(worstAbs, err);
    worstRel = std::max(worstRel, err / std::max(1.0, std::abs(want)));
    ++entries;
    EXPECT_LE(err, kTolerance * std::max(1.0, std::abs(want)))
        << what << ": kiln " << got << ", torch " << want;
  };
  compare((*results)[0].getValues<double>()[0],
          refObject.getNumber("loss").value_or(NAN), "loss");
  for (auto [i, parameter] : llvm::enumerate(*parameters)) {
    const llvm::json::Object &gradient = *gradients[i].getAsObject();
    ASSERT_EQ(gradient.getString("name").value_or(""), parameter.name);
    HostTensor want = decodeTensor(gradient);
    const HostTensor &got = (*results)[1 + i];
    ASSERT_EQ(got.getShape(), want.getShape()) << parameter.name;
    for (auto [k, pair] : llvm::enumerate(
             llvm::zip(got.getValues<double>(), want.getValues<double>())))
      compare(std::get<0>(pair), std::get<1>(pair),
              "d" + parameter.name + "[" + std::to_string(k) + "]");
  }
  // The figures the docs quote.
  llvm::outs() << "torch.fx block: loss and " << entries - 1
               << " gradient entries of " << parameters->size()
               << " parameters; max |kiln - torch| " << worstAbs
               << ", max relative " << worstRel << "\n";
}

} // namespace
