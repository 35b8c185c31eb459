#!/bin/sh
# SPDX-License-Identifier: MIT
# run_explore_test.sh - `foretell explore` end to end on the data/
# examples (built with foretell-cc): each strategy finds its paper's bug
# with a fixed seed and budget, the saved FORETELL_STRATEGY reproduces the
# same failure, correct programs give no bug, bad input exits 2 (127 for
# a missing program) with a message.  Env: FT_BIN, FT_INST, FT_WORK.
NAME=explore
. "$(dirname "$0")/lib.sh"

expect_none() {
    json=$("$bin/foretell" explore -q --json -o "$work/none" "$@")
    rc=$?
    [ $rc -eq 0 ] || fail "explore $*: exit $rc on a correct program: $json"
    case $json in
    *'"bug_found":false'*) echo "ok: no bug: $*" ;;
    *) fail "explore $*: $json" ;;
    esac
}

expect_bad() {
    want=$1
    shift
    "$bin/foretell" explore -q -o "$work/bad" "$@" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq "$want" ] || fail "explore $*: exit $rc, expected $want"
    grep -q . "$work/err" || fail "explore $*: no message"
    echo "ok: exit $rc: $(head -1 "$work/err")"
}

# Paper examples.  Exit codes of a reproduction: 134 abort, 139 SIGSEGV,
# 86 deadlock (the runtime's status).
expect_bug abort 134 '*' --strategy pct --seed 0 --budget 400 -- "$inst/reorder" 4
expect_bug abort 134 '*' --strategy random --seed 0 --budget 400 -- "$inst/reorder" 4
expect_bug deadlock 86 '*' --strategy rpro --deadlock --seed 0 --budget 200 -- "$inst/rpro_d1"
expect_bug deadlock 86 '*' --strategy rpro --deadlock --depth 4 --seed 0 --budget 1000 -j 2 -- "$inst/rpro_d2"
expect_bug deadlock 86 '*' --strategy icb --bound 2 --budget 500 -- "$inst/rpro_d1"
expect_bug null-deref 139 '*' --strategy random --seed 0 --budget 200 -- "$inst/period_once"
# Period fig. 1 has three bugs: --all finds each (deduplicated by kind
# and site).
json=$("$bin/foretell" explore -q --json --all --strategy random --seed 0 \
       --budget 100 -o "$work/all" -- "$inst/period_once")
for k in null-deref use-after-free double-free; do
    case $json in
    *"\"failure\":\"$k\""*) echo "ok: period_once --all: $k" ;;
    *) fail "period_once --all: no $k in $json" ;;
    esac
done
expect_bug abort 134 '*' --strategy pctvb --depth 2 --seed 0 --budget 300 -- "$inst/vb_figures" 2
expect_bug abort 134 '*' --strategy pctvb --depth 3 --seed 0 --budget 1000 -- "$inst/vb_figures" 3
expect_bug deadlock 86 '*' --strategy pctvb --depth 2 --seed 0 --budget 300 -- "$inst/rpro_d1"
expect_bug abort 134 '*' --strategy idb --budget 1000 -- "$inst/vb_figures" 4
expect_bug abort 134 '*' --strategy icb --budget 500 -- "$inst/vb_figures" 1
expect_bug abort 134 '*' --strategy idb --budget 1000 -- "$inst/vb_figures" 2

# Correct programs (kind none in data/examples.tsv): nothing within a
# small budget, with a seeded and a systematic strategy.
for p in prodcons_sem barrier_phases correct_locked correct_atomics; do
    expect_none --strategy pct --seed 0 --budget 12 -j 2 -- "$inst/$p"
    expect_none --strategy random --seed 0 --budget 12 -j 2 -- "$inst/$p"
done
expect_none --strategy icb --budget 25 -- "$inst/correct_atomics"

# Bad input.
expect_bad 2 --strategy nosuch -- "$inst/reorder"
expect_bad 2 --strategy pct --depth 0 -- "$inst/reorder"
expect_bad 2 --strategy pct --budget many -- "$inst/reorder"
expect_bad 2 --strategy pct --jobs 0 -- "$inst/reorder"
expect_bad 2 --strategy pct --no-such-option -- "$inst/reorder"
expect_bad 2 --strategy pct
expect_bad 2 --strategy pct -- 
expect_bad 2 --strategy pct --budget 0 -- "$inst/reorder"
expect_bad 127 --strategy pct --budget 5 -- "$work/no-such-program"

# Malformed FORETELL_STRATEGY: the runtime refuses to start (exit 84)
# and says what is wrong.
for spec in "pct:depth=0" "pct:bogus=1" "rpro:radius=x" "nosuch" \
            "prefix:at=5.1,3.2" "pctvb:cp=q0.10.1"; do
    FORETELL_TRACE=$work/bad.ftrace FORETELL_STRATEGY=$spec \
        "$inst/rpro_d1" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq 84 ] || fail "FORETELL_STRATEGY=$spec: exit $rc, expected 84"
    grep -q "FORETELL_STRATEGY=$spec" "$work/err" ||
        fail "FORETELL_STRATEGY=$spec: message does not name it: $(cat "$work/err")"
done
echo "ok: malformed FORETELL_STRATEGY refused"

finish
echo "all explore tests passed"
