#!/bin/sh
# SPDX-License-Identifier: MIT
# ci_recipe.sh - docs/ci.md's recipe, followed on a small CMake project
# built with foretell-cc: its tests run under ctest with a FORETELL_TRACE
# pattern in the environment (one trace per test process: a test that
# runs the program twice leaves two), then with the test launcher
# (CMAKE_CROSSCOMPILING_EMULATOR up to CMake 3.28, CMAKE_TEST_LAUNCHER
# from 3.29: only tests that run a built program record); the traces are
# symbolised where the binaries are, and `foretell batch` analyzes and
# reports them.
name=ci_recipe
. "$(dirname "$0")/lib.sh"

mkdir proj
cp "$FT_SRC/data/config_swap.c" proj/racy.c
cat >proj/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(ci_recipe C)
enable_testing()
add_executable(racy racy.c)
add_test(NAME racy COMMAND racy)
add_test(NAME twice COMMAND sh -c "$<TARGET_FILE:racy> && $<TARGET_FILE:racy>")
CMAKE
CC=$FT_BIN/foretell-cc cmake -S proj -B build >/dev/null || fail "configure"
cmake --build build >/dev/null || fail "build"

# 1. the pattern in ctest's environment
mkdir traces
(cd build && FORETELL_TRACE=$work/traces/%e-%p.ftrace ctest --timeout 60 >/dev/null)
n=$(ls traces | grep -c '^racy-[0-9]*\.ftrace$')
[ "$n" = 3 ] || fail "3 traces expected (racy, twice x2): $(ls traces)"
"$FT" symbolize traces/*.ftrace 2>sym.txt || fail "symbolize: $(cat sym.txt)"
[ "$(grep -c 'symbolised [1-9][0-9]* sites' sym.txt)" = 3 ] ||
    fail "not every trace symbolised: $(cat sym.txt)"
"$FT" batch analyze -q --store ci.db -j 2 traces/
[ $? = 1 ] || fail "batch analyze: the bug of config_swap not found"
"$FT" batch report --store ci.db --sarif ci.sarif --junit ci.xml
$CHECK sarif ci.sarif "$HERE/sarif-schema-2.1.0.json" ci.db || fail SARIF
$CHECK junit ci.xml ci.db || fail JUnit
# the three runs: one finding per bug, three occurrences each
[ "$($CHECK count ci.db "SELECT min(c) = 3 AND max(c) = 3 FROM (SELECT count(*) AS c FROM occurrences GROUP BY fingerprint)")" = 1 ] ||
    fail "the same bug in three runs is not one finding each"

# 2. the launcher: only the test that runs the built program records
mkdir traces2
v=$(cmake --version | sed -n 's/^cmake version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
set -- $v
if [ "$1" -gt 3 ] || { [ "$1" = 3 ] && [ "$2" -ge 29 ]; }; then
    var=CMAKE_TEST_LAUNCHER
else
    var=CMAKE_CROSSCOMPILING_EMULATOR
fi
CC=$FT_BIN/foretell-cc cmake -S proj -B build2 \
    "-D$var=env;FORETELL_TRACE=$work/traces2/%e-%p.ftrace" >/dev/null ||
    fail "configure with $var"
cmake --build build2 >/dev/null || fail "build 2"
(cd build2 && ctest --timeout 60 >/dev/null)
[ "$(ls traces2 | grep -c '^racy-[0-9]*\.ftrace$')" = 1 ] ||
    fail "$var: one trace expected: $(ls traces2)"
exit 0
