// kiln-compile decides AMX from --mcpu, not from the machine it runs on: a
// library for sapphirerapids runs its bf16 matmul on tiles (and asks the
// OS for them at its first call: HostAllocator.c's kilnRequestAMX, return
// code 4 where refused), one for generic or with --amx=false does not.
//
// REQUIRES: host-x86_64
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-compile %s -o %t/spr.so --mcpu sapphirerapids --header %t/spr.h
// RUN: objdump -d %t/spr.so | FileCheck %s --check-prefix=SPR
// RUN: FileCheck %s --check-prefix=HEADER < %t/spr.h
// RUN: kiln-compile %s -o %t/generic.so --mcpu generic
// RUN: objdump -d %t/generic.so | FileCheck %s --check-prefix=NONE
// RUN: kiln-compile %s -o %t/off.so --mcpu sapphirerapids --amx=false
// RUN: objdump -d %t/off.so | FileCheck %s --check-prefix=NONE
// SPR: tdpbf16ps
// HEADER: then returns the message ("" after a success; per thread); 4
// HEADER-NEXT: when the library runs AMX tiles
// NONE-NOT: tdpbf16ps
func.func @mm(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = kiln.matmul %a, %b : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
