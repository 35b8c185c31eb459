#!/bin/sh
# SPDX-License-Identifier: MIT
# atom_tails_in_turns.sh - tails_in_turns.sh for the atomicity findings:
# two lost updates that replay without a failure, then a long phase of
# two busy threads that each random tail runs switching at nearly every
# access.  Under --time 12 the first finding's 16 tails used to take all
# of it and leave the others unreplayed; every one must be replayed, the
# tails shared, and no tail trace left behind.
# Program: tests/confirm/progs/tails_in_turns.c, given "atomicity".
NAME=atom_tails_in_turns
. "$(dirname "$0")/lib.sh"

build at "$P/tails_in_turns.c" -O1
record_passing at.ft ./at atomicity
"$F" analyze -q --json --kinds atomicity --time 12 -o out at.ft >at.json 2>at.err
rc=$?
[ $rc = 2 ] || [ $rc = 4 ] && fail "analyze: exit $rc: $(tail -3 at.err)"
python3 - at.json <<'PY' || fail "analyze --json: $(head -c 1500 at.json)"
import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["violations"] if x["kind"] in ("CA", "CMA")]
assert {y for x in v for y in x["variables"]} == {"a", "b"}, v
for x in v:
    assert x["confirmation"]["status"] != "not_run", x["confirmation"]
assert sum(x["confirmation"]["tails_tried"] >= 1 for x in v) >= 2, v
PY
[ -z "$(ls out | grep 'tail\.ftrace$')" ] || fail "tail traces left: $(ls out)"
[ $fails = 0 ] && echo "atom_tails_in_turns: ok"
exit $fails
