"""Finds Kiln's tools and runs the compile pipeline on a JSON graph, with an
on-disk cache keyed by the graph, the options and the tools themselves."""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from . import errors


def build_dir():
    """`KILN_BUILD_DIR`, else the `build/` of the checkout this package lives
    in (`python/kiln/` -> `../../build`)."""
    env = os.environ.get("KILN_BUILD_DIR")
    if env:
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.abspath(os.path.join(here, "..", "..", "build"))


def tool(name):
    path = os.path.join(build_dir(), "bin", name)
    if not os.access(path, os.X_OK):
        found = shutil.which(name)
        if found:
            return found
        raise errors.KilnError(
            "cannot find %s: set KILN_BUILD_DIR to a Kiln build directory "
            "(looked in %s and on PATH)" % (name, os.path.dirname(path)))
    return path


def cache_dir():
    root = os.environ.get("KILN_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                            "kiln", "compiled")
    os.makedirs(root, exist_ok=True)
    return root


def _tool_identity(names):
    """What identifies the compiler: each tool's path, size and mtime (a
    rebuilt tool gives a new key)."""
    out = []
    for n in names:
        p = tool(n)
        st = os.stat(p)
        out.append("%s:%d:%d" % (p, st.st_size, st.st_mtime_ns))
    return out


TOOLS = ("kiln-translate", "kiln-opt", "kiln-compile")


def _run(cmd, what):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise errors.CompileError("%s failed (exit %d):\n%s\ncommand: %s"
                                  % (what, proc.returncode, proc.stderr.strip()[-6000:],
                                     " ".join(cmd)))
    return proc


def compile_graph(graph_text, name, passes, compile_flags, use_cache=True):
    """Compiles a JSON graph to a shared library; returns (library path,
    directory holding graph.json, *.mlir). `passes` is the kiln-opt pass
    list between import and kiln-compile."""
    key_src = json.dumps({"graph": hashlib.sha256(graph_text.encode()).hexdigest(),
                          "passes": passes, "flags": compile_flags, "name": name,
                          "tools": _tool_identity(TOOLS), "format": 1})
    key = hashlib.sha256(key_src.encode()).hexdigest()[:24]
    out = os.path.join(cache_dir(), key)
    lib = os.path.join(out, "lib%s.so" % name)
    if use_cache and os.path.exists(lib) and os.path.exists(os.path.join(out, "done")):
        return lib, out, True
    if not use_cache:
        out = tempfile.mkdtemp(prefix="kiln-")
        lib = os.path.join(out, "lib%s.so" % name)
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tmp-", dir=out)
    try:
        g = os.path.join(work, "graph.json")
        with open(g, "w") as f:
            f.write(graph_text)
        imported = os.path.join(work, "imported.mlir")
        _run([tool("kiln-translate"), "--import-graph-json", g, "--lift-parameters",
              "-o", imported], "kiln-translate (graph import)")
        lowered = os.path.join(work, "model.mlir")
        _run([tool("kiln-opt"), imported] + passes + ["-o", lowered], "kiln-opt")
        so = os.path.join(work, "lib%s.so" % name)
        _run([tool("kiln-compile"), lowered, "-o", so, "--header",
              os.path.join(work, "%s.h" % name)] + compile_flags, "kiln-compile")
        for f in os.listdir(work):
            os.replace(os.path.join(work, f), os.path.join(out, f))
        with open(os.path.join(out, "done"), "w") as f:
            f.write(key_src)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lib, out, False
