#!/bin/sh
# SPDX-License-Identifier: MIT
# tails_in_turns.sh - every witness is replayed before any finding's
# random tails: two order findings that replay without a failure, then a
# long phase of two busy threads that each random tail runs switching at
# nearly every access (a second or more per tail).  Under --time 12 the
# first finding's 16 tails used to take all of it and leave the second
# unreplayed ("predicted"); both must be replayed, and their tails shared.
# Program: tests/confirm/progs/tails_in_turns.c.
NAME=tails_in_turns
. "$(dirname "$0")/lib.sh"

build tt "$P/tails_in_turns.c" -O1
record_passing tt.ft ./tt
"$F" analyze -q --json --kinds order --time 12 -o out tt.ft >tt.json 2>tt.err
rc=$?
[ $rc = 2 ] || [ $rc = 4 ] && fail "analyze: exit $rc: $(tail -3 tt.err)"
python3 - tt.json <<'PY' || fail "analyze --json: $(head -c 1500 tt.json)"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "order"]
assert len(f) >= 2, f
for x in f:
    assert x["status"] != "predicted", ("not replayed", x["message"])
    assert x["confirmation"]["status"] != "not_run", x["confirmation"]
PY
[ -z "$(ls out | grep 'tail\.ftrace$')" ] || fail "tail traces left: $(ls out)"
[ $fails = 0 ] && echo "tails_in_turns: ok"
exit $fails
