"""Kiln's CUDA runtime on the GPU, independent of the kiln pipelines:
libruntime_smoke.so (prepare_runtime.sh) computes y = 2x + 1 through a
stream-ordered temporary (alloc, memset, device-to-device copy, free) and a
kernel with 64 KiB of dynamic shared memory (which needs the runtime's
opt-in above 48 KiB). Exact in f32 (2x + 1 rounds the same everywhere).
Also: a call from a thread where torch never ran (the runtime pushes the
primary context torch uses), NULL pointers (return code 1 with a message),
and the per-call overhead of a small launch, by default (a stream created
and destroyed per call) and with the runtime's opt-in per-thread stream cache
and kept pool memory (KILN_CUDA_STREAM_CACHE=1 KILN_CUDA_KEEP_POOL_MEMORY=1,
in a child process;
not on the emulator, where it means nothing).
"""
import ctypes
import os
import subprocess
import sys
import threading

import torch

from kiln_gpu import DEVICE, EMULATE, KilnError, KilnLibrary, artifact, \
    call_overhead_us, fail, finish, poison, report, run_cases, synchronize


def microseconds(us):
    return "unknown (the smoke call failed)" if us is None else \
        "%.1f us" % us


def main():
    quick = "--quick" in sys.argv
    if "--overhead-only" in sys.argv:
        print("INFO runtime.call_overhead_cached %s per call "
              "(KILN_CUDA_STREAM_CACHE=1 KILN_CUDA_KEEP_POOL_MEMORY=1: the "
              "thread's stream reused, the pool's memory kept)"
              % microseconds(call_overhead_us()), flush=True)
        return
    try:
        lib = KilnLibrary(artifact("libruntime_smoke.so"))
    except (OSError, FileNotFoundError) as error:
        fail("runtime.load", str(error))
        finish()
    smoke = lib.function("smoke")
    x = torch.randn(4096, device=DEVICE, dtype=torch.float32)
    ref = 2 * x + 1

    def smoke_64KiB_shared():
        try:
            (y,) = smoke(x)
            report("runtime.smoke_64KiB_shared",
                   (y - ref).abs().max().item(), 0.0)
        except KilnError as error:
            fail("runtime.smoke_64KiB_shared", str(error))

    def other_thread():
        # From a fresh thread: no current context there until the runtime
        # pushes the device's primary context, which torch's allocations
        # live in.
        (y_thread,) = poison(torch.empty_like(x))
        synchronize()
        ins = (ctypes.c_void_p * 1)(x.data_ptr())
        outs = (ctypes.c_void_p * 1)(y_thread.data_ptr())
        result = {}

        def worker():
            # ctypes only: no torch (CUDA runtime) call on this thread.
            result["rc"] = smoke.fn(ins, outs)
            result["error"] = lib.last_error()
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        if result["rc"] != 0:
            fail("runtime.other_thread", "rc %d: %s" % (result["rc"],
                                                        result["error"]))
        else:
            report("runtime.other_thread",
                   (y_thread - ref).abs().max().item(), 0.0)

    def null_inputs():
        # NULL pointers: return code 1 and a message, no CUDA work.
        (y,) = smoke.empty_outputs()
        outs = (ctypes.c_void_p * 1)(y.data_ptr())
        rc = smoke.fn(None, outs)
        message = lib.last_error()
        report("runtime.null_inputs", 0.0, 0.0,
               ok=(rc == 1 and "NULL" in message),
               note="rc %d: %s" % (rc, message))

    def error_cleared():
        # A successful call after the failed one clears the error slot.
        smoke.fn(None, None)
        (y,) = smoke(x)
        report("runtime.error_cleared", (y - ref).abs().max().item(), 0.0,
               ok=lib.last_error() == "" and torch.equal(y, ref))

    def call_overhead():
        print("INFO runtime.call_overhead %s per call (stream, alloc, "
              "memset, copy, launch, free, sync)"
              % microseconds(call_overhead_us()), flush=True)
        # The runtime reads KILN_CUDA_STREAM_CACHE and
        # KILN_CUDA_KEEP_POOL_MEMORY once per process: the opt-in path, the
        # thread's stream reused and the pool's memory kept, in a child.
        child = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--overhead-only"],
            env=dict(os.environ, KILN_CUDA_STREAM_CACHE="1",
                     KILN_CUDA_KEEP_POOL_MEMORY="1"),
            capture_output=True, text=True, timeout=60)
        print(child.stdout.strip() or "INFO runtime.call_overhead_cached "
              "failed: %s" % child.stderr.strip()[-300:], flush=True)

    cases = [("runtime.smoke_64KiB_shared", smoke_64KiB_shared),
             ("runtime.other_thread", other_thread),
             ("runtime.null_inputs", null_inputs),
             ("runtime.error_cleared", error_cleared)]
    if not quick and not EMULATE:
        cases.append(("runtime.call_overhead", call_overhead))
    run_cases(cases, lambda case: case[1](), name=lambda case: case[0])
    finish()


if __name__ == "__main__":
    main()
