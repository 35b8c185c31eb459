#!/bin/sh
# SPDX-License-Identifier: MIT
# instance_tails_in_turns.sh - atom_tails_in_turns.sh for the more
# instances analyze solves of a static finding whose replays did not
# fail: four threads each increment one counter over two critical
# sections (lost updates, never checked: one CA and one CMA static
# finding, each with more instances), then a long phase of two busy
# threads that each random tail runs switching at nearly every access.
# Under --time 12 the first two witnesses' tails used to take all of it,
# and no further instance was solved or replayed; now every witness, the
# more instances' too, is replayed before any tail, the tails shared.
# Program: tests/confirm/progs/tails_in_turns.c, given "instances".
NAME=instance_tails_in_turns
. "$(dirname "$0")/lib.sh"

build it "$P/tails_in_turns.c" -O1
record_passing it.ft ./it instances
"$F" analyze -q --json --kinds atomicity --time 12 -o out it.ft >it.json 2>it.err
rc=$?
[ $rc = 2 ] || [ $rc = 4 ] && fail "analyze: exit $rc: $(tail -3 it.err)"
python3 - it.json <<'PY' || fail "analyze --json: $(head -c 1500 it.json)"
import json, sys
d = json.load(open(sys.argv[1]))
v = [x for x in d["violations"] if x["kind"] in ("CA", "CMA")]
assert len(v) >= 4, v  # the first instances, and more of them
for x in v:
    assert x["confirmation"]["status"] != "not_run", x["confirmation"]
assert sum(x["confirmation"]["tails_tried"] >= 1 for x in v) >= 2, v
PY
[ -z "$(ls out | grep 'tail\.ftrace$')" ] || fail "tail traces left: $(ls out)"
[ $fails = 0 ] && echo "instance_tails_in_turns: ok"
exit $fails
