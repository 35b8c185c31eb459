#!/bin/sh
# SPDX-License-Identifier: MIT
# batch_confirm.sh - replaying witnesses from a store: `batch confirm`
# replays one witness per finding against each trace's recorded command
# (the bugs of best_fig2 and vb_figures fail when replayed: abort, or
# best_fig2's lock-order deadlock that a witness's order may lead to
# after its violation), records the
# result on the finding and on the occurrence replayed, and leaves
# confirmed findings alone the next time; another build of the program
# is not run (findings stay unconfirmed); `batch analyze --confirm`
# confirms as it analyzes, the runs of PROG only; a merge keeps the best confirmation; reports
# show confirmed findings as errors.
name=batch_confirm
. "$(dirname "$0")/lib.sh"
# atomicity only: these bugs fail when replayed (batch_kinds.sh confirms
# the other kinds)
ATOM="--kinds atomicity"

mkdir t
rec t/fig2.ftrace 1 20000 "$FT_INST/best_fig2"
rec t/vb2.ftrace 1 3 "$FT_INST/vb_figures" 2
"$FT" batch analyze -q $ATOM --store s.db t
cp s.db before.db
nf=$($CHECK count s.db "SELECT count(*) FROM findings")
[ "$nf" -ge 2 ] || fail "$nf findings to confirm"

# another build: not run, nothing recorded
"$FT_BIN/foretell-cc" -O1 -o other "$FT_SRC/data/best_fig2.c" || fail "build"
"$FT" batch confirm --store s.db --tails 0 -- ./other 2>err.txt
[ $? = 0 ] || fail "nothing confirmed: exit 0 expected"
grep -q "not run: .*other is another build" err.txt || fail "message: $(cat err.txt)"
same before.db s.db "a run that ran nothing changed the store"
"$FT" batch confirm --store s.db -- ./nonexistent 2>err.txt
[ $? = 127 ] || fail "missing program: exit"

# the recorded commands: every finding replayed once and confirmed
"$FT" batch confirm --store s.db --tails 0 2>err.txt
[ $? = 1 ] || fail "confirmed findings: exit 1 expected: $(cat err.txt)"
grep -q "$nf findings replayed: $nf confirmed, 0 spurious, 0 not run" err.txt ||
    fail "summary: $(cat err.txt)"
[ "$($CHECK count s.db "SELECT count(*) FROM findings WHERE confirm_status = 'confirmed' AND confirm_failure IN ('abort', 'deadlock') AND confirm_trace IS NOT NULL")" = "$nf" ] ||
    fail "findings not recorded as confirmed"
[ "$($CHECK count s.db "SELECT count(*) FROM occurrences WHERE confirm_status IS NOT NULL")" = "$nf" ] ||
    fail "not one occurrence replayed per finding"
"$FT" batch confirm --store s.db 2>err.txt
[ $? = 0 ] || fail "nothing left: exit"
grep -q "0 findings replayed" err.txt || fail "confirmed findings replayed again"
"$FT" batch report --store s.db --sarif r.sarif
$CHECK sarif r.sarif "$HERE/sarif-schema-2.1.0.json" s.db || fail SARIF
[ "$(grep -o '"level":"error"' r.sarif | wc -l)" = "$nf" ] ||
    fail "confirmed findings are not errors in SARIF"

# a merge brings the confirmation to a store that has the findings
cp before.db m.db
"$FT" batch merge -q m.db s.db
[ "$($CHECK count m.db "SELECT count(*) FROM findings WHERE confirm_status = 'confirmed'")" = "$nf" ] ||
    fail "merge lost the confirmations"

# analyze --confirm: replayed while analyzing, its work directory removed
mkdir tmp
TMPDIR=$work/tmp "$FT" batch analyze -q $ATOM --store a.db --confirm --tails 0 \
    t/fig2.ftrace -- "$FT_INST/best_fig2"
[ $? = 1 ] || fail "analyze --confirm: exit"
n=$($CHECK count a.db "SELECT count(*) FROM findings")
[ "$($CHECK count a.db "SELECT count(*) FROM occurrences WHERE confirm_status IN ('confirmed', 'failed_early', 'refined')")" = "$n" ] ||
    fail "analyze --confirm did not confirm"
[ -z "$(ls tmp)" ] || fail "work directory left: $(ls tmp)"
# a run of another program is not replayed against PROG
"$FT" batch analyze -q $ATOM --store a2.db --confirm --tails 0 t \
    -- "$FT_INST/best_fig2"
[ $? = 1 ] || fail "analyze --confirm, two programs: exit"
[ "$($CHECK count a2.db "SELECT count(*) FROM occurrences o JOIN traces t ON t.hash = o.trace WHERE t.path LIKE '%vb2%' AND o.confirm_status IS NULL")" -gt 0 ] ||
    fail "the other program's findings were replayed against best_fig2"
$CHECK count a2.db "SELECT message FROM traces WHERE path LIKE '%vb2%'" |
    grep -q "is not the program this trace recorded" || fail "no message"

# Refinement as analyze's: every witness replayed before any refinement,
# each refinement within its share of --trace-time, and one that its
# share cut is "undecided", not "spurious" (config_swap replayed with
# CONFIG_SWAP_AUDIT diverges: confirm_cli.sh; FORETELL_TEST_REFINE_STALL
# stands in for a long re-analysis).  Before, the first refinement took
# the whole --trace-time and the others were stored as spurious.
mkdir cs
"$FT" record -o cs/cs.ftrace -- "$FT_INST/config_swap" >/dev/null 2>&1 ||
    fail "natural config_swap run failed"
s0=$(date +%s)
CONFIG_SWAP_AUDIT=1 FORETELL_TEST_REFINE_STALL=60 "$FT" batch analyze -q $ATOM \
    --store cs.db --confirm --refine 1 --tails 0 --trace-time 12 cs \
    -- "$FT_INST/config_swap"
took=$(($(date +%s) - s0))
[ $took -le 20 ] || fail "config_swap, refinements cut: took $took s under --trace-time 12"
nu=$($CHECK count cs.db "SELECT count(*) FROM occurrences WHERE confirm_status = 'undecided' AND confirm_detail LIKE '%ran out%'")
[ "$nu" -ge 2 ] || fail "config_swap: $nu refinements undecided: $($CHECK count cs.db "SELECT group_concat(confirm_status || ': ' || coalesce(confirm_detail, ''), ' | ') FROM occurrences")"
[ "$($CHECK count cs.db "SELECT count(*) FROM occurrences WHERE confirm_status = 'spurious'")" = 0 ] ||
    fail "config_swap: a refinement cut by the time stored as spurious"
exit 0
