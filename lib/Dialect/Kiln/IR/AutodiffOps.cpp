//===- AutodiffOps.cpp - Autodiff kiln ops and the autodiff interface -----===//

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnAutodiffOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ValueAndGradOp
//===----------------------------------------------------------------------===//

LogicalResult ValueAndGradOp::verify() {
  ArrayRef<int64_t> wrt = getWrt();
  if (wrt.empty())
    return emitOpError("'wrt' must list at least one argument");
  llvm::SmallSet<int64_t, 8> seen;
  int64_t numOperands = getOperands().size();
  for (int64_t index : wrt) {
    if (index < 0 || index >= numOperands)
      return emitOpError("'wrt' entry ")
             << index << " is out of range [0, " << numOperands << ")";
    if (!seen.insert(index).second)
      return emitOpError("'wrt' entry ") << index << " appears twice";
    Type type = getOperands()[index].getType();
    if (!isa<FloatType>(cast<RankedTensorType>(type).getElementType()))
      return emitOpError("cannot differentiate with respect to argument ")
             << index << " of non-floating-point type " << type;
  }
  if (getNumResults() != wrt.size() + 1)
    return emitOpError("expected ")
           << wrt.size() + 1 << " results (the value and one gradient per "
           << "'wrt' entry), got " << getNumResults();
  if (!isScalarFloatTensor(getResult(0).getType()))
    return emitOpError("result #0 must be a rank-0 floating-point tensor, got ")
           << getResult(0).getType();
  for (auto [i, index] : llvm::enumerate(wrt)) {
    Type expected = getOperands()[index].getType();
    Type actual = getResult(i + 1).getType();
    if (actual != expected)
      return emitOpError("result #")
             << i + 1 << " (the gradient of argument " << index
             << ") must have the argument's type " << expected << ", got "
             << actual;
  }
  return success();
}

LogicalResult
ValueAndGradOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getCalleeAttr());
  if (!callee)
    return emitOpError("'") << getCallee() << "' does not name a function";
  auto type = dyn_cast<FunctionType>(callee.getFunctionType());
  if (!type)
    return emitOpError("'") << getCallee() << "' has no function type";
  if (TypeRange(type.getInputs()) != TypeRange(getOperands().getTypes())) {
    InFlightDiagnostic diag = emitOpError("operand types do not match '")
                              << getCallee() << "': expected (";
    llvm::interleaveComma(type.getInputs(), diag);
    return diag << ")";
  }
  if (type.getNumResults() != 1 || !isScalarFloatTensor(type.getResult(0)))
    return emitOpError("'") << getCallee()
                            << "' must return exactly one rank-0 "
                               "floating-point tensor";
  if (type.getResult(0) != getResult(0).getType())
    return emitOpError("result #0 must have the type ")
           << type.getResult(0) << " that '" << getCallee() << "' returns";
  return success();
}
