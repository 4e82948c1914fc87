# -*- Python -*-
import os

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

# `REQUIRES: ptxas`: tests that assemble generated PTX with the CUDA
# toolkit's ptxas (skipped, not failed, without the toolkit).
import shutil
ptxas = shutil.which("ptxas") or (
    "/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas") else None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
