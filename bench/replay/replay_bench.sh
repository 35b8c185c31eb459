#!/bin/sh
# SPDX-License-Identifier: MIT
# replay_bench.sh BUILD_DIR [ACCESSES [YIELDS]] - the cost of replay, same
# run ratios (not a test: speed is never asserted).  Uses
# tests/rt/bench/rt_bench.c: a loop of instrumented accesses (a key point
# where the running thread keeps running) and a sched_yield ping-pong
# between two threads (a forced switch at every yield).  Prints its
# per-access and per-yield costs when
#   1. recorded (the recording policy),
#   2. recorded with the heap oracle on (FORETELL_HEAP_CHECK=1),
#   3. replayed from run 1's trace (`foretell replay --trace`: every key
#      point asks the replay policy, every switch is the schedule's),
#   4. run under the default policy "none" (empty schedule, oracle on).
set -eu
build=${1:-build}
n=${2:-2000000}
y=${3:-20000}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/bin/foretell-cc" -O2 -o "$tmp/rt_bench" "$here/replay_bench.c"
echo "== 1. recorded"
FORETELL_TRACE=$tmp/rec.ft FORETELL_QUANTUM=1000000000 setarch "$(uname -m)" -R "$tmp/rt_bench" "$n" "$y"
echo "== 2. recorded, heap oracle on"
FORETELL_TRACE=$tmp/heap.ft FORETELL_HEAP_CHECK=1 FORETELL_QUANTUM=1000000000 "$tmp/rt_bench" "$n" "$y"
echo "== 3. replayed from the recording"
"$build/bin/foretell" replay --trace "$tmp/rec.ft" -o "$tmp/rep.ft" -- "$tmp/rt_bench" "$n" "$y" 2>&1 |
    grep -v ': note: '
printf 'foretell-schedule 1\nkind: CA\nsteps: 0\nend\n' > "$tmp/empty.sched"
echo "== 4. default policy none (empty schedule, oracle on)"
"$build/bin/foretell" replay --schedule "$tmp/empty.sched" -o "$tmp/none.ft" -- "$tmp/rt_bench" "$n" "$y" 2>&1 |
    grep -v ': note: '
