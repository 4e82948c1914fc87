//===- NVPTXTarget.cpp - What LLVM's NVPTX backend takes ------------------===//

#include "kiln/Conversion/GPUHost/NVPTXTarget.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

std::optional<unsigned> mlir::kiln::getSMVersion(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  unsigned version;
  if (chip.empty() || chip.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

std::optional<unsigned> mlir::kiln::getPTXVersion(StringRef feature) {
  unsigned version;
  if (!feature.consume_front("ptx") || feature.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

unsigned mlir::kiln::getMinPTXVersion(StringRef chip) {
  return llvm::StringSwitch<unsigned>(chip)
      .Cases({"sm_20", "sm_21", "sm_30", "sm_35"}, 32)
      .Cases({"sm_32", "sm_50"}, 40)
      .Cases({"sm_37", "sm_52"}, 41)
      .Case("sm_53", 42)
      .Cases({"sm_60", "sm_61", "sm_62"}, 50)
      .Case("sm_70", 60)
      .Case("sm_72", 61)
      .Case("sm_75", 63)
      .Case("sm_80", 70)
      .Case("sm_86", 71)
      .Case("sm_87", 74)
      .Cases({"sm_89", "sm_90"}, 78)
      .Case("sm_90a", 80)
      .Cases({"sm_100", "sm_100a", "sm_101", "sm_101a"}, 86)
      .Cases({"sm_120", "sm_120a"}, 87)
      .Cases({"sm_100f", "sm_101f", "sm_103", "sm_103a", "sm_103f", "sm_120f",
              "sm_121", "sm_121a", "sm_121f"},
             88)
      .Cases({"sm_88", "sm_110", "sm_110a", "sm_110f"}, 90)
      .Default(0);
}

bool mlir::kiln::isArchOrFamilySpecific(StringRef chip) {
  return getSMVersion(chip) && (chip.ends_with("a") || chip.ends_with("f"));
}
