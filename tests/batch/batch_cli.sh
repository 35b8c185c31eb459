#!/bin/sh
# SPDX-License-Identifier: MIT
# batch_cli.sh - `foretell batch analyze` and `report` end to end on
# recorded runs of the data/ programs: traces analyzed in parallel into a
# store whose keys and fingerprints Python recomputes from the documented
# rule; the same bug in several runs is one finding; a second run skips
# every trace (also under another name, or listed in an @LIST); damaged
# and foreign files are stored with their status; the reports (SARIF
# against the OASIS schema, baselines, JUnit, JSON lines, HTML swimlanes)
# read back with Python's parsers; exit codes and messages on bad input.
name=batch_cli
. "$(dirname "$0")/lib.sh"
# BEST's atomicity only: what this test checks of the store and the
# reports holds whatever the kind, and its expectations (which programs
# are correct, which bugs every run shows) are atomicity's; init_order, for
# one, has an order violation.  batch_kinds.sh runs the other kinds.
ATOM="--kinds atomicity"

traces t
"$FT" batch analyze $ATOM --store s.db -j 2 t 2>err.txt
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1 (findings): $(cat err.txt)"
grep -q "9/9 traces (0 skipped, 0 failed), .* findings in .* occurrences, .* traces/s \[done\]" err.txt ||
    fail "no final progress line: $(cat err.txt)"
$CHECK consistent s.db || fail "store inconsistent"
[ "$($CHECK count s.db 'SELECT count(*) FROM traces')" = 9 ] || fail "traces"
n=$($CHECK keys s.db) || fail "keys"
[ "$n" -gt 0 ] || fail "no occurrence to check"
# the same bug in three runs is one finding with three occurrences
for p in fig2 vb2; do
    c=$($CHECK count s.db "SELECT count(DISTINCT o.fingerprint) FROM occurrences o JOIN traces t ON t.hash = o.trace WHERE t.path LIKE '%/$p-s%'")
    o=$($CHECK count s.db "SELECT count(*) FROM occurrences o JOIN traces t ON t.hash = o.trace WHERE t.path LIKE '%/$p-s%'")
    [ "$c" -gt 0 ] && [ "$o" = $((3 * c)) ] ||
        fail "$p: $c findings, $o occurrences over 3 runs"
done
[ "$($CHECK count s.db "SELECT count(*) FROM traces WHERE path LIKE '%ok-%' AND findings = 0 AND exit_code = 0")" = 2 ] ||
    fail "correct programs got findings"
# the key names the source line's text, not its number
$CHECK count s.db "SELECT key FROM findings LIMIT 1" | grep -q "|#[0-9]" &&
    fail "key uses line numbers although the sources are here"
$CHECK dump s.db >first.dump || fail dump

# again: everything skipped, nothing changed, the same exit code
cp t/vb3.ftrace t/vb3-copy.ftrace
ls t/*.ftrace >list.txt
"$FT" batch analyze $ATOM --store s.db -j 2 @list.txt 2>err.txt
rc=$?
[ $rc = 1 ] || fail "second run: exit $rc"
grep -q "9/9 traces (9 skipped" err.txt || fail "not skipped: $(cat err.txt)"
$CHECK dump s.db >second.dump
cmp -s first.dump second.dump || fail "a second run changed the store"
rm t/vb3-copy.ftrace

# reports
"$FT" batch report --store s.db >text.txt
[ $? = 1 ] || fail "report: exit 1 expected with findings"
grep -q "^/.*best_fig2.c:[0-9]*: warning: atomicity: .*\[[0-9a-f]\{32\}; 3 traces" text.txt ||
    fail "text report: $(head -3 text.txt)"
"$FT" batch report --store s.db --sarif r.sarif --junit r.xml --html h \
    --json >r.jsonl
[ $? = 1 ] || fail "report with files: exit"
$CHECK sarif r.sarif "$HERE/sarif-schema-2.1.0.json" s.db || fail "SARIF"
$CHECK junit r.xml s.db || fail "JUnit"
$CHECK jsonl r.jsonl s.db || fail "JSON lines"
$CHECK html h/index.html s.db || fail "HTML"
ls r.sarif.tmp.* h/*.tmp.* 2>/dev/null && fail "temporary files left"

# baselines: against itself nothing is new (exit 0); a store with fewer
# traces has absent results against it, and the full store has new ones
"$FT" batch report --store s.db --baseline r.sarif --sarif same.sarif
[ $? = 0 ] || fail "baseline against itself: exit"
nf=$($CHECK count s.db "SELECT count(*) FROM findings")
$CHECK sarif same.sarif "$HERE/sarif-schema-2.1.0.json" s.db unchanged=$nf new=0 absent=0 ||
    fail "baseline states (same)"
"$FT" batch analyze $ATOM -q --store small.db t/vb2-s1.ftrace t/ok-init.ftrace
"$FT" batch report --store small.db --sarif small.sarif
"$FT" batch report --store small.db --baseline r.sarif --sarif cmp1.sarif
[ $? = 0 ] || fail "fewer findings than the baseline: exit"
ns=$($CHECK count small.db "SELECT count(*) FROM findings")
$CHECK sarif cmp1.sarif "$HERE/sarif-schema-2.1.0.json" small.db unchanged=$ns new=0 absent=$((nf - ns)) ||
    fail "baseline states (absent)"
"$FT" batch report --store s.db --baseline small.sarif --sarif cmp2.sarif --json >cmp2.jsonl
[ $? = 1 ] || fail "new findings against the baseline: exit"
$CHECK sarif cmp2.sarif "$HERE/sarif-schema-2.1.0.json" s.db unchanged=$ns new=$((nf - ns)) absent=0 ||
    fail "baseline states (new)"
[ "$(grep -c '"baseline":"new"' cmp2.jsonl)" = $((nf - ns)) ] || fail "JSON baseline"
# an absent result of that report is not carried into the next baseline
"$FT" batch report --store small.db --baseline cmp1.sarif --sarif cmp3.sarif
$CHECK sarif cmp3.sarif "$HERE/sarif-schema-2.1.0.json" small.db unchanged=$ns absent=0 ||
    fail "absent carried over"

# damaged and foreign files: stored with their status, the batch goes on
mkdir bad
# cut 30 bytes into the chunk after the HEADER, whose length (bytes 12-15)
# depends on the paths and libraries of the build
hlen=$(od -An -tu1 -j12 -N4 t/vb3.ftrace | awk '{print (($1 * 256 + $2) * 256 + $3) * 256 + $4}')
head -c $((16 + hlen + 5 + 30)) t/vb3.ftrace >bad/cut.ftrace
printf '\224\001 not really a trace' >bad/fake.ftrace
cp t/ok-init.ftrace bad/
"$FT" batch analyze $ATOM -q --store b.db bad 2>err.txt
rc=$?
[ $rc = 2 ] || fail "damaged/bad traces: exit $rc, expected 2: $(cat err.txt)"
[ "$($CHECK count b.db "SELECT group_concat(status, ',') FROM (SELECT status FROM traces ORDER BY path)")" = "damaged,bad,analyzed" ] ||
    fail "statuses: $($CHECK count b.db "SELECT group_concat(path || '=' || status) FROM traces")"
$CHECK count b.db "SELECT message FROM traces WHERE status = 'bad'" | grep -q "at byte" ||
    fail "no message for the bad trace"
"$FT" batch report --store b.db --junit b.xml >/dev/null
$CHECK junit b.xml b.db || fail "JUnit with errors"

# --time: nothing analyzed in time is undecided (5); a rerun completes
"$FT" batch analyze $ATOM --store tm.db --time 0.001 t 2>err.txt
rc=$?
[ $rc = 5 ] || fail "--time: exit $rc, expected 5 (undecided)"
grep -q "the time bound (--time) was reached: 9 traces not analyzed" err.txt ||
    fail "--time message: $(cat err.txt)"
"$FT" batch analyze $ATOM -q --store tm.db -j 2 t
same s.db tm.db "completed after --time"
# --trace-time: an analysis that stops answering (its worker stops itself:
# FT_BATCH_TEST_STALL, batch/run.c) is killed and its trace stored as
# timed out; the batch is undecided
FT_BATCH_TEST_STALL=vb3.ftrace "$FT" batch analyze $ATOM -q --store to.db \
    --trace-time 0.5 t/vb3.ftrace
rc=$?
st=$($CHECK count to.db "SELECT status FROM traces")
[ "$st" = timeout ] && [ $rc = 5 ] || fail "--trace-time: status $st, exit $rc"
$CHECK count to.db "SELECT message FROM traces" | grep -q "took more than 0.5 s (--trace-time)" ||
    fail "timeout message: $($CHECK count to.db "SELECT message FROM traces")"
"$FT" batch analyze $ATOM -q --store to.db t/vb3.ftrace
[ $? = 5 ] || fail "a timed-out trace is skipped without --retry"
"$FT" batch analyze $ATOM -q --retry --store to.db t/vb3.ftrace
[ $? = 1 ] || fail "--retry did not analyze the timed-out trace again"

# bad input: named, exit 2, nothing created
expect2() {
    what=$1
    shift
    "$@" >out.txt 2>err.txt
    rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, expected 2"
    [ -s err.txt ] || fail "$what: no message"
}
expect2 "missing trace" "$FT" batch analyze --store x.db t/nope.ftrace
grep -q "t/nope.ftrace: error: cannot read: No such file" err.txt || fail "message: $(cat err.txt)"
[ -e x.db ] && fail "a store was created for nothing"
mkfifo fifo
expect2 FIFO "$FT" batch analyze --store x.db fifo
grep -q "not a regular file" err.txt || fail "FIFO message: $(cat err.txt)"
expect2 "missing list" "$FT" batch analyze --store x.db @nolist
echo "notes" >notes.txt
expect2 "store not SQLite" "$FT" batch analyze --store notes.txt t
grep -q "notes.txt: error: not a foretell store" err.txt || fail "message: $(cat err.txt)"
expect2 "store a directory" "$FT" batch analyze --store t t/vb3.ftrace
expect2 "store in a missing directory" "$FT" batch analyze --store no/s.db t/vb3.ftrace
expect2 "shard" "$FT" batch analyze --shard 4/4 t
expect2 "jobs" "$FT" batch analyze -j 0 t
expect2 "kinds" "$FT" batch analyze --kinds atomicity,deadlok t
grep -q "unknown kind 'deadlok' (atomicity, deadlock," err.txt ||
    fail "--kinds message: $(cat err.txt)"
expect2 "option" "$FT" batch analyze --frobnicate t
expect2 "no traces" "$FT" batch analyze --store x.db
expect2 "confirm without program" "$FT" batch analyze --confirm t
expect2 "k8s index without count" env JOB_COMPLETION_INDEX=1 "$FT" batch analyze t
expect2 "report: no store" "$FT" batch report --store nope.db
expect2 "report: bad baseline" "$FT" batch report --store s.db --baseline notes.txt
expect2 "report: baseline not SARIF" sh -c "echo '{\"a\":1}' >j.json && '$FT' batch report --store s.db --baseline j.json"
expect2 "merge: shard not a store" "$FT" batch merge m.db notes.txt
[ -e m.db ] && fail "merge created its output before checking the shards"
expect2 "batch: no command" "$FT" batch frob
"$FT" batch report --store s.db --sarif /nonexistent/dir/r.sarif >/dev/null 2>err.txt
[ $? = 4 ] || fail "unwritable report: exit"
grep -q "/nonexistent/dir/r.sarif: error: cannot write" err.txt || fail "message: $(cat err.txt)"
exit 0
