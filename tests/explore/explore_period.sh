#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_period.sh - `foretell explore --strategy period` end to end:
# on Period's figure-1 program (data/period_once.c) it finds the three
# bugs the paper reports (null dereference, use after free, double free)
# with --all, each saved FORETELL_STRATEGY reproduces its failure and each
# saved schedule replays to it (`foretell replay --schedule`); on a
# correct program a small period bound is exhausted without a bug, and
# correct programs that block on semaphores and barriers show none; bad
# --periods and malformed period specs are refused.  Env: FT_BIN, FT_INST,
# FT_WORK.
NAME=period
. "$(dirname "$0")/lib.sh"

prog=$inst/period_once
json=$("$bin/foretell" explore -q --json --all --strategy period --budget 300 \
       -o "$work/out" -- "$prog")
rc=$?
[ $rc -eq 1 ] || fail "explore period_once: exit $rc, expected 1"
case $json in
*'"strategy":"period"'*) ;;
*) fail "explore period_once: not a period run: $json" ;;
esac

for kind in null-deref use-after-free double-free; do
    found=$(bug_index "$json" $kind)
    if [ -z "$found" ]; then
        fail "period_once --all: no $kind in $json"
        continue
    fi
    case $kind in
    null-deref) exit_code=139 ;;
    *) exit_code=134 ;; # the heap oracle aborts
    esac
    check_saved "$work/out" "$found" $kind $exit_code 'period:p=*' -- "$prog"
    case $kind in
    null-deref) grep -q 'null dereference at' "$work/repro.err" ;;
    use-after-free) grep -q 'use-after-free at' "$work/repro.err" ;;
    double-free) grep -q 'double free at' "$work/repro.err" ;;
    esac || fail "$kind: FORETELL_STRATEGY=$spec: $(head -2 "$work/repro.err")"
    echo "ok: period_once: $kind in schedule $(echo "$json" | sed 's/},{/}\n{/g' |
        grep "\"failure\":\"$kind\"" | sed -n 's/.*"schedule_number":\([0-9]*\).*/\1/p')" \
        "($spec), replayed"
done

# A correct program: every schedule within 2 periods, no bug.
json=$("$bin/foretell" explore -q --json --strategy period --periods 2 \
       --budget 0 -o "$work/none" -- "$inst/correct_locked")
rc=$?
[ $rc -eq 0 ] || fail "explore correct_locked: exit $rc: $json"
case $json in
*'"bug_found":false'*'"exhausted":true'*) echo "ok: correct_locked: bound 2 exhausted, no bug" ;;
*) fail "explore correct_locked --periods 2: $json" ;;
esac

# Blocking (semaphores, barriers, condition variables) under periods: no
# false deadlock or hang on correct programs.
for p in prodcons_sem barrier_phases correct_atomics; do
    json=$("$bin/foretell" explore -q --json --strategy period --budget 30 \
           --run-timeout 5 -o "$work/none" -- "$inst/$p")
    rc=$?
    case $json in
    *'"bug_found":false'*) [ $rc -eq 0 ] || fail "explore $p: exit $rc" ;;
    *) fail "explore $p (correct): $json" ;;
    esac
done
echo "ok: no bug in correct programs"

# Bad input.
"$bin/foretell" explore -q --strategy period --periods 0 -- "$prog" \
    >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] || fail "--periods 0: exit $rc, expected 2"
grep -q periods "$work/err" || fail "--periods 0: no message"
for spec in "period" "period:p=" "period:p=-1.1" "period:p=1.1,1.2" "period:p=1.0" \
            "period:p=1.2,x"; do
    FORETELL_TRACE=$work/bad.ftrace FORETELL_STRATEGY=$spec "$prog" \
        >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq 84 ] || fail "FORETELL_STRATEGY=$spec: exit $rc, expected 84"
    grep -q "FORETELL_STRATEGY=$spec" "$work/err" ||
        fail "FORETELL_STRATEGY=$spec: message does not name it"
done
echo "ok: bad period input refused"

finish
echo "all period tests passed"
