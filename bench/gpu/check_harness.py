"""Self-test of the harness the other checks rely on (kiln_gpu.py), without
any library or GPU, so that bench/gpu/run.sh (and `run.sh --emulate` here)
proves that a NaN result cannot pass: within, nan_max, relative_error,
report and compare flag NaN (a plain `err > tol` test and Python's max()
let it through), and poison fills outputs with NaN.
"""
import contextlib
import io
import math

import torch

import kiln_gpu
from kiln_gpu import finish, nan_max, poison, relative_error, report, within

NAN = math.nan


def quietly(fn):
    """(result of fn(), its output) without counting the cases it reports."""
    cases, failures = kiln_gpu._cases[0], list(kiln_gpu._failures)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn()
    kiln_gpu._cases[0], kiln_gpu._failures[:] = cases, failures
    return result, out.getvalue()


def expect(name, ok, note=""):
    report("harness." + name, 0.0 if ok else 1.0, 0.0, ok=ok, note=note)


def check_comparisons():
    expect("within_nan", not within(NAN, 2e-2) and within(1e-3, 2e-2)
           and not within(3e-2, 2e-2))
    expect("nan_max", math.isnan(nan_max([1e-3, NAN, 2e-3]))
           and math.isnan(nan_max([NAN, 1.0])) and math.isnan(nan_max([]))
           and nan_max([1e-3, 2e-3]) == 2e-3,
           "python max([1e-3, nan, 2e-3]) = %g" % max([1e-3, NAN, 2e-3]))
    want = torch.tensor([1.0, -2.0, 4.0])
    got = torch.tensor([1.0, -2.0, 4.5])
    expect("relative_error",
           relative_error(got, want) == 0.125
           and math.isnan(relative_error(torch.tensor([1.0, NAN, 4.0]), want))
           and math.isnan(relative_error(torch.tensor([1.0, math.inf, 4.0]),
                                         want)))
    f, i, b = poison(torch.zeros(3, dtype=torch.bfloat16),
                     torch.zeros(2, dtype=torch.int32),
                     torch.zeros(2, dtype=torch.bool))
    expect("poison", bool(f.isnan().all()) and
           bool((i == torch.iinfo(torch.int32).min).all()) and bool(b.all()))
    ok, line = quietly(lambda: report("nan_case", NAN, 1.0))
    expect("report_nan", not ok and line.startswith("FAIL nan_case nan"),
           line.strip())
    ok, line = quietly(lambda: kiln_gpu.compare(
        "nan_case", torch.tensor([1.0, NAN]), torch.tensor([1.0, 2.0]), 1e9))
    expect("compare_nan", not ok and line.startswith("FAIL"), line.strip())


def main():
    check_comparisons()
    finish()


if __name__ == "__main__":
    main()
