#!/bin/sh
# SPDX-License-Identifier: MIT
# tail_time.sh - `analyze --tail-time S`: after the --tails turns, more
# turns of random tails while the tails so far took under S seconds, and
# no more after that; without it, exactly the --tails turns.  The one
# order finding of tests/confirm/progs/tail_time.c replays without a
# failure, and so does every tail, so the tails run until the bound.
# `batch analyze --confirm --tail-time` and `batch confirm --tail-time`
# the same.
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
# batch analyze --tail-time: the same bound, counted from the trace's
# first replay; batch confirm's, from the finding's (exit 0: the finding
# is reached, no run failed)
t0=$(date +%s)
"$F" batch analyze -q --store b1.db --kinds order --confirm --tails 2 tt.ft \
    -- ./tt >e.out 2>e.err
rc=$?
t1=$(date +%s)
[ $rc = 0 ] || fail "batch analyze --tails 2: exit $rc: $(tail -3 e.err)"
base=$((t1 - t0))
t0=$(date +%s)
"$F" batch analyze -q --store b2.db --kinds order --confirm --tails 2 \
    --tail-time 3 tt.ft -- ./tt >f.out 2>f.err
rc=$?
t1=$(date +%s)
[ $rc = 0 ] || fail "batch analyze --tail-time 3: exit $rc: $(tail -3 f.err)"
[ $((t1 - t0)) -ge 3 ] && [ $((t1 - t0)) -le $((base + 30)) ] ||
    fail "batch analyze --tail-time 3 took $((t1 - t0)) s (without: $base s)"
"$F" batch report --store b2.db --json >g.json 2>g.err
grep -q '"kind":"order".*"confirmation":"reached"' g.json ||
    fail "batch report: no order finding reached: $(head -c 900 g.json)"
"$F" batch analyze -q --store b3.db --tail-time 2 tt.ft >/dev/null 2>h.err
rc=$?
[ $rc = 2 ] && grep -q "tail-time only applies when findings are replayed" h.err ||
    fail "batch analyze --tail-time without --confirm: exit $rc: $(cat h.err)"
t0=$(date +%s)
"$F" batch confirm -q --store b1.db --all --tails 1 --tail-time 2 -- ./tt \
    >i.out 2>i.err
rc=$?
t1=$(date +%s)
[ $rc = 0 ] || fail "batch confirm --tail-time 2: exit $rc: $(tail -3 i.err)"
[ $((t1 - t0)) -ge 2 ] && [ $((t1 - t0)) -le 40 ] ||
    fail "batch confirm --tail-time 2 took $((t1 - t0)) s"
"$F" batch confirm -q --store b1.db --tail-time soon >/dev/null 2>j.err
rc=$?
[ $rc = 2 ] && grep -q "tail-time" j.err ||
    fail "batch confirm --tail-time soon: exit $rc: $(cat j.err)"
[ $fails = 0 ] && echo "tail_time: ok"
exit $fails
