// What the graph JSON export cannot represent is an error at the offending
// op, function or argument.
// RUN: kiln-translate --export-graph-json %s --split-input-file --verify-diagnostics -o /dev/null

// expected-error @+1 {{graph JSON export: the module may hold only one func.func}}
module {
}
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
// expected-error @+1 {{graph JSON export: the module holds more than one func.func}}
func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// expected-error @+1 {{graph JSON export: expected a function with one block}}
func.func private @declaration(tensor<2xf32>) -> tensor<2xf32>

// -----

// expected-error @+1 {{graph JSON export: argument 1 is not a static kiln tensor}}
func.func @dynamic(%x: tensor<2xf32>, %y: tensor<?xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

func.func @discardable(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{graph JSON export: the attribute 'foo.note' has no JSON form}}
  %y = kiln.neg %x {foo.note = "keep me"} : tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

func.func @resource() -> tensor<2xf32> {
  // expected-error @+1 {{graph JSON export: only dense constants of kiln element types have a JSON form}}
  %c = kiln.constant dense_resource<blob> : tensor<2xf32>
  return %c : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
