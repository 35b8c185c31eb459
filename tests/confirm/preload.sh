#!/bin/sh
# SPDX-License-Identifier: MIT
# preload.sh - programs not built with foretell-cc (replay/backend.c,
# recorder/rt/preload/preload.c): record, analyze (with its replays),
# explore and replay run them through the LD_PRELOAD runtime and say so.
#  1. data/abba_deadlock.c built with plain cc: the deadlock is predicted
#     from a passing run and proved by replay, with the same fingerprint
#     as from the foretell-cc build's trace; explore finds it and its
#     saved schedule replays to it; a run that replaces itself with execl
#     ends its trace at the exec.
#  2. --backend: runtime on the unmodified program, a bad name, preload
#     on a static program, and a static program left as it is: exit 2,
#     each with its message.
#  3. a library built with foretell-cc -shared in a host built with cc:
#     record's auto takes the LD_PRELOAD runtime for it (not Valgrind),
#     its accesses are recorded, and its lost update is proved.
# (record's auto runs a plain threaded program under Valgrind when it is
# installed: valgrind.sh; here record asks for preload.)
NAME=preload
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}
D=$(cd "$P/../../../data" && pwd)
"$CC" -g -O1 -pthread -o abba "$D/abba_deadlock.c" ||
    { echo "FAIL(preload): cc cannot build abba_deadlock.c" >&2; exit 1; }
build abba_ft "$D/abba_deadlock.c" -O1

# 1. record, analyze, explore, replay
RECORD_OPTS="--backend preload" record_passing abba.ft ./abba
grep -q "not built with foretell-cc: running it with the LD_PRELOAD runtime" abba.ft.err ||
    fail "record did not say which runtime: $(cat abba.ft.err)"
"$F" dump abba.ft | grep -q "mutex_lock" || fail "no lock events recorded"
"$F" analyze --json -o out abba.ft >abba.json 2>abba.err
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1: $(tail -3 abba.err)"
grep -q "abba.ft: note: the trace holds no memory read" abba.err ||
    fail "analyze did not say what a synchronisation-only trace allows: $(cat abba.err)"
record_passing abba_ft.ft ./abba_ft
"$F" analyze --json -o out2 abba_ft.ft >abba_ft.json 2>abba_ft.err
grep -q "no memory read" abba_ft.err && fail "the foretell-cc build's trace called synchronisation-only"
python3 - abba.json abba_ft.json <<'PY' || fail "findings: $(head -c 900 abba.json)"
import json, sys
pre, ftcc = (json.load(open(p)) for p in sys.argv[1:])
def deadlocks(d):
    return {f["fingerprint"] for f in d["findings"] if f["kind"] == "deadlock"}
bugs = [f for f in pre["findings"] if f["kind"] == "deadlock" and f["bug"]]
assert bugs, pre["findings"]
assert deadlocks(pre) == deadlocks(ftcc), (deadlocks(pre), deadlocks(ftcc))
PY
"$F" explore -q --budget 200 -o ex -- ./abba >ex.out 2>ex.err
rc=$?
[ $rc = 1 ] || fail "explore: exit $rc, expected 1: $(tail -3 ex.err)"
grep -q "error: deadlock" ex.out || fail "explore found no deadlock: $(cat ex.out ex.err)"
sched=$(ls ex/*.schedule 2>/dev/null | head -1)
if [ -n "$sched" ]; then
    "$F" replay -q --schedule "$sched" -o re.ft -- ./abba >re.out 2>re.err
    rc=$?
    [ $rc = 1 ] || fail "replay: exit $rc, expected 1: $(tail -3 re.err)"
    grep -q "deadlock" re.err || fail "the saved schedule did not replay to the deadlock: $(cat re.err)"
else
    fail "explore saved no schedule"
fi

# execl (libc's calls execve inside libc): the trace still ends "exec"
"$CC" -g -O1 -pthread -o exl "$P/preload_exec.c" ||
    { echo "FAIL(preload): cc cannot build preload_exec.c" >&2; exit 1; }
"$F" record --backend preload -o exl.ft -- ./exl >/dev/null 2>exl.err
rc=$?
[ $rc = 0 ] || fail "execl: record exit $rc, expected 0: $(cat exl.err)"
grep -q "exl.ft: .* exec: exit 0" exl.err || fail "execl: the trace did not end at the exec: $(cat exl.err)"

# 2. --backend
"$F" explore -q --budget 5 --backend runtime -- ./abba >/dev/null 2>b1.err
rc=$?
[ $rc = 2 ] || fail "--backend runtime: exit $rc, expected 2"
grep -q "not built with foretell-cc" b1.err || fail "--backend runtime: $(cat b1.err)"
"$F" record --backend bogus -- ./abba >/dev/null 2>b2.err
rc=$?
[ $rc = 2 ] || fail "--backend bogus: exit $rc, expected 2"
grep -q "'bogus' is not auto, runtime, preload or valgrind" b2.err || fail "--backend bogus: $(cat b2.err)"
if "$CC" -static -pthread -o abba_static "$D/abba_deadlock.c" 2>/dev/null; then
    "$F" record --backend preload -o st.ft -- ./abba_static >/dev/null 2>b3.err
    rc=$?
    [ $rc = 2 ] || fail "--backend preload, static: exit $rc, expected 2"
    grep -q "not a dynamically linked program" b3.err || fail "static: $(cat b3.err)"
    "$F" record -o st2.ft -- ./abba_static >/dev/null 2>b4.err
    rc=$?
    [ $rc = 2 ] || fail "static, auto: exit $rc, expected 2"
    grep -q "was not built with foretell-cc.*LD_PRELOAD runtime cannot reach it either" b4.err ||
        fail "static, auto: $(cat b4.err)"
fi

# 3. an instrumented library in an unmodified host
"$FT_BIN/foretell-cc" -g -O1 -fPIC -shared -o libbump.so "$P/preload_lib.c" ||
    { echo "FAIL(preload): cannot build the library" >&2; exit 1; }
"$CC" -g -O1 -pthread -o host "$P/preload_host.c" -L. -lbump \
    -Wl,-rpath,"$PWD" -Wl,--allow-shlib-undefined ||
    { echo "FAIL(preload): cannot build the host" >&2; exit 1; }
record_passing host.ft ./host
grep -q "running it with the LD_PRELOAD runtime" host.ft.err ||
    fail "auto did not take the LD_PRELOAD runtime for a foretell-cc library's host: $(cat host.ft.err)"
"$F" dump host.ft | grep -q "read .*counter.*preload_lib.c" ||
    fail "the library's reads were not recorded"
"$F" analyze --json -o out3 host.ft >host.json 2>host.err
python3 - host.json <<'PY' || fail "library findings: $(head -c 900 host.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["violated"] > 0 and d["confirmed"] > 0, d
PY
[ $fails = 0 ] && echo "preload: ok"
exit $fails
