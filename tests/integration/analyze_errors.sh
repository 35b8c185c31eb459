#!/bin/sh
# SPDX-License-Identifier: MIT
# analyze_errors.sh FORETELL MKFIG2 DIR - `foretell analyze` on bad input
# and on STD input: each bad case exits 2 with a message that names the
# file or option at fault (and, for a damaged trace, the byte offset and
# what was recovered); a missing argument, an unknown option, a bad
# option value, an unusable output directory, a missing spec file, a bad
# STD line.  The STD case checks that a trace of another recorder is
# analyzed end to end: a violation, its schedule file, exit 1.
set -u
foretell=$1 mkfig2=$2 dir=$3
fail() { echo "analyze_errors: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
"$mkfig2" "$dir/fig2.ftrace" || fail "cannot write the fig2 trace"

# expect CODE PATTERN ARGS...: exit CODE, stderr matches PATTERN
expect() {
    code=$1 pat=$2
    shift 2
    "$foretell" analyze "$@" >"$dir/out.txt" 2>"$dir/err.txt"
    rc=$?
    [ $rc -eq "$code" ] || fail "analyze $*: want exit $code, got $rc: $(cat "$dir/err.txt")"
    grep -q -- "$pat" "$dir/err.txt" || fail "analyze $*: stderr lacks '$pat': $(cat "$dir/err.txt")"
}

expect 2 'missing TRACE'
expect 2 'missing.ftrace' -o "$dir/o" "$dir/missing.ftrace"
expect 2 "unknown option '--bogus'" --bogus "$dir/fig2.ftrace"
expect 2 'mode' --mode sideways "$dir/fig2.ftrace"
expect 2 'jobs' --jobs many "$dir/fig2.ftrace"
expect 2 'timeout' --timeout -5 "$dir/fig2.ftrace"
expect 2 'one trace only' "$dir/fig2.ftrace" "$dir/fig2.ftrace"

# damaged traces: too short to be one, and cut in the middle of a chunk
head -c 10 "$dir/fig2.ftrace" >"$dir/short.ftrace"
expect 2 'short.ftrace: error: at byte 0' -o "$dir/o" "$dir/short.ftrace"
size=$(wc -c <"$dir/fig2.ftrace")
head -c $((size - 40)) "$dir/fig2.ftrace" >"$dir/cut.ftrace"
expect 2 'cut.ftrace: warning: recovered [0-9]* events; stopped at byte [0-9]*' \
    -o "$dir/o" "$dir/cut.ftrace"

# output directory: under a regular file, or a regular file itself
: >"$dir/plain"
expect 2 'plain/sub: error: cannot create the output directory' \
    -o "$dir/plain/sub" "$dir/fig2.ftrace"
expect 2 'plain: error: the output path is not a directory' \
    -o "$dir/plain" "$dir/fig2.ftrace"
[ ! -e "$dir/plain/sub" ] || fail "something was written under a file"
# checked before the trace is read (loading takes seconds on a long one):
# the directory's error, not the damaged trace's; and a trace that fails
# to load leaves no empty output directory behind
expect 2 'nodir/sub: error: cannot create the output directory: .*nodir is not a directory that exists' \
    -o "$dir/nodir/sub" "$dir/short.ftrace"
! grep -q 'at byte' "$dir/err.txt" || fail "the trace was read before the output directory was checked"
expect 2 'short.ftrace: error: at byte 0' -o "$dir/fresh" "$dir/short.ftrace"
[ ! -e "$dir/fresh" ] || fail "a trace that did not load left $dir/fresh behind"

expect 2 'nospec: error: cannot open' --spec "$dir/nospec" "$dir/fig2.ftrace"
printf 'T0|r(x)|1\nT1|zz(x)|2\n' >"$dir/bad.std"
expect 2 'bad.std: error: at byte 10: line 2: unknown operation' "$dir/bad.std"

# STD input (RAPID's format, detected by extension): two lock-protected
# halves of an update, with another thread's critical section in between
cat >"$dir/pair.std" <<'STD'
T0|fork(T1)|1
T0|fork(T2)|2
T1|begin|10
T1|acq(l)|11
T1|r(lo)|12
T1|w(lo)|12
T1|rel(l)|13
T1|acq(l)|14
T1|r(hi)|15
T1|w(hi)|15
T1|rel(l)|16
T1|end|17
T2|acq(l)|20
T2|r(lo)|21
T2|r(hi)|21
T2|rel(l)|22
STD
"$foretell" analyze -q -o "$dir/std-out" "$dir/pair.std" >"$dir/std.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "STD input: want exit 1, got $rc: $(cat "$dir/std.txt")"
grep -q 'atomicity violation predicted' "$dir/std.txt" || fail "STD: no report"
ls "$dir/std-out"/ca-*.schedule >/dev/null 2>&1 || fail "STD: no schedule file"
head -1 "$dir"/std-out/ca-*.schedule | grep -q '^foretell-schedule 1$' \
    || fail "STD: schedule file lacks its magic line"

# a region the recorded run itself violates (STD line numbers as sites):
# reported as observed, with the three events, and exit 1
printf 'T0|fork(T1)|1\nT0|fork(T2)|2\nT1|begin|10\nT1|r(x)|11\nT2|w(x)|20\nT1|w(x)|12\nT1|end|13\n' \
    >"$dir/observed.std"
"$foretell" analyze -q -o "$dir/obs-out" "$dir/observed.std" >"$dir/obs.txt" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "observed: want exit 1, got $rc: $(cat "$dir/obs.txt")"
grep -q '^?:11: warning: atomicity violation observed in the recorded run' \
    "$dir/obs.txt" || fail "observed: no report: $(cat "$dir/obs.txt")"
grep -q 'conflicts with thread 2 event [0-9]* at ?:20' "$dir/obs.txt" \
    || fail "observed: the other thread's write is not named"

# --regions and --properties as JSON documents
if command -v python3 >/dev/null; then
    "$foretell" analyze --regions --json "$dir/pair.std" |
        python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["regions"], d' \
        || fail "--regions --json"
    "$foretell" analyze --properties --json "$dir/pair.std" |
        python3 -c 'import json,sys; json.load(sys.stdin)' \
        || fail "--properties --json"
fi
echo "analyze_errors: ok"
