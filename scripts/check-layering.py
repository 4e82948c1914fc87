#!/usr/bin/env python3
"""Checks that Kiln's libraries form one-way layers (issue #20; the ctest
`kiln-layering`; docs/Overview.md, "Layers").

Each directory of lib/ is a layer with a rank; tools/ is the top one:

    tools/                                   7
    lib/API  lib/Tools                       6
    lib/Execution                            5
    lib/InitAll                              4
    lib/Pipelines                            3
    lib/Conversion  lib/Target               2
    lib/Dialect                              1
    lib/Support  lib/Runtime                 0

A target or a source file may use its own layer and any layer of a lower
rank, nothing else: two layers of one rank do not use each other. "Use" is
a link (the CMake link graph that cmake/KilnLayering.cmake writes to
<build>/kiln-link-graph.json) or an #include of a Kiln header (include/kiln/
<Layer>/..., kiln/InitAll.h, kiln/Kiln.h), in lib/, include/kiln/ and
tools/. Besides, some targets must not reach some libraries through any
chain of links: kiln-translate (a translator) neither the JIT nor MLIR's
ExecutionEngine.

  check-layering.py --graph GRAPH.json --src SOURCE_DIR

Before it reads the real tree the script checks itself on a small tree with
one violation of each kind, so that a check that sees nothing fails.
"""
import argparse
import json
import os
import re
import sys
import tempfile

# (directory relative to the source root, layer name, rank)
LAYERS = [
    ("tools", "tools", 7),
    ("lib/API", "API", 6),
    ("lib/Tools", "Tools", 6),
    ("lib/Execution", "Execution", 5),
    ("lib/InitAll", "InitAll", 4),
    ("lib/Pipelines", "Pipelines", 3),
    ("lib/Conversion", "Conversion", 2),
    ("lib/Target", "Target", 2),
    ("lib/Dialect", "Dialect", 1),
    ("lib/Support", "Support", 0),
    ("lib/Runtime", "Runtime", 0),
]
RANK = {name: rank for _, name, rank in LAYERS}

# The layer of each public header, by its include path.
HEADER_LAYERS = [
    ("kiln/Kiln.h", "API"),
    ("kiln/InitAll.h", "InitAll"),
    ("kiln/Version.h", "Support"),
] + [("kiln/%s/" % name, name) for _, name, _ in LAYERS if name != "tools"]

# Targets that must not reach these libraries through any chain of links.
FORBIDDEN_REACH = {
    "kiln-translate": ["KilnExecution", "MLIRExecutionEngine"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_SUFFIXES = (".h", ".cpp", ".c", ".def")


def layer_of_dir(path):
    """The layer of a file or target directory relative to the source root."""
    path = path.replace(os.sep, "/")
    for prefix, name, _ in LAYERS:
        if path == prefix or path.startswith(prefix + "/"):
            return name
    if path.startswith("include/kiln/"):
        return layer_of_header(path[len("include/"):])
    return None


def layer_of_header(include):
    for prefix, name in HEADER_LAYERS:
        if include == prefix or (prefix.endswith("/") and
                                 include.startswith(prefix)):
            return name
    return None


def allowed(user, used):
    return user == used or RANK[used] < RANK[user]


def check_links(graph):
    errors = []
    for target, entry in sorted(graph.items()):
        user = layer_of_dir(entry["dir"])
        if user is None:
            continue
        for dep in entry["links"]:
            if dep not in graph:
                continue
            used = layer_of_dir(graph[dep]["dir"])
            if used is not None and not allowed(user, used):
                errors.append("%s (%s, %s) links %s (%s, %s), a layer that "
                              "is not below it" %
                              (target, entry["dir"], user, dep,
                               graph[dep]["dir"], used))
    for target, forbidden in sorted(FORBIDDEN_REACH.items()):
        if target not in graph:
            errors.append("%s is not in the link graph" % target)
            continue
        seen, stack, parent = {target}, [target], {}
        while stack:
            node = stack.pop()
            for dep in graph.get(node, {}).get("links", []):
                if dep not in seen:
                    seen.add(dep)
                    parent[dep] = node
                    stack.append(dep)
        for lib in forbidden:
            if lib in seen:
                chain, node = [lib], lib
                while node in parent:
                    node = parent[node]
                    chain.append(node)
                errors.append("%s must not link %s, but does: %s" %
                              (target, lib, " -> ".join(reversed(chain))))
    return errors


def check_includes(src):
    errors = []
    roots = [d for d, _, _ in LAYERS] + ["include/kiln"]
    for root in roots:
        for dirpath, _, files in os.walk(os.path.join(src, root)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, src).replace(os.sep, "/")
                user = layer_of_dir(rel)
                if user is None:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for include in INCLUDE.findall(text):
                    if include.startswith("kiln/"):
                        used = layer_of_header(include)
                    elif include.startswith("../"):
                        target = os.path.normpath(
                            os.path.join(os.path.dirname(rel), include))
                        used = layer_of_dir(target)
                    else:
                        continue
                    if used is not None and not allowed(user, used):
                        errors.append("%s (%s) includes \"%s\" (%s), a layer "
                                      "that is not below it" %
                                      (rel, user, include, used))
    return errors


def self_test():
    """The checks must see one violation of each kind in a small tree."""
    graph = {
        "KilnSupport": {"dir": "lib/Support", "links": ["KilnPipelines"]},
        "KilnPipelines": {"dir": "lib/Pipelines", "links": ["KilnSupport"]},
        "KilnExecution": {"dir": "lib/Execution", "links": ["KilnPipelines"]},
        "KilnGraphJson": {"dir": "lib/Target/GraphJson",
                          "links": ["KilnExecution"]},
        "kiln-translate": {"dir": "tools/kiln-translate",
                           "links": ["KilnGraphJson"]},
    }
    link_errors = check_links(graph)
    want = ["KilnSupport (lib/Support, Support) links KilnPipelines",
            "KilnGraphJson (lib/Target/GraphJson, Target) links KilnExecution",
            "kiln-translate must not link KilnExecution, but does: "
            "kiln-translate -> KilnGraphJson -> KilnExecution"]
    with tempfile.TemporaryDirectory() as src:
        files = {
            "lib/Support/A.cpp": '#include "kiln/Execution/JitSession.h"\n',
            "lib/Conversion/X/B.cpp": '#include "../../Target/Y/Z.h"\n'
                                      '#include "kiln/Dialect/Kiln/IR/K.h"\n',
            "include/kiln/Dialect/C.h": '#include "kiln/Kiln.h"\n',
            "tools/t/t.cpp": '#include "kiln/Kiln.h"\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
            with open(os.path.join(src, rel), "w") as f:
                f.write(text)
        include_errors = check_includes(src)
    want += ['lib/Support/A.cpp (Support) includes "kiln/Execution/',
             'lib/Conversion/X/B.cpp (Conversion) includes "../../Target/',
             'include/kiln/Dialect/C.h (Dialect) includes "kiln/Kiln.h"']
    got = link_errors + include_errors
    missing = [w for w in want if not any(g.startswith(w) for g in got)]
    if missing or len(got) != len(want):
        print("error: the layering check does not work on its own test tree",
              file=sys.stderr)
        for w in missing:
            print("  not reported: " + w, file=sys.stderr)
        for g in got:
            print("  reported: " + g, file=sys.stderr)
        return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graph", required=True)
    parser.add_argument("--src", required=True)
    args = parser.parse_args()
    if not self_test():
        return 1
    with open(args.graph) as f:
        graph = json.load(f)
    errors = check_links(graph) + check_includes(args.src)
    for error in errors:
        print("error: " + error, file=sys.stderr)
    if errors:
        return 1
    print("kiln-layering: %d targets, no link or include points up" %
          len(graph))
    return 0


if __name__ == "__main__":
    sys.exit(main())
