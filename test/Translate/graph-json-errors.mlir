// Bad JSON graphs exit non-zero with a diagnostic naming the entry, at its
// line and column (graph-json-error-locations.mlir tests the locator); `not`
// fails on a crash.
// RUN: split-file %s %t
// RUN: not kiln-translate --import-graph-json %t/syntax.json 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not kiln-translate --import-graph-json %t/unknown-op.json 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not kiln-translate --import-graph-json %t/ill-typed.json 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not kiln-translate --import-graph-json %t/dangling.json 2>&1 | FileCheck %s --check-prefix=DANGLING
// RUN: not kiln-translate --import-graph-json %t/cycle.json 2>&1 | FileCheck %s --check-prefix=CYCLE
// RUN: not kiln-translate --import-graph-json %t/shape.json 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not kiln-translate --export-graph-json %t/not-kiln.mlir 2>&1 | FileCheck %s --check-prefix=EXPORT
// RUN: not kiln-translate --import-graph-json %t/lse-type.json 2>&1 | FileCheck %s --check-prefix=LSE
// attention_grad has five result groups (dQ, dK, dV, d_mask, d_sinks): six
// types are too many, and a d_sinks where the op has no sinks is the
// verifier's.
// RUN: not kiln-translate --import-graph-json %t/grad-types.json 2>&1 | FileCheck %s --check-prefix=GROUPS
// RUN: not kiln-translate --import-graph-json %t/grad-no-sinks.json 2>&1 | FileCheck %s --check-prefix=NO-SINKS
// Output names contain no ':', as input and parameter names and node ids.
// RUN: not kiln-translate --import-graph-json %t/output-colon.json 2>&1 | FileCheck %s --check-prefix=OUT-COLON
// Options the translation does not read, and a negative element count, were
// accepted silently (found while extending test/robustness/campaign.py).
// RUN: not kiln-translate --export-graph-json %t/param.mlir --graph-json-export-weights-dir %t --graph-json-export-min-file-elements -1 2>&1 | FileCheck %s --check-prefix=MIN
// RUN: not kiln-translate --export-graph-json %t/param.mlir --graph-json-export-min-file-elements 4 2>&1 | FileCheck %s --check-prefix=MIN-DIR
// RUN: not kiln-translate --export-graph-json %t/param.mlir --lift-parameters 2>&1 | FileCheck %s --check-prefix=LIFT
// RUN: not kiln-translate --import-graph-json %t/weights.json --graph-json-export-weights-dir %t 2>&1 | FileCheck %s --check-prefix=EXPORT-DIR
// A weights file that is /dev/zero is rejected at its magic string; the
// importer hung reading it to the end (found by test/robustness/campaign.py).
// RUN: mkdir -p %t/zero && ln -sf /dev/zero %t/zero/w.npy
// RUN: not timeout 60 kiln-translate --import-graph-json %t/weights.json --graph-json-weights-dir %t/zero 2>&1 | FileCheck %s --check-prefix=DEV-ZERO

// SYNTAX: syntax.json:2:1: error: JSON: syntax error: {{.*}}parse error at line 2, column 1
// OP: unknown-op.json:3:30: error: nodes[1] (id "b").op: unknown op "frobnicate"
// ATTR: ill-typed.json:2:78: error: nodes[0] (id "t").attrs.dim0: expected a 64-bit integer, got a string
// DANGLING: dangling.json:2:53: error: nodes[0] (id "a").inputs[1]: dangling reference "n7:0": no input, parameter or node has that name
// CYCLE: cycle.json:3:12: error: nodes[1] (id "b"): cyclic reference: "a" -> "b" -> "a"
// SHAPE: shape.json:2:12: error: nodes[0] (id "mm"): contraction dimension of lhs [2, 3] has size 3 but that of rhs [2, 3] has size 2
// EXPORT: error: graph JSON export: only kiln ops have a JSON form
// MIN: kiln-translate: error: --graph-json-export-min-file-elements must not be negative, got -1
// MIN-DIR: kiln-translate: error: --graph-json-export-min-file-elements needs --graph-json-export-weights-dir
// LIFT: kiln-translate: error: --lift-parameters does nothing with --export-graph-json
// EXPORT-DIR: kiln-translate: error: --graph-json-export-weights-dir does nothing with --import-graph-json
// DEV-ZERO: weights.json:2:69: error: parameters[0].file: '{{.*}}w.npy': not a .npy file (bad magic string)
// OUT-COLON: output-colon.json:3:14: error: outputs[0]: name "y:0" contains ':'
// GROUPS: grad-types.json:{{[0-9]+}}:{{[0-9]+}}: error: nodes[0] (id "g").types: kiln.attention_grad has 5 result groups, got 6 types
// NO-SINKS: grad-no-sinks.json:{{[0-9]+}}:{{[0-9]+}}: error: nodes[0] (id "g"): 'kiln.attention_grad' op has a 'dsinks' result if and only if it has 'sinks'
// LSE: lse-type.json:2:12: error: nodes[0] (id "a"): 'kiln.attention' op lse type 'tensor<1x1x4xf32>' must be 'tensor<1x1x3xf32>'

//--- syntax.json
{"name": "f", "inputs": [
//--- unknown-op.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "nodes": [{"id": "a", "op": "neg", "inputs": ["x"]},
           {"id": "b", "op": "frobnicate", "inputs": ["a:0"]}],
 "outputs": []}
//--- ill-typed.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
 "nodes": [{"id": "t", "op": "transpose", "inputs": ["x"], "attrs": {"dim0": "0", "dim1": 1}}],
 "outputs": []}
//--- dangling.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "nodes": [{"id": "a", "op": "add", "inputs": ["x", "n7:0"]}],
 "outputs": []}
//--- cycle.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "nodes": [{"id": "a", "op": "add", "inputs": ["x", "b:0"]},
           {"id": "b", "op": "neg", "inputs": ["a:0"]}],
 "outputs": [{"name": "y", "value": "b:0"}]}
//--- output-colon.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "nodes": [{"id": "a", "op": "neg", "inputs": ["x"]}],
 "outputs": [{"name": "y:0", "value": "a:0"}]}
//--- shape.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
 "nodes": [{"id": "mm", "op": "matmul", "inputs": ["x", "x"]}],
 "outputs": []}
//--- lse-type.json
{"name": "f", "inputs": [{"name": "q", "dtype": "f32", "shape": [1, 1, 3, 2]}],
 "nodes": [{"id": "a", "op": "attention", "inputs": ["q", "q", "q"],
            "types": [{"dtype": "f32", "shape": [1, 1, 3, 2]}, {"dtype": "f32", "shape": [1, 1, 4]}]}],
 "outputs": []}
//--- grad-types.json
{"name": "f", "inputs": [{"name": "q", "dtype": "f32", "shape": [1, 1, 3, 2]}],
 "nodes": [{"id": "g", "op": "attention_grad", "inputs": ["q", "q", "q", "q"],
            "types": [{"dtype": "f32", "shape": [1, 1, 3, 2]}, {"dtype": "f32", "shape": [1, 1, 3, 2]},
                      {"dtype": "f32", "shape": [1, 1, 3, 2]}, null, {"dtype": "f32", "shape": [1]},
                      {"dtype": "f32", "shape": [1]}]}],
 "outputs": []}
//--- grad-no-sinks.json
{"name": "f", "inputs": [{"name": "q", "dtype": "f32", "shape": [1, 1, 3, 2]}],
 "nodes": [{"id": "g", "op": "attention_grad", "inputs": ["q", "q", "q", "q"],
            "types": [{"dtype": "f32", "shape": [1, 1, 3, 2]}, {"dtype": "f32", "shape": [1, 1, 3, 2]},
                      {"dtype": "f32", "shape": [1, 1, 3, 2]}, null, {"dtype": "f32", "shape": [1]}]}],
 "outputs": []}
//--- not-kiln.mlir
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = arith.addf %x, %x : tensor<2xf32>
  return %y : tensor<2xf32>
}
//--- weights.json
{"name": "f", "inputs": [],
 "parameters": [{"name": "w", "dtype": "f32", "shape": [2], "file": "w.npy"}],
 "nodes": [], "outputs": [{"name": "w", "value": "w"}]}
//--- param.mlir
func.func @f() -> tensor<2xf32> {
  %0 = kiln.constant {kiln.parameter = "w"} dense<1.0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
