#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_shapes.sh BUILD_DIR [SEEDS [BUDGET [STRATEGIES]]] - the shapes of
# issue 21 at 10, 20, 50 and 100 threads: "one checker among N setters"
# (data/reorder.c, N setters and one checker) and "N stages and one
# reader" (data/stages.c), and the lock-free stack (data/treiber.c, 3 and
# 8 workers).  For each program and strategy: schedules to the first bug
# (mean and median over the seeds that found it), found/seeds, and
# schedules per second (all runs of the cell).  Defaults: 20 seeds, budget
# 10000, "surw pos random pct".  Each exploration is one
# `explore_table.sh --one` job whose line is appended to RESULTS (default
# BUILD_DIR/explore_shapes.raw), so an interrupted table resumes;
# EXPLORE_TIME=S bounds each exploration to S seconds (default 60), and
# when the first ABANDON seeds (default 3) of a cell all fail the cell's
# other seeds are not run (the cell prints found/seeds run); PROGRAMS="
# stages_20 treiber_3 ..." limits the table to those rows.  icb, idb,
# hapset, dpor and period are deterministic: one seed.  Run it with
# nice, alone: it is heavy.  Not a test: prints numbers, asserts nothing.
set -eu
build=${1:-build}
seeds=${2:-20}
budget=${3:-10000}
strategies=${4:-"surw pos random pct"}
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-$build/explore_shapes.raw}
export EXPLORE_TIME=${EXPLORE_TIME:-60}
abandon=${ABANDON:-3}
[ -x "$build/bin/foretell" ] || { echo "explore_shapes: no $build/bin/foretell" >&2; exit 2; }
touch "$results"
programs="reorder_10:reorder:10 reorder_20:reorder:20 reorder_50:reorder:50
reorder_100:reorder:100 stages_10:stages:10 stages_20:stages:20
stages_50:stages:50 stages_100:stages:100 treiber_3:treiber:3 treiber_8:treiber:8"
if [ -n "${PROGRAMS:-}" ]; then
    keep=
    for p in $programs; do
        case " $PROGRAMS " in *" ${p%%:*} "*) keep="$keep $p" ;; esac
    done
    programs=$keep
fi
if [ -z "${PRINT_ONLY:-}" ]; then
    for p in $programs; do
        name=${p%%:*} rest=${p#*:}
        prog=${rest%%:*} args=${rest#*:}
        for s in $strategies; do
            n=$seeds
            case $s in icb|idb|hapset|dpor|period) n=1 ;; esac # deterministic
            for i in $(seq 1 "$n"); do
                grep -q "^$name $s $i $budget " "$results" && continue
                if [ "$i" -gt "$abandon" ]; then
                    hit=$(awk -v n="$name" -v s="$s" -v b="$budget" -v a="$abandon" \
                          '$1 == n && $2 == s && $4 == b && $3 <= a && $5 != "-"' \
                          "$results" | wc -l)
                    [ "$hit" -eq 0 ] && break
                fi
                echo "explore_shapes: $name $s seed $i ($(uptime | sed 's/.*load/load/'))" >&2
                sh "$here/explore_table.sh" --one "$build/bin/foretell" \
                    "$build/data/inst" "$name" "$prog" "$args" "$s" - "$i" \
                    "$budget" >>"$results"
            done
        done
    done
fi
awk -v strategies="$strategies" -v budget="$budget" -v cap="$EXPLORE_TIME" '
$4 == budget {
    k = $1 SUBSEP $2
    if (!(k in n)) { n[k] = 0; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } }
    n[k]++; runs[k] += $6; secs[k] += $7
    if ($5 != "-") { found[k]++; tot[k] += $5; v[k, found[k]] = $5 + 0 }
}
function median(k,   i, j, t, m) {
    m = found[k]
    for (i = 1; i <= m; i++) a[i] = v[k, i]
    for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
END {
    ns = split(strategies, st, " ")
    printf "| program |"; for (j = 1; j <= ns; j++) printf " %s: mean, median (found) |", st[j]
    printf "\n|---|"; for (j = 1; j <= ns; j++) printf "---|"; printf "\n"
    for (i = 1; i <= np; i++) {
        printf "| %s |", order[i]
        for (j = 1; j <= ns; j++) {
            k = order[i] SUBSEP st[j]
            if (!(k in n)) { printf " |"; continue }
            if (found[k]) printf " %.1f, %g (%d/%d) |", tot[k] / found[k], median(k), found[k], n[k]
            else printf " - (0/%d; %d schedules in %ds) |", n[k], runs[k] / n[k], cap
        }
        printf "\n"
    }
    printf "\nschedules per second:\n\n| program |"
    for (j = 1; j <= ns; j++) printf " %s |", st[j]
    printf "\n|---|"; for (j = 1; j <= ns; j++) printf "---|"; printf "\n"
    for (i = 1; i <= np; i++) {
        printf "| %s |", order[i]
        for (j = 1; j <= ns; j++) {
            k = order[i] SUBSEP st[j]
            printf " %s |", (secs[k] > 0 ? sprintf("%.1f", runs[k] / secs[k]) : "")
        }
        printf "\n"
    }
}' "$results"
