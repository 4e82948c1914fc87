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
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

llvm_config.use_default_substitutions()
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
