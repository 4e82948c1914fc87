// RUN: kiln-opt %s --kiln-gpu-align-workgroup-buffers="alignment=12" -verify-diagnostics

// expected-error @below {{kiln-gpu-align-workgroup-buffers: alignment 12 is not a positive power of two}}
gpu.module @m {
  gpu.func @k() workgroup(%w : memref<8xf16, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}
