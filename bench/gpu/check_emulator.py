"""Kiln's GPU emulator against the hardware: runs the emulator_check
artifact (prepare_emulator.sh, from emulator_check.cu), which executes
shfl.sync (every mode, lane/offset and a sweep of clamp/segment operands) and
mma.sync.m16n8k16 (f16 and bf16: small integers bit-exact, random operands
within the f32 accumulation bound, inf/NaN) and ldmatrix (x1/x2/x4, with and
without .trans, bit-exact) on the GPU and through the emulator, and compares
them. Its PASS/FAIL lines are re-reported here.
"""
import subprocess

from kiln_gpu import artifact, fail, finish, report


def main():
    try:
        binary = artifact("emulator_check")
    except FileNotFoundError as error:
        fail("emulator.load", str(error))
        finish()
    try:
        result = subprocess.run([binary], capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        # No exec bit after the carry, a wrong architecture, or a hang.
        fail("emulator.run", "%s: %s" % (type(error).__name__, error))
        finish()
    seen = False
    for line in result.stdout.splitlines():
        fields = line.split(" ", 4)
        if len(fields) >= 4 and fields[0] in ("PASS", "FAIL"):
            seen = True
            report(fields[1], float(fields[2]), float(fields[3]),
                   ok=fields[0] == "PASS",
                   note=fields[4] if len(fields) > 4 else "")
    if not seen or (result.returncode != 0 and "FAIL" not in result.stdout):
        fail("emulator.run", "exit %d: %s" % (result.returncode,
                                              result.stderr.strip()[-500:]))
    finish()


if __name__ == "__main__":
    main()
