// RUN: kiln-opt %s --kiln-gpu-emulate-kernels --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-emulate-kernels --split-input-file | FileCheck %s --check-prefix=HOST
// RUN: kiln-opt %s --kiln-gpu-emulate-kernels --split-input-file | mlir-translate --mlir-to-llvmir -o /dev/null

// Every load, store and atomic of a kernel that needs more than byte
// alignment is preceded by an inline test of its address against the
// alignment NVPTX requires: the op's `alignment`, else the ABI alignment of
// the gpu.module's data layout at translation (LLVM's default here: i64
// needs 4), for atomics the store size. A misaligned address branches to a
// block (one per alignment and kind) that calls __kiln_emu_misaligned
// (address, alignment, kind: 0 load, 1 store, 2 atomic), which does not
// return.

// CHECK: llvm.func @__kiln_emu_misaligned(!llvm.ptr, i64, i32) attributes {passthrough = ["cold", "noreturn"]}
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.kern(
// CHECK-SAME: %[[P:[a-z0-9]+]]: !llvm.ptr, %[[Q:[a-z0-9]+]]: !llvm.ptr)
// CHECK-DAG: %[[M1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG: %[[M3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG: %[[M15:.*]] = llvm.mlir.constant(15 : i64) : i64
// The 16-byte vector load.
// CHECK: %[[I0:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr to i64
// CHECK-NEXT: %[[L0:.*]] = llvm.and %[[I0]], %[[M15]] : i64
// CHECK-NEXT: %[[B0:.*]] = llvm.icmp "ne" %[[L0]], %[[ZERO]] : i64
// CHECK-NEXT: llvm.cond_br %[[B0]] weights([1, 1048576]), ^[[LOAD16:bb[0-9]+]](%[[P]] : !llvm.ptr), ^[[NEXT0:bb[0-9]+]]
// CHECK-NEXT: ^[[NEXT0]]:
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[P]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
// An i64 without `alignment`: 4 bytes.
// CHECK-NEXT: %[[I1:.*]] = llvm.ptrtoint %[[P]]
// CHECK-NEXT: %[[L1:.*]] = llvm.and %[[I1]], %[[M3]]
// CHECK-NEXT: %[[B1:.*]] = llvm.icmp "ne" %[[L1]], %[[ZERO]]
// CHECK-NEXT: llvm.cond_br %[[B1]] weights([1, 1048576]), ^[[LOAD4:bb[0-9]+]](%[[P]] : !llvm.ptr), ^[[NEXT1:bb[0-9]+]]
// CHECK-NEXT: ^[[NEXT1]]:
// CHECK-NEXT: %[[X:.*]] = llvm.load %[[P]] : !llvm.ptr -> i64
// Bytes need no test.
// CHECK-NEXT: llvm.load %[[P]] : !llvm.ptr -> i8
// A store to workgroup memory (no address space left).
// CHECK-NEXT: %[[T:.*]] = llvm.mlir.addressof @__kiln_emu.m.tile : !llvm.ptr
// CHECK-NEXT: %[[I2:.*]] = llvm.ptrtoint %[[T]]
// CHECK-NEXT: %[[L2:.*]] = llvm.and %[[I2]], %[[M15]]
// CHECK-NEXT: %[[B2:.*]] = llvm.icmp "ne" %[[L2]], %[[ZERO]]
// CHECK-NEXT: llvm.cond_br %[[B2]] weights([1, 1048576]), ^[[STORE16:bb[0-9]+]](%[[T]] : !llvm.ptr), ^[[NEXT2:bb[0-9]+]]
// CHECK-NEXT: ^[[NEXT2]]:
// (The race check's hook, emulate-kernels-racecheck.mlir.)
// CHECK: llvm.store %[[V]], %[[T]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// An f16 load: 2 bytes.
// CHECK-NEXT: %[[I3:.*]] = llvm.ptrtoint %[[Q]]
// CHECK-NEXT: %[[L3:.*]] = llvm.and %[[I3]], %[[M1]]
// CHECK: llvm.cond_br %{{.*}}, ^[[LOAD2:bb[0-9]+]](%[[Q]] : !llvm.ptr), ^{{bb[0-9]+}}
// CHECK: %[[H:.*]] = llvm.load %[[Q]] : !llvm.ptr -> f16
// An f16 atomic without `alignment`: its store size, 2 bytes.
// CHECK-NEXT: %[[I4:.*]] = llvm.ptrtoint %[[Q]]
// CHECK-NEXT: %[[L4:.*]] = llvm.and %[[I4]], %[[M1]]
// CHECK: llvm.cond_br %{{.*}}, ^[[ATOMIC2:bb[0-9]+]](%[[Q]] : !llvm.ptr), ^{{bb[0-9]+}}
// CHECK: llvm.atomicrmw fadd %[[Q]], %[[H]] monotonic
// CHECK: llvm.cond_br %{{.*}}, ^[[STORE4:bb[0-9]+]](%[[P]] : !llvm.ptr), ^{{bb[0-9]+}}
// CHECK: llvm.store %[[X]], %[[P]] : i64, !llvm.ptr
// CHECK-NEXT: llvm.return
// The reports: the address, the alignment, the kind.
// CHECK: ^[[LOAD16]](%[[A0:.*]]: !llvm.ptr):
// CHECK-NEXT: %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[K0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @__kiln_emu_misaligned(%[[A0]], %[[C16]], %[[K0]]) : (!llvm.ptr, i64, i32) -> ()
// CHECK-NEXT: llvm.unreachable
// CHECK: ^[[LOAD4]](
// CHECK-NEXT: llvm.mlir.constant(4 : i64)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK: ^[[STORE16]](
// CHECK-NEXT: llvm.mlir.constant(16 : i64)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// CHECK: ^[[LOAD2]](
// CHECK-NEXT: llvm.mlir.constant(2 : i64)
// CHECK-NEXT: llvm.mlir.constant(0 : i32)
// CHECK: ^[[ATOMIC2]](
// CHECK-NEXT: llvm.mlir.constant(2 : i64)
// CHECK-NEXT: llvm.mlir.constant(2 : i32)
// CHECK: ^[[STORE4]](
// CHECK-NEXT: llvm.mlir.constant(4 : i64)
// CHECK-NEXT: llvm.mlir.constant(1 : i32)
// The entry function and host code are not tested.
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.kern.entry(
// CHECK-NOT: __kiln_emu_misaligned
// CHECK: llvm.return
// HOST-LABEL: llvm.func @host(
// HOST-NOT: __kiln_emu_misaligned
// HOST: llvm.return
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
    llvm.func @kern(%p: !llvm.ptr, %q: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
      %i = llvm.load %p : !llvm.ptr -> i64
      %b = llvm.load %p : !llvm.ptr -> i8
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      llvm.store %v, %t {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
      %h = llvm.load %q : !llvm.ptr<1> -> f16
      %old = llvm.atomicrmw fadd %q, %h monotonic : !llvm.ptr<1>, f16
      llvm.store %i, %p : i64, !llvm.ptr
      llvm.return
    }
  }
  llvm.func @host(%p: !llvm.ptr, %q: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %x = llvm.load %p : !llvm.ptr -> i64
    gpu.launch_func @m::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %q : !llvm.ptr<1>)
    llvm.return
  }
}

// -----

// With a data layout on the gpu.module (`llvm.data_layout`, which MLIR's
// translation uses), its ABI alignment: i64 needs 8 bytes.
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.kern(
// CHECK: %[[M7:.*]] = llvm.mlir.constant(7 : i64) : i64
// CHECK: %[[I:.*]] = llvm.ptrtoint
// CHECK-NEXT: llvm.and %[[I]], %[[M7]] : i64
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @__kiln_emu_misaligned
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90">] attributes {llvm.data_layout = "e-i64:64"} {
    llvm.func @kern(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %i = llvm.load %p : !llvm.ptr -> i64
      llvm.store %i, %p {alignment = 1 : i64} : i64, !llvm.ptr
      llvm.return
    }
  }
}
