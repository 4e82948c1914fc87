//===- Passes.h - Kiln passes that move host code to the GPU ----*- C++ -*-===//

#ifndef KILN_CONVERSION_GPUHOST_PASSES_H
#define KILN_CONVERSION_GPUHOST_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kiln {

#define GEN_PASS_DECL
#include "kiln/Conversion/GPUHost/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kiln/Conversion/GPUHost/Passes.h.inc"

} // namespace mlir::kiln

#endif // KILN_CONVERSION_GPUHOST_PASSES_H
