#!/bin/sh
# SPDX-License-Identifier: MIT
# slow_replay.sh - analyze's replays judge a hang by progress, not wall
# time, and stop at --time's end.  progs/slow_after.c loses an update,
# then computes for as many seconds as it is told before main's check:
#  - computing 4 s under --run-timeout 2: every replay reaches the check
#    and aborts (a slow run is not a hung one; before 2026-11-28 each was
#    reported "hang" after 2 s), and stderr says which replay runs;
#  - waiting for good (a read of a pipe) under --run-timeout 1: a hang,
#    said to be one;
#  - computing 60 s under --time 4: the command returns near 4 s (before,
#    a started replay kept its --run-timeout, 30 s), and a replay it
#    stopped is "unfinished" (its violation reached) or "not_run" with
#    why, never a hang; each of its 3 witnesses is replayed for its share
#    of what is left (none "not_run");
#  - the same under `batch analyze --trace-time 4`: the trace analyzed,
#    its findings stored, near 4 s.
NAME=slow_replay
. "$(dirname "$0")/lib.sh"
now() { date +%s.%N; }
build sa "$P/slow_after.c" -O1
record_passing sa.ft ./sa 0

"$F" analyze --json --run-timeout 2 -o slow sa.ft --confirm -- ./sa 4 \
    >slow.json 2>slow.err
rc=$?
[ $rc = 1 ] || fail "slow: exit $rc, expected 1: $(tail -3 slow.err)"
# stderr is no terminal: a line for the replays once the command has run
# 2 s, naming the schedule and its seconds
grep -q "foretell analyze: [0-9]* s: confirming [0-9]*/[0-9]*: .*schedule, [0-9]* s" slow.err ||
    fail "slow: no progress of the replays on stderr: $(cat slow.err)"
python3 - slow.json <<'PY' || fail "slow: $(head -c 1500 slow.json)"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["violations"]
assert v and d["confirmed"] == len(v), d
for x in v:
    c = x["confirmation"]
    assert c["status"] == "confirmed" and c["failure"] == "abort", c
PY

"$F" analyze -q --json --run-timeout 1 -o hung sa.ft --confirm -- ./sa -1 \
    >hung.json 2>hung.err
python3 - hung.json <<'PY' || fail "hung: $(head -c 1500 hung.json)"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["violations"]
assert v, d
for x in v:
    c = x["confirmation"]
    assert c["failure"] == "hang" and "no progress" in c["detail"], c
PY

t0=$(now)
"$F" analyze -q --json --time 4 -o cut sa.ft --confirm -- ./sa 60 \
    >cut.json 2>cut.err
rc=$?
el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
# 4 s, the program's SIGTERM grace (2 s) and a margin for a loaded machine
awk -v e="$el" 'BEGIN { exit !(e <= 10) }' || fail "--time 4 took $el s"
case $rc in 1|5) ;; *) fail "cut: exit $rc: $(tail -3 cut.err)" ;; esac
python3 - cut.json <<'PY' || fail "cut: $(head -c 1500 cut.json)"
import json, sys
d = json.load(open(sys.argv[1]))
cs = [x["confirmation"] for x in d["violations"]]
cs += [f["confirmation"] for f in d["findings"] if f.get("confirmation")]
assert cs, d
seen = set()
for c in cs:
    assert c["failure"] != "hang", c
    if c["failure"] == "unfinished":
        assert c["status"] == "confirmed" and "--time" in c["detail"], c
        seen.add("unfinished")
    else:
        assert c["status"] == "not_run", c
        assert "--time" in c["refinement"], c
assert "unfinished" in seen, cs
# each witness had its share of what was left of --time: none was left
# unreplayed behind the first (before 2026-11-29 only the first ran)
assert all(c["status"] != "not_run" for c in cs), cs
assert any("its share" in c["detail"] for c in cs), cs
PY
# batch: --trace-time's end stops the replays too; before, a replay
# judged by progress alone ran on until the trace's analysis was killed
# (status timeout, its findings lost)
t0=$(now)
"$F" batch analyze -q -s b.db --trace-time 4 --confirm --work bw sa.ft \
    -- ./sa 60 2>batch.err
rc=$?
el=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
[ $rc = 1 ] || fail "batch: exit $rc, expected 1: $(tail -3 batch.err)"
awk -v e="$el" 'BEGIN { exit !(e <= 10) }' || fail "batch --trace-time 4 took $el s"
python3 - b.db <<'PY' || fail "batch: the trace's analysis was not stored whole"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(status, msg), = db.execute("SELECT status, message FROM traces").fetchall()
assert status == "analyzed", (status, msg)
assert db.execute("SELECT COUNT(*) FROM findings").fetchone()[0] > 0
PY
pgrep -f "sa 60" >/dev/null && fail "the program stopped at --time still runs"
[ $fails = 0 ] || exit 1
echo "slow_replay: ok"
