#!/bin/sh
# explore_table.sh BUILD_DIR [SEEDS [BUDGET [STRATEGIES]]] - for every buggy
# program of data/examples.tsv and every strategy: schedules to the first
# bug (mean over the seeds that found it), success rate over SEEDS seeds
# within BUDGET schedules, and schedules per second (all runs of the row).
# Defaults: 20 seeds, budget 10000, "random pct rpro pctvb icb idb hapset
# period".  icb, idb, hapset, dpor and period are deterministic: one seed.  Rows print as
# they finish (a full table can take long: reduce SEEDS/BUDGET).  rpro gets --deadlock on
# deadlock rows.  Not a test: prints numbers, asserts nothing.
set -eu
build=${1:-build}
seeds=${2:-20}
budget=${3:-10000}
strategies=${4:-"random pct rpro pctvb icb idb hapset period"}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data
inst=$build/data/inst
foretell=$build/bin/foretell
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-18s %-7s %9s %8s %9s\n' program strategy mean-to-bug found sched/s
grep -v '^#' "$data/examples.tsv" | while IFS='	' read -r name src lang kind failure args threads natural summary; do
    [ "$kind" = none ] && continue
    prog=$inst/${src%.*}
    [ -x "$prog" ] || { echo "$name: $prog not built" >&2; continue; }
    [ "$args" = - ] && args=
    for s in $strategies; do
        extra=
        [ "$s" = rpro ] && [ "$kind" = deadlock ] && extra=--deadlock
        n=$seeds
        case $s in icb|idb|hapset|dpor|period) n=1 ;; esac
        found=0 total=0 runs=0 secs=0
        i=1
        while [ "$i" -le "$n" ]; do
            # shellcheck disable=SC2086
            out=$("$foretell" explore --strategy "$s" $extra --seed $((i * 1000003)) \
                  --budget "$budget" --run-timeout 5 --json -q -o "$tmp/out" \
                  -- "$prog" $args 2>/dev/null || true)
            first=$(echo "$out" | sed -n 's/.*"schedules_to_first_bug":\([0-9]*\).*/\1/p')
            r=$(echo "$out" | sed -n 's/.*"schedules_run":\([0-9]*\).*/\1/p')
            t=$(echo "$out" | sed -n 's/.*"seconds":\([0-9.e+-]*\).*/\1/p')
            runs=$((runs + ${r:-0}))
            secs=$(awk -v a="$secs" -v b="${t:-0}" 'BEGIN { print a + b }')
            if [ -n "$first" ]; then
                found=$((found + 1))
                total=$((total + first))
            fi
            i=$((i + 1))
        done
        awk -v name="$name" -v s="$s" -v f="$found" -v n="$n" -v tot="$total" \
            -v runs="$runs" -v secs="$secs" 'BEGIN {
            mean = f ? sprintf("%.1f", tot / f) : "-"
            printf "%-18s %-7s %9s %5d/%-3d %8.0f\n", name, s, mean, f, n,
                   (secs > 0 ? runs / secs : 0) }'
    done
done
