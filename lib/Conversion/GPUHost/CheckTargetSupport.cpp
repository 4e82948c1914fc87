//===- CheckTargetSupport.cpp - kiln-gpu-check-target-support -------------===//
//
// Rejects the NVVM ops of kernels that the NVPTX backend cannot select for
// their gpu.module's targets (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/GPUHost/NVPTXTarget.h"
#include "kiln/Conversion/GPUHost/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNGPUCHECKTARGETSUPPORTPASS
#include "kiln/Conversion/GPUHost/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
using namespace mlir::kiln;

/// Checks that NVPTX can select `op` for `chip` with PTX ISA version `ptx`.
/// The NVVM verifier accepts every ldmatrix form PTX defines, but
/// instruction selection aborts ("Cannot select: intrinsic") on one the
/// chip lacks. LLVM 22's predicates: m8n8 b16 needs sm_75 and PTX 6.5; the
/// m8n16 and m16n16 forms (b8, b8x16.b6x16_p32, b8x16.b4x16_p64) an arch- or
/// family-specific chip of sm_100 or newer (sm_100a, sm_100f, sm_120a, ...)
/// and PTX 8.6.
static LogicalResult checkLdMatrix(NVVM::LdMatrixOp op, StringRef chip,
                                   unsigned ptx) {
  NVVM::LdStMatrixShapeAttr shape = op.getShape();
  bool m8n8 = shape.getM() == 8 && shape.getN() == 8;
  unsigned minSM = m8n8 ? 75 : 100, minPTX = m8n8 ? 65 : 86;
  std::optional<unsigned> sm = getSMVersion(chip);
  if (sm && *sm >= minSM && (m8n8 || isArchOrFamilySpecific(chip)) &&
      ptx >= minPTX)
    return success();
  return op.emitOpError()
         << "m" << shape.getM() << "n" << shape.getN() << " "
         << NVVM::stringifyLdStMatrixEltType(op.getEltType()) << " needs "
         << (m8n8 ? "sm_75 or newer"
                  : "an arch- or family-specific chip of sm_100 or newer "
                    "(sm_100a, sm_100f, ...)")
         << " and +ptx" << minPTX << "; the NVPTX backend cannot compile it "
         << "for " << chip << " +ptx" << ptx;
}

namespace {
struct KilnGPUCheckTargetSupportPass
    : kiln::impl::KilnGPUCheckTargetSupportPassBase<
          KilnGPUCheckTargetSupportPass> {
  using Base::Base;

  void runOnOperation() override {
    bool unsupported = false;
    getOperation().walk([&](gpu::GPUModuleOp module) {
      ArrayAttr targets = module.getTargetsAttr();
      if (!targets)
        return;
      for (Attribute attr : targets) {
        auto target = dyn_cast<NVVM::NVVMTargetAttr>(attr);
        if (!target)
          continue;
        StringRef chip = target.getChip();
        // The last +ptxXY wins, as in NVPTX's feature string; without one
        // NVPTX takes the chip's oldest version.
        std::optional<unsigned> ptx;
        for (StringRef feature : llvm::split(target.getFeatures(), ','))
          if (feature.consume_front("+"))
            if (std::optional<unsigned> version = getPTXVersion(feature))
              ptx = version;
        unsigned ptxVersion = ptx ? *ptx : getMinPTXVersion(chip);
        module.walk([&](NVVM::LdMatrixOp op) {
          unsupported |= failed(checkLdMatrix(op, chip, ptxVersion));
        });
      }
    });
    if (unsupported)
      signalPassFailure();
  }
};
} // namespace
