#!/bin/sh
# SPDX-License-Identifier: MIT
# glued_race.sh - a race whose write is glued to a paired read (the
# runtime cannot switch between them): the witness ends with the reading
# thread's access and the writing thread's whole step, the paired read
# marked '+' right before the write; the other order swaps the steps
# whole; both replays follow their schedules, and each replayed trace
# shows the two accesses in its order.  Before, the witness put the other
# thread's read between the paired read and the write, and its replay,
# which ran the write first, counted as followed: the replay now checks
# the marked events' order.
# Program: tests/confirm/progs/glued_race.c.
NAME=glued_race
. "$(dirname "$0")/lib.sh"

build gr "$P/glued_race.c" -O0
"$F" record -o gr.ft -- ./gr >/dev/null 2>&1 ||
    { echo "FAIL(glued_race): the recording failed" >&2; exit 1; }
"$F" dump gr.ft 2>/dev/null | grep -q 'paired=1' ||
    { echo "FAIL(glued_race): no paired read in the trace" >&2; exit 1; }
"$F" analyze -q --json --kinds data-race -o out gr.ft >gr.json 2>gr.err
rc=$?
[ $rc = 0 ] || fail "analyze: exit $rc, expected 0 (a benign race): $(tail -3 gr.err)"
python3 - gr.json <<'PY' || fail "analyze --json: $(head -c 800 gr.json)"
import json, sys
d = json.load(open(sys.argv[1]))
races = [f for f in d["findings"] if f["kind"] == "data-race"
         and "glued_race.c:16" in " ".join(f["sites"])]
assert races, ("the race on x was not predicted", d["findings"])
for f in races:
    c = f["confirmation"]
    assert c["status"] == "confirmed" and c["divergence"] is None, c
    assert f["other_order"], f
PY
# the witness: ... the paired read ('+') of y then the write (!) of x, by
# one thread, the read of x (!) by the other just before or after them
for s in out/data-race-*.schedule; do
    steps=$(sed -n '/^[0-9]/p' "$s" | awk '{print $1, $3, $4}' | tail -3)
    case "$s" in
    *.alt.schedule) want_last="read !" ;;
    *) want_last="write !" ;;
    esac
    echo "$steps" | tail -1 | grep -q "$want_last\$" ||
        fail "$s: does not end with its '$want_last': $steps"
    echo "$steps" | grep -B1 'write !$' | head -1 | grep -q 'read +$' ||
        fail "$s: the write is not right after its paired read: $steps"
done
# each replay ran the two accesses of x in its schedule's order
order() { "$F" dump "$1" 2>/dev/null | grep '\[x\]' |
          grep 'glued_race.c:\(16\|30\)' | awk '{print $3}' | tr '\n' ' '; }
[ "$(order out/data-race-0.replay.ftrace)" = "read write " ] ||
    fail "the witness's replay: $(order out/data-race-0.replay.ftrace)"
[ "$(order out/data-race-0.alt.replay.ftrace)" = "write read " ] ||
    fail "the other order's replay: $(order out/data-race-0.alt.replay.ftrace)"
# the replay checks that the marked events ran in the schedule's order:
# the old witness (the other thread's read between the paired read and
# the write) ran the write first, and is a divergence (exit 3)
awk '/^[0-9]/ { n++; line[n] = $0; next } /^end/ {
         sub(/ \+ /, " - ", line[n - 1])
         for (i = 1; i <= n - 3; i++) print line[i]
         print line[n - 1]; print line[n - 2]; print line[n]; print; next }
     { print }' out/data-race-0.schedule >old.schedule
"$F" replay -q --schedule old.schedule -o old.ftrace -- ./gr >old.out 2>&1
rc=$?
[ $rc = 3 ] && grep -q "the marked events ran in another order" old.out ||
    fail "a schedule asking for the write after the read: exit $rc: $(cat old.out)"
# ... and the step that ran early is not counted as followed
"$F" replay -q --json --schedule old.schedule -o old2.ftrace -- ./gr \
    2>/dev/null | grep -q '"steps_followed":9,"steps":10' ||
    fail "the out-of-order step counted as followed"
[ $fails = 0 ] && echo "glued_race: ok"
exit $fails
