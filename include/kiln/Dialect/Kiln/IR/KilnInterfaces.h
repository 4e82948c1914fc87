//===- KilnInterfaces.h - Kiln op interfaces -------------------*- C++ -*-===//

#ifndef KILN_DIALECT_KILN_IR_KILNINTERFACES_H
#define KILN_DIALECT_KILN_IR_KILNINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNINTERFACES_H
