#!/usr/bin/env bash
# Runs THERE, on the GPU machine (after bench/gpu/prepare.sh here): Nsight
# Compute on Kiln's attention kernels of benchmark configurations, to see
# where their time goes (bench/gpu/run.sh only times them).
#
#   bench/gpu/profile.sh [CONFIG...]
#
# CONFIG is a configuration of bench_attention_bwd.py (default: the GQA
# 16/4, S=4096, non-causal ones at D=64 and D=128). For each, ncu profiles
# the first launches of the paired forward's and backward's kernels
# (`__kiln_func_fwd_CONFIG_kernel*`, `..._bwd_...`: the forward with LSE, then the backward's
# zero, preprocess, main and cast kernels) while bench_attention_bwd.py
# runs that configuration, with the sections below and every warp stall
# reason (per issued instruction), at the clocks the card runs at
# (--clock-control none: the machine's settings are left alone). Writes
# $OUT/profile-CONFIG.txt (ncu's whole report; the current directory when
# OUT is unset) and prints each kernel's summary lines. Needs ncu on PATH
# or in /opt/nvidia/nsight-compute, and a runtime where it can read the
# hardware counters (Firecracker, not gVisor: docs/GPURuntime.md).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${OUT:-.}
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
if [ -z "$ncu" ]; then
  echo "profile: no ncu on PATH or in /opt/nvidia/nsight-compute" >&2
  exit 1
fi
configs=("$@")
[ ${#configs[@]} -gt 0 ] ||
  configs=(b4_h16_kv4_s4096_d64_full b4_h16_kv4_s4096_d128_full)
export PYTHONUNBUFFERED=1
status=0
for config in "${configs[@]}"; do
  report=$out/profile-$config.txt
  echo "== $config"
  # One forward (one kernel) and one backward (four): the first 5 launches.
  timeout -k 5 240 "$ncu" --clock-control none --target-processes all \
    --kernel-name "regex:${KILN_PROFILE_KERNELS:-(fwd|bwd)}_${config}_" --launch-count ${KILN_PROFILE_LAUNCHES:-5} \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
    --metrics 'regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$' \
    python3 bench/gpu/bench_attention_bwd.py --budget 5 "$config" \
    > "$report" 2>&1 || status=1
  # Each kernel's name, time, occupancy, throughputs and its five largest
  # stall reasons.
  python3 - "$report" <<'PY'
import re, sys
kernel, stalls = None, []
def flush():
    if kernel and stalls:
        top = sorted(stalls, reverse=True)[:5]
        print("   stalls/issue: " + ", ".join(f"{n} {v:.2f}" for v, n in top))
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s+(\S+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
    if m:
        flush()
        kernel, stalls = m.group(1), []
        print(line.rstrip())
        continue
    m = re.match(r"\s+smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio\s+\S+\s+([\d.,]+)", line)
    if m:
        stalls.append((float(m.group(2).replace(",", "")), m.group(1)))
        continue
    if re.match(r"\s+(Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Compute \(SM\) Throughput|Memory Throughput|Dynamic Shared Memory Per Block|Block Limit Registers|Block Limit Shared Mem|Warp Cycles Per Issued Instruction|Issued Warp Per Scheduler|L1/TEX Hit Rate|L2 Hit Rate)\b", line):
        print("  " + " ".join(line.split()))
flush()
PY
  grep -m3 -i "error\|==ERR\|==WARNING" "$report" | sed 's/^/  /'
done
exit $status
