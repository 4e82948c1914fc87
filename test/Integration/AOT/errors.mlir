// kiln-compile's errors are messages and exit code 1, never a crash.
//
// RUN: rm -rf %t && mkdir -p %t/empty
// RUN: not env PATH=%t/empty kiln-compile %s -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=NOCC
// NOCC: error: no C compiler 'cc' on PATH
// RUN: not kiln-compile %s -o %t/lib.so --cc %t/missing-cc 2>&1 | FileCheck %s --check-prefix=BADCC
// BADCC: error: --cc '{{.*}}missing-cc' is not an executable file
// RUN: not kiln-compile %s -o %t/lib.so --cc no-such-cc-kiln 2>&1 | FileCheck %s --check-prefix=NOTONPATH
// NOTONPATH: error: --cc 'no-such-cc-kiln' is not on PATH
// RUN: not kiln-compile %t/missing.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: missing.mlir
//
// RUN: split-file %s %t
// A bare --cc name is looked up on PATH.
// RUN: kiln-compile %t/ok.mlir -o %t/gcc.so --cc gcc
// RUN: nm -D %t/gcc.so | FileCheck %s --check-prefix=GCC
// GCC: T kiln_f
// An impossible GPU chip is an error, not a crash in the #nvvm.target verifier.
// RUN: not kiln-compile %t/ok.mlir -o %t/lib.so --target=cuda --gpu-chip= 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: kiln-lower-to-nvvm: 'chip' must name an NVPTX processor such as sm_90, got ''
// RUN: not kiln-compile %t/dynamic.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: argument #0 of @f has type 'index', but the C ABI only passes statically shaped tensors of f16, bf16, f32, f64, i1, i8, i32 or i64
// RUN: not kiln-compile %t/name.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: @add.bias is not a C identifier, so kiln-compile cannot name its C function kiln_add.bias
// RUN: not kiln-compile %t/clash.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=CLASH
// CLASH: error: @f and @f_signature would both define kiln_f_signature in the library or its header (rename one of them or make it private)
// Every generated identifier is checked, the header's macros and typedefs
// too: @a and @A both defined KILN_A_NUM_INPUTS (a redefinition, or without
// -Werror the wrong sizes), @f_input0_t made the header not compile.
// RUN: not kiln-compile %t/case.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=CASE
// CASE: error: @a and @A would both define KILN_A_NUM_INPUTS in the library or its header
// RUN: not kiln-compile %t/typedef.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=TYPEDEF
// TYPEDEF: error: @f and @f_input0_t would both define kiln_f_input0_t in the library or its header
// RUN: not kiln-compile %t/last-error.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=LAST-ERROR
// LAST-ERROR: error: @last_error would define kiln_last_error, which every kiln-compile library defines itself (rename @last_error or make it private)
// Each function has its own accessor of the library's error slot.
// RUN: not kiln-compile %t/f-last-error.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=F-LAST-ERROR
// F-LAST-ERROR: error: @f and @f_last_error would both define kiln_f_last_error in the library or its header
// One file for two outputs: the library overwrote the header.
// RUN: not kiln-compile %t/ok.mlir -o %t/same.out --header %t/same.out 2>&1 | FileCheck %s --check-prefix=SAME
// SAME: kiln-compile: error: -o and --header name the same file '{{.*}}same.out'
// RUN: not kiln-compile %t/ok.mlir -o %t/same.out --emit-object %t/./same.out 2>&1 | FileCheck %s --check-prefix=SAME-OBJ
// SAME-OBJ: kiln-compile: error: -o and --emit-object name the same file '{{.*}}/./same.out'
// RUN: not ls %t/same.out
// RUN: not kiln-compile %t/none.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: the module has no public function with a body to export
// RUN: not kiln-compile %t/parse.mlir -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error:
// An output that cannot be written is an error before any work (it failed
// only at the link, after the header was written); a failed link leaves no
// partial outputs (the header stayed behind).
// RUN: not kiln-compile %t/ok.mlir -o %t/no/such/dir/lib.so --header %t/nodir.h 2>&1 | FileCheck %s --check-prefix=NODIR --implicit-check-not=linking
// NODIR: kiln-compile: error: cannot write '{{.*}}no/such/dir/lib.so': No such file or directory
// RUN: not ls %t/nodir.h
// RUN: not kiln-compile %t/ok.mlir -o %t/ok.mlir/lib.so 2>&1 | FileCheck %s --check-prefix=NOTDIR --implicit-check-not=linking
// NOTDIR: kiln-compile: error: cannot write '{{.*}}ok.mlir/lib.so': Not a directory
// RUN: not kiln-compile %t/parse.mlir -o %t/lib.so --header %t/no/such/dir/h.h 2>&1 | FileCheck %s --check-prefix=NODIR-HEADER
// NODIR-HEADER: kiln-compile: error: cannot write '{{.*}}no/such/dir/h.h': No such file or directory
// RUN: not kiln-compile %t/ok.mlir -o %t 2>&1 | FileCheck %s --check-prefix=ISDIR
// ISDIR: kiln-compile: error: cannot write '{{.*}}': it is a directory
// RUN: not kiln-compile %t/ok.mlir -o %t/lib.so --emit-object /dev/null 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: kiln-compile: error: cannot write '/dev/null': it is not a regular file
// RUN: not kiln-compile %t/ok.mlir -o %t/failed.so --header %t/failed.h --emit-object %t/failed.o --cc false 2>&1 | FileCheck %s --check-prefix=LINK
// LINK: error: linking the library failed
// RUN: not ls %t/failed.so
// RUN: not ls %t/failed.h
// RUN: not ls %t/failed.o
//
// Found while extending test/robustness/campaign.py to the tools: an
// unknown --mcpu was "ignored" with a warning and then aborted in the
// backend (LLVM ERROR: 64-bit code requested on a subtarget that doesn't
// support it!); an --opt-level above 3 was used as 3; the --gpu-* options
// were ignored for the CPU; an empty --header was no header.
// RUN: not kiln-compile %t/ok.mlir -o %t/lib.so --mcpu garbage 2>&1 | FileCheck %s --check-prefix=MCPU --implicit-check-not="LLVM ERROR"
// MCPU: kiln-compile: error: --mcpu 'garbage' is not a CPU of {{.*}} (use 'generic', 'native' or an LLVM CPU name; `llc -mcpu=help` lists them)
// RUN: kiln-compile %t/ok.mlir -o %t/skylake.so --mcpu skylake
// RUN: not kiln-compile %t/ok.mlir -o %t/lib.so --opt-level 4 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: kiln-compile: error: --opt-level must be 0, 1, 2 or 3, not 4
// RUN: not kiln-compile %t/ok.mlir -o %t/lib.so --gpu-chip sm_80 2>&1 | FileCheck %s --check-prefix=GPUOPT
// GPUOPT: kiln-compile: error: --gpu-chip is for --target=cuda and --target=cuda-emulator only
// RUN: not kiln-compile %t/ok.mlir -o %t/lib.so --header= 2>&1 | FileCheck %s --check-prefix=HEADER
// HEADER: kiln-compile: error: --header needs a file name
//
// No failure above left a temporary output behind.
// RUN: ls %t | FileCheck %s --check-prefix=NO-TEMPS --implicit-check-not=.tmp
// NO-TEMPS: ok.mlir

//--- dynamic.mlir
func.func @f(%i: index) -> tensor<2xf32> {
  %0 = arith.constant dense<1.0> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

//--- name.mlir
func.func @"add.bias"(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

//--- clash.mlir
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @f_signature(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

//--- case.mlir
func.func @a(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @A(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

//--- typedef.mlir
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @f_input0_t(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

//--- last-error.mlir
func.func @last_error(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

//--- f-last-error.mlir
func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}
func.func @f_last_error(%x: tensor<3xf32>) -> tensor<3xf32> {
  return %x : tensor<3xf32>
}

//--- none.mlir
func.func private @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

//--- parse.mlir
func.func @f(%x: tensor<2xf32> -> tensor<2xf32> {

//--- ok.mlir
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = kiln.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
