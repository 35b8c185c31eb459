#!/bin/sh
# run.sh [BUILD_DIR] [SIZES] - builds bench_model against the libraries of
# BUILD_DIR (default build-bench, configured RelWithDebInfo if missing),
# generates traces of each size (default "1000000 10000000 100000000") in
# $TMPDIR and prints one JSON line per trace: load + linear passes, events
# per second and resident bytes per event.  Traces are deleted afterwards.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
sizes=${2:-"1000000 10000000 100000000"}
tmp=${TMPDIR:-/tmp}
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
make -C "$build" -j2 ft_reduce ft_ctm ft_trace >/dev/null
cc -O2 -std=gnu11 -I"$root" "$root/bench/model/bench_model.c" \
    -L"$build/lib" -lft_reduce -lft_ctm -lft_trace \
    $(pkg-config --libs msgpack libdw) -pthread -o "$build/bench_model"
for n in $sizes; do
    trace=$tmp/bench-model-$n.ftrace
    "$build/bench_model" gen "$n" "$trace" 8
    "$build/bench_model" run "$trace"
    if [ "$n" -le 1000000 ]; then
        "$build/bench_model" run "$trace" --mat
    fi
    rm -f "$trace"
done
