//===- KilnOps.td - All Kiln ops, for documentation and coverage ---------===//
//
// Not compiled into C++: every family generates its own .inc. This file
// gathers them for `mlir-doc` and for the ODS record dump that the coverage
// matrix reads.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnElementwiseOps.td"
include "kiln/Dialect/Kiln/IR/KilnTensorOps.td"
include "kiln/Dialect/Kiln/IR/KilnReductionOps.td"
include "kiln/Dialect/Kiln/IR/KilnConvOps.td"
include "kiln/Dialect/Kiln/IR/KilnNNOps.td"
include "kiln/Dialect/Kiln/IR/KilnAttentionOps.td"
include "kiln/Dialect/Kiln/IR/KilnAutodiffOps.td"

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
