#!/usr/bin/env python3
"""Checks that each given ELF binary or shared library has one copy of MLIR
(and of LLVM) at most (issue #27; the ctest `one-mlir-per-binary`).

A second copy is code of MLIR's own libraries linked into the file while
the file also loads a shared library that defines the same code:
libMLIR.so.22.1 (or libLLVM.so.22.1, ...). What identifies it is exact and
needs no threshold on a count of `mlir::` names: the C++ symbols (`_Z...`)
that the file defines non-weakly (nm types T/t D/d B/b R/r) and that a
library it loads (directly or indirectly, as `ldd` resolves them) exports as
defined dynamic symbols. Kiln's own code, `mlir::kiln::...` or not, is never
in libMLIR.so; what Kiln legitimately shares with it are weak definitions
(W/V/u: inline functions, template instantiations, vtables of header
classes), which every user of MLIR's headers has and the dynamic linker
unifies, and an executable's copy-relocated data (R_*_COPY), which the
library then uses instead of its own. Two loaded libraries that export the
same strong symbols (libMLIR.so and libMLIRExecutionEngineShared.so, say)
are two copies as well.

  check-one-mlir.py [--control ARCHIVE --libmlir LIB] FILE...
      fails if a FILE has two copies; --control first proves the check can
      see one: the static MLIR library ARCHIVE (libMLIRIR.a) must define
      symbols that LIB (libMLIR.so) exports.
  check-one-mlir.py --no-mlir FILE...
      for kiln-compile's libraries: fails if a FILE loads any MLIR or LLVM
      library or defines any symbol of namespace mlir:: or llvm::.
"""
import argparse
import os
import re
import subprocess
import sys

# Libraries of an LLVM installation that may hold MLIR's or LLVM's code.
PROVIDER = re.compile(r"^lib(MLIR|LLVM|mlir_)[^/]*\.so(\.[0-9.]+)?$")
STRONG = set("TtDdBbRr")


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(1)


def run(args):
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    return proc.returncode, proc.stdout, proc.stderr


def nm(path, dynamic=False):
    """{name: nm type} of the symbols `path` defines (archive members too)."""
    args = ["nm", "--defined-only", "-P"] + (["-D"] if dynamic else []) + [path]
    rc, out, err = run(args)
    if rc != 0:
        fail("%s: %s" % (" ".join(args), err.strip()))
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        # "name type value [size]"; archives add "lib.a[member.o]:" lines.
        if len(parts) < 2 or len(parts[1]) != 1 or parts[0].endswith(":"):
            continue
        name = parts[0].split("@")[0]  # versioned dynamic symbols: name@@V
        # A strong definition anywhere beats a weak one elsewhere.
        if name not in symbols or parts[1] in STRONG:
            symbols[name] = parts[1]
    if not symbols:
        fail("%s defines no symbols (stripped?): nothing to check" % path)
    return symbols


def strong_cxx(symbols):
    return {n for n, t in symbols.items() if t in STRONG and n.startswith("_Z")}


def copy_relocated(path):
    """The data objects of shared libraries that the dynamic linker copies
    into executable `path` (R_*_COPY: a vtable or option that code in the
    executable addresses directly). The library then uses that copy: one
    object, though nm lists it as defined in both."""
    rc, out, err = run(["readelf", "-W", "-r", path])
    if rc != 0:
        fail("readelf -r %s: %s" % (path, err.strip()))
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[2].endswith("_COPY"):
            names.add(parts[4].split("@")[0])
    return names


def loaded_libraries(path):
    """{soname: resolved path} of every shared library `path` loads."""
    rc, out, err = run(["ldd", path])
    if rc != 0:
        fail("ldd %s: %s" % (path, (err or out).strip()))
    libraries = {}
    for line in out.splitlines():
        line = line.strip()
        if "not found" in line:
            # One that is no MLIR or LLVM library (the CUDA driver stub a
            # test runs with LD_LIBRARY_PATH) does not load one either.
            so = line.split()[0]
            if PROVIDER.match(so):
                fail("%s: %s (cannot check what it loads)" % (path, line))
            print("note %s: %s" % (os.path.basename(path), line))
            continue
        m = re.match(r"(\S+) => (\S+) \(0x", line)
        if m:
            libraries[m.group(1)] = m.group(2)
        elif re.match(r"/\S+ \(0x", line):
            name = line.split()[0]
            libraries[os.path.basename(name)] = name
    return libraries


def demangle(names):
    names = sorted(names)
    rc, out, _ = run(["c++filt"] + names) if names else (0, "", "")
    return out.splitlines() if rc == 0 and out else names


_exports = {}


def exports(path):
    real = os.path.realpath(path)
    if real not in _exports:
        _exports[real] = strong_cxx(nm(real, dynamic=True))
    return _exports[real]


def describe(names, limit=8):
    shown = demangle(sorted(names)[:limit])
    more = " ..." if len(names) > limit else ""
    return "\n    " + "\n    ".join(s[:160] for s in shown) + more


def check_one_copy(path):
    loaded = loaded_libraries(path)
    providers = {so: p for so, p in loaded.items() if PROVIDER.match(so)}
    defined = strong_cxx(nm(path)) - copy_relocated(path)
    problems = []
    for so, lib in sorted(providers.items()):
        both = defined & exports(lib)
        if both:
            problems.append("defines %d of the C++ symbols that %s (which it "
                            "loads) defines:%s" % (len(both), so, describe(both)))
    names = sorted(providers)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            both = exports(providers[a]) & exports(providers[b])
            if both:
                problems.append("loads %s and %s, which both define %d C++ "
                                "symbols:%s" % (a, b, len(both), describe(both)))
    name = os.path.basename(path)
    if problems:
        print("FAIL %s: two copies of MLIR or LLVM" % name)
        for problem in problems:
            print("  " + problem)
        return False
    how = ", ".join(sorted(providers)) or "no MLIR or LLVM library"
    print("ok   %s: loads %s; defines none of their symbols (%d strong C++ "
          "definitions of its own)" % (name, how, len(defined)))
    return True


def check_no_mlir(path):
    loaded = loaded_libraries(path)
    providers = sorted(so for so in loaded if PROVIDER.match(so))
    symbols = nm(path)
    cxx = [n for n in symbols if n.startswith("_Z")]
    ours = [s for s in demangle(cxx) if re.match(r"(mlir|llvm)::", s)]
    name = os.path.basename(path)
    if providers or ours:
        print("FAIL %s: loads %s; defines %d symbols of mlir:: or llvm::%s"
              % (name, ", ".join(providers) or "no MLIR or LLVM library",
                 len(ours), describe(ours) if ours else ""))
        return False
    print("ok   %s: no MLIR or LLVM library loaded or linked in" % name)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--no-mlir", action="store_true",
                        help="the files must not contain or load MLIR or LLVM at all")
    parser.add_argument("--control", help="a static MLIR library (libMLIRIR.a)")
    parser.add_argument("--libmlir", help="the shared libMLIR.so it is part of")
    args = parser.parse_args()

    if args.control:
        if not args.libmlir:
            fail("--control needs --libmlir")
        both = strong_cxx(nm(args.control)) & exports(args.libmlir)
        if not both:
            fail("the check sees no symbol of %s in %s: it could not see a "
                 "second copy either" % (args.control, args.libmlir))
        print("control: %s defines %d of %s's symbols (a binary linking both "
              "would fail)" % (os.path.basename(args.control), len(both),
                               os.path.basename(args.libmlir)))

    check = check_no_mlir if args.no_mlir else check_one_copy
    results = [check(f) for f in args.files]
    if not all(results):
        print("%d of %d files fail; link MLIR's libraries with "
              "mlir_target_link_libraries() (cmake/KilnMLIR.cmake)"
              % (results.count(False), len(results)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
