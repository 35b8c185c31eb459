#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] - `foretell batch` on many CI-like traces, against a
# shell loop of `foretell analyze` calls on the same traces in the same
# run.  Not a test: nothing is asserted, figures are printed
# (docs/batch.md, "Figures").
#
# Records TRACES runs (default 1000) of the data/ programs, several runs
# of each with the seed and the quantum varied (so most findings repeat),
# splits them into BLOCKS blocks (default 5) and, block by block, times:
#   batch     foretell batch analyze -j JOBS into a fresh store
#   rerun     the same command again (every trace skipped)
#   loop      for t in ...; do foretell analyze $t; done (one at a time)
#   loopJ     the same loop JOBS at a time (xargs -P JOBS)
# alternating which comes first from block to block, and prints each
# block's figures, their medians, and the ratios.  Then the blocks'
# stores are merged: distinct findings against occurrences and instances,
# store bytes per trace.  The machine's load is printed before and after:
# others may share it.
#
# Environment: TRACES (1000), BLOCKS (5), JOBS (2), KINDS (what both
# predict: --kinds, default all), TMPDIR (traces and stores are written
# there and deleted), KEEP=1 keeps them.  The loops run analyze with
# --no-confirm: the batch replays nothing without --confirm either.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
n=${TRACES:-1000}
blocks=${BLOCKS:-5}
jobs=${JOBS:-2}
kinds=${KINDS:-all}
FT=$build/bin/foretell
INST=$build/data/inst
for f in "$FT" "$INST/vb_figures"; do
    [ -x "$f" ] || { echo "run.sh: $f missing: build first" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ft-bench-batch.XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM # the EXIT trap cleans up; a kill ends the run
fi
mkdir "$tmp/t" "$tmp/out"

# The programs: with atomicity bugs foretell predicts (vb_figures' six
# figures, best_fig2, config_swap, rpro_d2, double_free, account,
# bank_transfer) and without (the rest); counter_rmw, pair_update,
# alloc_vector and data_race are left out: seconds to minutes each, they
# would measure the solver, not the batch.
configs="vb_figures:2 vb_figures:3 vb_figures:4 vb_figures:8 vb_figures:9
vb_figures:10 best_fig2: config_swap: rpro_d2: double_free: account:
bank_transfer: abba_deadlock: barrier_phases: correct_atomics:
correct_locked: init_order: lost_wakeup: period_once: prodcons_sem:
rpro_d1: uaf_handoff: vb_figures:1 reorder:4"
ncfg=$(echo $configs | wc -w)
now() { date +%s.%N; }
el() { echo "$2 - $1" | bc; }

echo "== recording $n traces of $ncfg configurations (load: $(cut -d' ' -f1-3 /proc/loadavg))"
i=0
t0=$(now)
while [ $i -lt $n ]; do
    for c in $configs; do
        [ $i -lt $n ] || break
        prog=${c%%:*}
        arg=${c#*:}
        round=$((i / ncfg))
        q=$(echo "20000 7 3 1" | cut -d' ' -f$((round % 4 + 1)))
        # a killed or failed run leaves a trace too: it is kept
        $FT record --seed $((round + 1)) --quantum $q --timeout 20 \
            -o "$tmp/t/$prog$arg-$i.ftrace" -- "$INST/$prog" $arg \
            >/dev/null 2>&1 || true
        i=$((i + 1))
    done
done
echo "recorded in $(el "$t0" "$(now)") s; $(du -sk "$tmp/t" | cut -f1) KiB"
ls "$tmp/t" | awk -v b="$blocks" -v d="$tmp/t" \
    '{ print d "/" $0 > (d "/../list" (NR % b)) }'

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_batch() { $FT batch analyze -q -j "$jobs" --kinds "$kinds" --store "$tmp/b$1.db" "@$tmp/list$1" >/dev/null 2>&1 || true; }
run_loop() {
    while read -r t; do
        $FT analyze "$t" --no-confirm --kinds "$kinds" -o "$tmp/out/x" \
            >/dev/null 2>&1 || true
    done <"$tmp/list$1"
}
run_loopj() {
    xargs -P "$jobs" -I{} sh -c '"$1" analyze "$2" --no-confirm --kinds "$4" -o "$3/$(basename "$2")" >/dev/null 2>&1 || true' \
        sh "$FT" {} "$tmp/out" "$kinds" <"$tmp/list$1"
}

echo "== $blocks blocks, --kinds $kinds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %7s %9s %9s %9s %9s %9s\n' block traces batch_s rerun_s loop_s \
    loop${jobs}_s batch_t/s
: >"$tmp/fig"
b=0
while [ $b -lt "$blocks" ]; do
    k=$(wc -l <"$tmp/list$b")
    if [ $((b % 2)) = 0 ]; then
        s=$(now); run_batch $b; tb=$(el "$s" "$(now)")
        s=$(now); run_loop $b; tl=$(el "$s" "$(now)")
        s=$(now); run_loopj $b; tj=$(el "$s" "$(now)")
    else
        s=$(now); run_loopj $b; tj=$(el "$s" "$(now)")
        s=$(now); run_loop $b; tl=$(el "$s" "$(now)")
        s=$(now); run_batch $b; tb=$(el "$s" "$(now)")
    fi
    s=$(now); run_batch $b; tr=$(el "$s" "$(now)")
    rate=$(echo "scale=2; $k / $tb" | bc)
    printf '%-6s %7s %9.2f %9.3f %9.2f %9.2f %9s\n' $b "$k" "$tb" "$tr" "$tl" \
        "$tj" "$rate"
    echo "$k $tb $tr $tl $tj $rate" >>"$tmp/fig"
    b=$((b + 1))
done
col() { awk -v c="$1" '{ print $c }' "$tmp/fig" | median; }
mb=$(col 2) mr=$(col 3) ml=$(col 4) mj=$(col 5) mrate=$(col 6)
echo "== medians over $blocks blocks of ~$((n / blocks)) traces (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "batch -j $jobs:        $mb s ($mrate traces/s)"
echo "rerun (all skipped): $mr s"
echo "shell loop:          $ml s ($(echo "scale=2; $ml / $mb" | bc)x the batch)"
echo "shell loop, $jobs at once: $mj s ($(echo "scale=2; $mj / $mb" | bc)x the batch)"

$FT batch merge -q "$tmp/all.db" "$tmp"/b[0-9]*.db
$FT batch report --store "$tmp/all.db" --json | head -1 >"$tmp/summary"
bytes=$(stat -c %s "$tmp/all.db")
python3 - "$tmp/all.db" "$bytes" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t, = c.execute("SELECT count(*) FROM traces").fetchone()
f, = c.execute("SELECT count(*) FROM findings").fetchone()
o, i = c.execute("SELECT count(*), sum(instances) FROM occurrences").fetchone()
w, = c.execute("SELECT coalesce(sum(length(witness)), 0) FROM occurrences").fetchone()
st = dict(c.execute("SELECT status, count(*) FROM traces GROUP BY status"))
ev, = c.execute("SELECT sum(events) FROM traces").fetchone()
b = int(sys.argv[2])
print("traces %d (%s), %d events" % (t, ", ".join("%d %s" % (v, k) for k, v in sorted(st.items())), ev))
print("distinct findings %d, occurrences %d (findings in traces), instances %d" % (f, o, i or 0))
print("store %d bytes: %.0f bytes per trace (witness text %.0f of them)" % (b, b / t, w / t))
PY
