// A tensor below the runtime's 64 GiB cap that this machine cannot allocate
// (here: an 8 GiB argument or result under a 4 GB address-space limit) is an
// error naming the tensor and its bytes, with exit code 1. It aborted in
// HostTensor::allocate ("LLVM ERROR: out of memory"): the storage came from
// operator new, whose failure LLVM's out-of-memory handler turns into an
// abort. The limit makes the allocation fail at once, whatever the machine.
// `echo` reports kiln-run's own exit code (a signal would be 134).
// %limit_memory_4gb is `ulimit -v 4000000;`, or in a sanitized build, whose
// shadow memory needs far more address space than that, AddressSanitizer's
// own cap on one allocation (test/lit.cfg.py).
//
// RUN: sh -c '%limit_memory_4gb kiln-run %s --entry argument --random-inputs; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=ARGUMENT
// ARGUMENT: kiln-run: error: argument #0: out of memory: tensor<2x1024x1024x1024xf32> needs 8589934592 bytes
// ARGUMENT-NEXT: exit code 1{{$}}
//
// RUN: sh -c '%limit_memory_4gb kiln-run %s --entry result --random-inputs; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: error: cannot allocate result #0 of @result: out of memory: tensor<2x1024x1024x1024xf32> needs 8589934592 bytes
// RESULT: exit code 1{{$}}

func.func @argument(%big: tensor<2x1024x1024x1024xf32>, %x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

func.func @result(%x: tensor<f32>) -> tensor<2x1024x1024x1024xf32> {
  %b = kiln.broadcast_to %x : tensor<f32> -> tensor<2x1024x1024x1024xf32>
  return %b : tensor<2x1024x1024x1024xf32>
}
