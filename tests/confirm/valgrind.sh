#!/bin/sh
# SPDX-License-Identifier: MIT
# valgrind.sh - programs not built with foretell-cc, recorded under
# Valgrind with foretell's tool (recorder/valgrind/, recorder/vgimport.c;
# `record --backend valgrind`, and auto for a threaded program):
#  1. on data/ programs built with plain cc, the trace gives the same
#     findings (kind and sites) as the foretell-cc build's trace of the
#     same interleaving: `replay --trace` of the Valgrind run on the
#     foretell-cc build, its switches mapped onto that build's events
#     (up to 5 tries for a passing run): every configuration of data/ at
#     -O0, twelve at -O1;
#  2. a locked read-modify-write is one atomic event, the atomic
#     variable's plain loads are atomic loads, and a plain counter's race
#     is reported; function entries and exits pair; record says which backend it used; no raw file stays;
#     on a stripped program each access site shows its instruction;
#  3. analyze reports the trace's findings unconfirmed and says why and
#     how to confirm them, which works (best_fig2's run replayed on the
#     foretell-cc build, analyzed: its bug confirmed);
#  4. a deadlocked run ends as the runtime ends one (exit 86, BLOCKED and
#     DEADLOCK events) instead of hanging; --timeout ends a sleeping one;
#     a fork's child writes nothing into the trace;
#  5. bad uses: the tool not found, --backend valgrind for replay.
NAME=valgrind
. "$(dirname "$0")/lib.sh"
command -v valgrind >/dev/null 2>&1 &&
    [ -f "$FT_BIN/../lib/foretell-valgrind/foretell-amd64-linux" ] || {
    echo "SKIP(valgrind): valgrind or foretell's Valgrind tool is not installed"
    exit 77
}
CC=${CC:-cc}
D=$(cd "$P/../../../data" && pwd)

# 1. the same findings from both recorders
keys() { # JSON -> the findings as a set: kind and sites, one per line
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = {(v["kind"], str(sorted((r["begin"], r["end"]) for r in v["regions"])))
     for v in d["violations"]}
k |= {(f["kind"], str(sorted(f["sites"]))) for f in d["findings"]}
for kind, sites in sorted(k):
    print(kind, sites)
PY
}
same() { # name source [args]; both builds at ${OPT:--O1}
    name=$1 src=$2 opt=${OPT:--O1}
    shift 2
    case $src in
    *.cpp)
        "${CXX:-c++}" -g "$opt" -pthread -o "$name" "$D/$src" ||
            { fail "c++ cannot build $src"; return; }
        "$FT_BIN/foretell-c++" -g "$opt" -o "${name}_ft" "$D/$src" ||
            { fail "foretell-c++ cannot build $src"; return; } ;;
    *)
        "$CC" -g "$opt" -pthread -o "$name" "$D/$src" ||
            { fail "cc cannot build $src"; return; }
        build "${name}_ft" "$D/$src" "$opt" ;;
    esac
    : >"$name.vg.keys"
    : >"$name.ft.keys"
    recorded=
    for try in 1 2 3 4 5; do
        # a run in which the bug happened is another run: record again
        # (up to 3 times a try: Valgrind's thread order is the kernel's,
        # and missed_signal's consumer waits first in most runs only)
        for vtry in 1 2 3; do
            "$F" record --backend valgrind --timeout 60 -o "$name.vg" -- "./$name" "$@" >/dev/null 2>"$name.vg.err" &&
                break
        done || continue
        # the foretell-cc build replays that run: its switches mapped onto
        # this build's events (replay/build_map.c), so both traces are one
        # interleaving
        "$F" replay -q --timeout 60 --trace "$name.vg" -o "$name.ft" -- "./${name}_ft" "$@" >/dev/null 2>"$name.rp.err" ||
            { echo "$name: the mapped replay: $(tail -3 "$name.rp.err")"; continue; }
        grep -q "switches mapped" "$name.rp.err" ||
            { fail "$name: the replay did not map the run: $(cat "$name.rp.err")"; return; }
        recorded=1
        "$F" analyze --no-confirm --json -q -o "out-$name-vg" "$name.vg" >"$name.vg.json" 2>/dev/null
        "$F" analyze --no-confirm --json -q -o "out-$name-ft" "$name.ft" >"$name.ft.json" 2>/dev/null
        keys "$name.vg.json" >"$name.vg.keys" && keys "$name.ft.json" >"$name.ft.keys" &&
            { [ -s "$name.ft.keys" ] || [ -n "$EMPTY_OK" ]; } &&
            cmp -s "$name.vg.keys" "$name.ft.keys" && return
    done
    if [ -z "$recorded" ]; then
        fail "$name: no passing run of both builds in 5: $(tail -2 "$name.vg.err")"
    else
        fail "$name: findings differ: Valgrind: $(cat "$name.vg.keys"); foretell-cc: $(cat "$name.ft.keys")"
    fi
}
# every configuration of data/ at -O0, where gcc leaves each access where
# its line is in both builds (but those that fail by design: no passing
# run to compare)
# (a correct program, kind "none", may give no finding from either)
for row in $(awk -F'\t' '!/^#/ && $8 != "always-fails" {
        print $1 ":" $4 ":" $2 ":" ($6 == "-" ? "" : $6) }' "$D/examples.tsv"); do
    name=${row%%:*} rest=${row#*:}
    kind=${rest%%:*} rest=${rest#*:}
    OPT=-O0 EMPTY_OK=
    [ "$kind" = none ] && EMPTY_OK=1
    same "o0_$name" "${rest%%:*}" ${rest#*:}
done
OPT= EMPTY_OK=
# and at -O1 those where it orders both builds' accesses alike (in
# alloc_vector, double_free and best_fig2 the instrumented build's loads
# or stores come in another order: docs/benchmarks.md)
same counter_rmw counter_rmw.c
same account account.cpp
same data_race data_race.c
same philosophers philosophers.c
same missed_signal missed_signal.c
same pair_update pair_update.c
same uaf_handoff uaf_handoff.c
same period_once_npd period_once.c
same correct_atomics correct_atomics.c
same reorder_4 reorder.c 4
same vb_fig8 vb_figures.c 8
same vb_fig10 vb_figures.c 10
# (for the deadlock below)
"$CC" -g -O1 -pthread -o abba_deadlock "$D/abba_deadlock.c" ||
    { fail "cc cannot build abba_deadlock.c"; exit 1; }

# 2. what the tool records
"$CC" -g -O1 -pthread -o vga "$P/vg_atomic.c" || { fail "cc cannot build vg_atomic.c"; exit 1; }
"$F" record -o vga.ft -- ./vga >/dev/null 2>vga.err
rc=$?
[ $rc = 0 ] || fail "record vga: exit $rc: $(cat vga.err)"
grep -q "not built with foretell-cc: recording it under Valgrind" vga.err ||
    fail "record did not say which backend: $(cat vga.err)"
ls ./*.vgraw .*.vgraw 2>/dev/null | grep -q . && fail "a raw file was left behind: $(ls -a)"
"$F" dump vga.ft >vga.dump
grep -q "atomic_cas .*\[hits\].*vg_atomic.c:18" vga.dump || fail "no atomic_cas at line 18: $(head -20 vga.dump)"
grep -q " read .*vg_atomic.c:18" vga.dump && fail "the locked instruction also gave a plain read"
grep -q "atomic_load .*\[hits\].*vg_atomic.c:19" vga.dump || fail "the atomic load was not one: $(head -20 vga.dump)"
grep -q " write .*\[plain\].*vg_atomic.c:20" vga.dump || fail "the plain counter's write is missing"
grep -q "thread_create .*vg_atomic.c:28" vga.dump || fail "no thread_create at its call"
# function entries and exits, as a foretell-cc build has them: main and
# each worker entered from libc, each left once
[ "$(grep -c "func_entry .*call_site=libc.*vg_atomic.c:15 (worker)" vga.dump)" = 2 ] ||
    fail "not 2 worker entries: $(grep func_ vga.dump | head -5)"
grep -q "func_entry .*call_site=libc.*(main)" vga.dump || fail "no entry of main"
[ "$(grep -c " func_entry " vga.dump)" = "$(grep -c " func_exit" vga.dump)" ] ||
    fail "entries and exits do not pair: $(grep func_ vga.dump | head -8)"
"$F" analyze --no-confirm --json -q -o out-vga vga.ft >vga.json 2>/dev/null
python3 - vga.json <<'PY' || fail "vga findings: $(head -c 900 vga.json)"
import json, sys
f = json.load(open(sys.argv[1]))["findings"]
races = [x for x in f if x["kind"] == "data-race"]
assert races and all(x["sites"][0].endswith("vg_atomic.c:20") for x in races), races
PY
# a stripped program: each access site shows its own instruction (the
# one that ends at the site), decoded with capstone
cp vga vga_s && strip vga_s
"$F" record -o vgs.ft -- ./vga_s >/dev/null 2>&1 || fail "record of a stripped program"
"$F" analyze --no-confirm -q -o out-vgs vgs.ft >vgs.out 2>&1
grep -q "vga_s+0x[0-9a-f]* | [a-z].*ptr \[rip" vgs.out ||
    fail "stripped: no access instruction at the race's site: $(head -8 vgs.out)"

# 3. analyze, replays by default: not possible, said once
"$F" analyze -o out-a reorder_4.vg >a.out 2>a.err
rc=$?
[ $rc = 1 ] || fail "analyze of a Valgrind trace: exit $rc, expected 1: $(tail -3 a.err)"
grep -q "recorded under Valgrind): its replays control synchronisation only" a.err ||
    fail "analyze did not say why it does not replay: $(head -3 a.err)"
grep -q "predicted, unconfirmed (recorded under Valgrind)" a.out ||
    fail "findings not reported unconfirmed: $(head -5 a.out)"
grep -q "replay this run there with .foretell replay --trace reorder_4.vg" a.err ||
    fail "analyze did not say how to confirm: $(head -3 a.err)"
# ... and what it says works: the run replayed on the foretell-cc build,
# whose analysis confirms best_fig2's bug (-O0: both builds alike)
"$F" replay -q --trace o0_best_fig2.vg -o bf_run.ft -- ./o0_best_fig2_ft >/dev/null 2>bf_run.err ||
    fail "the Valgrind run's replay on the foretell-cc build: $(tail -2 bf_run.err)"
"$F" analyze -q -o out-bf bf_run.ft >bf_run.out 2>&1
rc=$?
[ $rc = 1 ] && grep -q "atomicity violation confirmed by replay: abort at .*best_fig2.c:71" bf_run.out ||
    fail "its analysis: exit $rc, no confirmed violation: $(head -5 bf_run.out)"
# --confirm against that build directly: told the way that works
"$F" analyze -q --confirm --time 60 -o out-bfc o0_best_fig2.vg -- ./o0_best_fig2_ft >/dev/null 2>bfc.err
grep -q "note: to confirm on that build, replay this run there first (.foretell replay --trace o0_best_fig2.vg" bfc.err ||
    fail "analyze --confirm with another build did not say how: $(grep -v '^  ' bfc.err | head -3)"

# 4. a deadlock ends the run; a timeout too
"$F" record -o dl.ft -- ./abba_deadlock force >/dev/null 2>dl.err
rc=$?
[ $rc = 86 ] || fail "deadlocked run: exit $rc, expected 86: $(cat dl.err)"
grep -q "deadlock: no thread can run" dl.err || fail "deadlock not said: $(cat dl.err)"
"$F" dump dl.ft >dl.dump
[ "$(grep -c " blocked " dl.dump)" = 3 ] || fail "not 3 BLOCKED events: $(tail -5 dl.dump)"
tail -1 dl.dump | grep -q "deadlock" || fail "the trace does not end in DEADLOCK: $(tail -3 dl.dump)"
# ... also when the last thing before it is a thread's exit
"$CC" -g -O1 -pthread -o late "$P/vg_late_exit.c" || { fail "cc cannot build vg_late_exit.c"; exit 1; }
"$F" record --timeout 60 -o late.ft -- ./late >/dev/null 2>late.err
rc=$?
[ $rc = 86 ] || fail "deadlock after an exit: exit $rc, expected 86: $(cat late.err)"
[ "$("$F" dump late.ft | grep -c " blocked ")" = 2 ] || fail "deadlock after an exit: not 2 BLOCKED events"
"$F" record --backend valgrind --timeout 1 -o sl.ft -- sleep 30 >/dev/null 2>sl.err
rc=$?
[ $rc = 143 ] || fail "--timeout 1: exit $rc, expected 143: $(cat sl.err)"
grep -q "timeout" sl.err || fail "--timeout not said: $(cat sl.err)"

# a fork's child runs on under the tool: it writes nothing of its own
"$CC" -g -O1 -pthread -o vgf "$P/vg_fork.c" || { fail "cc cannot build vg_fork.c"; exit 1; }
"$F" record -o vgf.ft -- ./vgf >/dev/null 2>vgf.err || fail "record vg_fork: $(cat vgf.err)"
"$F" check vgf.ft >/dev/null 2>vgf.chk || fail "vg_fork's trace: $(cat vgf.chk)"
[ "$("$F" dump vgf.ft | grep -c "shared.*vg_fork.c:2[67]")" = 0 ] ||
    fail "the fork child's writes are in the trace: $("$F" dump vgf.ft | tail -5)"
grep -q "2 threads, exit 0" vgf.err || fail "vg_fork: $(cat vgf.err)"

# 5. bad uses
FORETELL_VALGRIND_LIB=/nonexistent "$F" record --backend valgrind -o x.ft -- ./vga >/dev/null 2>b1.err
rc=$?
[ $rc = 2 ] || fail "tool not found: exit $rc, expected 2"
grep -q "foretell's Valgrind tool .* was not found" b1.err || fail "tool not found: $(cat b1.err)"
[ -e x.ft ] && fail "a trace was written without the tool"
FORETELL_VALGRIND_LIB=/nonexistent "$F" record -o y.ft -- ./vga >/dev/null 2>b2.err
rc=$?
[ $rc = 0 ] || fail "auto without the tool: exit $rc, expected 0 (the LD_PRELOAD runtime)"
grep -q "recording synchronisation only" b2.err || fail "auto without the tool: $(cat b2.err)"
"$F" replay --backend valgrind --schedule /dev/null -- ./vga >/dev/null 2>b3.err
rc=$?
[ $rc = 2 ] || fail "replay --backend valgrind: exit $rc, expected 2"
grep -q "records only" b3.err || fail "replay --backend valgrind: $(cat b3.err)"

[ $fails = 0 ] && echo "valgrind: ok"
exit $fails
