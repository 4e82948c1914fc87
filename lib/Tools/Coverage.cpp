//===- Coverage.cpp - The kiln op coverage matrix -------------------------===//

#include "kiln/Tools/Coverage.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::kiln;
using json = nlohmann::json;

/// Reads an integer-valued bit field (`hasFolder`, ...) of an ODS record.
static bool recordBit(const json &record, const char *field) {
  auto it = record.find(field);
  return it != record.end() && it->is_number_integer() && it->get<int>() != 0;
}

LogicalResult mlir::kiln::collectCoverage(MLIRContext &context,
                                          StringRef recordsJson,
                                          ArrayRef<std::string> numericalOps,
                                          std::vector<OpCoverage> &rows,
                                          std::string &error,
                                          ArrayRef<std::string> cpuOps,
                                          ArrayRef<std::string> gpuOps) {
  json records = json::parse(recordsJson.begin(), recordsJson.end(),
                             /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (records.is_discarded() || !records.is_object()) {
    error = "the ODS record dump is not a JSON object";
    return failure();
  }
  auto instances = records.find("!instanceof");
  if (instances == records.end() || !instances->is_object() ||
      !instances->contains("Op") || !(*instances)["Op"].is_array()) {
    error = "the ODS record dump has no '!instanceof.Op' list";
    return failure();
  }

  // ODS side: every Op record of the kiln dialect, keyed by full op name.
  std::map<std::string, const json *> odsOps;
  for (const json &defName : (*instances)["Op"]) {
    if (!defName.is_string())
      continue;
    auto it = records.find(defName.get<std::string>());
    if (it == records.end() || !it->is_object())
      continue;
    const json &record = *it;
    const json *dialect = record.contains("opDialect") ? &record["opDialect"]
                                                       : nullptr;
    if (!dialect || !dialect->is_object() || !dialect->contains("def") ||
        (*dialect)["def"] != "Kiln_Dialect")
      continue;
    if (!record.contains("opName") || !record["opName"].is_string())
      continue;
    odsOps["kiln." + record["opName"].get<std::string>()] = &record;
  }

  // Registry side: what the dialect really registers.
  context.getOrLoadDialect<KilnDialect>();
  llvm::StringSet<> cpu;
  for (const std::string &op : cpuOps)
    cpu.insert(op);
  llvm::StringSet<> gpu;
  for (const std::string &op : gpuOps)
    gpu.insert(op);
  llvm::StringSet<> numerical;
  for (const std::string &op : numericalOps)
    numerical.insert(op);

  rows.clear();
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != KilnDialect::getDialectNamespace())
      continue;
    std::string opName = name.getStringRef().str();
    auto it = odsOps.find(opName);
    if (it == odsOps.end()) {
      error = "'" + opName + "' is registered but has no ODS record";
      return failure();
    }
    const json &record = *it->second;
    OpCoverage row;
    row.name = opName;
    if (record.contains("summary") && record["summary"].is_string())
      row.summary = record["summary"].get<std::string>();
    if (recordBit(record, "hasVerifier") ||
        recordBit(record, "hasRegionVerifier"))
      row.verifier = "custom";
    else if (name.hasInterface<InferTypeOpInterface>())
      row.verifier = "inferred";
    else
      row.verifier = "constraints";
    bool fold = recordBit(record, "hasFolder");
    bool canonicalize = recordBit(record, "hasCanonicalizer") ||
                        recordBit(record, "hasCanonicalizeMethod");
    row.folder = fold && canonicalize ? "fold+canonicalize"
                 : fold               ? "fold"
                 : canonicalize       ? "canonicalize"
                                      : "";
    // The backward column: AutodiffOpInterface, attached by
    // registerAutodiffExternalModels through the registry the context was
    // made with, and whether it declares the op non-differentiable. The CPU
    // and GPU columns list the ops that kiln-lower-to-cpu and
    // kiln-lower-to-nvvm lowered.
    if (auto *autodiff = name.getInterface<AutodiffOpInterface>())
      row.backward = autodiff->isNonDifferentiable()
                         ? OpCoverage::Backward::NonDifferentiable
                         : OpCoverage::Backward::Rule;
    row.cpuLowering = cpu.contains(opName);
    row.gpuLowering = gpu.contains(opName);
    row.numericalTest = numerical.contains(opName);
    rows.push_back(std::move(row));
    odsOps.erase(it);
  }
  if (!odsOps.empty()) {
    error = "'" + odsOps.begin()->first +
            "' has an ODS record but is not registered by the dialect";
    return failure();
  }
  std::sort(rows.begin(), rows.end(),
            [](const OpCoverage &a, const OpCoverage &b) {
              return a.name < b.name;
            });
  return success();
}

LogicalResult mlir::kiln::collectFixtureOps(StringRef fixture,
                                            std::vector<std::string> &ops,
                                            std::string &error) {
  json root = json::parse(fixture.begin(), fixture.end(), /*cb=*/nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    error = "malformed JSON";
    return failure();
  }
  // Iterative walk: fixtures can nest deeply and we never recurse on input.
  std::vector<const json *> worklist{&root};
  while (!worklist.empty()) {
    const json *value = worklist.back();
    worklist.pop_back();
    if (value->is_object()) {
      for (auto it = value->begin(); it != value->end(); ++it) {
        if (it.key() == "op" && it->is_string() &&
            StringRef(it->get_ref<const std::string &>()).starts_with("kiln."))
          ops.push_back(it->get<std::string>());
        else
          worklist.push_back(&*it);
      }
    } else if (value->is_array()) {
      for (const json &element : *value)
        worklist.push_back(&element);
    }
  }
  return success();
}

/// The backward column's text, in both renderings.
static const char *toString(OpCoverage::Backward backward) {
  switch (backward) {
  case OpCoverage::Backward::None:
    return "none";
  case OpCoverage::Backward::Rule:
    return "rule";
  case OpCoverage::Backward::NonDifferentiable:
    return "not differentiable";
  }
  llvm_unreachable("unknown OpCoverage::Backward");
}

std::string mlir::kiln::renderCoverageJson(ArrayRef<OpCoverage> rows) {
  json ops = json::array();
  for (const OpCoverage &row : rows) {
    ops.push_back(json{{"op", row.name},
                       {"summary", row.summary},
                       {"verifier", row.verifier},
                       {"folder", row.folder},
                       {"backward", toString(row.backward)},
                       {"cpu_lowering", row.cpuLowering},
                       {"gpu_lowering", row.gpuLowering},
                       {"numerical_test", row.numericalTest}});
  }
  json root = {{"generated_by", "kiln-coverage"}, {"ops", ops}};
  return root.dump(2) + "\n";
}

std::string mlir::kiln::renderCoverageMarkdown(ArrayRef<OpCoverage> rows) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto mark = [](bool value) { return value ? "yes" : "—"; };
  size_t rules = 0, nonDifferentiable = 0, cpu = 0, gpu = 0, numerical = 0;
  os << "# Kiln op coverage\n\n"
     << "Generated by `kiln-coverage` from the registered ops, their ODS "
        "records, the\nnumerical fixtures and the ops that the CPU and GPU "
        "pipelines lower; do not edit.\nRegenerate with "
        "`cmake --build build --target kiln-update-coverage`.\n\n"
     << "backward: `rule` (kiln-autodiff builds the adjoints), `not "
        "differentiable` (no\nadjoint flows through the results), `—` (no "
        "rule: kiln-autodiff expands `kiln.value_and_grad`\nbefore it "
        "differentiates; any other such op would be an error where active)."
        "\n\n"
     << "| op | verifier | folder | backward | CPU | GPU | numerical test | "
        "summary |\n"
     << "|---|---|---|---|---|---|---|---|\n";
  for (const OpCoverage &row : rows) {
    os << "| `" << row.name << "` | " << row.verifier << " | "
       << (row.folder.empty() ? "—" : row.folder) << " | "
       << (row.backward == OpCoverage::Backward::None ? "—"
                                                      : toString(row.backward))
       << " | " << mark(row.cpuLowering) << " | " << mark(row.gpuLowering)
       << " | " << mark(row.numericalTest) << " | " << row.summary << " |\n";
    rules += row.backward == OpCoverage::Backward::Rule;
    nonDifferentiable +=
        row.backward == OpCoverage::Backward::NonDifferentiable;
    cpu += row.cpuLowering;
    gpu += row.gpuLowering;
    numerical += row.numericalTest;
  }
  os << "\n"
     << rows.size() << " ops: " << rules << " with a backward rule, "
     << nonDifferentiable << " not differentiable, " << cpu
     << " with a CPU lowering, " << gpu << " with a GPU lowering, " << numerical
     << " with a numerical test.\n";
  return text;
}
