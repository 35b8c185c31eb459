#!/bin/sh
# SPDX-License-Identifier: MIT
# tail_time.sh - `analyze --tail-time S`: after the --tails turns, more
# turns of random tails while the tails so far took under S seconds, and
# no more after that; without it, exactly the --tails turns.  The one
# order finding of tests/confirm/progs/tail_time.c replays without a
# failure, and so does every tail, so the tails run until the bound.
NAME=tail_time
. "$(dirname "$0")/lib.sh"

build tt "$P/tail_time.c" -O1
record_passing tt.ft ./tt
count() { # JSON -> the order finding's tails_tried
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "order"]
assert len(f) == 1, f
c = f[0]["confirmation"]
assert c["status"] == "confirmed" and c["failure"] == "none", c
print(c["tails_tried"])' "$1"
}
"$F" analyze -q --json --kinds order --tails 2 -o o1 tt.ft >a.json 2>a.err ||
    fail "--tails 2: exit $?: $(tail -3 a.err)"
n=$(count a.json) || fail "--tails 2: $(head -c 800 a.json)"
[ "$n" = 2 ] || fail "--tails 2 ran $n tails"
t0=$(date +%s)
"$F" analyze -q --json --kinds order --tails 2 --tail-time 2 -o o2 tt.ft \
    >b.json 2>b.err || fail "--tail-time 2: exit $?: $(tail -3 b.err)"
t1=$(date +%s)
n=$(count b.json) || fail "--tail-time 2: $(head -c 800 b.json)"
[ "$n" -gt 2 ] || fail "--tail-time 2 ran only $n tails"
[ $((t1 - t0)) -ge 2 ] && [ $((t1 - t0)) -le 30 ] ||
    fail "--tail-time 2 took $((t1 - t0)) s"
"$F" analyze -q --no-confirm --tail-time 2 -o o3 tt.ft >/dev/null 2>c.err
rc=$?
[ $rc = 2 ] && grep -q "tail-time only applies when findings are replayed" c.err ||
    fail "--tail-time with --no-confirm: exit $rc: $(cat c.err)"
"$F" analyze -q --tail-time soon -o o4 tt.ft >/dev/null 2>d.err
rc=$?
[ $rc = 2 ] && grep -q "tail-time" d.err || fail "--tail-time soon: exit $rc: $(cat d.err)"
[ $fails = 0 ] && echo "tail_time: ok"
exit $fails
