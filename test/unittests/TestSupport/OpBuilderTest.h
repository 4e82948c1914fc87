//===- OpBuilderTest.h - A fixture that builds kiln ops ---------*- C++ -*-===//

#ifndef KILN_TEST_UNITTESTS_TESTSUPPORT_OPBUILDERTEST_H
#define KILN_TEST_UNITTESTS_TESTSUPPORT_OPBUILDERTEST_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

namespace mlir::kiln::test {

/// Builds kiln ops at the end of a module and checks it verifies at the end.
class OpBuilderTest : public ::testing::Test {
protected:
  OpBuilderTest() : builder(&context) {
    context.loadDialect<KilnDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
    f32 = builder.getF32Type();
  }

  void TearDown() override { EXPECT_TRUE(succeeded(verify(*module))); }

  /// A zero constant of type tensor<shape x elementType>.
  Value constant(ArrayRef<int64_t> shape, Type elementType) {
    auto type = RankedTensorType::get(shape, elementType);
    return ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type, builder.getZeroAttr(elementType)));
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type elementType) {
    return RankedTensorType::get(shape, elementType);
  }

  MLIRContext context;
  OpBuilder builder;
  // A null UnknownLoc() would trip Location's assertion: the context's own.
  Location loc = UnknownLoc::get(&context);
  OwningOpRef<ModuleOp> module;
  Type f32;
};

} // namespace mlir::kiln::test

#endif // KILN_TEST_UNITTESTS_TESTSUPPORT_OPBUILDERTEST_H
