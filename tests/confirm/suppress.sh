#!/bin/sh
# SPDX-License-Identifier: MIT
# suppress.sh - suppressions files (docs/user-guide.md, "Suppressions")
# as a user runs them: analyze leaves out what a rule covers by
# function, file, line range and kind (text, JSON, exit codes, the notes
# naming the rules used, nothing replayed or written for them),
# $FORETELL_SUPPRESSIONS, explore goes on past a suppressed failure to the
# next one, batch analyze stores none and batch report leaves them out;
# bad files are refused with FILE:LINE and exit 2 before any work.
set -u
F=$FT_BIN/foretell
W=$FT_WORK
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(suppress): $*" >&2; fails=$((fails + 1)); }

"$F" record -o fig2.ft -- "$FT_INST/best_fig2" >/dev/null 2>&1 ||
    fail "record best_fig2"

# --- analyze ------------------------------------------------------------
"$F" analyze -q --no-confirm -o out0 fig2.ft >a0.txt 2>a0.err
[ $? = 1 ] || fail "analyze without rules: expected exit 1"
grep -q "warning: data race predicted" a0.txt || fail "no data race at all"
grep -q "warning: deadlock predicted" a0.txt || fail "no deadlock at all"
grep -q "atomicity violation predicted" a0.txt || fail "no atomicity at all"

# by function (atomicity covers CA and CMA), by file:line, by kind alias
cat >s1.supp <<'EOF'
# fig2's regions are meant to race
atomicity:^thread_ma$
atomicity:^thread_mb$
race:best_fig2.c:52
EOF
"$F" analyze --no-confirm -o out1 --suppressions s1.supp fig2.ft >a1.txt 2>a1.err
[ $? = 1 ] || fail "analyze s1: expected exit 1 (deadlock is left)"
grep -q "atomicity violation" a1.txt && fail "s1: atomicity still reported"
grep -q "data race predicted.*best_fig2.c:52" a1.txt &&
    fail "s1: the race at line 52 still reported"
grep -q "data race predicted.*best_fig2.c:51" a1.txt ||
    fail "s1: the race at line 51 went too"
grep -q "warning: deadlock predicted" a1.txt || fail "s1: the deadlock went"
grep -q "; 4 suppressed;" a1.txt || fail "s1: summary: $(tail -1 a1.txt)"
grep -qxF 's1.supp:2: note: suppressed 3 findings: atomicity:^thread_ma$' a1.err ||
    fail "s1: no note for line 2: $(cat a1.err)"
grep -q "^s1.supp:4: note: suppressed 1 finding: data-race:best_fig2.c:52" a1.err ||
    fail "s1: no note for line 4: $(cat a1.err)"
ls out1 | grep -q "^ca-" && fail "s1: a schedule was written for a suppressed one"
ls out1 | grep -q "^deadlock-" || fail "s1: the deadlock's schedule is missing"
# -q: no notes
"$F" analyze -q --no-confirm -o out1 --suppressions s1.supp fig2.ft >/dev/null 2>a1q.err
[ -s a1q.err ] && fail "-q printed: $(cat a1q.err)"

# everything in the file, from the environment: exit 0, JSON counts
printf '*:best_fig2.c\n' >all.supp
FORETELL_SUPPRESSIONS=all.supp "$F" analyze -q --no-confirm --json -o out2 fig2.ft >a2.json 2>a2.err
rc=$?
[ $rc = 0 ] || fail "all suppressed: exit $rc, expected 0 ($(cat a2.err))"
python3 - a2.json <<'EOF' || fail "JSON: suppressed count"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["suppressed"] >= 8, d["suppressed"]
assert d["violated"] == 0 and d["kind_violated"] == 0, d
assert d["violations"] == [] and d["findings"] == [], d
EOF
# the option wins over the environment
FORETELL_SUPPRESSIONS=all.supp "$F" analyze -q --no-confirm -o out3 --suppressions s1.supp fig2.ft >a3.txt 2>&1
grep -q "warning: deadlock predicted" a3.txt || fail "--suppressions did not win over the environment"

# with replays: a suppressed finding is not replayed
"$F" analyze -q --confirm -o out4 --suppressions s1.supp fig2.ft -- "$FT_INST/best_fig2" >a4.txt 2>&1
ls out4 | grep -q "^ca-.*replay" && fail "a suppressed finding was replayed"
grep -q "error: deadlock confirmed by replay" a4.txt || fail "the deadlock was not confirmed: $(cat a4.txt)"

# bad files: FILE:LINE: error, exit 2, before any analysis
printf 'race:ok\nracee:x\n' >bad1.supp
"$F" analyze -q --no-confirm -o outb --suppressions bad1.supp fig2.ft >b1.txt 2>b1.err
rc=$?
[ $rc = 2 ] || fail "unknown kind: exit $rc"
grep -q "^bad1.supp:2: error: unknown kind 'racee'" b1.err || fail "unknown kind: $(cat b1.err)"
[ -d outb ] && fail "a bad suppressions file still analyzed"
printf 'update_stats\n' >bad2.supp
"$F" analyze -q --no-confirm --suppressions bad2.supp fig2.ft 2>b2.err >/dev/null
[ $? = 2 ] || fail "no kind: exit not 2"
grep -q "^bad2.supp:1: error: expected KIND:PATTERN" b2.err || fail "no kind: $(cat b2.err)"
"$F" analyze -q --no-confirm --suppressions missing.supp fig2.ft 2>b3.err >/dev/null
[ $? = 2 ] || fail "missing file: exit not 2"
grep -q "missing.supp" b3.err || fail "missing file: $(cat b3.err)"
mkfifo fifo.supp
timeout 20 "$F" analyze -q --no-confirm --suppressions fifo.supp fig2.ft 2>b4.err >/dev/null
rc=$?
[ $rc = 2 ] || fail "FIFO: exit $rc ($(cat b4.err))"
FORETELL_SUPPRESSIONS=bad1.supp "$F" analyze -q --no-confirm fig2.ft 2>b5.err >/dev/null
[ $? = 2 ] || fail "a bad file from the environment was not refused"

# --- explore ------------------------------------------------------------
"$F" explore -q --strategy random --seed 1 --all --budget 150 -o ex0 -- "$FT_INST/best_fig2" >e0.txt 2>&1
grep -q "error: abort" e0.txt || fail "explore: no abort without rules: $(tail -3 e0.txt)"
# the deadlocks (every one has main waiting in its join) are known: the
# exploration goes on to the assertion
printf 'deadlock:^main$\n' >e.supp
"$F" explore --strategy random --seed 1 --budget 150 -o ex1 --suppressions e.supp -- "$FT_INST/best_fig2" >e1.txt 2>e1.err
rc=$?
[ $rc = 1 ] || fail "explore with deadlocks suppressed: exit $rc ($(tail -2 e1.txt))"
grep -q "error: deadlock" e1.txt && fail "explore: a suppressed deadlock was reported"
grep -q "error: abort" e1.txt || fail "explore: did not go on to the abort: $(cat e1.txt)"
grep -q "suppressed (" e1.txt || fail "explore: summary lacks the suppressed count"
grep -q '^e.supp:1: note: suppressed [0-9]* findings*: deadlock:^main[$]$' e1.err ||
    fail "explore: no note: $(cat e1.err)"
n=$(ls ex1 | grep -c "\.ftrace$")
[ "$n" = 1 ] || fail "explore: $n saved traces, expected the abort's only"
# everything suppressed: nothing saved, exit 0, JSON counts
"$F" explore -q --json --strategy random --seed 1 --budget 60 -o ex2 --suppressions all.supp -- "$FT_INST/best_fig2" >e2.json 2>&1
rc=$?
[ $rc = 0 ] || fail "explore all suppressed: exit $rc"
[ -d ex2 ] && [ -n "$(ls ex2)" ] && fail "explore saved a suppressed failure"
python3 -c "import json,sys; d=json.load(open('e2.json')); assert d['suppressed']>=2 and d['suppressed_runs']>=d['suppressed'] and not d['bugs'], d" ||
    fail "explore JSON: $(cat e2.json)"
"$F" explore -q --budget 5 --suppressions bad1.supp -- "$FT_INST/best_fig2" >/dev/null 2>e3.err
[ $? = 2 ] || fail "explore: bad file not refused"

# --- batch ----------------------------------------------------------------
mkdir traces && cp fig2.ft traces/
"$F" batch analyze -q --store all.db traces >/dev/null 2>&1
"$F" batch report --store all.db >r0.txt 2>&1
[ $? = 1 ] || fail "batch report: expected exit 1"
"$F" batch report --store all.db --suppressions s1.supp >r1.txt 2>r1.err
[ $? = 1 ] || fail "batch report s1: expected exit 1"
grep -q "atomicity" r1.txt && fail "batch report s1: atomicity listed"
grep -q "deadlock" r1.txt || fail "batch report s1: the deadlock went"
grep -q "s1.supp:2: note: suppressed" r1.err || fail "batch report: no note: $(cat r1.err)"
n0=$(grep -c "warning\|error" r0.txt) n1=$(grep -c "warning\|error" r1.txt)
[ "$n1" -lt "$n0" ] || fail "batch report: $n1 findings of $n0"
"$F" batch report --store all.db --suppressions all.supp --sarif all.sarif >/dev/null 2>&1
[ $? = 0 ] || fail "batch report all suppressed: expected exit 0"
python3 -c "import json; d=json.load(open('all.sarif')); assert d['runs'][0]['results']==[], d['runs'][0]['results']" ||
    fail "SARIF lists suppressed results"
"$F" batch report --store all.db --suppressions all.supp --html html >/dev/null 2>&1
grep -q "<b>0 findings</b> in 0 occurrences" html/index.html ||
    fail "the HTML totals count suppressed findings: $(grep -o '<b>[0-9]* findings</b>[^.]*' html/index.html)"
"$F" batch analyze -q --store s1.db --suppressions s1.supp traces >/dev/null 2>&1
"$F" batch report --store s1.db >r2.txt 2>&1
grep -q "atomicity" r2.txt && fail "batch analyze stored suppressed findings"
grep -q "deadlock" r2.txt || fail "batch analyze s1: the deadlock is not stored"
"$F" batch analyze -q --store x.db --suppressions bad2.supp traces >/dev/null 2>b6.err
[ $? = 2 ] || fail "batch analyze: bad file not refused"
[ -e x.db ] && fail "batch analyze made a store before refusing the file"

[ $fails = 0 ] && echo "suppress: ok"
exit $fails
