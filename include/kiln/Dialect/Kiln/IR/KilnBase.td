//===- KilnBase.td - Kiln dialect definition and shared constraints -------===//
//
// The `kiln` dialect: tensor ops of model graphs, with value semantics on
// statically shaped ranked tensors. This file holds the dialect, the element
// type and tensor constraints every op family uses, and the base op class.
// Op families live in Kiln<Family>Ops.td, each generated on its own.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNBASE_TD
#define KILN_DIALECT_KILN_IR_KILNBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::mlir::kiln";
  let summary = "Tensor ops of model graphs for training attention models";
  let description = [{
    The `kiln` dialect holds the tensor ops of model graphs: elementwise math
    with NumPy broadcasting, reductions, contractions, shape manipulation,
    convolutions, training helpers and scaled dot-product attention with every
    mask form real models use.

    All ops have value semantics on ranked tensors with static shapes. Dynamic
    dimensions are not supported yet: an op whose operand or result has a
    dynamic dimension is rejected by its verifier ("must be statically shaped
    tensor"). Axis attributes are non-negative, in `[0, rank)`; front ends
    normalize PyTorch-style negative axes before building kiln ops.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // The `kiln.*` discardable attributes that Kiln's passes and tools read
  // and write, each declared once here: the code names them through the
  // generated KilnDialect::<Name>AttrHelper (getNameStr()), and the
  // dialect's verifiers reject any other `kiln.*` attribute (on functions,
  // their arguments and results, and launches), so a misspelt one is an
  // error rather than silently ignored.
  let discardableAttrs = (ins
    // On a function: the entry point of the CPU pipeline that wraps the
    // body of this name (kiln-prepare-entry-points).
    "::mlir::StringAttr":$entry_point,
    // On a graph function: the names of its inputs and outputs
    // (docs/GraphJson.md).
    "::mlir::ArrayAttr":$input_names,
    "::mlir::ArrayAttr":$output_names,
    // On a lifted parameter argument or a kiln.constant: the parameter's
    // name.
    "::mlir::StringAttr":$parameter,
    // Split-mode autodiff: the forward and backward functions name each
    // other; their results and arguments carry their role and index.
    "::mlir::FlatSymbolRefAttr":$forward,
    "::mlir::FlatSymbolRefAttr":$backward,
    "::mlir::IntegerAttr":$output,
    "::mlir::IntegerAttr":$residual,
    "::mlir::IntegerAttr":$cotangent,
    "::mlir::IntegerAttr":$gradient,
    // On a gpu.launch: attributes its outlined kernel function gets.
    "::mlir::DictionaryAttr":$kernel_attributes
  );
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Kiln_Float : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
def Kiln_Int : AnyTypeOf<[I1, I8, I32, I64], "signless integer">;
def Kiln_IndexInt : AnyTypeOf<[I32, I64], "32/64-bit signless integer">;
def Kiln_Element : AnyTypeOf<[Kiln_Float, Kiln_Int], "kiln element">;

/// Any statically shaped tensor of a kiln element type.
def Kiln_Tensor : StaticShapeTensorOf<[Kiln_Element]>;
/// A statically shaped tensor of floating-point elements.
def Kiln_FloatTensor : StaticShapeTensorOf<[Kiln_Float]>;
/// A statically shaped tensor of signless integers (i1 included).
def Kiln_IntTensor : StaticShapeTensorOf<[Kiln_Int]>;
/// A statically shaped tensor of booleans.
def Kiln_BoolTensor : StaticShapeTensorOf<[I1]>;
/// A statically shaped tensor of i32 or i64 indices.
def Kiln_IndexTensor : StaticShapeTensorOf<[Kiln_IndexInt]>;
/// A rank-0 i64 tensor: the seed of the counter-based RNG.
def Kiln_SeedTensor : 0DTensorOf<[I64]>;

//===----------------------------------------------------------------------===//
// Base op class
//===----------------------------------------------------------------------===//

/// Rejects discardable attributes whose name has no dialect prefix. MLIR
/// keeps an attribute it does not know as a discardable one, so a misspelt
/// inherent attribute (`causl` for `causal`) would be carried along and
/// ignored: the op would compute something the user did not write.
/// Dialect-prefixed names stay allowed: another dialect's (`foo.bar`) are
/// the user's, and Kiln's own (`kiln.parameter`) are checked by the
/// dialect's attribute verifiers (KilnDialect.cpp). The generic form's properties (`<{...}>`) are
/// not covered: the generated `setPropertiesFromAttr` skips a key it does
/// not know before any verifier runs.
def Kiln_KnownAttributes : NativeOpTrait<"KnownAttributes"> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

/// An op that costs about one pass over its operands and result: an
/// elementwise function, a comparison, a select, a cast or a layout change.
/// `kiln-autodiff{remat=recompute-elementwise}` recomputes such ops in the
/// backward sweep instead of keeping their results alive.
def Kiln_CheapToRecompute : NativeOpTrait<"CheapToRecompute"> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

/// Every tensor an op takes or makes has a byte size that a signed 64-bit
/// integer holds, which the index arithmetic of every lowering and the
/// runtimes' allocations assume (`tensor<4611686018427387904x4xf32>` parses,
/// and its element count times 4 wraps). Runs before the op's other traits
/// and verifier, which may count elements.
def Kiln_AddressableTensors : NativeOpTrait<"AddressableTensors"> {
  let cppNamespace = "::mlir::OpTrait::kiln";
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic,
         !listconcat([Kiln_AddressableTensors], traits,
                     [Kiln_KnownAttributes])>;

#endif // KILN_DIALECT_KILN_IR_KILNBASE_TD
