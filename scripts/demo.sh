#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh - the main job on a bundled example: installs what is missing,
# builds foretell, compiles data/best_fig2.c (the running example of the
# BEST paper) with foretell-cc, records one run (it passes), predicts from
# that trace which other interleavings break atomicity, and replays each
# predicted schedule to confirm it makes the program fail.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/setup.sh"
"$top/scripts/build.sh" "$top/build"
bin=$top/build/bin
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"

echo "== compile data/best_fig2.c with foretell-cc"
"$bin/foretell-cc" -O1 -o "$out/best_fig2" "$top/data/best_fig2.c"

echo "== record one run (it passes)"
"$bin/foretell" record -o "$out/fig2.ftrace" -- "$out/best_fig2"

echo "== trace summary"
"$bin/foretell" stats "$out/fig2.ftrace"
"$bin/foretell" check "$out/fig2.ftrace"

echo "== predict atomicity violations, replay each schedule to confirm it"
rc=0
"$bin/foretell" analyze "$out/fig2.ftrace" -o "$out/predicted" \
    --confirm -- "$out/best_fig2" || rc=$?
# analyze exits 1 when a violation was confirmed: that is the demo working.
if [ "$rc" -ne 1 ]; then
    echo "demo: expected confirmed violations, foretell analyze exited $rc" >&2
    exit 1
fi
echo "== done: schedules and replayed traces are in $out/predicted"
echo "   replay one again: $bin/foretell replay --schedule $out/predicted/ca-0.schedule -- $out/best_fig2"
