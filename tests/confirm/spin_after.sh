#!/bin/sh
# SPDX-License-Identifier: MIT
# spin_after.sh - a replay that spins for good right after its
# schedule's last step, in code without a key point (progs/spin_after.c:
# `while (!flag) ;` with its load hoisted), is known to be past its
# schedule: it is stopped when its share of --time is spent, and the
# other witnesses are replayed in theirs.  Before 2026-11-29 the runtime
# said so only at the next key point, which never came: the replay ran
# to --time's end as if it were still following its schedule, and the
# data race's witness was never replayed (checked by mutation).
NAME=spin_after
. "$(dirname "$0")/lib.sh"
now() { date +%s.%N; }
build spinner "$P/spin_after.c" -O1
RECORD_OPTS="--timeout 10" record_passing sp.ft ./spinner

t0=$(now)
"$F" analyze -q --json --time 8 --run-timeout 30 -o out sp.ft --confirm \
    -- ./spinner >a.json 2>a.err
rc=$?
el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
case $rc in 0|1|5) ;; *) fail "exit $rc: $(tail -3 a.err)" ;; esac
# 8 s, the program's SIGTERM grace (2 s) and a margin for a loaded machine
awk -v e="$el" 'BEGIN { exit !(e <= 16) }' || fail "--time 8 took $el s"
python3 - a.json <<'PY' || fail "$(head -c 2000 a.json)"
import json, sys
d = json.load(open(sys.argv[1]))
cs = [x["confirmation"] for x in d["violations"]]
cs += [f["confirmation"] for f in d["findings"] if f.get("confirmation")]
assert len(cs) >= 2, cs
# the spinning replay stopped at its share, past its schedule ...
spun = [c for c in cs if c["failure"] == "unfinished"]
assert spun, cs
for c in spun:
    assert c["status"] == "confirmed", c
    assert "its share" in c["detail"] and "past its schedule" in c["detail"], c
# ... and left time for every other witness
assert all(c["status"] != "not_run" for c in cs), cs
PY
pgrep -x spinner >/dev/null && fail "a replayed program still runs"
[ $fails = 0 ] || exit 1
echo "spin_after: ok"
