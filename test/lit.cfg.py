# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "KILN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unittests", "Inputs", "robustness"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%kiln_src_root", config.kiln_src_root))
# The flags of a sanitized Kiln (KILN_SANITIZE, cmake/KilnSanitize.cmake) for
# every C program a test compiles and links against Kiln's runtimes or
# libraries: empty in a normal build. The sanitizers' options (ASAN_OPTIONS,
# UBSAN_OPTIONS) are those every ctest entry gets, unless set already, so
# that lit run on its own sees them too.
config.substitutions.append(("%kiln_cflags", config.kiln_sanitize_cflags))
for _assignment in filter(None, config.kiln_sanitize_environment.split(";")):
    _name, _value = _assignment.split("=", 1)
    config.environment[_name] = os.environ.get(_name, _value)
if config.kiln_sanitize:
    config.available_features.add("sanitized")
# The host's architecture, for tests that need an instruction it lacks.
import platform
if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("host-x86_64")
# AMX-BF16 tiles (the bf16 matmul kernels' `amx`): the CPU has them; Linux
# grants them to any process that asks (5.16 on), as kiln-run does.
try:
    with open("/proc/cpuinfo") as _cpuinfo:
        _flags = next((l.split(":", 1)[1].split() for l in _cpuinfo
                       if l.startswith("flags")), [])
    if "amx_bf16" in _flags and "amx_tile" in _flags:
        config.available_features.add("host-amx")
except OSError:
    pass
# Seccomp filters (test/Integration/AOT/Inputs/deny_amx.c refuses a process
# the AMX tiles with one): the kernel has them when it reports the count.
try:
    with open("/proc/self/status") as _status:
        if any(l.startswith("Seccomp_filters:") for l in _status):
            config.available_features.add("seccomp-filter")
except OSError:
    pass
# `env %no_leak_check VAR=... kiln-run ... --openmp`: LeakSanitizer's exit
# check crashes in its own tracer ("Tracer caught signal 11") while libomp's
# worker threads are alive, so the runs that start OpenMP threads go without
# it in a sanitized build (AddressSanitizer and UBSan stay on); nothing
# otherwise.
def _asan_options(extra):
    return ":".join(filter(None, [config.environment.get("ASAN_OPTIONS", ""), extra]))
config.substitutions.append(
    ("%no_leak_check",
     "ASAN_OPTIONS=" + _asan_options("detect_leaks=0") if config.kiln_sanitize else ""))
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
# A Python script that loads a sanitized Kiln library runs with the
# sanitizers' runtimes preloaded and without leak checking (CPython keeps its
# allocations until exit).
# `sh -c '%limit_memory_4gb cmd'`: cmd cannot allocate 4 GB or more at once,
# by an address-space limit, or in a sanitized build (whose shadow memory
# needs far more address space) by AddressSanitizer's cap on one allocation,
# which then returns NULL (allocator_may_return_null) as malloc would.
config.substitutions.append(
    ("%limit_memory_4gb",
     'export ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=4000";'
     if config.kiln_sanitize else "ulimit -v 4000000;"))
if config.kiln_sanitize_preload:
    import sys
    config.substitutions.insert(0, ("%python", "env LD_PRELOAD=%s ASAN_OPTIONS=%s \"%s\"" % (
        config.kiln_sanitize_preload, _asan_options("detect_leaks=0"), sys.executable)))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = ["kiln-opt", "kiln-run", "kiln-translate"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The CUDA toolkit's ptxas, for the tests that assemble generated PTX; MLIR's
# NVVM serializer finds ptxas and libdevice through CUDA_HOME. The feature is
# set only when ptxas really runs (a wrapper left behind by an uninstalled
# toolkit does not count), so those tests are skipped, not failed, without it.
import shutil
import subprocess
def _working_ptxas():
    for candidate in ("/usr/local/cuda/bin/ptxas", shutil.which("ptxas")):
        if not candidate or not os.access(candidate, os.X_OK):
            continue
        try:
            subprocess.run([candidate, "--version"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=30)
            return candidate
        except (OSError, subprocess.SubprocessError):
            continue
    return None
ptxas = _working_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.environment["CUDA_HOME"] = os.environ.get(
        "CUDA_HOME", os.path.dirname(os.path.dirname(os.path.realpath(ptxas))))
