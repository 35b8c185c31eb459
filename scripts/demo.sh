#!/bin/sh
# demo.sh - the main job on a bundled example: installs what is missing,
# builds foretell, compiles data/bank_transfer.c with foretell-cc, records
# one run, and analyzes the trace offline.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh" "$top/build"
bin=$top/build/bin
out=$top/build/demo
mkdir -p "$out"

echo "== compile data/bank_transfer.c with foretell-cc"
"$bin/foretell-cc" -O1 -o "$out/bank_transfer" "$top/data/bank_transfer.c"

echo "== record one run"
"$bin/foretell" record -o "$out/bank_transfer.ftrace" -- "$out/bank_transfer"

echo "== trace summary"
"$bin/foretell" stats "$out/bank_transfer.ftrace"
"$bin/foretell" check "$out/bank_transfer.ftrace"

echo "== analyze (trace model and reductions)"
"$bin/foretell" analyze "$out/bank_transfer.ftrace" --stats
