#!/bin/sh
# SPDX-License-Identifier: MIT
# misuse.sh - pthread API misuse (ThreadSanitizer's "unlock of a mutex by
# a wrong thread" and "destroy of a locked mutex", mutexes and rwlocks):
# the runtime's MISUSE
# event in the trace, analyze's errors for what the recorded run shows
# (text, JSON, exit 1, the store of batch), and explore finding the
# destroy that only some schedules reach, its saved schedule replayed to
# the same failure.  Programs: tests/confirm/progs.
NAME=misuse
. "$(dirname "$0")/lib.sh"

"$FT_BIN/foretell-cc" -O1 -g -o handoff "$P/misuse_handoff.c" &&
    "$FT_BIN/foretell-cc" -O1 -g -o destroy "$P/destroy_race.c" ||
    { echo "FAIL(misuse): cannot build the programs" >&2; exit 1; }

# --- seen in the recorded run ---------------------------------------------
"$F" record -o h.ft -- ./handoff >/dev/null 2>&1 || fail "record handoff"
"$F" dump h.ft >h.dump 2>&1
grep -q "misuse .*\[gate\] what=2 holder=0 .*misuse_handoff.c:16 (opener)" h.dump ||
    fail "no unlock-by-another-thread MISUSE event: $(grep misuse h.dump)"
grep -q "misuse .*\[gate\] what=1 holder=0 .*misuse_handoff.c:27 (main)" h.dump ||
    fail "no destroy-of-a-locked-mutex MISUSE event: $(grep misuse h.dump)"
"$F" analyze -q --no-confirm -o out-h h.ft >h.txt 2>h.err
rc=$?
[ $rc = 1 ] || fail "analyze handoff: exit $rc, expected 1 ($(cat h.err))"
grep -q "misuse_handoff.c:16: error: unlock of a mutex another thread holds (gate) in thread 1" h.txt ||
    fail "analyze: no unlock error: $(cat h.txt)"
grep -q "gate held by thread 0 since event [0-9]* at .*misuse_handoff.c:23 (main)" h.txt ||
    fail "analyze: the holder's lock is not named: $(cat h.txt)"
grep -q "misuse_handoff.c:27: error: destroy of a locked mutex (gate) in thread 0" h.txt ||
    fail "analyze: no destroy error: $(cat h.txt)"
grep -q "; 2 API misuse observed" h.txt || fail "analyze: summary lacks the count"
# the source line under each location, as compilers print it
grep -q '^ *16 |     pthread_mutex_unlock(&gate); /\* BUG: main holds it \*/$' h.txt ||
    fail "analyze: no source line under the unlock: $(cat h.txt)"
grep -q '^ *23 |     pthread_mutex_lock(&gate);$' h.txt ||
    fail "analyze: no source line under the holder's lock"
"$F" analyze -q --no-confirm --json -o out-h h.ft >h.json 2>/dev/null
python3 - h.json <<'PY' || fail "analyze --json: misuse entries wrong"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["misuse"]
assert [x["what"] for x in m] == ["unlock of a mutex another thread holds",
                                  "destroy of a locked mutex"], m
assert all(x["mutex"] == "gate" and x["holder"]["thread"] == 0 for x in m), m
assert all(x["instances"] == 1 for x in m), m
assert m[0]["thread"] == 1 and m[0]["function"] == "opener", m[0]
assert m[0]["holder"]["site"].endswith("misuse_handoff.c:23"), m[0]
assert m[1]["holder"]["site"].endswith("misuse_handoff.c:26"), m[1]
PY

# the same for rwlocks: an unlock of one another thread holds for
# writing, an unlock of one nobody holds, a destroy of one held for
# reading (its last reader named)
"$FT_BIN/foretell-cc" -O1 -g -o rwm "$P/rwlock_misuse.c" || fail "build rwlock_misuse"
"$F" record -o rw.ft -- ./rwm >/dev/null 2>&1 || fail "record rwlock_misuse"
"$F" dump rw.ft >rw.dump 2>&1
grep -q "misuse .*\[table\] what=2 holder=0 .*rwlock_misuse.c:15 (intruder)" rw.dump &&
    grep -q "misuse .*\[table\] what=3 .*rwlock_misuse.c:26 (main)" rw.dump &&
    grep -q "misuse .*\[index_lock\] what=1 holder=0 .*rwlock_misuse.c:28 (main)" rw.dump ||
    fail "rwlock MISUSE events: $(grep misuse rw.dump)"
"$F" analyze -q --no-confirm -o out-rw rw.ft >rw.txt 2>rw.err
rc=$?
[ $rc = 1 ] || fail "analyze rwlock_misuse: exit $rc, expected 1 ($(cat rw.err))"
grep -q "rwlock_misuse.c:15: error: unlock of a mutex another thread holds (table) in thread 1" rw.txt &&
    grep -q "table held by thread 0 since event [0-9]* at .*rwlock_misuse.c:22 (main)" rw.txt &&
    grep -q "rwlock_misuse.c:26: error: unlock of an unlocked mutex (table) in thread 0" rw.txt &&
    grep -q "rwlock_misuse.c:28: error: destroy of a locked mutex (index_lock) in thread 0" rw.txt &&
    grep -q "index_lock held by thread 0 since event [0-9]* at .*rwlock_misuse.c:27 (main)" rw.txt ||
    fail "analyze: rwlock misuse errors: $(cat rw.txt)"

# one static misuse made 50 times is one error with its count
"$FT_BIN/foretell-cc" -O1 -g -o mloop "$P/misuse_loop.c" || fail "build misuse_loop"
"$F" record -o ml.ft -- ./mloop >/dev/null 2>&1 || fail "record misuse_loop"
"$F" analyze -q --no-confirm -o out-ml ml.ft >ml.txt 2>/dev/null
[ "$(grep -c ': error: unlock of an unlocked mutex (m)' ml.txt)" = 1 ] &&
    grep -q '(50 times; the first shown)' ml.txt ||
    fail "misuse_loop: not one error with its count: $(head -3 ml.txt)"
"$F" analyze -q --no-confirm --json -o out-ml ml.ft >ml.json 2>/dev/null
python3 -c "import json,sys; m=json.load(open('ml.json'))['misuse']; assert len(m)==1 and m[0]['instances']==50, m" ||
    fail "misuse_loop: JSON misuse entries"

# batch keeps them as findings of kind misuse, observed
"$F" batch analyze -q --store s.db h.ft >/dev/null 2>b.err ||
    [ $? = 1 ] || fail "batch analyze: $(cat b.err)"
"$F" batch report --store s.db --json >b.json 2>b.err
python3 - b.json <<'PY' || fail "batch report: no misuse findings"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
f = [r for r in rows if r.get("kind") == "misuse"]
assert len(f) == 2 and all(r["observed"] for r in f), rows
assert len({r["fingerprint"] for r in f}) == 2, f
PY

# a misuse every schedule makes proves no other finding: the replayed
# witnesses of misuse_race.c's race run into the unlock the recorded run
# made too, and stay "reached", not bugs
"$FT_BIN/foretell-cc" -O1 -g -o mrace "$P/misuse_race.c" || fail "build misuse_race"
"$F" record -o mr.ft -- ./mrace >/dev/null 2>&1 || fail "record misuse_race"
"$F" analyze -q --json -o out-mr mr.ft >mr.json 2>mr.err
rc=$?
[ $rc = 1 ] || fail "misuse_race: analyze exit $rc ($(cat mr.err))"
python3 - mr.json <<'PY' || fail "misuse_race: a finding proved by the recorded run's own misuse"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["misuse"]) == 1, d["misuse"]
races = [f for f in d["findings"] if f["kind"] == "data-race"]
assert races, d["findings"]
for f in d["findings"]:
    c = f["confirmation"]
    assert not f["bug"] and c["failure"] == "none", f
    assert "misuse the recorded run showed too" in (c["detail"] or ""), c
PY

# a correct program's run: no misuse
"$F" record -o c.ft -- "$FT_INST/correct_locked" >/dev/null 2>&1 || fail "record correct_locked"
"$F" analyze -q --no-confirm --kinds atomicity --json -o out-c c.ft >c.json 2>/dev/null
python3 -c "import json,sys; assert json.load(open('c.json'))['misuse'] == []" ||
    fail "correct_locked: misuse reported"

# --- reached by some schedules only: explore, then replay -----------------
"$F" record -o d.ft -- ./destroy >/dev/null 2>&1
"$F" analyze -q --no-confirm --kinds atomicity --json -o out-d d.ft >d.json 2>/dev/null
python3 -c "import json; assert json.load(open('d.json'))['misuse'] == []" ||
    fail "destroy_race: the natural run already misused the mutex (the test wants a passing one)"
"$F" explore -s random -n 500 -q --json -o ex -- ./destroy >ex.json
rc=$?
[ $rc = 1 ] || fail "explore: exit $rc, expected 1: $(cat ex.json)"
python3 - ex.json <<'PY' || fail "explore: no misuse bug: $(cat ex.json)"
import json, sys
b = json.load(open(sys.argv[1]))["bugs"]
assert b and b[0]["failure"] == "misuse", b
assert b[0]["site"].endswith("destroy_race.c:30"), b[0]
assert b[0]["detail"] == "thread 0 destroys a mutex that thread 1 holds", b[0]
PY
# the default strategy (surw-sym) too: the trace names the destroy
# (mutex_destroy), so the mutex is a variable two threads touch and the
# destroy one of its interesting events
"$F" dump d.ft | grep -q "mutex_destroy .*obj=0x[0-9a-f]*\[work\] .*destroy_race.c:30" ||
    fail "dump: no mutex_destroy event: $("$F" dump d.ft | grep -i destroy)"
"$F" explore -n 200 -q --json -o ex-surw -- ./destroy >exs.json
rc=$?
[ $rc = 1 ] || fail "explore (surw-sym): exit $rc, expected 1: $(cat exs.json)"
grep -q '"strategy":"surw-sym"' exs.json && grep -q '"failure":"misuse"' exs.json ||
    fail "explore (surw-sym): no misuse bug: $(cat exs.json)"
rj=$("$F" replay -q --json --schedule ex/bug-1.schedule -o rp.ft --timeout 10 -- ./destroy)
rrc=$?
case $rj in
*'"failure":"misuse"'*'"diverged":false'*) [ $rrc = 1 ] || fail "replay: exit $rrc, expected 1" ;;
*) fail "replay of the saved schedule: $rj" ;;
esac
# as text: every location line is file:line (or the program): kind: message
"$F" replay --schedule ex/bug-1.schedule -o rp2.ft --timeout 10 -- ./destroy \
    >/dev/null 2>rp.txt
grep -q "destroy_race.c:30: error: misuse: thread 0 destroys a mutex that thread 1 holds" rp.txt ||
    fail "replay text: $(cat rp.txt)"
if grep -v '^foretell replay: ' rp.txt | grep -qvE '^[^ (][^ ]*: (error|warning|note): '; then
    fail "replay text: a line that is not file:line: kind: message: $(cat rp.txt)"
fi
[ $fails = 0 ] || exit 1
echo "misuse: ok"
