#!/bin/sh
# SPDX-License-Identifier: MIT
# rt_bench.sh BUILD_DIR - runs rt_bench passthrough and recorded; prints
# the per-access fast-path cost and the forced-switch cost.  Not a test.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/foretell-cc" -O2 -o "$tmp/rt_bench" "$here/rt_bench.c"
echo "== passthrough (instrumented, not recorded)"
"$tmp/rt_bench" "$@"
echo "== recorded (FORETELL_TRACE=$tmp/b.ft)"
FORETELL_TRACE=$tmp/b.ft "$tmp/rt_bench" "$@"
ls -l "$tmp/b.ft" | awk '{print "trace bytes:", $5}'
