//===- NVPTXTarget.h - What LLVM's NVPTX backend takes ----------*- C++ -*-===//
//
// Chip and PTX ISA names as LLVM 22's NVPTX backend reads them, shared by
// kiln-lower-to-nvvm's option checks and kiln-gpu-check-target-support.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CONVERSION_GPUHOST_NVPTXTARGET_H
#define KILN_CONVERSION_GPUHOST_NVPTXTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::kiln {

/// The SM version of an `sm_XX` chip name (`sm_90a`, `sm_100f` included),
/// or std::nullopt for anything else.
std::optional<unsigned> getSMVersion(StringRef chip);

/// Whether `chip` is an arch- or family-specific `sm_XX` chip (`sm_100a`,
/// `sm_100f`), on which NVPTX enables instructions the plain chip lacks.
bool isArchOrFamilySpecific(StringRef chip);

/// The PTX ISA version of a `ptxXY` NVPTX feature name (`ptx80` is 80), or
/// std::nullopt.
std::optional<unsigned> getPTXVersion(StringRef feature);

/// The oldest PTX ISA version that LLVM 22's NVPTX backend accepts for
/// `chip`, which it enforces with a fatal error (NVPTXSubtarget's table; `llc
/// -mtriple=nvptx64 -mcpu=<chip>` prints it as `.version`), or 0 for a chip
/// not listed here. MC does not expose the table. It is also the version
/// NVPTX uses when the features name none.
unsigned getMinPTXVersion(StringRef chip);

} // namespace mlir::kiln

#endif // KILN_CONVERSION_GPUHOST_NVPTXTARGET_H
