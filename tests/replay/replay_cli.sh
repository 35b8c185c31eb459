#!/bin/bash
# SPDX-License-Identifier: MIT
# replay_cli.sh - `foretell replay` end to end: a recorded watchdog steal
# replayed at the same point; a binary other than the recorded one named
# by its build id; (c) hand-edited schedules
# that cannot be followed (exit 3, the message names step, thread, index,
# expected and found), (d) bad input (missing or malformed schedule, both
# or neither of --schedule/--trace, missing program, a hanging program
# under --timeout and --max-steps), (e) the heap oracles on uaf_handoff,
# double_free and period_once (NPD, UAF, DF) through saved schedules, each
# replayed three times to the same failure and both sites.
# Also: predicted schedules (foretell analyze) of counter_rmw and best_fig2
# replayed to their assertion failures.
# (f) a run of one build replayed on another (--trace, mapped).
# Usage: replay_cli.sh BIN_DIR INST_DIR FIXTURE_DIR WORK
#        [cli|oracles|predicted|mapped|all]
set -u
BIN=$1 INST=$2 FIX=$3 WORK=$4 PART=${5:-all}
F=$BIN/foretell
mkdir -p "$WORK" && cd "$WORK" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# expect CODE PATTERN CMD...: exit status CODE and stderr+stdout matching PATTERN.
expect() {
    local code=$1 pat=$2; shift 2
    "$@" > out.txt 2>&1
    local rc=$?
    if [ $rc -ne "$code" ]; then fail "'$*' exited $rc, expected $code: $(tail -3 out.txt | tr '\n' ' ')"; return 1; fi
    if ! grep -Eq -- "$pat" out.txt; then fail "'$*': no /$pat/ in: $(head -5 out.txt | tr '\n' ' ')"; return 1; fi
    echo "ok: $* -> $rc"
}
ARCH=$(uname -m)
record() { # record OUT SEED QUANTUM PROG... (raw trace, no symbols: fast)
    local out=$1 seed=$2 q=$3; shift 3
    FORETELL_TRACE=$out FORETELL_HEAP_CHECK=1 FORETELL_SEED=$seed FORETELL_QUANTUM=$q \
        timeout 20 setarch "$ARCH" -R "$@" >/dev/null 2>&1
}

if [ "$PART" = cli ] || [ "$PART" = all ]; then
# ---- (c) divergence ----
PC=$INST/prodcons_sem
record pc.ft 5 1 "$PC"
expect 0 "finished" "$F" replay --trace pc.ft -o pc_rep.ft --save-schedule pc.sched -q -- "$PC"
[ -s pc.sched ] || fail "--save-schedule wrote no pc.sched"
grep -q "build id" out.txt && fail "the recorded binary's replay warned about its build id"
# Another binary than the one recorded is named before it diverges: by the
# trace's build id (a copy of the right one is fine), with --trace and
# through a schedule's trace: line.
cp "$PC" pc_copy
expect 0 "finished" "$F" replay --trace pc.ft -o pc_copy.ft -q -- ./pc_copy
grep -q "build id" out.txt && fail "a copy of the recorded binary warned about its build id"
expect 3 "warning: .*counter_rmw has build id [0-9a-f]+, but pc.ft was recorded from .*prodcons_sem with build id" \
    "$F" replay --trace pc.ft -o wrong.ft -q -- "$INST/counter_rmw"
expect 3 "warning: .*counter_rmw has build id .*, but pc_rep.ft was recorded from" \
    "$F" replay --schedule pc.sched -o wrong2.ft -q -- "$INST/counter_rmw"
# A step naming a thread the program never creates: the runtime stops.
awk 'NR==12 {$1 = 9} {print}' pc.sched > absent.sched
expect 3 "step 4: thread 9 .*never created" "$F" replay --schedule absent.sched -o d1.ft -q -- "$PC"
expect 0 "diverge" "$F" dump d1.ft -k diverge
# A step whose event has another kind: found from the replayed trace.
awk 'NR==14 {$3 = "fence"} {print}' pc.sched > kind.sched
line14=$(sed -n 14p pc.sched)
expect 3 "step 6 \(schedule line 14\): thread $(echo "$line14" | cut -d' ' -f1) event $(echo "$line14" | cut -d' ' -f2): expected fence at .*, found $(echo "$line14" | cut -d' ' -f3) at" \
    "$F" replay --schedule kind.sched -o d2.ft -q -- "$PC"
# --on-divergence continue: the run goes on under the default policy.
expect 3 "never created" "$F" replay --schedule absent.sched --on-divergence continue -o d3.ft -q -- "$PC"
expect 0 "thread_exit" "$F" dump d3.ft -k thread_exit

# A join step whose child has no step left (a predicted schedule lists
# the model's transitions, not a thread's exit): the child runs to its
# end and the join follows.  The child's exit step before the first join
# is dropped.
awk '/ thread_join / && !j {j = NR} {l[NR] = $0} / thread_exit / && !j {x = NR}
     END {for (i = 1; i <= NR; i++) { if (i == x) continue;
          if (l[i] ~ /^steps: /) { split(l[i], f, " "); print "steps: " f[2] - 1 }
          else print l[i] }}' pc.sched > noexit.sched
[ "$(grep -c ' thread_exit ' noexit.sched)" -lt "$(grep -c ' thread_exit ' pc.sched)" ] ||
    fail "noexit.sched: no exit step dropped"
expect 0 "finished .*steps followed ([0-9]+)/\1" "$F" replay --schedule noexit.sched -o d4.ft -q -- "$PC"

# ---- watchdog steals are part of the schedule ----
FORETELL_WATCHDOG_MS=50 setarch "$ARCH" -R "$F" record -o steal.ft -- "$FIX/pipe_steal" >/dev/null 2>&1
expect 0 "steal +from=0" "$F" dump steal.ft -k steal
expect 0 "finished .*steps followed ([0-9]+)/\1" "$F" replay --trace steal.ft -o steal_rep.ft -q -- "$FIX/pipe_steal"
expect 0 "steal +from=0" "$F" dump steal_rep.ft -k steal
expect 0 "^same" "$BIN/replay_same" steal.ft steal_rep.ft

# ---- (d) bad input ----
expect 2 "nope.sched: error: cannot read schedule" "$F" replay --schedule nope.sched -- "$PC"
head -9 pc.sched > trunc.sched
expect 2 "trunc.sched:10: missing 'end'" "$F" replay --schedule trunc.sched -- "$PC"
sed '11s/.*/1 x read - a.c:1/' pc.sched > bad.sched
expect 2 "bad.sched:11: step: bad thread event index" "$F" replay --schedule bad.sched -- "$PC"
expect 2 "exactly one of --schedule and --trace" "$F" replay --schedule pc.sched --trace pc.ft -- "$PC"
expect 2 "exactly one of" "$F" replay -- "$PC"
expect 2 "no program" "$F" replay --schedule pc.sched
expect 2 "on-divergence: expected stop or continue" "$F" replay --schedule pc.sched --on-divergence maybe -- "$PC"
expect 127 "no-such-program: program not found" "$F" replay --schedule pc.sched -- ./no-such-program
expect 2 "not built with foretell-cc" "$F" replay --schedule pc.sched -o t.ft -- /bin/true
printf 'garbage' > junk.ft
expect 2 "junk.ft: error" "$F" replay --trace junk.ft -- "$PC"
# A program that never ends: stopped by time, or by key points.
echo 'foretell-schedule 1
kind: CA
steps: 0
end' > empty.sched
expect 1 "error: hang: the run did not end within the time limit" "$F" replay --schedule empty.sched --timeout 1 -o h1.ft -q -- "$FIX/spin"
expect 1 "error: hang: the run reached its bound on key points" "$F" replay --schedule empty.sched --max-steps 100000 -o h2.ft -q -- "$FIX/spin"

fi

# ---- (e) heap oracles ----
# find_failure NAME WHAT SEED:QUANTUM...: the first whose recording of
# ${PROG[@]} hits the oracle (HEAP_ERROR what=WHAT); its schedule is saved
# as NAME.sched.
find_failure() {
    local name=$1 what=$2; shift 2
    for sq in "$@"; do
        local s=${sq%:*} q=${sq#*:}
        record "$name.ft" "$s" "$q" "${PROG[@]}"
        if "$F" dump "$name.ft" -k heap_error 2>/dev/null | grep -q "what=$what"; then
            "$F" replay --trace "$name.ft" -o "$name.rep.ft" --save-schedule "$name.sched" -q -- "${PROG[@]}" >/dev/null 2>&1
            echo "  $name: seed $s quantum $q"
            return 0
        fi
    done
    fail "$name: no seed made the oracle report what=$what"
    return 1
}
seeds() { for q in 1 2 3; do for s in $(seq 1 15); do echo "$s:$q"; done; done; }
# oracle NAME WHAT FAILURE ACCESS_LINE FREE_LINE PROG...
oracle() {
    local name=$1 what=$2 failure=$3 access=$4 free=$5; shift 5
    PROG=("$@")
    find_failure "$name" "$what" $PREFER $(seeds) || return
    for i in 1 2 3; do
        expect 1 "$access: error: $failure: .*${free:+freed at .*$free}" \
            "$F" replay --schedule "$name.sched" -o "$name.$i.ft" -q -- "${PROG[@]}" || return
        if [ -n "$free" ] && ! grep -Eq "$free: note: the block was freed here" out.txt; then
            fail "$name: no free site note"; return
        fi
    done
}
if [ "$PART" = oracles ] || [ "$PART" = all ]; then
PREFER="1:1 2:1" oracle uaf 1 use-after-free uaf_handoff.c:[0-9]+ uaf_handoff.c:[0-9]+ "$INST/uaf_handoff"
PREFER="2:1" oracle df 2 double-free double_free.c:[0-9]+ double_free.c:[0-9]+ "$INST/double_free"
PREFER="3:1" oracle po_uaf 1 use-after-free period_once.c:3[0-9] period_once.c:42 "$INST/period_once"
PREFER="12:2" oracle po_df 2 double-free period_once.c:42 period_once.c:42 "$INST/period_once"
PREFER="11:2" oracle po_npd 3 null-deref period_once.c:3[0-9] "" "$INST/period_once"
fi

# ---- predicted schedules confirm the bug ----
# A natural (passing) run, `foretell analyze` predicts a violation, and
# replaying its schedule makes the program fail at its assertion.
if [ "$PART" = predicted ] || [ "$PART" = all ]; then
for row in counter_rmw:counter_rmw.c:45 best_fig2:best_fig2.c:71; do
    prog=${row%%:*} site=${row#*:}
    setarch "$ARCH" -R "$F" record -o "nat_$prog.ft" -- "$INST/$prog" >/dev/null 2>&1 ||
        { fail "$prog: natural run failed"; continue; }
    rm -rf "pred_$prog"
    "$F" analyze -q --stop-after 1 -o "pred_$prog" "nat_$prog.ft" >/dev/null 2>&1
    sched=$(ls "pred_$prog"/*.schedule 2>/dev/null | head -1)
    [ -n "$sched" ] || { fail "$prog: analyze predicted no schedule"; continue; }
    expect 1 "$site: error: abort: " \
        "$F" replay --schedule "$sched" -o "pred_$prog.ft" -q -- "$INST/$prog" &&
    { grep -Eq 'steps followed ([0-9]+)/\1$' out.txt || fail "$prog: schedule not followed"; }
done
fi

# ---- another build: a -O1 run's switches replayed on a -O0 build ----
# The two number their events differently (at -O0 make_buf is a call of
# its own, with its entry and exit), so `replay --trace` maps the run's
# switches onto this build's events (replay/build_map.c).  The replay
# must take the recorded order of every synchronisation event, and the
# recorded order must differ from the build's own deterministic run for
# some seed, so that the check tells a mapped replay from none.
if [ "$PART" = mapped ] || [ "$PART" = all ]; then
SRC=$(cd "$(dirname "$0")/../../data" && pwd)/best_fig2.c
"$BIN/foretell-cc" -g -O1 -o bf_o1 "$SRC" && "$BIN/foretell-cc" -g -O0 -o bf_o0 "$SRC" ||
    fail "foretell-cc cannot build best_fig2.c"
sync_seq() { # TRACE: each synchronisation event as thread, kind, FILE:LINE
    "$F" dump --json "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    if not l.startswith("{"):
        continue
    e = json.loads(l)
    k = e["kind"]
    if k in ("read", "write", "func_entry", "func_exit", "malloc", "free",
             "calloc", "realloc", "sleep") or k.startswith("atomic"):
        continue
    print(e["tid"], k, e.get("loc", "").split("/")[-1])'
}
# the build's own deterministic run: no schedule, the "none" policy
printf 'foretell-schedule 1\nkind: CA\nsteps: 0\nend\n' > none.sched
"$F" replay --schedule none.sched -o bf_rr.ft -q -- ./bf_o0 >/dev/null 2>&1 ||
    fail "the -O0 build's deterministic run failed"
sync_seq bf_rr.ft > bf_rr.seq
other=0
for seed in 1 2 3 4; do
    "$F" record --quantum 2 --seed "$seed" -o "bf_a$seed.ft" -- ./bf_o1 >/dev/null 2>&1 ||
        continue
    expect 0 "switches mapped \(([0-9]+) of \1 recorded events paired" \
        "$F" replay -q --trace "bf_a$seed.ft" -o "bf_b$seed.ft" -- ./bf_o0 || continue
    grep -Eq 'steps followed ([0-9]+)/\1$' out.txt || fail "seed $seed: mapped schedule not followed"
    sync_seq "bf_a$seed.ft" > "bf_a$seed.seq"
    sync_seq "bf_b$seed.ft" > "bf_b$seed.seq"
    [ -s "bf_a$seed.seq" ] && cmp -s "bf_a$seed.seq" "bf_b$seed.seq" ||
        fail "seed $seed: the -O0 replay's synchronisation order is not the -O1 run's: $(diff "bf_a$seed.seq" "bf_b$seed.seq" | head -4 | tr '\n' ' ')"
    cmp -s "bf_a$seed.seq" bf_rr.seq || other=$((other + 1))
done
[ $other -gt 0 ] || fail "no seed's run differs from the deterministic one: the check tells nothing"
# JSON says how
"$F" replay -q --json --trace bf_a1.ft -o bf_j.ft -- ./bf_o0 2>/dev/null > bf_j.json
python3 -c '
import json, sys
m = json.load(open("bf_j.json"))["mapped"]
assert m["mapped"] == m["switches"] and m["replays"] == 1 and m["paired"] == m["events"], m' ||
    fail "replay --json: no right \"mapped\" object: $(head -c 600 bf_j.json)"
fi

echo "$fails failures"
[ $fails -eq 0 ]
