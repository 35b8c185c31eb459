#!/bin/sh
# SPDX-License-Identifier: MIT
# hapset_explore.sh - `foretell explore --strategy hapset` (and its
# baseline, dpor) end to end on data/ examples: it finds the documented
# bug of counter_rmw, abba_deadlock and best_fig2 (the assertion, among
# the program's deadlocks, with --all), the saved FORETELL_STRATEGY and
# the saved schedule (`foretell replay --schedule`) reproduce it, correct
# programs are explored to exhaustion within a budget ("exhausted"), the
# options are checked, and the decision log carries the trace marks HaPSet
# maps decisions with.  Env: FT_BIN, FT_INST, FT_WORK.
NAME=hapset
. "$(dirname "$0")/lib.sh"

expect_exhausted() {
    json=$("$bin/foretell" explore -q --json -o "$work/none" "$@")
    rc=$?
    [ $rc -eq 0 ] || { fail "explore $*: exit $rc on a correct program: $json"; return; }
    case $json in
    *'"bug_found":false'*'"exhausted":true'*)
        echo "ok: exhausted after $(echo "$json" | sed -n 's/.*"schedules_run":\([0-9]*\).*/\1/p') schedules: $*" ;;
    *) fail "explore $*: not exhausted: $json" ;;
    esac
}

# Exit codes of a reproduction: 134 abort, 86 deadlock (the runtime's).
expect_bug abort 134 'prefix*' --strategy hapset --budget 100 -- "$inst/counter_rmw"
expect_bug deadlock 86 'prefix*' --strategy hapset --budget 100 -- "$inst/abba_deadlock"
expect_bug abort 134 'prefix*' --strategy hapset --all --budget 300 -- "$inst/best_fig2"
expect_bug abort 134 'prefix*' --strategy hapset --ctx 0 --budget 100 -- "$inst/counter_rmw"
expect_bug abort 134 'prefix*' --strategy dpor --budget 100 -- "$inst/counter_rmw"

# Correct programs: every schedule the guided search selects is run.
expect_exhausted --strategy hapset --budget 300 -- "$inst/correct_locked"
expect_exhausted --strategy hapset --budget 300 -- "$inst/barrier_phases"
expect_exhausted --strategy hapset --budget 300 -- "$inst/correct_atomics"
# Learning from random runs first (algorithm 1), then the guided search.
expect_exhausted --strategy hapset --learn 5 --seed 3 --budget 300 -- "$inst/correct_locked"

# Bad option values.
for args in "--ctx x" "--ctx 65" "--learn -1"; do
    # shellcheck disable=SC2086
    "$bin/foretell" explore -q --strategy hapset $args -- "$inst/counter_rmw" \
        >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq 2 ] || fail "explore --strategy hapset $args: exit $rc, expected 2"
    grep -q . "$work/err" || fail "explore $args: no message"
done
echo "ok: bad --ctx/--learn refused"

# The decision log: "S CUR CHOSEN K E... @M", marks never decreasing.
FORETELL_TRACE=$work/log.ftrace FORETELL_STRATEGY=prefix \
    FORETELL_EXPLORE_LOG=$work/run.log "$inst/counter_rmw" >/dev/null 2>&1
awk 'BEGIN { last = 0; bad = 0 }
     { m = $NF; if (substr(m, 1, 1) != "@") bad = 1; m = substr(m, 2) + 0;
       if (m < last) bad = 1; last = m }
     END { exit bad || NR == 0 }' "$work/run.log" ||
    fail "decision log without ascending @marks: $(head -3 "$work/run.log")"
echo "ok: decision log marks"

finish
echo "all hapset explore tests passed"
