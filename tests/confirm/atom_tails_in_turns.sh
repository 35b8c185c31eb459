#!/bin/sh
# SPDX-License-Identifier: MIT
# atom_tails_in_turns.sh - tails_in_turns.sh for the atomicity findings:
# lost updates that replay without a failure, then a long phase of two
# busy threads that each random tail runs switching at nearly every
# access.  Under --time 12 every witness must be replayed, the tails
# shared, and no tail trace left behind:
#   atomicity  two counters, two static findings: the first finding's 16
#              tails used to take all of the time and leave the others
#              unreplayed;
#   instances  one counter in four threads: a static CA and a static CMA
#              finding, whose replays do not fail, so that analyze solves
#              more of their instances; the first two findings' tails
#              used to take all of the time before any was solved.
# Program: tests/confirm/progs/tails_in_turns.c, given the mode.
NAME=atom_tails_in_turns
. "$(dirname "$0")/lib.sh"

build at "$P/tails_in_turns.c" -O1
for mode in atomicity instances; do
    record_passing $mode.ft ./at $mode
    "$F" analyze -q --json --kinds atomicity --time 12 -o $mode-out $mode.ft \
        >$mode.json 2>$mode.err
    rc=$?
    [ $rc = 2 ] || [ $rc = 4 ] && fail "$mode: analyze: exit $rc: $(tail -3 $mode.err)"
    python3 - $mode.json $mode <<'PY' || fail "$mode: analyze --json: $(head -c 1500 $mode.json)"
import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["violations"] if x["kind"] in ("CA", "CMA")]
if sys.argv[2] == "atomicity":
    assert {y for x in v for y in x["variables"]} == {"a", "b"}, v
else:
    assert len(v) >= 4, v  # the first instances, and more of them
for x in v:
    assert x["confirmation"]["status"] != "not_run", x["confirmation"]
assert sum(x["confirmation"]["tails_tried"] >= 1 for x in v) >= 2, v
PY
    [ -z "$(ls $mode-out | grep 'tail\.ftrace$')" ] ||
        fail "$mode: tail traces left: $(ls $mode-out)"
done
[ $fails = 0 ] && echo "atom_tails_in_turns: ok"
exit $fails
