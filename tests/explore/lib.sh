# SPDX-License-Identifier: MIT
# lib.sh - what the explore shell tests share (sourced, with NAME set):
# a work directory removed on exit, failure counting, and expect_bug, the
# check that a bug `foretell explore` finds is saved, reproduced by its
# FORETELL_STRATEGY and replayed to the same failure by its schedule.
# Env: FT_BIN, FT_INST, FT_WORK.
set -u
bin=$FT_BIN
inst=$FT_INST
work=$FT_WORK/${NAME:-explore}.$$
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# build OUT SOURCES...: $work/OUT built with foretell-cc -O1.
build() {
    out=$1
    shift
    "$bin/foretell-cc" -O1 -o "$work/$out" "$@" 2>"$work/cc.err" ||
        { fail "cannot build $out: $(head -3 "$work/cc.err")"; return 1; }
}

# finish: exit 1 when anything failed.
finish() {
    [ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
}

# bug_index JSON KIND: the position (1-based) of the first bug of KIND.
bug_index() {
    echo "$1" | grep -o '"failure":"[a-z-]*"' | grep -n "\"$2\"" | head -1 | cut -d: -f1
}

# check_saved OUT N KIND EXIT SPEC_GLOB -- PROG [ARGS]: bug N saved in OUT
# has a trace and a schedule file, a strategy spec matching SPEC_GLOB that
# runs the program to exit status EXIT, and a schedule that `foretell
# replay` follows to a KIND failure.  Sets spec.
check_saved() {
    out=$1 n=$2 kind=$3 repro=$4 glob=$5
    shift 6
    [ -s "$out/bug-$n.ftrace" ] || fail "$kind: no saved trace"
    [ -s "$out/bug-$n.schedule" ] || { fail "$kind: no saved schedule"; return; }
    grep -q '^foretell-schedule 1$' "$out/bug-$n.schedule" ||
        fail "$kind: schedule file has no header"
    spec=$(cat "$out/bug-$n.strategy")
    # shellcheck disable=SC2254
    case $spec in
    $glob) ;;
    *) fail "$kind: bug-$n.strategy is not $glob: $spec" ;;
    esac
    FORETELL_TRACE=$work/repro.ftrace FORETELL_STRATEGY=$spec "$@" \
        >/dev/null 2>"$work/repro.err"
    got=$?
    [ $got -eq "$repro" ] ||
        fail "FORETELL_STRATEGY=$spec $*: exit $got, expected $repro"
    rj=$("$bin/foretell" replay -q --json --schedule "$out/bug-$n.schedule" \
         -o "$work/replayed.ftrace" --timeout 10 -- "$@")
    rrc=$?
    case $rj in
    *"\"failure\":\"$kind\""*) [ $rrc -eq 1 ] ||
        fail "replay of bug-$n.schedule: exit $rrc, expected 1" ;;
    *) fail "replay of bug-$n.schedule: expected $kind, got: $rj" ;;
    esac
}

# expect_bug KIND EXIT SPEC_GLOB EXPLORE_ARGS... -- PROG [ARGS]: the
# exploration exits 1 with a KIND bug, which check_saved accepts.
expect_bug() {
    kind=$1 repro=$2 glob=$3
    shift 3
    out=$work/out
    rm -rf "$out"
    json=$("$bin/foretell" explore -q --json -o "$out" "$@")
    rc=$?
    [ $rc -eq 1 ] || { fail "explore $*: exit $rc, expected 1: $json"; return; }
    n=$(bug_index "$json" "$kind")
    [ -n "$n" ] || { fail "explore $*: no $kind bug in $json"; return; }
    while [ "$1" != -- ]; do shift; done
    check_saved "$out" "$n" "$kind" "$repro" "$glob" "$@"
    first=$(echo "$json" | sed -n 's/.*"schedules_to_first_bug":\([0-9]*\).*/\1/p')
    echo "ok: $kind found, reproduced, replayed (first bug after $first schedules; $spec)"
}
