// LLVM's code generator aborts ("LLVM ERROR: Cannot select: intrinsic")
// on IR that verifies but that the target cannot compile: here an AArch64
// intrinsic on x86-64, and an AVX-512 one for `--mcpu generic`. The JIT
// (kiln-run) and the AOT compiler (kiln-compile) run code generation under
// crash recovery: LLVM's message, then an error, exit code 1 (`not` fails
// on a signal). The same module without the intrinsics runs.
//
// REQUIRES: host-x86_64
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not kiln-run %s --entry f --random-inputs 2>&1 | FileCheck %s --check-prefix=JIT
// JIT: LLVM ERROR: Cannot select: intrinsic %llvm.aarch64.isb
// JIT: backend-abort.mlir:[[# @LINE + 16]]:1: error: LLVM's code generator aborted on @f (its message is above): the lowered module uses something this CPU cannot compile
//
// RUN: not kiln-compile %s -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=AOT
// AOT: LLVM ERROR: Cannot select: intrinsic %llvm.aarch64.isb
// AOT: kiln-compile: error: LLVM's code generator aborted (its message is above): the lowered module uses something that x86_64-{{.*}} with --mcpu generic cannot compile
// RUN: test ! -e %t/lib.so
//
// RUN: sed -e 's/llvm.call @isb/llvm.call @reciprocal/' %s > %t/avx512.mlir
// RUN: not kiln-compile %t/avx512.mlir --mcpu generic -o %t/lib.so 2>&1 | FileCheck %s --check-prefix=AVX512
// AVX512: LLVM ERROR:
// AVX512: kiln-compile: error: LLVM's code generator aborted (its message is above): the lowered module uses something that x86_64-{{.*}} with --mcpu generic cannot compile
//
// RUN: sed -e '/llvm.call @isb/d' -e '/^llvm.func/,$d' %s > %t/plain.mlir
// RUN: kiln-run %t/plain.mlir --entry f --random-inputs | FileCheck %s --check-prefix=PLAIN
// PLAIN: [{{.*}}]

func.func @f(%x: tensor<16xf32>) -> tensor<16xf32> {
  llvm.call @isb() : () -> ()
  %y = kiln.exp %x : tensor<16xf32>
  return %y : tensor<16xf32>
}

llvm.func @isb() {
  %c = llvm.mlir.constant(15 : i32) : i32
  llvm.call_intrinsic "llvm.aarch64.isb"(%c) : (i32) -> ()
  llvm.return
}

llvm.func @reciprocal() {
  %c = llvm.mlir.constant(1 : i64) : i64
  %p = llvm.alloca %c x vector<16xf32> : (i64) -> !llvm.ptr
  %v = llvm.load volatile %p : !llvm.ptr -> vector<16xf32>
  %m = llvm.mlir.constant(-1 : i16) : i16
  %r = llvm.call_intrinsic "llvm.x86.avx512.rcp14.ps.512"(%v, %v, %m) : (vector<16xf32>, vector<16xf32>, i16) -> vector<16xf32>
  llvm.store volatile %r, %p : vector<16xf32>, !llvm.ptr
  llvm.return
}
