#!/usr/bin/env bash
# Builds a fuzz target of test/fuzz with libFuzzer and AddressSanitizer
# (clang++ -fsanitize=fuzzer,address) against a Kiln build tree made with
# GCC, and runs it with libFuzzer's own options:
#
#   test/fuzz/libfuzzer.sh BUILD_DIR parse|graph-json|npy [libFuzzer args...]
#
# e.g. `test/fuzz/libfuzzer.sh build parse -max_total_time=3600 CORPUS_DIR`
# (test/robustness/README.md). It reuses the build's own compile and link
# commands of kiln-fuzz-<target> (ninja -t commands), with clang in place of
# the C++ compiler and libFuzzer's main in place of FuzzReplayMain.cpp. Only
# FuzzTargets.cpp is instrumented for coverage (the Kiln libraries are
# GCC's), so libFuzzer's guidance sees the inputs' paths through the
# headers it inlines, not through the libraries. Needs clang-22 and
# libclang-rt-22-dev (Debian).
set -euo pipefail
build=$(cd "$1" && pwd)
target=$2
shift 2
clang=${KILN_CLANGXX:-$(command -v clang++-22 || echo /usr/lib/llvm-22/bin/clang++)}
[ -x "$clang" ] || { echo "libfuzzer.sh: no clang++ (apt-get install clang-22 libclang-rt-22-dev)" >&2; exit 1; }
ninja -C "$build" "kiln-fuzz-$target" >/dev/null
commands=$(ninja -C "$build" -t commands "kiln-fuzz-$target")
compile=$(grep -F "FuzzTargets.cpp.o -MF" <<<"$commands" | tail -1)
link=$(grep -F -- "-o test/fuzz/kiln-fuzz-$target " <<<"$commands" | tail -1)
[ -n "$compile" ] && [ -n "$link" ] || { echo "libfuzzer.sh: no commands for kiln-fuzz-$target in $build" >&2; exit 1; }
out=test/fuzz/libfuzzer
mkdir -p "$build/$out"
obj="$out/$target.o"
exe="$out/kiln-libfuzzer-$target"
flags="-fsanitize=fuzzer,address -g -Wno-unknown-warning-option"
# The compile: the same flags and sources, clang, another object.
compile=$(sed -E "s#^(\S*ccache )?\S*(g\+\+|c\+\+)\S* #$clang $flags #; s# -o \S+FuzzTargets\.cpp\.o # -o $obj #; s# -MD -MT \S+ -MF \S+ # #" <<<"$compile")
# The link: libFuzzer's main instead of the replay driver.
link=$(sed -E "s#^: && ##; s# && :\$##; s#^\S*(g\+\+|c\+\+)\S* #$clang $flags #; s#\S+FuzzTargets\.cpp\.o#$obj#; s#\S+FuzzReplayMain\.cpp\.o##; s#-o test/fuzz/kiln-fuzz-$target #-o $exe #" <<<"$link")
(cd "$build" && eval "$compile" && eval "$link")
# LLVM's allocator poisons memory the uninstrumented libMLIR.so then
# writes: not a bug of Kiln's (issue #27).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=0}
exec "$build/$exe" "$@"
