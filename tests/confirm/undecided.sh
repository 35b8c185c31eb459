#!/bin/sh
# SPDX-License-Identifier: MIT
# undecided.sh - predictions that `--time` left no time to write or
# replay are undecided, not clean: with the program at hand only replayed
# bugs count as found, so a run whose replays never ran found nothing and
# must exit 5, not 0.  FORETELL_TEST_STALL stands in for a slow stage
# (the schedule writing sleeps 3 s under --time 2).
# Program: data/counter_rmw.c (lost updates: atomicity violations).
# Then candidates the solver could not decide (its memory starved with
# FORETELL_Z3_MEMORY=1, on data/best_fig2.c) are listed one by one, with
# their sites and why, in the text and in the JSON's kind_unsolved.
NAME=undecided
. "$(dirname "$0")/lib.sh"
build cr "$P/../../../data/counter_rmw.c" -O1
record_passing cr.ft ./cr
"$F" analyze -q --json --time 60 -o out cr.ft >full.json 2>full.err
rc=$?
[ $rc = 1 ] || fail "unhurried: exit $rc, expected 1: $(tail -3 full.err)"
FORETELL_TEST_STALL="writing schedules:3" "$F" analyze -q --json --time 2 \
    -o out2 cr.ft >cut.json 2>cut.err
rc=$?
[ $rc = 5 ] || fail "time up before the replays: exit $rc, expected 5: $(tail -3 cut.err)"
grep -q "schedules not written" cut.err ||
    fail "no warning that schedules were not written: $(cat cut.err)"
python3 - cut.json <<'PY' || fail "JSON: $(head -c 600 cut.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["violated"] > 0 and d["confirmed"] == 0, d
PY
build fig2 "$P/../../../data/best_fig2.c" -O1
"$F" record -o fig2.ft -- ./fig2 >/dev/null 2>&1 ||
    fail "best_fig2 did not record"
FORETELL_Z3_MEMORY=1 "$F" analyze --no-confirm --json --time 60 -o out3 \
    fig2.ft >starved.json 2>starved.err
python3 - starved.json <<'PY' || fail "kind_unsolved: $(head -c 900 starved.json)"
import json, sys
d = json.load(open(sys.argv[1]))
u = d["kind_unsolved"]
assert d["kind_unknown"] == len(u) + d["kind_not_solved"] and u, d
for c in u:
    assert c["kind"] and c["sites"] and ".c:" in c["sites"][0], c
    assert len(c["threads"]) == len(c["sites"]), c
    assert "FORETELL_Z3_MEMORY" in c["reason"], c
PY
FORETELL_Z3_MEMORY=1 "$F" analyze --no-confirm --time 60 -o out4 fig2.ft \
    >starved.txt 2>&1
grep -Eq "best_fig2.c:[0-9]+: warning: [a-z-]+ candidate #[0-9]+ of thread [0-9]+: unknown: solver: memout" starved.txt ||
    fail "no warning per undecided candidate: $(tail -5 starved.txt)"
[ $fails = 0 ] && echo "undecided: ok"
exit $fails
