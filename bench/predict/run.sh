#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] [TRACE...] - stage iv costs (bench_predict.c): per
# property solve time (median, p90, max, seconds), FindAV iterations and
# formula size (blocks, asserts) in the default configuration (direct),
# with FindAV, without slicing, with and without the CXT restriction
# (without: every context switch allowed, the model without MAT's
# reduction), and with MAT's skip-unreachable variant; peak memory.
# Traces: the ones given, else a passing recorded run of each data/
# atomicity example (built into BUILD_DIR by the ft_examples target),
# then random traces of tests/model/gen.c of growing size (and, with
# LONG=1, two traces of 10^6 events).  Not a test:
# prints a table and leaves nothing behind.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
[ $# -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
make -C "$build" -j2 foretell bench_predict ft_examples >/dev/null
b=$build/bin/bench_predict
"$b" --header
if [ $# -gt 0 ]; then
    for t in "$@"; do "$b" "$t"; done
    exit 0
fi
for ex in counter_rmw best_fig2 alloc_vector vb_fig4 vb_fig10 reorder_4; do
    row=$(awk -F'\t' -v n="$ex" '$1 == n' "$root/data/examples.tsv")
    src=$(echo "$row" | cut -f2)
    args=$(echo "$row" | cut -f6)
    [ "$args" = "-" ] && args=
    i=0
    # shellcheck disable=SC2086
    until "$build/bin/foretell" record -o "$tmp/$ex.ftrace" -- \
        "$build/data/inst/${src%.*}" $args >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 20 ] || continue 2
    done
    "$b" "$tmp/$ex.ftrace" 12
done
for size in "2 20" "3 30" "4 40"; do
    # shellcheck disable=SC2086
    "$b" gen 7 $size 6
done
# Long traces (LONG=1; minutes): a recorded run of the lock-heavy
# recorder kernel (bench/recorder/locks.c 50000: 4 threads, 10^6 events),
# one of locks.c 35000 split (4 threads, 10^6 events, 140 000 open
# regions)
# and a generated 4-thread trace of 250 000 operations (about 10^5
# transitions), in the default
# configuration (windows, value order, hunt) and without the value order
# (no-vorder: every property goes to the hunt and the windows), PROPS
# properties spread over the list, 20 s each, the process's memory
# capped (Z3 can grow without bound); on the split trace also PROPS of
# the properties the value order leaves to the solver.
if [ "${LONG:-0}" = 1 ]; then
    props=${PROPS:-40}
    "$build/bin/foretell-cc" -O2 -o "$tmp/locks" "$root/bench/recorder/locks.c"
    "$build/bin/foretell" record -o "$tmp/locks.ftrace" -- "$tmp/locks" \
        50000 >/dev/null 2>&1
    (ulimit -v 16000000; "$b" "$tmp/locks.ftrace" "$props" direct 20000)
    rm -f "$tmp/locks.ftrace"
    # the same size with atomicity bugs: with "split" every increment is
    # an open region (read and write in two critical sections)
    "$build/bin/foretell" record -o "$tmp/split.ftrace" -- "$tmp/locks" \
        35000 split >/dev/null 2>&1 || true # exit 1: this run lost one
    (ulimit -v 16000000
     "$b" "$tmp/split.ftrace" "$props" direct,no-vorder 20000
     FT_BENCH_UNDECIDED=1 "$b" "$tmp/split.ftrace" "$props" direct 20000)
    rm -f "$tmp/split.ftrace"
    (ulimit -v 16000000
     "$b" gen 7 4 250000 "$props" direct,no-vorder 20000)
fi
