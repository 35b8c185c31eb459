#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_rate.sh BUILD_DIR [N] - schedules per second of `foretell explore`
# (random strategy, -j 1 and -j 2) on small data/ programs, next to the
# rate of plain fork+exec of the same program built natively (no runtime,
# no trace) measured in the same run: the ratio says what the runtime, the
# trace and the driver add to process creation.  Not a test.
set -eu
build=${1:-build}
n=${2:-300}
inst=$build/data/inst
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

native_rate() { # program args...: runs/s of n plain executions
    start=$(date +%s.%N)
    i=0
    while [ $i -lt "$n" ]; do
        "$@" >/dev/null 2>&1 || true
        i=$((i + 1))
    done
    end=$(date +%s.%N)
    awk -v n="$n" -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", n / (b - a) }'
}

explore_rate() { # jobs program args...
    j=$1
    shift
    "$build/bin/foretell" explore --strategy random --all --budget "$n" -j "$j" \
        --json -q -o "$tmp/out" -- "$@" 2>/dev/null |
        sed -n 's/.*"schedules_per_second":\([0-9.]*\).*/\1/p' |
        awk '{ printf "%.0f", $1 }'
}

printf '%-16s %7s %9s %9s %10s %10s\n' program events "native/s" "explore/s" "-j2/s" "ratio(j1)"
for p in "reorder 4" "vb_figures 2" "rpro_d1" "correct_locked" "prodcons_sem"; do
    set -- $p
    name=$1
    shift
    FORETELL_TRACE=$tmp/t.ftrace "$inst/$name" "$@" >/dev/null 2>&1 || true
    ev=$("$build/bin/foretell" stats "$tmp/t.ftrace" 2>/dev/null |
         sed -n 's/^events: *\([0-9]*\).*/\1/p')
    nat=$(native_rate "$build/bin/ft_ex_$name" "$@")
    e1=$(explore_rate 1 "$inst/$name" "$@")
    e2=$(explore_rate 2 "$inst/$name" "$@")
    ratio=$(awk -v a="$nat" -v b="$e1" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    printf '%-16s %7s %9s %9s %10s %10s\n' "$name $*" "$ev" "$nat" "$e1" "$e2" "$ratio"
done
