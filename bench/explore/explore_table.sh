#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_table.sh BUILD_DIR [SEEDS [BUDGET [STRATEGIES]]] - for every buggy
# program of data/examples.tsv and every strategy: schedules to the first
# bug (mean over the seeds that found it), success rate over SEEDS seeds
# within BUDGET schedules, and schedules per second (all runs of the cell).
# Defaults: 20 seeds, budget 10000, "random pct rpro pctvb icb idb hapset
# period".  icb, idb, hapset, dpor and period are deterministic: one seed.
# rpro gets --deadlock on deadlock rows.  Not a test: prints numbers,
# asserts nothing.
#
# A full table is long (a cell that never finds its bug costs SEEDS x
# BUDGET runs), so each exploration is one job whose result line is
# appended to RESULTS (default BUILD_DIR/explore_table.raw: "name strategy
# seed budget first runs seconds failure"); a second call skips the jobs
# already there, so an interrupted table resumes (PRINT_ONLY=1: print the
# table of what RESULTS has, run nothing).  JOBS=N runs N
# explorations at once (schedules to the first bug do not depend on the
# machine's load; schedules per second do).  EXPLORE_TIME=S bounds each
# exploration to S seconds as well (a cell that hits it reports the
# schedules it ran: compare budgets with care).  The table is printed from
# RESULTS as markdown: one row per program, one cell per strategy,
# "mean (found/seeds)", then the schedules per second of each strategy.
set -eu
if [ "${1:-}" = --one ]; then # one exploration: --one FORETELL INST LINE...
    shift
    foretell=$1 inst=$2 name=$3 prog=$4 args=$5 s=$6 extra=$7 seed=$8 budget=$9
    [ "$args" = - ] && args=
    [ "$extra" = - ] && extra=
    o=$(mktemp -d)
    # shellcheck disable=SC2086
    out=$("$foretell" explore --strategy "$s" $extra --seed $((seed * 1000003)) \
          --budget "$budget" ${EXPLORE_TIME:+--time "$EXPLORE_TIME"} \
          --run-timeout 10 --json -q -o "$o/out" \
          -- "$inst/$prog" $args 2>/dev/null || true)
    rm -rf "$o"
    field() { echo "$out" | sed -n "s/.*\"$1\":\"\{0,1\}\([0-9a-z.e+-]*\).*/\1/p" | head -1; }
    if [ -z "$(field schedules_run)" ]; then # not a result: retried next time
        echo "explore_table: $name $s seed $seed: foretell explore gave no JSON" >&2
        exit 0
    fi
    first=$(field schedules_to_first_bug)
    [ "$(field bug_found)" = true ] || first=-
    echo "$name $s $seed $budget ${first:--} $(field schedules_run) $(field seconds) $(field failure)"
    exit 0
fi
build=${1:-build}
seeds=${2:-20}
budget=${3:-10000}
strategies=${4:-"random pct rpro pctvb icb idb hapset period"}
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data
results=${RESULTS:-$build/explore_table.raw}
[ -x "$build/bin/foretell" ] || { echo "explore_table: no $build/bin/foretell" >&2; exit 2; }
touch "$results"
jobs=$(mktemp)
trap 'rm -f "$jobs"' EXIT

grep -v '^#' "$data/examples.tsv" | while IFS='	' read -r name src lang kind failure args threads natural summary; do
    [ "$kind" = none ] && continue
    for s in $strategies; do
        extra=-
        [ "$s" = rpro ] && [ "$kind" = deadlock ] && extra=--deadlock
        n=$seeds
        case $s in icb|idb|hapset|dpor|period) n=1 ;; esac
        for i in $(seq 1 "$n"); do
            grep -q "^$name $s $i $budget " "$results" ||
                echo "$name ${src%.*} ${args:--} $s $extra $i $budget"
        done
    done
done >"$jobs"
if [ -n "${PRINT_ONLY:-}" ]; then
    echo "explore_table: $(wc -l <"$jobs") explorations not run yet (PRINT_ONLY)" >&2
else
    echo "explore_table: $(wc -l <"$jobs") explorations to run, ${JOBS:-1} at once; results in $results" >&2
    # shellcheck disable=SC2086
    xargs -r -P "${JOBS:-1}" -L 1 sh "$0" --one "$build/bin/foretell" \
        "$build/data/inst" <"$jobs" >>"$results"
fi

awk -v strategies="$strategies" -v budget="$budget" '
$4 == budget {
    k = $1 SUBSEP $2
    if (!(k in n)) { n[k] = 0; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } }
    n[k]++; runs[$2] += $6; secs[$2] += $7
    if ($5 != "-") { found[k]++; tot[k] += $5 }
}
END {
    ns = split(strategies, st, " ")
    printf "| program |"; for (j = 1; j <= ns; j++) printf " %s |", st[j]; printf "\n|---|"
    for (j = 1; j <= ns; j++) printf "---|"; printf "\n"
    for (i = 1; i <= np; i++) {
        printf "| %s |", order[i]
        for (j = 1; j <= ns; j++) {
            k = order[i] SUBSEP st[j]
            if (!(k in n)) { printf " |"; continue }
            m = found[k] ? sprintf("%.1f", tot[k] / found[k]) : "-"
            printf " %s (%d/%d) |", m, found[k], n[k]
        }
        printf "\n"
    }
    printf "| schedules/s |"
    for (j = 1; j <= ns; j++)
        printf " %s |", (secs[st[j]] > 0 ? sprintf("%.0f", runs[st[j]] / secs[st[j]]) : "")
    printf "\n"
}' "$results"
