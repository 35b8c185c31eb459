#!/bin/sh
# SPDX-License-Identifier: MIT
# confirm_cli.sh - analyze --confirm end to end on natural (passing) runs:
# best_fig2's predicted violations replay to its assertion at the BUG line
# s13; config_swap confirmed with an input its recording did not have
# departs from the schedules (spurious, with the step named) and one
# refinement round follows them (refined); another binary than the
# recorded one is named by its build id; usage and missing-program errors.
set -u
F=$FT_BIN/foretell
rm -rf "$FT_WORK" && mkdir -p "$FT_WORK" && cd "$FT_WORK" || exit 1
fail() { echo "FAIL(confirm): $*" >&2; exit 1; }
json() { python3 -c "import json,sys; d=json.load(open('$1')); $2"; }

"$F" record -o fig2.ft -- "$FT_INST/best_fig2" >/dev/null 2>&1 || fail "natural best_fig2 run failed"
"$F" analyze fig2.ft -o out-fig2 --json -q --confirm -- "$FT_INST/best_fig2" >fig2.json
rc=$?; [ $rc = 1 ] || fail "best_fig2: exit $rc, expected 1"
json fig2.json '
v = d["violations"]
assert d["confirmed"] >= 1, d["confirmed"]
ok = [x for x in v if x["confirmation"]["status"] == "confirmed"
      and x["confirmation"]["failure"] == "abort"
      and x["confirmation"]["failure_site"].endswith("best_fig2.c:71")]
assert ok, [x["confirmation"] for x in v]
import os
assert all(os.path.exists(x["confirmation"]["replay_trace"]) for x in v)
# globals are named by the data symbols the recorder kept, heap objects
# by their allocation site, never by addresses
named = lambda n: n in ("x", "y", "z") or (n.startswith("heap@") and
                                           n.endswith("best_fig2.c:40#1"))
assert all(x["variables"] and all(map(named, x["variables"]))
           for x in v), [x["variables"] for x in v]
' || fail "best_fig2: no violation confirmed with the abort at best_fig2.c:71, or variables not named"
"$F" analyze fig2.ft -o out-fig2t -q --confirm -- "$FT_INST/best_fig2" >fig2.txt 2>fig2.err
grep -q "build id" fig2.err && fail "the recorded binary's confirmation warned about its build id"
grep -q "confirmed; the run then failed: abort at .*best_fig2.c:71" fig2.txt || fail "text report lacks the confirmation"
# confirming against another binary than the recorded one: named first
"$F" analyze fig2.ft -o out-wrong -q --confirm -- "$FT_INST/counter_rmw" >wrong.txt 2>wrong.err
grep -q "warning: .*counter_rmw has build id .*, but fig2.ft was recorded from .*best_fig2 with build id" wrong.err ||
    fail "--confirm against another binary: no build id warning ($(head -2 wrong.err))"
grep -q "confirmation: [1-9][0-9]* of [0-9]* predicted violations confirmed, [1-9][0-9]* of them fail the program" fig2.txt || fail "text summary"
grep -Eq "^  variables: [xyz]( [xyz])*$" fig2.txt || fail "text report: variables not named ($(grep variables: fig2.txt | head -1))"
"$F" stats fig2.ft >stats.txt
grep -Eq "^  0x[0-9a-f]+ +[0-9]+ accesses  z$" stats.txt || fail "stats: shared variable z not listed by name"
"$F" stats fig2.ft --json >stats.json
json stats.json '
names = {v["name"] for v in d["shared_variables"]}
assert {"x", "y", "z"} <= names, names
assert any(n and n.startswith("heap@") and n.endswith("best_fig2.c:40#1") for n in names), names
' || fail "stats --json: shared variables not named"
"$F" analyze fig2.ft --regions >regions.txt
grep -q "thread_ma .* vars .*heap@.*best_fig2.c:40#1" regions.txt || fail "--regions: heap object not named by its allocation site ($(cat regions.txt))"
"$F" dump fig2.ft | grep -q "addr=0x[0-9a-f]*\[x\] size=8" || fail "dump: the global x is not named"

# vb_figures 4 (variable-bounding paper fig. 4): the predicted CA violation
# of the checker happens but, with the writer stopped where the witness
# leaves it, the assertion holds; a random tail after the (trimmed)
# schedule lets the writer set b first and the assertion fails.  The
# failing run is saved as a schedule that replays the abort.
"$F" record -o fig4.ft -- "$FT_INST/vb_figures" 4 >/dev/null 2>&1 || fail "natural vb_figures 4 run failed"
"$F" analyze fig4.ft -o out-fig4 --json -q --confirm -- "$FT_INST/vb_figures" 4 >fig4.json
rc=$?; [ $rc = 1 ] || fail "vb_figures 4: exit $rc, expected 1"
json fig4.json '
v = [x["confirmation"] for x in d["violations"]]
t = [c for c in v if c["status"] == "confirmed" and c["failure"] == "abort"
     and c["tail"] and c["failing_schedule"]]
assert t, v
open("fig4.failing", "w").write(t[0]["failing_schedule"])
' || fail "vb_figures 4: no violation led to the abort with a random tail"
"$F" replay --schedule "$(cat fig4.failing)" -o fig4r.ft -- "$FT_INST/vb_figures" 4 >/dev/null 2>err.txt
rc=$?; [ $rc = 1 ] && grep -q "error: abort" err.txt || fail "failing schedule does not replay the abort (exit $rc)"
"$F" analyze fig4.ft -o out-fig4b -q --confirm --tails 0 -- "$FT_INST/vb_figures" 4 >fig4b.txt
grep -q "confirmed; the run then finished without failure" fig4b.txt || fail "--tails 0 still tried tails"
"$F" analyze fig4.ft -o o5 --no-confirm --tails 3 >/dev/null 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q "tails only applies when findings are replayed" err.txt || fail "--tails with --no-confirm: exit $rc"

# config_swap recorded without CONFIG_SWAP_AUDIT and confirmed with it: the
# replayed program does an access (the audit count) the recorded run never
# made, so schedules diverge; refinement re-records the diverged run,
# predicts the same regions' violation on it and follows that.
"$F" record -o cs.ft -- "$FT_INST/config_swap" >/dev/null 2>&1 || fail "natural config_swap run failed"
CONFIG_SWAP_AUDIT=1 "$F" analyze cs.ft -o out-cs --json -q --confirm --refine 1 -- "$FT_INST/config_swap" >cs.json
rc=$?; [ $rc = 1 ] || fail "config_swap: exit $rc, expected 1"
json cs.json '
v = d["violations"]
sp = [x["confirmation"] for x in v if x["confirmation"]["status"] in ("spurious", "refined")]
assert sp, [x["confirmation"]["status"] for x in v]
assert all(c["refinement_rounds"] == 1 for c in sp), sp
assert all("step" in c["divergence"] for c in sp), sp
assert any(c["status"] == "refined" for c in sp), sp
assert d["confirmed"] == sum(x["confirmation"]["status"] in ("confirmed", "refined") for x in v)
' || fail "config_swap: no divergence found and refined"
# Every witness is replayed once before any refinement: a refinement
# re-analyzes a run and can take the time that is left (SV-COMP gcd-2:
# its 6 order and race witnesses were never replayed).
nk=0
for k in out-cs/order-*.replay.ftrace out-cs/data-race-*.replay.ftrace; do
    [ -e "$k" ] || continue
    nk=$((nk + 1))
    for r in out-cs/*.refine-1; do
        [ "$r" -nt "$k" ] || fail "config_swap: $r refined before $k was replayed"
    done
done
[ $nk -gt 0 ] || fail "config_swap: no order or race finding replayed"
# Each refinement gets its share of what is left of --time: with every
# re-analysis slower than the time (FORETELL_TEST_REFINE_STALL stands
# in for a long diverged run), each of the spurious witnesses still has
# its refinement begun, and the command ends at --time, undecided (5).
# Without the shares the first took all the time and the others had
# none (SV-COMP gcd-2).
s0=$(date +%s)
CONFIG_SWAP_AUDIT=1 FORETELL_TEST_REFINE_STALL=60 "$F" analyze cs.ft -o out-cs4 -q --confirm --refine 1 --time 12 -- "$FT_INST/config_swap" >cs4.txt
rc=$?; took=$(($(date +%s) - s0))
[ $rc = 5 ] || fail "config_swap, refinements cut: exit $rc, expected 5"
[ $took -le 20 ] || fail "config_swap, refinements cut: took $took s under --time 12"
grep -q "undecided by --time: 0 witnesses not replayed, [2-9] diverged witnesses not refined" cs4.txt ||
    fail "config_swap, refinements cut: the summary does not say so: $(tail -1 cs4.txt)"
json out-cs4/report.json '
v = [x["confirmation"] for x in d["violations"]]
sp = [c for c in v if c["status"] == "spurious"]
assert len(sp) >= 2, v
assert all(c["refinement_cut"] for c in sp), sp
assert sum("its share of the analysis" in c["refinement"] for c in sp) >= len(sp) - 1, sp
' || fail "config_swap: refinements not cut at their shares"
for x in out-cs/*.refine-1; do
    [ -d "out-cs4/$(basename "$x")" ] || fail "config_swap: $(basename "$x") not begun within --time 12"
done

# Without PROG, the program the trace recorded is replayed when it is the
# same build (by default, and with --confirm); not when it is gone or
# rebuilt: then the findings are predicted, unconfirmed, and --confirm
# alone is an error naming why.
"$F" analyze fig2.ft -o o2 --json -q >o2.json; rc=$?
[ $rc = 1 ] || fail "default confirmation: exit $rc"
json o2.json 'assert d["confirmed"] >= 1 and d["unconfirmed"] is None, d["confirmed"]' ||
    fail "the recorded program was not replayed by default"
"$F" analyze fig2.ft -o o2b --json -q --no-confirm >o2b.json; rc=$?
[ $rc = 1 ] || fail "--no-confirm: exit $rc"
json o2b.json 'assert "confirmed" not in d and d["unconfirmed"] == "--no-confirm", d.get("unconfirmed")' ||
    fail "--no-confirm still replayed"
mkdir -p gone && cp "$FT_INST/best_fig2" gone/best_fig2 || fail "cannot copy best_fig2"
"$F" record -o gone.ft -- gone/best_fig2 >/dev/null 2>&1 || fail "natural run of the copy failed"
cp "$FT_INST/counter_rmw" gone/best_fig2 # rebuilt: another build id
"$F" analyze gone.ft -o o2c -q >o2c.txt; rc=$?
[ $rc = 1 ] && grep -q "predicted, unconfirmed\|not the build the trace recorded" o2c.txt ||
    grep -q "warning: atomicity violation predicted" o2c.txt || fail "rebuilt program: exit $rc"
grep -q "confirmation:" o2c.txt && fail "a rebuilt program was replayed"
rm -f gone/best_fig2
"$F" analyze gone.ft -o o2d --confirm >/dev/null 2>err.txt; rc=$?
[ $rc = 127 ] && grep -q "is not here" err.txt || fail "--confirm with the recorded program gone: exit $rc ($(cat err.txt))"
"$F" analyze fig2.ft -o o3 -- "$FT_INST/best_fig2" >/dev/null 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q "needs --confirm" err.txt || fail "PROG without --confirm: exit $rc"
"$F" analyze fig2.ft -o o4 -q --confirm -- ./no-such-program >/dev/null 2>err.txt; rc=$?
[ $rc = 127 ] && grep -q "no-such-program" err.txt || fail "missing program: exit $rc ($(cat err.txt))"
# one finding per static bug: counter_rmw's worker loop gives many
# properties on one region pair; with every instance solved they print
# as one group with its count, failing ones first, the others named
"$F" record -o rmw.ft -- "$FT_INST/counter_rmw" >/dev/null 2>&1 || fail "record counter_rmw"
"$F" analyze rmw.ft -o o-rmw -q --every-instance >rmw.txt 2>&1
# by default the instances after a static property's first violation
# are left unsolved, and counted
"$F" analyze rmw.ft -o o-rmw1 -q --no-confirm >rmw1.txt 2>&1
n1=$(sed -n 's/.* properties ([0-9]* CA, [0-9]* CMA): \([0-9]*\) violated.*/\1/p' rmw1.txt)
nc=$(sed -n 's/.*, \([0-9]*\) more instances of violated static properties not solved (--every-instance).*/\1/p' rmw1.txt)
nv=$(sed -n 's/.* properties ([0-9]* CA, [0-9]* CMA): \([0-9]*\) violated.*/\1/p' rmw.txt)
nh=$(grep -c ": atomicity violation" rmw.txt)
[ -n "$nv" ] && [ "$nv" -gt 2 ] && [ "$nh" -lt "$nv" ] ||
    fail "counter_rmw: $nh atomicity findings for $nv violated properties: not grouped"
[ -n "$n1" ] && [ -n "$nc" ] && [ "$n1" -ge 1 ] && [ "$nc" -gt 0 ] &&
    [ "$n1" -lt "$nv" ] ||
    fail "counter_rmw: $n1 violated and $nc covered by default, $nv with every instance: $(tail -1 rmw1.txt)"
grep -q "^/.*counter_rmw.c:[0-9]*: error: atomicity violation confirmed by replay: abort at .*(CMA property #[0-9]*, [0-9]* instances)$" rmw.txt ||
    fail "counter_rmw: no grouped, failing CMA finding: $(grep ': atomicity' rmw.txt)"
grep -q "^  other instances: property #[0-9]* (o-rmw/cma-[0-9]*.schedule).*; [0-9]* of the [0-9]* replays fail the program$" rmw.txt ||
    fail "counter_rmw: the other instances are not named"
first=$(grep -m1 ": atomicity violation" rmw.txt)
case "$first" in *": error: "*) ;; *) fail "a failing finding is not first: $first" ;; esac
grep -q "^confirmation: $nv of $nv predicted violations confirmed, [0-9]* of them fail the program$" rmw.txt ||
    fail "counter_rmw: no confirmation summary"
echo "confirm_cli: ok"
