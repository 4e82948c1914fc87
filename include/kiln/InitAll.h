//===- InitAll.h - Register everything Kiln provides -----------*- C++ -*-===//
//
// Entry points for tools and embedders: the kiln dialect, the upstream
// dialects Kiln's pipelines produce, and Kiln's passes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INITALL_H
#define KILN_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::kiln {

/// Registers the kiln dialect and the upstream dialects that Kiln's tools
/// read and write.
void registerAllDialects(DialectRegistry &registry);

/// Registers Kiln's passes and pipelines, and the upstream passes that the
/// Kiln tools expose, with the global pass registry.
void registerAllPasses();

} // namespace mlir::kiln

#endif // KILN_INITALL_H
