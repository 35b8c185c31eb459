#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] [SIZES] - builds bench_model against the libraries of
# BUILD_DIR (default build-bench, configured RelWithDebInfo if missing),
# generates traces of each size (default "1000000 10000000 100000000") in
# $TMPDIR and, per trace, runs `bench_model run` RUNS times (default 3)
# after writing back the generated trace (sync), prints each run's JSON
# line, then the median's events per second and its ratio to RAPID's
# published rates on this machine type (its parser 2.3 M events/s, its
# engines 0.6-1.2 M).  The first run of a large size is often slower (up
# to 2x at 10^8: docs/benchmarks.md); it is printed and counts in the
# median, not hidden.  Traces are deleted afterwards.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
sizes=${2:-"1000000 10000000 100000000"}
runs=${RUNS:-3}
tmp=${TMPDIR:-/tmp}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
make -C "$build" -j2 ft_reduce ft_ctm ft_trace >/dev/null
cc -O2 -std=gnu11 -I"$root" "$root/bench/model/bench_model.c" \
    -L"$build/lib" -lft_reduce -lft_ctm -lft_trace \
    $(pkg-config --libs msgpack libdw) -pthread -o "$build/bench_model"
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
for n in $sizes; do
    trace=$tmp/bench-model-$n.ftrace
    "$build/bench_model" gen "$n" "$trace" 8
    sync
    rates=""
    for i in $(seq 1 "$runs"); do
        line=$("$build/bench_model" run "$trace")
        echo "$line"
        rates="$rates $(echo "$line" | field events_per_s)"
    done
    med=$(echo "$rates" | tr ' ' '\n' | sed '/^$/d' | sort -n |
          awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v n="$n" -v r="$med" -v runs="$runs" 'BEGIN {
        printf "events %d: median of %d runs %.2f M events/s (load + linear passes); " \
               "vs RAPID parser 2.3 M/s: %.1fx; vs RAPID engines 0.6-1.2 M/s: %.1f-%.1fx\n",
               n, runs, r / 1e6, r / 2.3e6, r / 1.2e6, r / 0.6e6 }'
    if [ "$n" -le 1000000 ]; then
        "$build/bench_model" run "$trace" --mat
    fi
    rm -f "$trace"
done
