// Import errors point at the line and column of the offending JSON value
// (the value the path in the message names; for a missing key, its object;
// the root value when nothing of the path is there). The inputs are laid
// out over several lines, and what precedes each offending value holds the
// things the locator must skip: strings with escaped quotes, backslashes and
// brackets, nested arrays and objects, numbers and literals.
// RUN: split-file %s %t
// RUN: not kiln-translate --import-graph-json %t/missing-attr.json 2>&1 | FileCheck %s --check-prefix=MISSING-ATTR
// RUN: not kiln-translate --import-graph-json %t/missing-inputs.json 2>&1 | FileCheck %s --check-prefix=MISSING-INPUTS
// RUN: not kiln-translate --import-graph-json %t/missing-name.json 2>&1 | FileCheck %s --check-prefix=MISSING-NAME
// RUN: not kiln-translate --import-graph-json %t/unknown-key.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN-KEY
// RUN: not kiln-translate --import-graph-json %t/nested.json 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not kiln-translate --import-graph-json %t/escaped-key.json 2>&1 | FileCheck %s --check-prefix=ESCAPED-KEY
// RUN: not kiln-translate --import-graph-json %t/dotted-key.json 2>&1 | FileCheck %s --check-prefix=DOTTED-KEY
// RUN: not kiln-translate --import-graph-json %t/duplicate-key.json 2>&1 | FileCheck %s --check-prefix=DUPLICATE-KEY
// RUN: not kiln-translate --import-graph-json %t/splat.json 2>&1 | FileCheck %s --check-prefix=SPLAT
// RUN: not kiln-translate --import-graph-json %t/data.json 2>&1 | FileCheck %s --check-prefix=DATA
// RUN: not kiln-translate --import-graph-json %t/dtype.json 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not kiln-translate --import-graph-json %t/output.json 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not kiln-translate --import-graph-json %t/syntax.json 2>&1 | FileCheck %s --check-prefix=SYNTAX

// MISSING-ATTR: missing-attr.json:3:22: error: nodes[0] (id "t").attrs: missing attribute 'dim1' of kiln.transpose
// MISSING-INPUTS: missing-inputs.json:3:3: error: nodes[1] (id "b").inputs: missing input 'lhs' of kiln.add
// MISSING-NAME: missing-name.json:2:1: error: name: expected a non-empty string (the function name)
// UNKNOWN-KEY: unknown-key.json:1:1: error: graph: unknown key "nodez"
// NESTED: nested.json:9:49: error: nodes[1] (id "r").types[1].shape[2]: expected a non-negative integer
// ESCAPED-KEY: escaped-key.json:3:36: error: nodes[0] (id "t").attrs.dim0: expected a 64-bit integer, got a string
// DOTTED-KEY: dotted-key.json:3:44: error: nodes[0] (id "t").attrs.a.b[0]: unknown attribute "a.b[0]" of kiln.transpose
// DUPLICATE-KEY: duplicate-key.json:3:56: error: nodes[0] (id "t").attrs.dim1: expected a 64-bit integer, got a boolean
// SPLAT: splat.json:3:57: error: parameters[0].splat[0]: expected a number, "nan", "inf" or "-inf", got a string
// DATA: data.json:4:16: error: parameters[0].data[3]: expected a number, "nan", "inf" or "-inf", got an array
// DTYPE: dtype.json:2:27: error: inputs[1].dtype: unknown dtype "f8"
// OUTPUT: output.json:6:27: error: outputs[1].value: dangling reference "nope"
// SYNTAX: syntax.json:3:17: error: JSON: syntax error: {{.*}} at line 3, column 17:

//--- missing-attr.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
 "nodes": [{"id": "t", "op": "transpose", "inputs": ["x"],
            "attrs": {"dim0": 0}}],
 "outputs": []}
//--- missing-inputs.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "nodes": [{"id": "a", "op": "neg", "inputs": ["x"]},
  {"id": "b", "op": "add"}],
 "outputs": []}
//--- missing-name.json

{"inputs": [], "nodes": [], "outputs": []}
//--- unknown-key.json
{"name": "f", "inputs": [], "nodes": [], "outputs": [], "nodez": []}
//--- nested.json
{
  "name": "f",
  "metadata": {"note": "a \"quoted\" ] } [ { , \\", "list": [[1, [2, {"k": [3]}]], null, true, -1.5e+3]},
  "inputs": [{"name": "q", "dtype": "f32", "shape": [1, 1, 3, 2]}],
  "nodes": [
    {"id": "n]\"", "op": "neg", "inputs": ["q"]},
    {"id": "r", "op": "attention", "inputs": ["q", "q", "q"],
     "types": [{"dtype": "f32", "shape": [1, 1, 3, 2]},
               {"dtype": "f32", "shape": [1, 1, -3]}]}
  ],
  "outputs": []
}
//--- escaped-key.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
 "nodes": [{"id": "t", "op": "transpose", "inputs": ["x"],
            "attrs": {"dim\u0030": "0", "dim1": 1}}],
 "outputs": []}
//--- dotted-key.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
 "nodes": [{"id": "t", "op": "transpose", "inputs": ["x"],
            "attrs": {"dim0": 0, "a.b[0]": 1, "dim1": 1}}],
 "outputs": []}
//--- duplicate-key.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": [2, 3]}],
 "nodes": [{"id": "t", "op": "transpose", "inputs": ["x"],
            "attrs": {"dim0": 0, "dim1": true, "dim1": false}}],
 "outputs": []}
//--- splat.json
{"name": "f", "inputs": [],
 "parameters": [
   {"name": "w", "dtype": "f32", "shape": [2], "splat": "one"}],
 "nodes": [], "outputs": []}
//--- data.json
{"name": "f", "inputs": [],
 "parameters": [
   {"name": "w", "dtype": "f32", "shape": [4], "data": [1, "nan",
      -2.5e-1, [4]]}],
 "nodes": [], "outputs": []}
//--- dtype.json
{"name": "f", "inputs": [{"name": "x", "dtype": "f32", "shape": []},
   {"name": "y", "dtype": "f8", "shape": []}],
 "nodes": [], "outputs": []}
//--- output.json
{"name": "f",
 "inputs": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "nodes": [],
 "outputs": [
   {"name": "y", "value": "x"},
   {"name": "z", "value": "nope"}]}
//--- syntax.json
{"name": "f",
 "inputs": [],
 "nodes": [1, 2,, 3]}
