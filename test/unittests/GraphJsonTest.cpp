//===- GraphJsonTest.cpp - JSON model graph import/export -----------------===//
//
// Each kind of bad input is a diagnostic naming the JSON entry (never a crash),
// and good graphs survive import -> export -> import.
//
//===----------------------------------------------------------------------===//

#include "kiln/Target/GraphJson.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/InitAll.h"
#include "kiln/Support/HostTensor.h"
#include "kiln/Support/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <nlohmann/json.hpp>

#include <random>

#include <string>

using namespace mlir;
using namespace mlir::kiln;

namespace {

class GraphJsonTest : public ::testing::Test {
protected:
  GraphJsonTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Imports `text`; returns the diagnostics (empty on success).
  std::string importErrors(const std::string &text,
                           const GraphJsonImportOptions &options = {}) {
    std::string errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module =
        importGraphJson(text, &context, UnknownLoc::get(&context), options);
    EXPECT_EQ(static_cast<bool>(module), errors.empty()) << errors;
    return errors;
  }

  std::string exportText(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    EXPECT_TRUE(succeeded(exportGraphJson(op, os)));
    return text;
  }

  /// A graph with one input x: f32[2, 3] and the given nodes and outputs.
  static std::string graph(const std::string &nodes,
                           const std::string &outputs = "[]") {
    return R"({"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
               "nodes": )" +
           nodes + R"(, "outputs": )" + outputs + "}";
  }

  MLIRContext context;
};

TEST_F(GraphJsonTest, SyntaxError) {
  std::string errors = importErrors(R"({"name": "f", "inputs": [1,)");
  EXPECT_NE(errors.find("JSON: syntax error"), std::string::npos) << errors;
  EXPECT_NE(importErrors("").find("syntax error"), std::string::npos);
  EXPECT_NE(importErrors("[]").find("graph: expected an object, got an array"),
            std::string::npos);
}

/// Errors are at the offending value's line and column in the file of a file
/// location, and at any other location unchanged.
TEST_F(GraphJsonTest, ErrorLocations) {
  std::string text = graph(R"([
      {"id": "t", "op": "transpose", "inputs": ["x"],
       "attrs": {"dim0": 0, "dim1": "1"}}])");
  auto locationOf = [&](Location loc) {
    std::string where;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      llvm::raw_string_ostream(where) << diag.getLocation();
      return success();
    });
    EXPECT_FALSE(importGraphJson(text, &context, loc));
    return where;
  };
  EXPECT_EQ(locationOf(FileLineColLoc::get(&context, "g.json", 0, 0)),
            "loc(\"g.json\":4:37)");
  EXPECT_EQ(locationOf(UnknownLoc::get(&context)), "loc(unknown)");
  EXPECT_EQ(locationOf(NameLoc::get(StringAttr::get(&context, "api"))),
            "loc(\"api\")");
}

TEST_F(GraphJsonTest, UnknownOp) {
  std::string errors = importErrors(graph(
      R"([{"id": "a", "op": "neg", "inputs": ["x"]},
          {"id": "n3", "op": "conv9d", "inputs": ["a"]}])"));
  EXPECT_EQ(errors, "nodes[1] (id \"n3\").op: unknown op \"conv9d\"\n");
}

TEST_F(GraphJsonTest, MissingAttribute) {
  std::string errors = importErrors(graph(
      R"([{"id": "t", "op": "transpose", "inputs": ["x"], "attrs": {"dim0": 0}}])"));
  EXPECT_EQ(errors, "nodes[0] (id \"t\").attrs: missing attribute 'dim1' of "
                    "kiln.transpose\n");
}

TEST_F(GraphJsonTest, IllTypedAttributes) {
  EXPECT_EQ(importErrors(graph(R"([{"id": "s", "op": "sum", "inputs": ["x"],
                                    "attrs": {"axes": [1.5]}}])")),
            "nodes[0] (id \"s\").attrs.axes[0]: expected a 64-bit integer, "
            "got a number\n");
  EXPECT_EQ(importErrors(graph(R"([{"id": "s", "op": "sum", "inputs": ["x"],
                                    "attrs": {"axes": [1], "keep_dims": 1}}])")),
            "nodes[0] (id \"s\").attrs.keep_dims: expected a boolean, got an "
            "integer\n");
  EXPECT_EQ(importErrors(graph(R"([{"id": "g", "op": "gelu", "inputs": ["x"],
                                    "attrs": {"approximate": "erf"}}])")),
            "nodes[0] (id \"g\").attrs.approximate: unknown value \"erf\" "
            "(expected one of \"none\", \"tanh\")\n");
  EXPECT_EQ(importErrors(graph(R"([{"id": "g", "op": "gelu", "inputs": ["x"],
                                    "attrs": {"bogus": true}}])")),
            "nodes[0] (id \"g\").attrs.bogus: unknown attribute \"bogus\" of "
            "kiln.gelu (expected one of approximate)\n");
  // An F64 attribute takes integers and the non-finite strings.
  EXPECT_EQ(importErrors(graph(R"([{"id": "l", "op": "layer_norm",
                                    "inputs": ["x"], "attrs": {"epsilon": 1}}])")),
            "");
  EXPECT_EQ(importErrors(graph(R"([{"id": "l", "op": "layer_norm",
                                    "inputs": ["x"], "attrs": {"epsilon": "1"}}])")),
            "nodes[0] (id \"l\").attrs.epsilon: expected a number, \"nan\", "
            "\"inf\" or \"-inf\", got a string\n");
}

TEST_F(GraphJsonTest, DanglingReference) {
  EXPECT_EQ(importErrors(
                graph(R"([{"id": "a", "op": "add", "inputs": ["x", "y"]}])")),
            "nodes[0] (id \"a\").inputs[1]: dangling reference \"y\": no "
            "input, parameter or node has that name\n");
  EXPECT_EQ(importErrors(graph(R"([{"id": "a", "op": "neg", "inputs": ["x"]}])",
                               R"([{"name": "o", "value": "a:1"}])")),
            "outputs[0].value: node \"a\" has 1 result(s), no result 1\n");
  EXPECT_EQ(importErrors(graph(R"([{"id": "a", "op": "neg", "inputs": [3]}])")),
            "nodes[0] (id \"a\").inputs[0]: expected a reference string such "
            "as \"x\" or \"n3:0\", got an integer\n");
}

TEST_F(GraphJsonTest, BadResultIndex) {
  // After the last ':' comes a non-negative decimal result number.
  for (const char *reference : {"a:-1", "a:x", "a:"}) {
    std::string outputs =
        std::string(R"([{"name": "o", "value": ")") + reference + "\"}]";
    EXPECT_EQ(
        importErrors(
            graph(R"([{"id": "a", "op": "neg", "inputs": ["x"]}])", outputs)),
        std::string("outputs[0].value: bad result index in reference \"") +
            reference + "\"\n");
  }
}

TEST_F(GraphJsonTest, CyclicReference) {
  EXPECT_EQ(
      importErrors(graph(R"([{"id": "a", "op": "add", "inputs": ["x", "c"]},
                                   {"id": "b", "op": "neg", "inputs": ["a"]},
                                   {"id": "c", "op": "neg", "inputs": ["b:0"]}])")),
      // "->" reads "takes an input from".
      "nodes[1] (id \"b\"): cyclic reference: \"a\" -> \"c\" -> \"b\" "
      "-> \"a\"\n");
  EXPECT_EQ(
      importErrors(graph(R"([{"id": "a", "op": "neg", "inputs": ["a"]}])")),
      "nodes[0] (id \"a\"): cyclic reference: \"a\" -> \"a\"\n");
}

TEST_F(GraphJsonTest, ShapeThatDoesNotCheck) {
  // The op's type inference diagnostic.
  EXPECT_EQ(importErrors(graph(
                R"([{"id": "mm", "op": "matmul", "inputs": ["x", "x"]}])")),
            "nodes[0] (id \"mm\"): contraction dimension of lhs [2, 3] has "
            "size 3 but that of rhs [2, 3] has size 2\n");
  // The op's verifier diagnostic, for an op whose type is given.
  std::string errors = importErrors(graph(
      R"([{"id": "r", "op": "reshape", "inputs": ["x"],
           "type": {"dtype": "f32", "shape": [5]}}])"));
  EXPECT_NE(errors.find("nodes[0] (id \"r\"): 'kiln.reshape' op input shape "
                        "[2, 3] has 6 elements but result shape [5] has 5"),
            std::string::npos)
      << errors;
  // A type the op infers differently.
  errors = importErrors(graph(R"([{"id": "n", "op": "neg", "inputs": ["x"],
                                   "type": {"dtype": "f32", "shape": [3, 2]}}])"));
  EXPECT_NE(errors.find("declared result type(s) differ"), std::string::npos)
      << errors;
  EXPECT_EQ(
      importErrors(graph(R"([{"id": "r", "op": "reshape", "inputs": ["x"]}])")),
      "nodes[0] (id \"r\"): kiln.reshape does not infer its result "
      "type: give \"type\" (or \"types\")\n");
}

TEST_F(GraphJsonTest, StructuralErrors) {
  EXPECT_EQ(importErrors(graph(R"([{"id": "a", "op": "neg", "inputs": ["x"]},
                                   {"id": "a", "op": "neg", "inputs": ["x"]}])")),
            "nodes[1] (id \"a\"): duplicate id \"a\"\n");
  EXPECT_EQ(
      importErrors(graph(R"([{"id": "a", "op": "add", "inputs": ["x"]}])")),
      "nodes[0] (id \"a\").inputs: missing input 'rhs' of kiln.add\n");
  EXPECT_EQ(importErrors(graph(
                R"([{"id": "a", "op": "neg", "inputs": ["x"], "input": []}])")),
            "nodes[0] (id \"a\"): unknown key \"input\"\n");
  EXPECT_EQ(importErrors(graph(R"({"id": "a"})")),
            "nodes: expected an array, got an object\n");
  EXPECT_EQ(
      importErrors(R"({"name": "f", "inputs": [{"name": "x", "dtype": "f17",
                              "shape": [2]}], "nodes": [], "outputs": []})"),
      "inputs[0].dtype: unknown dtype \"f17\"\n");
  EXPECT_EQ(
      importErrors(R"({"name": "f", "inputs": [], "nodes": [], "outputs": [],
                              "parameters": [{"name": "w", "dtype": "i8",
                              "shape": [2], "data": [1, 300]}]})"),
      "parameters[0].data[1]: expected an integer in [-128, 127] for "
      "8-bit elements\n");
  EXPECT_EQ(
      importErrors(R"({"name": "f", "inputs": [], "nodes": [], "outputs": [],
                              "parameters": [{"name": "w", "dtype": "f32",
                              "shape": [2], "data": [1]}]})"),
      "parameters[0].data: has 1 values, the shape needs 2\n");
  std::string errors = importErrors(
      R"({"name": "f", "inputs": [], "nodes": [], "outputs": [],
          "parameters": [{"name": "w", "dtype": "f32", "shape": [2],
                          "file": "does-not-exist.npy"}]})");
  EXPECT_NE(errors.find("parameters[0].file: "), std::string::npos) << errors;
}

TEST_F(GraphJsonTest, WeightsFromNpy) {
  SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("graph-json", dir));
  SmallString<128> file(dir);
  llvm::sys::path::append(file, "w.npy");
  llvm::Expected<HostTensor> w =
      HostTensor::fromDoubles(DType::F32, {3}, {1.0, -2.0, 0.5});
  ASSERT_TRUE(static_cast<bool>(w));
  ASSERT_FALSE(static_cast<bool>(writeNpy(*w, file)));
  GraphJsonImportOptions options;
  options.weightsDir = dir.str().str();
  std::string text =
      graph(R"([{"id": "a", "op": "add", "inputs": ["x", "w"]}])",
            R"([{"name": "y", "value": "a:0"}])");
  text.insert(text.size() - 1,
              R"(, "parameters": [{"name": "w", "dtype": "f32", "shape": [3],
                                    "file": "w.npy"}])");
  EXPECT_EQ(importErrors(text, options), "");
  // A file that disagrees with the declared type.
  std::string wrong = text;
  wrong.replace(wrong.find("\"shape\": [3]"), 12, "\"shape\": [4]");
  EXPECT_NE(importErrors(wrong, options).find("holds tensor<3xf32>"),
            std::string::npos);
  llvm::sys::fs::remove(file);
  llvm::sys::fs::remove(dir);
}

/// Parameters of every element type survive an export to .npy files.
TEST_F(GraphJsonTest, WeightsToNpyRoundTrip) {
  std::string text = R"({"name": "g", "inputs": [], "nodes": [],
    "parameters": [
      {"name": "a/f16", "dtype": "f16", "shape": [3], "data": [0.1, -65504, "-inf"]},
      {"name": "b", "dtype": "bf16", "shape": [2], "data": [3.140625, "nan"]},
      {"name": "c", "dtype": "f64", "shape": [1], "data": [0.1]},
      {"name": "d", "dtype": "i64", "shape": [2], "data": [-9223372036854775808, 9007199254740993]},
      {"name": "e", "dtype": "i8", "shape": [2], "data": [-128, 127]},
      {"name": "f", "dtype": "i1", "shape": [3], "data": [true, 0, 1]},
      {"name": "g", "dtype": "i32", "shape": [2, 0], "data": []}],
    "outputs": [{"name": "a", "value": "a/f16"}, {"name": "b", "value": "b"},
                {"name": "c", "value": "c"}, {"name": "d", "value": "d"},
                {"name": "e", "value": "e"}, {"name": "f", "value": "f"},
                {"name": "g", "value": "g"}]})";
  OwningOpRef<ModuleOp> first =
      importGraphJson(text, &context, UnknownLoc::get(&context));
  ASSERT_TRUE(first);
  SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("graph-json", dir));
  GraphJsonExportOptions options;
  options.weightsDir = dir.str().str();
  options.minFileElements = 0;
  std::string exported;
  llvm::raw_string_ostream os(exported);
  ASSERT_TRUE(succeeded(exportGraphJson(*first, os, options)));
  EXPECT_NE(exported.find(R"("file":"a_f16.npy")"), std::string::npos)
      << exported;
  EXPECT_EQ(exported.find("\"data\""), std::string::npos) << exported;
  GraphJsonImportOptions importOptions;
  importOptions.weightsDir = dir.str().str();
  OwningOpRef<ModuleOp> second = importGraphJson(
      exported, &context, UnknownLoc::get(&context), importOptions);
  ASSERT_TRUE(second);
  EXPECT_TRUE(OperationEquivalence::isEquivalentTo(
      *first, *second, OperationEquivalence::ignoreValueEquivalence, nullptr,
      OperationEquivalence::IgnoreLocations));
  llvm::sys::fs::remove_directories(dir);
}

TEST_F(GraphJsonTest, RoundTrip) {
  std::string text = R"({"format": "kiln-graph", "version": 1, "name": "g",
    "inputs": [{"name": "x", "dtype": "f64", "shape": [2, 3]},
               {"name": "labels", "dtype": "i32", "shape": [2]}],
    "parameters": [{"name": "w", "dtype": "f64", "shape": [3], "data": [0.5, "-inf", 2]}],
    "nodes": [{"id": "s", "op": "sub", "inputs": ["x", "w"]},
              {"id": "ce", "op": "cross_entropy", "inputs": ["s", "labels"],
               "attrs": {"ignore_index": 1, "reduction": "sum"}},
              {"id": "parts", "op": "split", "inputs": ["x"],
               "attrs": {"axis": 1, "split_sizes": [1, 2]}}],
    "outputs": [{"name": "loss", "value": "ce"}, {"name": "p1", "value": "parts:1"}]})";
  OwningOpRef<ModuleOp> first =
      importGraphJson(text, &context, UnknownLoc::get(&context));
  ASSERT_TRUE(first);
  std::string exported = exportText(*first);
  OwningOpRef<ModuleOp> second =
      importGraphJson(exported, &context, UnknownLoc::get(&context));
  ASSERT_TRUE(second);
  EXPECT_EQ(exportText(*second), exported);
  EXPECT_TRUE(OperationEquivalence::isEquivalentTo(
      *first, *second, OperationEquivalence::ignoreValueEquivalence, nullptr,
      OperationEquivalence::IgnoreLocations));
  EXPECT_NE(
      exported.find(
          R"({"id":"ce","op":"cross_entropy","inputs":["s:0","labels"],"attrs":{"reduction":"sum","ignore_index":1}})"),
      std::string::npos)
      << exported;
  EXPECT_NE(exported.find(R"("data":[0.5,"-inf",2.0])"), std::string::npos)
      << exported;
}

/// A graph with two inputs and two parameters, one of them in a .npy file
/// that need not exist for a lifted import.
/// `text` with the first `from` replaced by `to`.
static std::string replaceFirst(std::string text, const std::string &from,
                                const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

static const char kLiftGraph[] = R"({"name": "g",
    "inputs": [{"name": "x", "dtype": "f64", "shape": [2, 3]},
               {"name": "y", "dtype": "f64", "shape": [3]}],
    "parameters": [{"name": "w", "dtype": "f64", "shape": [3], "data": [0.5, -1, 2]},
                   {"name": "blk.b", "dtype": "f64", "shape": [2, 3], "file": "missing.npy"}],
    "nodes": [{"id": "a", "op": "mul", "inputs": ["x", "w"]},
              {"id": "c", "op": "add", "inputs": ["a", "blk.b"]},
              {"id": "d", "op": "sub", "inputs": ["c", "y"]}],
    "outputs": [{"name": "out", "value": "d"}]})";

TEST_F(GraphJsonTest, LiftParametersMakesLeadingArguments) {
  GraphJsonImportOptions options;
  options.liftParameters = true;
  OwningOpRef<ModuleOp> module = importGraphJson(
      kLiftGraph, &context, UnknownLoc::get(&context), options);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  ASSERT_EQ(func.getNumArguments(), 4u);
  // Parameters first, in JSON order, named by an argument attribute; then
  // the inputs, named by kiln.input_names.
  auto name = [&](unsigned i) {
    auto attr = func.getArgAttrOfType<StringAttr>(i, "kiln.parameter");
    return attr ? attr.str() : std::string("<none>");
  };
  EXPECT_EQ(name(0), "w");
  EXPECT_EQ(name(1), "blk.b");
  EXPECT_EQ(name(2), "<none>");
  EXPECT_EQ(name(3), "<none>");
  EXPECT_EQ(func.getArgumentTypes()[1],
            RankedTensorType::get({2, 3}, Float64Type::get(&context)));
  auto inputNames = func->getAttrOfType<ArrayAttr>("kiln.input_names");
  ASSERT_TRUE(inputNames);
  ASSERT_EQ(inputNames.size(), 2u);
  EXPECT_EQ(cast<StringAttr>(inputNames[0]).str(), "x");
  // No constants: the nodes use the arguments.
  int constants = 0;
  func.walk([&](ConstantOp) { ++constants; });
  EXPECT_EQ(constants, 0);
  Operation *mul = &func.getBody().front().front();
  EXPECT_EQ(mul->getOperand(0), func.getArgument(2));
  EXPECT_EQ(mul->getOperand(1), func.getArgument(0));
}

TEST_F(GraphJsonTest, LiftParametersStillChecksTheDeclarations) {
  GraphJsonImportOptions options;
  options.liftParameters = true;
  std::string noData = replaceFirst(kLiftGraph, R"(, "data": [0.5, -1, 2])", "");
  EXPECT_NE(importErrors(noData, options)
                .find("parameters[0]: expected exactly one of \"data\", "
                      "\"splat\" or \"file\""),
            std::string::npos);
  std::string badType =
      replaceFirst(kLiftGraph, R"("dtype": "f64", "shape": [2, 3], "file")",
                   R"("dtype": "f65", "shape": [2, 3], "file")");
  EXPECT_NE(importErrors(badType, options)
                .find("parameters[1].dtype: unknown dtype \"f65\""),
            std::string::npos);
}

TEST_F(GraphJsonTest, ReadParametersInJsonOrder) {
  std::string text =
      replaceFirst(kLiftGraph, R"("file": "missing.npy")", R"("splat": 0.25)");
  FailureOr<SmallVector<GraphParameter>> parameters =
      readGraphJsonParameters(text, &context, UnknownLoc::get(&context));
  ASSERT_TRUE(succeeded(parameters));
  ASSERT_EQ(parameters->size(), 2u);
  EXPECT_EQ((*parameters)[0].name, "w");
  EXPECT_EQ((*parameters)[1].name, "blk.b");
  SmallVector<double> w;
  for (const APFloat &v : (*parameters)[0].value.getValues<APFloat>())
    w.push_back(v.convertToDouble());
  EXPECT_EQ(w, (SmallVector<double>{0.5, -1, 2}));
  EXPECT_EQ((*parameters)[1].value.getType().getShape(),
            (ArrayRef<int64_t>{2, 3}));
  // Reading checks the data, which the lifted import does not read.
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str() + "\n";
    return success();
  });
  EXPECT_TRUE(failed(readGraphJsonParameters(kLiftGraph, &context,
                                             UnknownLoc::get(&context))));
  EXPECT_NE(errors.find("parameters[1].file: "), std::string::npos) << errors;
}

TEST_F(GraphJsonTest, LiftedRoundTrip) {
  GraphJsonImportOptions options;
  options.liftParameters = true;
  OwningOpRef<ModuleOp> first = importGraphJson(
      kLiftGraph, &context, UnknownLoc::get(&context), options);
  ASSERT_TRUE(first);
  // Lifted parameters export as references to <name>.npy.
  std::string exported = exportText(*first);
  EXPECT_NE(
      exported.find(
          R"({"name":"w","dtype":"f64","shape":[3],"file":"w.npy"})"),
      std::string::npos)
      << exported;
  EXPECT_NE(exported.find(R"({"name":"x","dtype":"f64","shape":[2,3]})"),
            std::string::npos)
      << exported;
  // Export then lifted import gives the same IR, import then export the
  // same graph.
  OwningOpRef<ModuleOp> second = importGraphJson(
      exported, &context, UnknownLoc::get(&context), options);
  ASSERT_TRUE(second);
  EXPECT_TRUE(OperationEquivalence::isEquivalentTo(
      *first, *second, OperationEquivalence::ignoreValueEquivalence, nullptr,
      OperationEquivalence::IgnoreLocations));
  EXPECT_EQ(exportText(*second), exported);
}

TEST_F(GraphJsonTest, ExportRejectsNonKilnIR) {
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  std::string errors;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    errors += diag.str();
    return success();
  });
  std::string text;
  llvm::raw_string_ostream os(text);
  EXPECT_TRUE(failed(exportGraphJson(*module, os)));
  EXPECT_EQ(errors, "graph JSON export: the module holds no func.func");
}

/// Seeded structural mutations of a valid graph (values replaced by values of
/// other JSON types, out-of-range numbers, other op names, entries deleted):
/// each import must succeed or fail with a diagnostic, never crash or abort.
TEST_F(GraphJsonTest, MutatedGraphsNeverCrash) {
  using json = nlohmann::json;
  const json base = json::parse(R"({"name": "g",
    "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]},
               {"name": "q", "dtype": "f32", "shape": [1, 2, 4, 4]},
               {"name": "i", "dtype": "i64", "shape": [2]}],
    "parameters": [{"name": "w", "dtype": "f32", "shape": [3], "data": [1, 2, 3]}],
    "nodes": [{"id": "a", "op": "add", "inputs": ["x", "w"]},
              {"id": "b", "op": "transpose", "inputs": ["a"], "attrs": {"dim0": 0, "dim1": 1}},
              {"id": "c", "op": "reshape", "inputs": ["b"], "type": {"dtype": "f32", "shape": [6]}},
              {"id": "d", "op": "split", "inputs": ["c"], "attrs": {"axis": 0, "split_sizes": [2, 4]}},
              {"id": "e", "op": "concat", "inputs": ["d:1", "d:0"], "attrs": {"axis": 0}},
              {"id": "f", "op": "attention", "inputs": ["q", "q", "q"], "attrs": {"causal": true}},
              {"id": "g", "op": "layer_norm", "inputs": ["x", null, "w"], "attrs": {"epsilon": 0.5}},
              {"id": "h", "op": "slice", "inputs": ["x"], "attrs": {"starts": [0, 1], "stops": [2, 3], "strides": [1, 2]}},
              {"id": "k", "op": "cross_entropy", "inputs": ["x", "i"], "attrs": {"reduction": "sum"}},
              {"id": "l", "op": "gather", "inputs": ["x", "i"], "attrs": {"axis": 1}},
              {"id": "m", "op": "mean", "inputs": ["f"], "attrs": {"axes": [1, 3], "keep_dims": true}},
              {"id": "n", "op": "constant", "attrs": {"value": {"dtype": "i1", "shape": [2], "data": [1, 0]}}}],
    "outputs": [{"name": "o", "value": "e:0"}, {"name": "p", "value": "m"}]})");
  ASSERT_EQ(importErrors(base.dump()), "");
  const std::vector<json> pool = {0,
                                  1,
                                  -1,
                                  3,
                                  7,
                                  1000000,
                                  INT64_MAX,
                                  INT64_MIN,
                                  0.5,
                                  -2.5,
                                  "nan",
                                  "inf",
                                  "x",
                                  "a:0",
                                  "d:5",
                                  "zz",
                                  nullptr,
                                  true,
                                  false,
                                  json::array(),
                                  json::array({0}),
                                  json::array({-1, 2}),
                                  json::array({1, 2, 3, 4, 5}),
                                  json::object(),
                                  json{{"dtype", "f32"}, {"shape", {2}}},
                                  "f16",
                                  "i1",
                                  "bf16",
                                  "i64",
                                  json::array({json::array({1})})};
  const std::vector<std::string> ops = {
      "add",        "matmul",        "attention", "layer_norm", "concat",
      "split",      "slice",         "gather",    "reshape",    "conv2d",
      "max_pool2d", "cross_entropy", "softmax",   "transpose",  "mean",
      "iota",       "pad",           "unfold",    "upsample2d", "dropout",
      "select",     "permute",       "tril",      "argmax",     "index_select",
      "convert",    "broadcast_to",  "squeeze",   "flatten",    "avg_pool2d",
      "rms_norm",   "variance",      "clamp",     "constant",   "rsqrt",
      "gelu"};
  std::mt19937_64 rng(20261129);
  int imported = 0;
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  for (int iteration = 0; iteration < 1000; ++iteration) {
    json graph = base;
    for (int edit = 0, edits = 1 + (pick(4) == 0); edit < edits; ++edit) {
      // Walk to a random value.
      json *value = &graph;
      json *parent = nullptr;
      std::string key;
      size_t index = 0;
      for (int depth = 0; depth < 1 + int(pick(6)); ++depth) {
        if (value->is_object() && !value->empty()) {
          auto it = value->begin();
          std::advance(it, pick(value->size()));
          parent = value, key = it.key(), value = &it.value();
        } else if (value->is_array() && !value->empty()) {
          index = pick(value->size());
          parent = value, key.clear(), value = &(*value)[index];
        } else {
          break;
        }
      }
      size_t what = pick(10);
      if (what < 6) {
        *value = pool[pick(pool.size())];
      } else if (what < 8 && parent) {
        if (parent->is_object())
          parent->erase(key);
        else
          parent->erase(index);
      } else {
        auto nodes = graph.find("nodes");
        if (nodes == graph.end() || !nodes->is_array() || nodes->empty())
          continue;
        json &node = (*nodes)[pick(nodes->size())];
        if (node.is_object())
          node["op"] = ops[pick(ops.size())];
      }
    }
    // Success or a diagnostic; importErrors checks they agree.
    if (importErrors(graph.dump()).empty())
      ++imported;
  }
  // Both outcomes occur: the mutations reach the ops, not just the parser.
  EXPECT_GT(imported, 50);
  EXPECT_LT(imported, 950);
}

} // namespace
