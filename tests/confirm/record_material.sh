#!/bin/sh
# SPDX-License-Identifier: MIT
# record_material.sh - `foretell record` warns when one worker thread did
# nearly all the workers' work (a thread pool whose first worker drained
# the queue within its quantum: nothing for prediction to reorder), and
# names what to do; a run with the work spread gets no warning.
set -u
F=$FT_BIN/foretell
W=$FT_WORK
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(record_material): $*" >&2; fails=$((fails + 1)); }

"$FT_BIN/foretell-cc" -O1 -g -o pool "$FT_SHAPES/pool.c" ||
    { echo "FAIL(record_material): cannot build pool.c" >&2; exit 1; }
"$F" record -o p.ft -- ./pool >/dev/null 2>p.err || fail "record pool: $(cat p.err)"
grep -q "^p.ft: warning: thread [0-9]* ran [0-9]*% of the worker threads' events: the run gives prediction little to reorder; record again with a smaller --quantum (100)" p.err ||
    fail "default quantum: no warning: $(cat p.err)"
"$F" record --quantum 100 -o q.ft -- ./pool >/dev/null 2>q.err || fail "record pool --quantum 100"
grep -q "warning" q.err && fail "--quantum 100: warned: $(cat q.err)"
"$F" record -o c.ft -- "$FT_INST/correct_locked" >/dev/null 2>c.err
grep -q "warning" c.err && fail "correct_locked: warned: $(cat c.err)"
[ $fails = 0 ] || exit 1
echo "record_material: ok"
