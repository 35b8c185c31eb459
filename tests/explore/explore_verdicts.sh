#!/bin/sh
# SPDX-License-Identifier: MIT
# explore_verdicts.sh - verdicts that are the program's, not the
# runtime's (issue 21): a program's own exit status 84 is a bug of the
# program, a program without the runtime is said to be one, a deadlock
# has one key whichever thread found it, heap corruption is reported at
# the corrupting write, failure sites are in the program's own code and
# real source (std::vector::at, a null dereference, #line), and a saved
# bounded-buffer bug replays.  Programs: progs/.  Env: FT_BIN, FT_INST,
# FT_WORK.
NAME=verdicts
. "$(dirname "$0")/lib.sh"
P=$(cd "$(dirname "$0")/progs" && pwd)

line_of() { grep -n "$2" "$P/$1" | head -1 | cut -d: -f1; }

# An exit status of 84 (a runtime refusal code) is the program's own: a
# bug, the exploration goes on and reports it.
build exit84 "$P/exit84.c"
json=$("$bin/foretell" explore -q --json --budget 3 -o "$work/o84" -- "$work/exit84")
rc=$?
case "$rc $json" in
"1 "*'"failure":"exit"'*'"detail":"exited with status 84"'*)
    echo "ok: exit status 84 is the program's bug" ;;
*) fail "exit 84: explore exit $rc: $json" ;;
esac

# A program not built with foretell-cc: explored through the LD_PRELOAD
# runtime (its exit 84 is its own there too); as it is (--backend
# runtime), as record and replay say it.
cc -O1 -o "$work/native84" "$P/exit84.c" -pthread
json=$("$bin/foretell" explore -q --json --budget 3 -o "$work/onat" -- \
       "$work/native84" 2>"$work/err")
rc=$?
case "$rc $json" in
"1 "*'"detail":"exited with status 84"'*)
    grep -q "LD_PRELOAD runtime" "$work/err" &&
        echo "ok: a native program through the LD_PRELOAD runtime" ||
        fail "native program: no note: $(cat "$work/err")" ;;
*) fail "native program: explore exit $rc: $json $(cat "$work/err")" ;;
esac
"$bin/foretell" explore -q --budget 3 --backend runtime -o "$work/onat2" \
    -- "$work/native84" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && grep -q "not built with foretell-cc" "$work/err" &&
    echo "ok: not built with foretell-cc: exit 2" ||
    fail "native program, --backend runtime: exit $rc: $(cat "$work/err")"

# One deadlock, one key: the sites are the blocked threads' own.
build abba "$P/abba.c"
json=$("$bin/foretell" explore -q --json --all --strategy random --seed 0 \
       --budget 60 -o "$work/oab" -- "$work/abba")
n=$(echo "$json" | grep -o '"failure":"deadlock"' | wc -l)
la=$(line_of abba.c 'pthread_mutex_lock(&b);' )
[ "$n" -eq 1 ] || fail "abba: $n distinct deadlocks, expected 1: $json"
case $json in
*"abba.c:$la"*) echo "ok: one deadlock, at the blocked threads' sites" ;;
*) fail "abba: the deadlock's site lacks abba.c:$la: $json" ;;
esac
# as text, every location line is file:line: kind: message (the key's
# sites one per line: the error's, then a note per other thread)
"$bin/foretell" explore --all --strategy random --seed 0 --budget 60 \
    -o "$work/oab2" -- "$work/abba" >"$work/abba.txt" 2>/dev/null
grep -E '^[^ ]*abba\.c:[0-9]+: error: deadlock ' "$work/abba.txt" >/dev/null &&
    grep -E '^[^ ,]*abba\.c:[0-9]+: note: another thread of the deadlock waits here$' \
        "$work/abba.txt" >/dev/null && ! grep -q 'abba\.c:[0-9]*,' "$work/abba.txt" &&
    echo "ok: the deadlock's sites one per line" ||
    fail "abba: deadlock text: $(cat "$work/abba.txt")"

# Heap corruption, at the write that corrupts.
build underflow "$P/underflow.c"
expect_bug heap-corruption 134 '*' --strategy pct --seed 0 --budget 3 -- "$work/underflow"
lw=$(line_of underflow.c 'the corrupting write')
case $json in
*"underflow.c:$lw"*) echo "ok: heap corruption at underflow.c:$lw" ;;
*) fail "underflow: not reported at line $lw: $json" ;;
esac

# A block whose neighbour in memory goes back to malloc has its chunk
# header's PREV_INUSE bit cleared by glibc: no write of the program's,
# no heap corruption (pigz's free_pool was one at every explored run).
build neighbour_free "$P/neighbour_free.c"
json=$("$bin/foretell" explore -q --json --strategy pct --seed 0 --budget 3 \
    -o "$work/onf" -- "$work/neighbour_free")
rc=$?
case "$rc $json" in
'0 '*'"bug_found":false'*) echo "ok: a neighbour's free is no heap corruption" ;;
*) fail "neighbour_free: explore exit $rc: $json" ;;
esac

# Failure sites in the program's own code and real source.
site_of() { # KIND JSON: the site of the first bug of KIND
    echo "$2" | sed -n "s/.*\"failure\":\"$1\",\"site\":\"\([^\"]*\)\".*/\1/p"
}
expect_site() { # NAME KIND WANT EXPLORE-ARGS... -- PROG
    name=$1 kind=$2 want=$3
    shift 3
    json=$("$bin/foretell" explore -q --json --budget 2 -o "$work/os" "$@")
    got=$(site_of "$kind" "$json")
    case $got in
    *"$want") echo "ok: $name: $kind at $got" ;;
    *) fail "$name: $kind site '$got', expected ...$want: $json" ;;
    esac
}
"$bin/foretell-c++" -O1 -o "$work/vat" "$P/vector_at.cc" 2>"$work/cc.err" ||
    fail "cannot build vector_at: $(head -3 "$work/cc.err")"
expect_site "vector::at (g++)" abort "vector_at.cc:$(line_of vector_at.cc 'v.at(idx)')" -- "$work/vat"
if command -v clang++ >/dev/null; then
    FORETELL_CXX=clang++ "$bin/foretell-c++" -O1 -o "$work/vatc" "$P/vector_at.cc" &&
        expect_site "vector::at (clang++)" abort \
            "vector_at.cc:$(line_of vector_at.cc 'v.at(idx)')" -- "$work/vatc"
fi
build nullderef "$P/nullderef.c"
expect_site "null dereference" null-deref \
    "nullderef.c:$(line_of nullderef.c 'the null dereference')" -- "$work/nullderef"
build linedir "$P/linedir.c"
expect_site "#line to a missing file" abort \
    "$P/linedir.c:$(line_of linedir.c 'always fails')" -- "$work/linedir"

# A saved bug replays: a condvar signal's waiter is the schedule's.
build bbuf "$P/boundedbuf.c"
failing=0 diverged=0
for s in $(seq 0 40); do
    FORETELL_TRACE=$work/bb.ftrace FORETELL_STRATEGY=random:seed=$s \
        "$work/bbuf" >/dev/null 2>&1 && continue
    failing=$((failing + 1))
    "$bin/foretell" replay -q --trace "$work/bb.ftrace" -o "$work/bb2.ftrace" \
        -- "$work/bbuf" >/dev/null 2>"$work/err"
    rc=$?
    [ $rc -eq 1 ] || { diverged=$((diverged + 1)); echo "seed $s: replay exit $rc: $(head -1 "$work/err")"; }
done
[ $failing -gt 0 ] || fail "boundedbuf: no failing run in 41 seeds"
[ $diverged -eq 0 ] && echo "ok: boundedbuf: $failing failing runs replayed" ||
    fail "boundedbuf: $diverged of $failing failing runs did not replay"

finish
echo "all verdict tests passed"
