//===- KilnAttrs.td - Kiln enum attributes -------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNATTRS_TD
#define KILN_DIALECT_KILN_IR_KILNATTRS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "mlir/IR/EnumAttr.td"

def Kiln_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kiln";
}
def Kiln_GeluApproximationAttr
    : EnumAttr<Kiln_Dialect, Kiln_GeluApproximation, "approximation"> {
  let assemblyFormat = "`<` $value `>`";
}

def Kiln_AttentionAlignment : I32EnumAttr<"AttentionAlignment",
    "how query rows align with key columns when Sq != Sk", [
      I32EnumAttrCase<"top_left", 0>,
      I32EnumAttrCase<"bottom_right", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kiln";
}
def Kiln_AttentionAlignmentAttr
    : EnumAttr<Kiln_Dialect, Kiln_AttentionAlignment, "alignment"> {
  let assemblyFormat = "`<` $value `>`";
}

def Kiln_LossReduction : I32EnumAttr<"LossReduction",
    "how a loss reduces over the batch", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"mean", 1>,
      I32EnumAttrCase<"sum", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kiln";
}
def Kiln_LossReductionAttr
    : EnumAttr<Kiln_Dialect, Kiln_LossReduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def Kiln_UpsampleMode : I32EnumAttr<"UpsampleMode",
    "interpolation of upsample2d", [
      I32EnumAttrCase<"nearest", 0>,
      I32EnumAttrCase<"bilinear", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::kiln";
}
def Kiln_UpsampleModeAttr
    : EnumAttr<Kiln_Dialect, Kiln_UpsampleMode, "upsample_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // KILN_DIALECT_KILN_IR_KILNATTRS_TD
