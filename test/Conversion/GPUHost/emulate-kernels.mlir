// RUN: kiln-opt %s --kiln-gpu-emulate-kernels --split-input-file | FileCheck %s
// RUN: kiln-opt %s --kiln-gpu-emulate-kernels --split-input-file | mlir-translate --mlir-to-llvmir -o /dev/null

// A gpu.module as convert-gpu-to-nvvm leaves it and a host function as
// gpu-to-llvm leaves it: the kernel moves into the host module, its NVVM ops
// become calls of the emulator, the launch a call of __kiln_emu_launch.

// CHECK-NOT: gpu.container_module
// CHECK-NOT: gpu.module
// CHECK-DAG: llvm.func @__kiln_emu_launch(!llvm.ptr, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr, !llvm.ptr)
// CHECK-DAG: llvm.func @__kiln_emu_sreg(i32) -> i32
// CHECK-DAG: llvm.func @__kiln_emu_barrier() attributes {convergent}
// CHECK-DAG: llvm.func @__kiln_emu_shfl_sync(i32, i32, i32, i32, i32, !llvm.ptr) -> i32 attributes {convergent}
// CHECK-DAG: llvm.func @__kiln_emu_mma_m16n8k16_f32(i32, i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, !llvm.ptr) attributes {convergent}
// CHECK-DAG: llvm.func @__kiln_emu_dynamic_shared() -> !llvm.ptr

// The launch: one slot per argument and the array of their addresses in the
// entry block, then the call with grid, block, shared bytes, stream, params.
// CHECK-LABEL: llvm.func @host(
// CHECK-SAME: %[[S:[a-z0-9]+]]: !llvm.ptr, %[[A:[a-z0-9]+]]: !llvm.ptr, %[[N:[a-z0-9]+]]: i64, %[[X:[a-z0-9]+]]: f32)
// CHECK-DAG: %[[SA:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-DAG: %[[SN:.*]] = llvm.alloca %{{.*}} x i64 : (i64) -> !llvm.ptr
// CHECK-DAG: %[[SX:.*]] = llvm.alloca %{{.*}} x f32 : (i64) -> !llvm.ptr
// CHECK-DAG: %[[THREE:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG: %[[PARAMS:.*]] = llvm.alloca %[[THREE]] x !llvm.ptr : (i64) -> !llvm.ptr
// CHECK-DAG: %[[T128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG: %[[SMEM:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: llvm.store %[[A]], %[[SA]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[PARAMS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: llvm.store %[[SA]], %[[P0]]
// CHECK: llvm.store %[[N]], %[[SN]] : i64, !llvm.ptr
// CHECK: %[[P1:.*]] = llvm.getelementptr %[[PARAMS]][1]
// CHECK: llvm.store %[[SN]], %[[P1]]
// CHECK: llvm.store %[[X]], %[[SX]] : f32, !llvm.ptr
// CHECK: %[[P2:.*]] = llvm.getelementptr %[[PARAMS]][2]
// CHECK: llvm.store %[[SX]], %[[P2]]
// CHECK: %[[ENTRY:.*]] = llvm.mlir.addressof @__kiln_emu.m.kern.entry : !llvm.ptr
// CHECK: llvm.call @__kiln_emu_launch(%[[ENTRY]], %[[N]], %[[ONE:[0-9]+]], %[[ONE]], %[[T128]], %[[ONE]], %[[ONE]], %[[SMEM]], %[[S]], %[[PARAMS]])
// Without a stream and dynamic shared memory: null and 0.
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: llvm.call @__kiln_emu_launch(%{{.*}}, %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ZERO]], %[[NULL]], %{{.*}})
// CHECK-NOT: gpu.launch_func

// Static shared memory: a plain internal global; dynamic shared memory: gone.
// CHECK: llvm.mlir.global internal @__kiln_emu.m.tile() {addr_space = 0 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
// CHECK-NOT: __dynamic_shmem__
// Declarations (libdevice) keep their names.
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.helper(
// CHECK-SAME: !llvm.ptr) -> f32
// CHECK: llvm.call @__nv_expf

// The kernel: internal, no NVVM attributes, no address spaces.
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.kern(
// CHECK-SAME: %[[KA:[a-z0-9]+]]: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: f32) {
// CHECK-DAG: %[[VALID1:.*]] = llvm.alloca %{{.*}} x i8
// CHECK-DAG: %[[VALID2:.*]] = llvm.alloca %{{.*}} x i8
// CHECK-DAG: %[[D:.*]] = llvm.alloca %{{.*}} x f32
// Special registers: tid.x is 0, ctaid.y 7, laneid 12.
// CHECK: %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[TID:.*]] = llvm.call @__kiln_emu_sreg(%[[C0]]) : (i32) -> i32
// CHECK: %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK: %[[CTAID:.*]] = llvm.call @__kiln_emu_sreg(%[[C7]])
// CHECK: %[[C12:.*]] = llvm.mlir.constant(12 : i32) : i32
// CHECK: %[[LANE:.*]] = llvm.call @__kiln_emu_sreg(%[[C12]])
// The address space cast is its operand.
// CHECK: %[[TILE:.*]] = llvm.mlir.addressof @__kiln_emu.m.tile : !llvm.ptr
// CHECK: %[[DYN:.*]] = llvm.call @__kiln_emu_dynamic_shared() : () -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[TILE]] : f32, !llvm.ptr
// nvvm.barrier0 and nvvm.barrier.
// CHECK-NEXT: llvm.call @__kiln_emu_barrier() : () -> ()
// CHECK-NEXT: llvm.call @__kiln_emu_barrier() : () -> ()
// CHECK: %[[E:.*]] = llvm.call @__kiln_emu.m.helper(%[[DYN]])
// shfl.sync bfly (3) of an f32, through i32.
// CHECK: %[[EI:.*]] = llvm.bitcast %[[E]] : f32 to i32
// CHECK: %[[BFLY:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK: %[[SI:.*]] = llvm.call @__kiln_emu_shfl_sync(%[[BFLY]], %{{.*}}, %[[EI]], %[[LANE]], %{{.*}}, %{{.*}})
// CHECK: %[[SF:.*]] = llvm.bitcast %[[SI]] : i32 to f32
// shfl.sync idx (0) with the valid flag, rebuilt as !llvm.struct<(i32, i1)>.
// CHECK: %[[IDX:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[V:.*]] = llvm.call @__kiln_emu_shfl_sync(%[[IDX]], %{{.*}}, %[[TID]], %[[CTAID]], %{{.*}}, %[[FLAG:.*]]) :
// CHECK: %[[FLAGV:.*]] = llvm.load %[[FLAG]] : !llvm.ptr -> i8
// CHECK: %[[ISVALID:.*]] = llvm.icmp "ne" %[[FLAGV]]
// CHECK: %[[PAIR0:.*]] = llvm.insertvalue %[[V]], %{{.*}}[0] : !llvm.struct<(i32, i1)>
// CHECK: llvm.insertvalue %[[ISVALID]], %[[PAIR0]][1] : !llvm.struct<(i32, i1)>
// mma f16 (kind 0): vector<2xf16> registers as i32, D through memory.
// CHECK: %[[F16:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-COUNT-6: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: llvm.call @__kiln_emu_mma_m16n8k16_f32(%[[F16]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SF]], %[[SF]], %[[SF]], %[[SF]], %[[DF16:.*]]) :
// CHECK: %[[R0:.*]] = llvm.getelementptr %[[DF16]][0] : (!llvm.ptr) -> !llvm.ptr, f32
// CHECK: llvm.load %[[R0]] : !llvm.ptr -> f32
// CHECK: llvm.getelementptr %[[DF16]][3]
// mma bf16 (kind 1) on i32 registers.
// CHECK: %[[BF16:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @__kiln_emu_mma_m16n8k16_f32(%[[BF16]], %[[TID]], %[[TID]], %[[TID]], %[[TID]], %[[TID]], %[[TID]],
// CHECK-NOT: nvvm.
// CHECK: llvm.return

// The entry: argument i is *params[i].
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.kern.entry(
// CHECK-SAME: %[[PS:.*]]: !llvm.ptr) {
// CHECK: %[[Q0:.*]] = llvm.getelementptr %[[PS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[Q0A:.*]] = llvm.load %[[Q0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ARG0:.*]] = llvm.load %[[Q0A]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[Q1:.*]] = llvm.getelementptr %[[PS]][1]
// CHECK: %[[Q1A:.*]] = llvm.load %[[Q1]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ARG1:.*]] = llvm.load %[[Q1A]] : !llvm.ptr -> i64
// CHECK: %[[Q2:.*]] = llvm.getelementptr %[[PS]][2]
// CHECK: %[[Q2A:.*]] = llvm.load %[[Q2]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[ARG2:.*]] = llvm.load %[[Q2A]] : !llvm.ptr -> f32
// CHECK: llvm.call @__kiln_emu.m.kern(%[[ARG0]], %[[ARG1]], %[[ARG2]]) : (!llvm.ptr, i64, f32) -> ()
// CHECK-NEXT: llvm.return
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90">] {
    llvm.mlir.global internal @tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @helper(%p: !llvm.ptr<3>) -> f32 {
      %v = llvm.load %p : !llvm.ptr<3> -> f32
      %e = llvm.call @__nv_expf(%v) : (f32) -> f32
      llvm.return %e : f32
    }
    llvm.func @kern(%a: !llvm.ptr {llvm.noalias, nvvm.test_attr}, %n: i64, %x: f32) attributes {gpu.kernel, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
      %tid = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
      %ctaid = nvvm.read.ptx.sreg.ctaid.y : i32
      %lane = nvvm.read.ptx.sreg.laneid : i32
      %tile = llvm.mlir.addressof @tile : !llvm.ptr<3>
      %dyn = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
      %generic = llvm.addrspacecast %tile : !llvm.ptr<3> to !llvm.ptr
      llvm.store %x, %generic : f32, !llvm.ptr
      nvvm.barrier0
      nvvm.barrier
      %e = llvm.call @helper(%dyn) : (!llvm.ptr<3>) -> f32
      %mask = llvm.mlir.constant(-1 : i32) : i32
      %c31 = llvm.mlir.constant(31 : i32) : i32
      %s = nvvm.shfl.sync bfly %mask, %e, %lane, %c31 : f32 -> f32
      %sv = nvvm.shfl.sync idx %mask, %tid, %ctaid, %c31 {return_value_and_is_valid} : i32 -> !llvm.struct<(i32, i1)>
      %h = llvm.mlir.undef : vector<2xf16>
      %d = nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%s, %s, %s, %s] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
      %d2 = nvvm.mma.sync A[%tid, %tid, %tid, %tid] B[%tid, %tid] C[%d0, %d0, %d0, %d0] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %o = llvm.extractvalue %d2[3] : !llvm.struct<(f32, f32, f32, f32)>
      llvm.store %o, %a : f32, !llvm.ptr
      llvm.return
    }
  }
  llvm.func @host(%s: !llvm.ptr, %a: !llvm.ptr, %n: i64, %x: f32) {
    %c1 = llvm.mlir.constant(1 : i64) : i64
    %c128 = llvm.mlir.constant(128 : i64) : i64
    %smem = llvm.mlir.constant(256 : i32) : i32
    gpu.launch_func <%s : !llvm.ptr> @m::@kern blocks in (%n, %c1, %c1) threads in (%c128, %c1, %c1) : i64 dynamic_shared_memory_size %smem args(%a : !llvm.ptr, %n : i64, %x : f32)
    gpu.launch_func @m::@kern blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64 args(%a : !llvm.ptr, %n : i64, %x : f32)
    llvm.return
  }
}

// -----

// nvvm.ldmatrix m8n8 b16 (x1, x2 .trans, x4): one call per op with the
// count, the transpose flag (the col layout) and the lane's row address;
// the registers come back through an entry-block array of 4 i32.
// CHECK-DAG: llvm.func @__kiln_emu_ldmatrix_m8n8_b16(i32, i32, !llvm.ptr, !llvm.ptr) attributes {convergent}
// CHECK-LABEL: llvm.func internal @__kiln_emu.m.ld(
// CHECK-SAME: %[[ROW:[a-z0-9]+]]: !llvm.ptr, %[[OUT:[a-z0-9]+]]: !llvm.ptr)
// CHECK-COUNT-3: llvm.alloca %{{.*}} x i32 : (i64) -> !llvm.ptr
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: %[[NO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: llvm.call @__kiln_emu_ldmatrix_m8n8_b16(%[[ONE]], %[[NO]], %[[ROW]], %[[R1:[0-9]+]]) :
// CHECK: %[[E10:.*]] = llvm.getelementptr %[[R1]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[X1:.*]] = llvm.load %[[E10]] : !llvm.ptr -> i32
// CHECK: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK: %[[YES:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @__kiln_emu_ldmatrix_m8n8_b16(%[[TWO]], %[[YES]], %[[ROW]], %[[R2:[0-9]+]]) :
// CHECK: llvm.getelementptr %[[R2]][1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[S2:.*]] = llvm.insertvalue %{{.*}}[1] : !llvm.struct<(i32, i32)>
// CHECK: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: llvm.call @__kiln_emu_ldmatrix_m8n8_b16(%[[FOUR]], %{{.*}}, %[[ROW]], %[[R4:[0-9]+]]) :
// CHECK: llvm.getelementptr %[[R4]][3] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK: %[[S4:.*]] = llvm.insertvalue %{{.*}}[3] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.store %[[X1]], %[[OUT]]
// CHECK: llvm.extractvalue %[[S2]][1]
// CHECK: llvm.extractvalue %[[S4]][3]
// CHECK-NOT: nvvm.
// CHECK: llvm.return
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<chip = "sm_90">] {
    llvm.func @ld(%row: !llvm.ptr<3>, %out: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %x1 = nvvm.ldmatrix %row {num = 1 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> i32
      %x2 = nvvm.ldmatrix %row {num = 2 : i32, layout = #nvvm.mma_layout<col>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
      %x4 = nvvm.ldmatrix %row {num = 4 : i32, layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %x1, %out : i32, !llvm.ptr
      %a = llvm.extractvalue %x2[1] : !llvm.struct<(i32, i32)>
      llvm.store %a, %out : i32, !llvm.ptr
      %b = llvm.extractvalue %x4[3] : !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %b, %out : i32, !llvm.ptr
      llvm.return
    }
  }
}
