#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_estimates.sh - PCT's n and k come from earlier runs: the largest
# thread and step counts seen so far, starting from the calibration run.
# alloc_vector's non-preemptive run has fewer events than some of its
# preempted runs (a retried claim), so after a PCT exploration the
# estimate exceeds the calibration's count.  Env: FT_BIN, FT_INST, FT_WORK.
set -u
work=$FT_WORK/est.$$
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
FORETELL_TRACE=$work/cal.ftrace FORETELL_STRATEGY=none "$FT_INST/alloc_vector" >/dev/null 2>&1
cal=$("$FT_BIN/foretell" stats "$work/cal.ftrace" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
"$FT_BIN/foretell" explore --strategy pct --seed 0 --budget 60 --all -q --json \
    -o "$work/out" -- "$FT_INST/alloc_vector" >"$work/x.json" 2>/dev/null
python3 - "$work/x.json" "$cal" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
cal = int(sys.argv[2])
assert d["threads_estimate"] == 3, d["threads_estimate"]
assert d["events_estimate"] > cal, (d["events_estimate"], cal)
print("explore_estimates: ok (k %d -> %d)" % (cal, d["events_estimate"]))
PY
