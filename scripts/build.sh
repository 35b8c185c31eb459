#!/bin/sh
# SPDX-License-Identifier: MIT
# build.sh [DIR [cmake args...]] - configures and builds foretell into DIR
# (default build/).  Used by demo.sh and test.sh so both build the same way.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}
[ $# -gt 0 ] && shift
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
cmake --build "$dir" -j "$jobs"
