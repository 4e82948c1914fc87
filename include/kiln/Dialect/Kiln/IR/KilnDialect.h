//===- KilnDialect.h - The kiln dialect -----------------------*- C++ -*-===//

#ifndef KILN_DIALECT_KILN_IR_KILNDIALECT_H
#define KILN_DIALECT_KILN_IR_KILNDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h.inc"

#endif // KILN_DIALECT_KILN_IR_KILNDIALECT_H
