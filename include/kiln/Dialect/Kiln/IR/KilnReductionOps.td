//===- KilnReductionOps.td - Reduction kiln ops ---------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD
#define KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnAttrs.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

#endif // KILN_DIALECT_KILN_IR_KILNREDUCTIONOPS_TD
