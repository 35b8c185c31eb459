#!/bin/sh
# SPDX-License-Identifier: MIT
# test.sh - the whole test suite: installs what is missing, builds, runs
# every test with ctest, then rebuilds foretell's own code with ASan+UBSan
# and runs the suite again that way, then builds Release with clang.
# Warnings are errors in every build here.  Exit status 0 only if all pass.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
"$top/scripts/setup.sh"

# Warnings are errors here (FORETELL_WERROR, off for a plain cmake).
echo "== build (RelWithDebInfo)"
"$top/scripts/build.sh" "$top/build" -DFORETELL_WERROR=ON
echo "== tests"
(cd "$top/build" && ctest -j "$jobs" --output-on-failure --timeout 600)

echo "== build (ASan+UBSan on foretell's own code)"
"$top/scripts/build.sh" "$top/build-asan" -DFORETELL_SANITIZE=ON -DFORETELL_WERROR=ON
echo "== tests under ASan+UBSan"
(cd "$top/build-asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest -j "$jobs" --output-on-failure --timeout 900 -LE no-asan)

# Every build type must build with gcc and clang (issue 19); the suite
# covers gcc RelWithDebInfo, this keeps clang's Release (optimised, other
# warnings) honest without its tests, so it costs a couple of minutes.
# setup.sh installs clang.
echo "== build (clang, Release, no tests)"
CC=clang CXX=clang++ "$top/scripts/build.sh" "$top/build-clang" \
    -DCMAKE_BUILD_TYPE=Release -DFORETELL_WERROR=ON -DFORETELL_TESTS=OFF
