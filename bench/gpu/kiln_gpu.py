"""Calls kiln-compile --target=cuda libraries on torch CUDA tensors, and the
reporting conventions of the device-side checks (bench/gpu/check_*.py).

    lib = KilnLibrary(artifact("libblock.so"))
    main = lib.function("main")             # reads kiln_main_signature()
    loss, *grads = main(*inputs)            # CUDA tensors in, CUDA tensors out

Each check prints one line per case, `PASS|FAIL name max_abs_err tol`, with
`report` or `compare`, and ends with `finish()`, which exits non-zero if a
case failed. Needs torch and the CUDA driver only (no LLVM, MLIR or Kiln
build): the libraries are built by bench/gpu/prepare.sh into
bench/gpu/artifacts/.

KILN_GPU_EMULATE=1 (set by `bench/gpu/run.sh --emulate`) runs the same
checks on Kiln's GPU emulator, without a GPU: the libraries are the
`kiln-compile --target=cuda-emulator` ones of `prepare.sh --emulate`
(bench/gpu/artifacts-emulator/), whose "device pointers" are host pointers,
so DEVICE is "cpu" and synchronize() does nothing. The checks use DEVICE,
to_device() and synchronize() instead of naming CUDA.
"""
import ctypes
import json
import math
import os
import re
import sys
import time
import traceback

import torch

EMULATE = os.environ.get("KILN_GPU_EMULATE", "") not in ("", "0")
# Where the libraries' pointers live: host memory on the emulator.
DEVICE = "cpu" if EMULATE else "cuda"
ARTIFACTS = os.environ.get(
    "KILN_GPU_ARTIFACTS",
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "artifacts-emulator" if EMULATE else "artifacts"))


def to_device(tensor):
    """`tensor` where the libraries read it (tensor.cuda() on the GPU)."""
    return tensor.to(DEVICE) if EMULATE else tensor.cuda()


def synchronize():
    """torch.cuda.synchronize() on the GPU; nothing on the emulator (its
    calls finish before they return, and torch runs on the CPU)."""
    if not EMULATE:
        torch.cuda.synchronize()

DTYPES = {
    "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
    "f64": torch.float64, "i1": torch.bool, "i8": torch.int8,
    "i32": torch.int32, "i64": torch.int64,
}


class KilnError(RuntimeError):
    """A kiln_<name> call failed; the message is kiln_last_error()'s."""


def artifact(name):
    """The path of a prepared artifact; a missing one is an error that says
    to run prepare.sh."""
    path = os.path.join(ARTIFACTS, name)
    if not os.path.exists(path):
        raise FileNotFoundError(
            "%s is missing: run bench/gpu/prepare.sh --emulate" % path
            if EMULATE else
            "%s is missing: run bench/gpu/prepare.sh where Kiln is built and "
            "carry bench/gpu/artifacts/" % path)
    return path


_SPEC = re.compile(r"(\w+)\[([\d,]*)\]")


def parse_signature(text):
    """'f32[2,3],f32[3]->f32[2,3]' -> ([(torch.float32, (2, 3)),
    (torch.float32, (3,))], [(torch.float32, (2, 3))])."""
    def specs(part):
        return [(DTYPES[dtype], tuple(int(d) for d in dims.split(",") if d))
                for dtype, dims in _SPEC.findall(part)]
    ins, outs = text.split("->")
    return specs(ins), specs(outs)


class KilnFunction:
    """kiln_<name> of a library: checks the tensors against its signature,
    calls it with their device pointers and raises KilnError on failure."""

    def __init__(self, lib, name):
        self.lib = lib
        self.name = name
        signature = getattr(lib.handle, "kiln_%s_signature" % name)
        signature.restype = ctypes.c_char_p
        self.signature = signature().decode()
        self.inputs, self.outputs = parse_signature(self.signature)
        self.fn = getattr(lib.handle, "kiln_" + name)
        self.fn.restype = ctypes.c_int
        self.fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p]

    def empty_outputs(self, device=None):
        """The outputs, poisoned (see `poison`): what the library does not
        write cannot pass a comparison."""
        if device is None:
            device = torch.device("cpu") if EMULATE else torch.device(
                "cuda", torch.cuda.current_device())
        return poison(*[torch.empty(shape, dtype=dtype, device=device)
                        for dtype, shape in self.outputs])

    def _check(self, kind, tensors, specs):
        if len(tensors) != len(specs):
            raise ValueError("kiln_%s takes %d %s, got %d (signature %s)" % (
                self.name, len(specs), kind, len(tensors), self.signature))
        for i, (t, (dtype, shape)) in enumerate(zip(tensors, specs)):
            if t.device.type != DEVICE or t.dtype != dtype \
                    or tuple(t.shape) != shape or not t.is_contiguous():
                raise ValueError(
                    "kiln_%s: %s[%d] must be a contiguous %s %s tensor of "
                    "shape %s, got %s %s %s%s" % (
                        self.name, kind, i, DEVICE.upper(), dtype,
                        list(shape), t.device,
                        t.dtype, list(t.shape),
                        "" if t.is_contiguous() else " (not contiguous)"))

    def __call__(self, *inputs, outputs=None):
        """Runs the function; returns the outputs (allocated here unless
        given). The call is synchronous."""
        inputs = list(inputs)
        self._check("inputs", inputs, self.inputs)
        if outputs is None:
            outputs = self.empty_outputs(inputs[0].device if inputs else None)
        self._check("outputs", outputs, self.outputs)
        # The library's work is ordered after the legacy default stream
        # (torch's default); wait for any other current stream explicitly.
        if not EMULATE:
            stream = torch.cuda.current_stream()
            if stream != torch.cuda.default_stream():
                stream.synchronize()
        ins = (ctypes.c_void_p * max(len(inputs), 1))(
            *[t.data_ptr() for t in inputs])
        outs = (ctypes.c_void_p * max(len(outputs), 1))(
            *[t.data_ptr() for t in outputs])
        rc = self.fn(ins, outs)
        if rc != 0:
            raise KilnError("kiln_%s returned %d: %s" % (
                self.name, rc, self.lib.last_error()))
        return outputs


class KilnLibrary:
    """A kiln-compile --target=cuda (or cuda-emulator) shared library."""

    def __init__(self, path):
        self.path = path
        self.handle = ctypes.CDLL(path)
        self.handle.kiln_last_error.restype = ctypes.c_char_p
        self.handle.kiln_last_error.argtypes = []

    def last_error(self):
        return self.handle.kiln_last_error().decode(errors="replace")

    def function(self, name):
        return KilnFunction(self, name)


def time_ms(fn, warmup=2, repeat=10):
    """Median wall time of fn() in milliseconds, synchronizing around each
    run (kiln calls are synchronous; torch work is waited for)."""
    for _ in range(warmup):
        fn()
    synchronize()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


# ---------------------------------------------------------------------------
# Comparisons a NaN cannot pass. `err > tol` is False for a NaN error, and
# Python's max() drops a NaN that is not first (max([1e-3, nan, 2e-3]) is
# 2e-3), so a kernel that writes NaN, or nothing into an uninitialized
# output, would pass both. Every check and benchmark compares with these.
# ---------------------------------------------------------------------------


def within(err, tol):
    """Whether err <= tol: False when err (or tol) is NaN."""
    return float(err) <= float(tol)


def nan_max(values):
    """The largest of `values` (numbers), NaN if any is NaN or there are
    none."""
    values = [float(v) for v in values]
    if not values or any(math.isnan(v) for v in values):
        return math.nan
    return max(values)


def relative_error(got, want):
    """max |got - want| / max |want| (as a float, computed in float32 on
    `want`'s device), NaN when `got` has a NaN or an infinity."""
    got = got.to(device=want.device, dtype=torch.float32)
    want = want.float()
    if not torch.isfinite(got).all().item():
        return math.nan
    if not want.numel():
        return 0.0
    return ((got - want).abs().max() /
            want.abs().max().clamp_min(1e-30)).item()


def poison(*tensors):
    """Fills each tensor in place with NaN (integers with their minimum,
    booleans with True), so that an output the library leaves unwritten
    cannot pass; returns the list of tensors."""
    for t in tensors:
        if t.is_floating_point():
            t.fill_(math.nan)
        elif t.dtype == torch.bool:
            t.fill_(True)
        else:
            t.fill_(torch.iinfo(t.dtype).min)
    return list(tensors)


# ---------------------------------------------------------------------------
# Sticky GPU faults. An illegal address, misaligned access, illegal
# instruction, device assert or launch failure poisons the CUDA context for
# the rest of the process (torch shares it), so every later case would fail
# with the same message. `run_cases` records the faulting case as FAIL and
# restarts the script in place (os.execv: same PID, so run.sh's timeout
# still applies) with --resume=STATE, which carries the counts and resumes
# after that case. The first fault of a script re-runs the case once with
# KILN_CUDA_SYNC_LAUNCHES=1 (the runtime then synchronizes after every
# launch, so the message names the faulting kernel; docs/GPURuntime.md).
# ---------------------------------------------------------------------------

STICKY_ERRORS = (
    # CUresult names (Kiln's runtime, kiln_last_error()).
    "ILLEGAL_ADDRESS", "MISALIGNED", "ILLEGAL_INSTRUCTION", "LAUNCH_FAILED",
    "HARDWARE_STACK_ERROR", "INVALID_PC", "CUDA_ERROR_ASSERT",
    # torch's texts of the same errors.
    "an illegal memory access", "misaligned address",
    "an illegal instruction", "unspecified launch failure",
    "device-side assert")
# Restarts of one script before it gives up on the rest of its cases.
MAX_RESTARTS = 20


def is_sticky(message):
    """Whether an error message is one of a fault that loses the context."""
    text = str(message).lower()
    return any(marker.lower() in text for marker in STICKY_ERRORS)


def _take_resume_state():
    """Removes --resume=STATE from sys.argv (so the scripts' own argument
    parsing never sees it) and returns STATE, a dict ({} on a first run)."""
    for i, arg in enumerate(sys.argv[1:], 1):
        if arg.startswith("--resume="):
            del sys.argv[i]
            return json.loads(arg[len("--resume="):])
    return {}


_resume = _take_resume_state()
_failures = list(_resume.get("failed", []))
_cases = [int(_resume.get("cases", 0))]
# Values a script keeps across restarts (JSON-serializable).
carried = dict(_resume.get("carried", {}))
# The sticky error seen during the running case, if any.
_fault = [None]


def report(name, max_abs_err, tol, ok=None, note=""):
    """Prints `PASS|FAIL name max_abs_err tol [note]`; ok defaults to
    within(max_abs_err, tol) (a NaN error fails)."""
    if ok is None:
        ok = within(max_abs_err, tol)
    _cases[0] += 1
    if not ok:
        _failures.append(name)
    print("%s %s %.3e %.3e%s" % ("PASS" if ok else "FAIL", name,
                                 float(max_abs_err), float(tol),
                                 (" " + note) if note else ""), flush=True)
    return ok


def fail(name, reason):
    """A case that could not run: FAIL with the reason. A reason that is a
    sticky GPU fault makes `run_cases` restart the script after the case."""
    _cases[0] += 1
    _failures.append(name)
    print("FAIL %s nan nan %s" % (name, reason), flush=True)
    if is_sticky(reason) and _fault[0] is None:
        _fault[0] = str(reason)


def compare(name, got, ref, tol, note=""):
    """Compares a result with its reference (converted to float64 on the
    reference's device): max |got - ref| <= tol."""
    got = got.to(device=ref.device, dtype=torch.float64)
    ref = ref.to(torch.float64)
    if got.shape != ref.shape:
        fail(name, "shape %s != reference %s" % (list(got.shape),
                                                 list(ref.shape)))
        return False
    err = (got - ref).abs().max().item() if ref.numel() else 0.0
    if ref.numel() and not torch.isfinite(got).all().item():
        err = float("nan")
    return report(name, err, tol, note=note)


def _sync_launches():
    return os.environ.get("KILN_CUDA_SYNC_LAUNCHES", "") not in ("", "0")


def _restart(name, before, rerun):
    """Re-executes the script after a sticky fault in case `name`; `before`
    is (cases, failures) at the case's start."""
    if os.environ.get("KILN_GPU_NO_RESTART", "") not in ("", "0"):
        # run.sh's compute-sanitizer step: a re-executed image would lose
        # the sanitizer's summary of the faulting one.
        fail("restarts", "a GPU fault in %s; KILN_GPU_NO_RESTART is set, so "
             "the remaining cases are not run" % name)
        finish()
    restarts = int(_resume.get("restarts", 0)) + 1
    state = {"restarts": restarts, "carried": carried}
    if rerun and not _sync_launches():
        # Its results are replaced by the re-run's.
        state.update(rerun=name, cases=before[0], failed=before[1],
                     first_fault=_fault[0])
        os.environ["KILN_CUDA_SYNC_LAUNCHES"] = "1"
        print("# %s: a GPU fault lost the CUDA context; the lines of %s "
              "above are discarded: restarting (pid %d) to re-run it with "
              "KILN_CUDA_SYNC_LAUNCHES=1, which names the faulting kernel"
              % (name, name, os.getpid()), flush=True)
    else:
        state.update(after=name, cases=_cases[0], failed=_failures)
        print("# %s: a GPU fault lost the CUDA context: restarting (pid %d) "
              "after it" % (name, os.getpid()), flush=True)
    if restarts > MAX_RESTARTS:
        fail("restarts", "%d GPU faults: the remaining cases are not run"
             % MAX_RESTARTS)
        finish()
    sys.stdout.flush()
    sys.stderr.flush()
    script = os.path.abspath(sys.argv[0])
    os.execv(sys.executable, [sys.executable, script] + sys.argv[1:] +
             ["--resume=" + json.dumps(state)])


def run_cases(items, body, name=str, rerun=True):
    """Runs body(item) for each of `items` (named name(item)) as one case,
    so that a GPU fault costs that case only.

    A case that raises fails with the exception's message (the others still
    run). A sticky fault (raised, or passed to `fail`) restarts the script
    (see above): with `rerun`, the first fault re-runs its case with
    synchronous launches to name the kernel (a case that passes then still
    fails, as `<name>/first_run`); then the script resumes after the case.
    KILN_GPU_FAKE_FAULT=NAME raises a simulated fault in case NAME (the
    harness self-test, check_harness.py, uses it)."""
    items = list(items)
    names = [name(item) for item in items]
    start = 0
    for key, offset in (("rerun", 0), ("after", 1)):
        if key in _resume:
            if _resume[key] not in names:
                fail("resume", "no case %r to resume at" % _resume[key])
                return
            start = names.index(_resume[key]) + offset
    rerunning = _resume.get("rerun")
    fake = os.environ.get("KILN_GPU_FAKE_FAULT")
    for item, case in zip(items[start:], names[start:]):
        before = (_cases[0], list(_failures))
        _fault[0] = None
        try:
            if case == fake:
                raise RuntimeError(
                    "CUDA_ERROR_ILLEGAL_ADDRESS: simulated by "
                    "KILN_GPU_FAKE_FAULT (KILN_CUDA_SYNC_LAUNCHES=%s)"
                    % os.environ.get("KILN_CUDA_SYNC_LAUNCHES", ""))
            body(item)
        except Exception as error:  # noqa: BLE001 - reported as a FAIL
            if not is_sticky(error):
                traceback.print_exc(file=sys.stdout)
            fail(case, "%s: %s" % (type(error).__name__, error))
        if _fault[0] is not None:
            _restart(case, before, rerun)
        if case == rerunning:
            fail(case + "/first_run",
                 "the first run faulted (%s); the re-run with "
                 "KILN_CUDA_SYNC_LAUNCHES=1 did not" % _resume["first_fault"])


def failed_cases():
    """The names of the cases that failed so far (across restarts)."""
    return list(_failures)


def call_overhead_us():
    """The host overhead of one kiln call in microseconds: the median wall
    time of libruntime_smoke.so's `smoke` on 4096 floats (a stream created
    and destroyed, a temporary allocated and freed, a memset, a copy, one
    tiny launch, a synchronize), which every kiln call pays in part; None
    where the library is missing or fails."""
    try:
        smoke = KilnLibrary(artifact("libruntime_smoke.so")).function("smoke")
        x = to_device(torch.randn(4096))
        out = smoke.empty_outputs()
        return 1e3 * time_ms(lambda: smoke(x, outputs=out), warmup=5,
                             repeat=50)
    except (OSError, FileNotFoundError, KilnError):
        return None


def finish():
    """Exits 1 if a case failed, after a one-line summary."""
    print("%s: %d cases, %d failed%s" % (
        os.path.basename(sys.argv[0]), _cases[0], len(_failures),
        (": " + " ".join(_failures)) if _failures else ""), flush=True)
    sys.exit(1 if _failures else 0)
