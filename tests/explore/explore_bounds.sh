#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_bounds.sh - an exploration is bounded and judges hangs by
# progress (issues 15 and 21): busy-waiting threads are preempted (no
# false hang), -t/--time covers the whole command for every strategy, a
# run's trace is capped (--max-run-events) and a hang is saved with a
# schedule that replays, a slow run that progresses is not a hang, and a
# harness failure (/dev/null) is foretell's, never the program's.
# Programs: progs/.  Env: FT_BIN, FT_INST, FT_WORK.
NAME=bounds
. "$(dirname "$0")/lib.sh"
P=$(cd "$(dirname "$0")/progs" && pwd)

now() { date +%s; }

# Busy-waiting before any sync: not a hang in the first schedule (the
# non-preemptive one), and the race is found.
build busywait "$P/busywait.c"
json=$("$bin/foretell" explore -q --json --strategy pct --seed 0 --budget 3 \
       --run-timeout 5 -o "$work/obw" -- "$work/busywait")
case $json in
*'"failure":"hang"'*) fail "busywait: a false hang: $json" ;;
*) echo "ok: busywait: no hang" ;;
esac
expect_bug abort 134 '*' --strategy random --seed 0 --budget 50 -- "$work/busywait"

# -t covers the whole command: a run that would be stopped as hung only
# after 60 s is cut when the time is up.
build stall "$P/stall.c"
t0=$(now)
"$bin/foretell" explore -q --run-timeout 60 -t 2 -o "$work/ot" -- "$work/stall" \
    >/dev/null 2>&1
dt=$(($(now) - t0))
[ $dt -le 6 ] && echo "ok: -t 2 took ${dt}s" || fail "-t 2 took ${dt}s"

# A hung run (no progress) is saved with a schedule that replays it.
json=$("$bin/foretell" explore -q --json --run-timeout 1 --budget 1 \
       -o "$work/oh" -- "$work/stall")
case $json in
*'"failure":"hang"'*'"schedule":"'*) ;;
*) fail "stall: no hang with a schedule: $json" ;;
esac
rj=$("$bin/foretell" replay -q --json --timeout 2 --schedule "$work/oh/bug-1.schedule" \
     -o "$work/rh.ftrace" -- "$work/stall")
case $rj in
*'"failure":"hang"'*) echo "ok: stall: hang saved and replayed" ;;
*) fail "stall: replay: $rj" ;;
esac

# A livelock is ended by --max-run-events: its trace stays small and its
# schedule replays to the same bound.
build forever "$P/forever.c"
json=$("$bin/foretell" explore -q --json --max-run-events 200000 --budget 2 \
       --run-timeout 30 -o "$work/of" -- "$work/forever")
case $json in
*'"failure":"hang"'*'"schedule":"'*) ;;
*) fail "forever: no hang with a schedule: $json" ;;
esac
size=$(wc -c <"$work/of/bug-1.ftrace" 2>/dev/null || echo 0)
[ "$size" -gt 0 ] && [ "$size" -lt 20000000 ] || fail "forever: trace of $size bytes"
rj=$("$bin/foretell" replay -q --json --max-steps 200000 --schedule \
     "$work/of/bug-1.schedule" -o "$work/rf.ftrace" -- "$work/forever")
case $rj in
*'"failure":"hang"'*) echo "ok: forever: bounded at 200000 key points ($size bytes), replayed" ;;
*) fail "forever: replay: $rj" ;;
esac

# A slow run that makes progress is not a hang.
build progress "$P/progress.c"
json=$("$bin/foretell" explore -q --json --run-timeout 1 --budget 1 \
       -o "$work/op" -- "$work/progress" 3)
rc=$?
[ $rc -eq 0 ] && echo "ok: a 3 s run with progress under --run-timeout 1" ||
    fail "progress: exit $rc: $json"

# Every strategy honours --time, also with long runs to analyse.
build longrun "$P/longrun.c"
for s in dpor hapset icb; do
    t0=$(now)
    "$bin/foretell" explore -q --strategy $s --time 2 -o "$work/ol" \
        -- "$work/longrun" 300000 >/dev/null 2>&1
    dt=$(($(now) - t0))
    [ $dt -le 6 ] && echo "ok: $s: --time 2 took ${dt}s" || fail "$s: --time 2 took ${dt}s"
done

# Progress when stderr is not a terminal (a CI log): a line once the
# exploration has run 2 s, then every 10 s; none with -q.
"$bin/foretell" explore --strategy random --budget 0 --time 3 -o "$work/op" \
    -- "$work/longrun" 1000 >/dev/null 2>"$work/perr"
grep -q "^foretell explore: [0-9]* schedules, [0-9]* bugs*, [0-9]* s$" "$work/perr" &&
    echo "ok: progress lines in a log" || fail "no progress line in a log: $(cat "$work/perr")"
"$bin/foretell" explore -q --strategy random --budget 0 --time 3 -o "$work/op" \
    -- "$work/longrun" 1000 >/dev/null 2>"$work/perr"
grep -q "schedules" "$work/perr" && fail "-q printed progress: $(cat "$work/perr")"

# /dev/null missing: foretell's failure, said as such (exit 4), never
# "cannot run the program".  Needs a private mount namespace (root).
build exit84 "$P/exit84.c"
sock=$work/notnull.sock
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
   python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$sock" 2>/dev/null &&
   unshare -m true 2>/dev/null; then
    unshare -m sh -c "mount --bind '$sock' /dev/null && exec '$bin/foretell' explore -q --budget 2 -o '$work/odn' -- '$work/exit84'" \
        >/dev/null 2>"$work/err"
    rc=$?
    if [ $rc -eq 4 ] && grep -q "/dev/null" "$work/err"; then
        echo "ok: /dev/null unusable: exit 4: $(head -1 "$work/err")"
    else
        fail "/dev/null unusable: exit $rc: $(cat "$work/err")"
    fi
else
    echo "skipped: /dev/null (needs root and unshare)"
fi

finish
echo "all bound tests passed"
