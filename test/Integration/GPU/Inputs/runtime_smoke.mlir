// A GPU program in upstream dialects only, lowered with mlir-opt's
// gpu-lower-to-nvvm-pipeline: it exercises what host code asks of Kiln's CUDA
// runtime (streams, stream-ordered alloc/dealloc, memset, device-to-device
// memcpy, a kernel launch with 64 KiB of dynamic shared memory, which needs
// the opt-in above 48 KiB) without depending on the kiln pipeline.
// @smoke(x, y): y = 2 * x + 1, where x and y are 4096 f32 in device memory;
// each block stages its slice through the top of its shared memory.
module attributes {gpu.container_module} {
  func.func @smoke(%x: memref<4096xf32>, %y: memref<4096xf32>)
      attributes {llvm.emit_c_interface} {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c256 = arith.constant 256 : index
    %smem = arith.constant 65536 : i32
    %zero = arith.constant 0.0 : f32
    %t0 = gpu.wait async
    %tmp, %t1 = gpu.alloc async [%t0] () : memref<4096xf32>
    %t2 = gpu.memset async [%t1] %tmp, %zero : memref<4096xf32>, f32
    %t3 = gpu.memcpy async [%t2] %tmp, %x : memref<4096xf32>, memref<4096xf32>
    %t4 = gpu.launch_func async [%t3] @kernels::@twice_plus_one
        blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%tmp : memref<4096xf32>, %y : memref<4096xf32>)
    %t5 = gpu.dealloc async [%t4] %tmp : memref<4096xf32>
    gpu.wait [%t5]
    return
  }

  gpu.module @kernels {
    gpu.func @twice_plus_one(%in: memref<4096xf32>, %out: memref<4096xf32>) kernel {
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %bytes = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %c0 = arith.constant 0 : index
      %floats = memref.view %bytes[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<16384xf32, #gpu.address_space<workgroup>>
      // The last 256 floats of 64 KiB.
      %top = arith.constant 16128 : index
      %slot = arith.addi %top, %tid : index
      %v = memref.load %in[%i] : memref<4096xf32>
      memref.store %v, %floats[%slot] : memref<16384xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %floats[%slot] : memref<16384xf32, #gpu.address_space<workgroup>>
      %two = arith.constant 2.0 : f32
      %one = arith.constant 1.0 : f32
      %d = arith.mulf %w, %two : f32
      %r = arith.addf %d, %one : f32
      memref.store %r, %out[%i] : memref<4096xf32>
      gpu.return
    }
  }
}
