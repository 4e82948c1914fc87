// RUN: kiln-opt %s --kiln-gpu-emulate-kernels | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-emulate-kernels | mlir-translate --mlir-to-llvmir -o /dev/null

// The race check's hooks: each kernel function with workgroup loads or
// stores (address space 3 before the pass drops it) asks once whether the
// launch checks races, and each such access calls __kiln_emu_shared_access
// (address, bytes, 1 for a store) behind a test of the answer, after its
// alignment test. Other accesses are not recorded. Each gpu.module with
// static workgroup globals gets a constant table of them (address, bytes,
// `@module::@global`), which its launches declare first.

// CHECK-LABEL: llvm.func @host(
// CHECK: %[[TABLE:.*]] = llvm.mlir.addressof @__kiln_emu.m.__workgroup_buffers : !llvm.ptr
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.call @__kiln_emu_workgroup_buffers(%[[TABLE]], %[[TWO]]) : (!llvm.ptr, i32) -> ()
// CHECK-NEXT: llvm.mlir.addressof @__kiln_emu.m.kern.entry
// CHECK-NEXT: llvm.call @__kiln_emu_launch
// A module without workgroup globals declares nothing.
// CHECK-NOT: __kiln_emu_workgroup_buffers
// CHECK: llvm.mlir.addressof @__kiln_emu.plain.copy.entry
// CHECK-NEXT: llvm.call @__kiln_emu_launch

// CHECK-LABEL: llvm.func internal @__kiln_emu.m.kern(
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[ASK:.*]] = llvm.call @__kiln_emu_racecheck_enabled() : () -> i32
// CHECK-NEXT: %[[ON:.*]] = llvm.icmp "ne" %[[ASK]], %[[ZERO]] : i32
// CHECK-NEXT: %[[READ:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[WRITE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[TILE:.*]] = llvm.mlir.addressof @__kiln_emu.m.tile : !llvm.ptr
// CHECK: %[[E:.*]] = llvm.getelementptr %[[TILE]][0, %{{.*}}]
// A global load: not recorded.
// CHECK-NOT: __kiln_emu_shared_access
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<4xf32>
// A 16-byte workgroup store: the alignment test, then the record.
// CHECK: llvm.cond_br %{{.*}} weights([1, 1048576]), ^{{.*}}(%[[TILE]] : !llvm.ptr), ^[[A0:bb[0-9]+]]
// CHECK-NEXT: ^[[A0]]:
// CHECK-NEXT: llvm.cond_br %[[ON]], ^[[R0:bb[0-9]+]], ^[[S0:bb[0-9]+]]
// CHECK-NEXT: ^[[R0]]:
// CHECK-NEXT: %[[B16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: llvm.call @__kiln_emu_shared_access(%[[TILE]], %[[B16]], %[[WRITE]]) : (!llvm.ptr, i64, i32) -> ()
// CHECK-NEXT: llvm.br ^[[S0]]
// CHECK-NEXT: ^[[S0]]:
// CHECK-NEXT: llvm.store %{{.*}}, %[[TILE]] {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr
// A 4-byte workgroup load.
// CHECK: llvm.cond_br %[[ON]], ^[[R1:bb[0-9]+]], ^[[S1:bb[0-9]+]]
// CHECK-NEXT: ^[[R1]]:
// CHECK-NEXT: %[[B4:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT: llvm.call @__kiln_emu_shared_access(%[[E]], %[[B4]], %[[READ]])
// CHECK-NEXT: llvm.br ^[[S1]]
// CHECK-NEXT: ^[[S1]]:
// CHECK-NEXT: %[[X:.*]] = llvm.load %[[E]] : !llvm.ptr -> f32
// A global store: not recorded.
// CHECK-NOT: __kiln_emu_shared_access
// CHECK: llvm.store %[[X]], %{{.*}} : f32, !llvm.ptr
// A byte (no alignment test) of the second global.
// CHECK-NEXT: %[[FLAGS:.*]] = llvm.mlir.addressof @__kiln_emu.m.flags : !llvm.ptr
// CHECK-NEXT: llvm.cond_br %[[ON]], ^[[R2:bb[0-9]+]], ^[[S2:bb[0-9]+]]
// CHECK-NEXT: ^[[R2]]:
// CHECK-NEXT: %[[B1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: llvm.call @__kiln_emu_shared_access(%[[FLAGS]], %[[B1]], %[[READ]])
// CHECK: llvm.return

// The table: each global's address, size in bytes and name.
// CHECK: llvm.mlir.global internal constant @__kiln_emu.m.__workgroup_name_0("@m::@tile\00")
// CHECK: llvm.mlir.global internal constant @__kiln_emu.m.__workgroup_name_1("@m::@flags\00")
// CHECK: llvm.mlir.global internal constant @__kiln_emu.m.__workgroup_buffers() {{.*}} : !llvm.array<2 x struct<(ptr, i64, ptr)>> {
// CHECK: llvm.mlir.addressof @__kiln_emu.m.tile
// CHECK-NEXT: llvm.mlir.constant(256 : i64)
// CHECK-NEXT: llvm.mlir.addressof @__kiln_emu.m.__workgroup_name_0
// CHECK: llvm.mlir.addressof @__kiln_emu.m.flags
// CHECK-NEXT: llvm.mlir.constant(3 : i64)
// CHECK-NEXT: llvm.mlir.addressof @__kiln_emu.m.__workgroup_name_1
// CHECK: llvm.return %{{.*}} : !llvm.array<2 x struct<(ptr, i64, ptr)>>

// A kernel without workgroup accesses does not ask.
// CHECK-LABEL: llvm.func internal @__kiln_emu.plain.copy(
// CHECK-NOT: __kiln_emu_racecheck_enabled
// CHECK-NOT: __kiln_emu_shared_access
// CHECK: llvm.func internal @__kiln_emu.plain.copy.entry(
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x f32>
    llvm.mlir.global internal @flags() {addr_space = 3 : i32} : !llvm.array<3 x i8>
    llvm.func @kern(%p: !llvm.ptr, %i: i64) attributes {gpu.kernel, nvvm.kernel} {
      %t = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %e = llvm.getelementptr %t[0, %i] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<64 x f32>
      %v = llvm.load %p : !llvm.ptr -> vector<4xf32>
      llvm.store %v, %t {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
      %x = llvm.load %e : !llvm.ptr<3> -> f32
      llvm.store %x, %p : f32, !llvm.ptr
      %f = llvm.mlir.addressof @flags : !llvm.ptr<3>
      %b = llvm.load %f : !llvm.ptr<3> -> i8
      llvm.store %b, %p : i8, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @plain [#nvvm.target<chip = "sm_90">] {
    llvm.func @copy(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %x = llvm.load %p : !llvm.ptr -> f32
      llvm.store %x, %p : f32, !llvm.ptr
      llvm.return
    }
  }
  llvm.func @host(%p: !llvm.ptr, %i: i64) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    gpu.launch_func @m::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr, %i : i64)
    gpu.launch_func @plain::@copy blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%p : !llvm.ptr)
    llvm.return
  }
}
