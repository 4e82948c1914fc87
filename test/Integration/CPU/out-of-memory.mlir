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

// A temporary of the compiled code that the machine cannot allocate (2^62
// bytes, on any machine; 8 GiB under the 4 GB limit) ends the call with an
// error naming its bytes (the lowering adds 64 for alignment), with and
// without OpenMP; it was a NULL block, and a segfault at its first store.
// RUN: sh -c 'kiln-run %s --entry temporary --random-inputs; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=TEMPORARY
// RUN: sh -c 'kiln-run %s --entry temporary --random-inputs --openmp; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=TEMPORARY
// TEMPORARY: error: @temporary: out of memory: its compiled code could not allocate a temporary of 4611686018427387968 bytes
// TEMPORARY: exit code 1{{$}}
// RUN: sh -c '%limit_memory_4gb kiln-run %s --entry eight_gib --random-inputs; echo "exit code $?"' 2>&1 | FileCheck %s --check-prefix=EIGHT
// EIGHT: error: @eight_gib: out of memory: its compiled code could not allocate a temporary of 8589934656 bytes
// EIGHT: exit code 1{{$}}

func.func @argument(%big: tensor<2x1024x1024x1024xf32>, %x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

func.func @result(%x: tensor<f32>) -> tensor<2x1024x1024x1024xf32> {
  %b = kiln.broadcast_to %x : tensor<f32> -> tensor<2x1024x1024x1024xf32>
  return %b : tensor<2x1024x1024x1024xf32>
}

// A scan's output cannot be fused away: it is a buffer of the code.
func.func @temporary(%x: tensor<f32>) -> tensor<f32> {
  %b = kiln.broadcast_to %x : tensor<f32> -> tensor<1073741824x1073741824xf32>
  %c = kiln.cumsum %b {axis = 1 : i64} : tensor<1073741824x1073741824xf32>
  %s = kiln.sum %c {axes = array<i64: 0, 1>} : tensor<1073741824x1073741824xf32> -> tensor<f32>
  return %s : tensor<f32>
}

func.func @eight_gib(%x: tensor<f32>) -> tensor<f32> {
  %b = kiln.broadcast_to %x : tensor<f32> -> tensor<2x1024x1024x1024xf32>
  %c = kiln.cumsum %b {axis = 3 : i64} : tensor<2x1024x1024x1024xf32>
  %s = kiln.sum %c {axes = array<i64: 0, 1, 2, 3>} : tensor<2x1024x1024x1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}
