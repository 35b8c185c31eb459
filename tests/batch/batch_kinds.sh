#!/bin/sh
# SPDX-License-Identifier: MIT
# batch_kinds.sh - `foretell batch` and the property kinds besides
# atomicity (predict/kind.h): two recorded runs each of data/ programs
# with a deadlock, a use after free, a null dereference and a data race
# are analyzed into a store that holds each bug as a finding of its kind,
# with the same fingerprint in both runs and the same store from a second
# analysis; `batch analyze --confirm` and `batch confirm` prove them by
# replay as `analyze` does (a deadlock by the runtime's deadlock, a heap
# error by the heap oracle; a reordering counts only when the program
# fails); the reports (SARIF against the OASIS schema with a rule per
# kind, JUnit, JSON lines, HTML) show them.
name=batch_kinds
. "$(dirname "$0")/lib.sh"

# program -> the kind its bug is
progs="abba_deadlock:deadlock uaf_handoff:use-after-free null_deref:null-deref data_race:data-race"
mkdir t
for s in 1 2; do
    for pk in $progs; do
        p=${pk%%:*}
        rec "t/$p-s$s.ftrace" $s 20000 "$FT_INST/$p"
    done
done
# the kinds of these bugs (atomicity is batch_cli's; data_race's
# atomicity properties alone take seconds)
K="--kinds deadlock,use-after-free,null-deref,data-race"
"$FT" batch analyze -q -j 2 $K --store s.db t 2>err.txt
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1 (findings): $(cat err.txt)"
$CHECK consistent s.db || fail "store inconsistent"
$CHECK keys s.db >/dev/null || fail "keys"
fps() { # fps TRACE KIND: the fingerprints of that kind in that trace
    $CHECK count s.db "SELECT coalesce(group_concat(fingerprint), '') FROM (SELECT o.fingerprint FROM occurrences o JOIN traces t ON t.hash = o.trace JOIN findings f USING(fingerprint) WHERE t.path = 't/$1.ftrace' AND f.kind = '$2' ORDER BY 1)"
}
for pk in $progs; do
    p=${pk%%:*} k=${pk#*:}
    f1=$(fps $p-s1 $k)
    [ -n "$f1" ] || fail "$p: no $k finding"
    [ "$f1" = "$(fps $p-s2 $k)" ] ||
        fail "$p: $k fingerprints differ between two runs: $f1 / $(fps $p-s2 $k)"
done
# the events are the kind's, every one a key with its source line
[ "$($CHECK count s.db "SELECT count(*) FROM events e JOIN findings f USING(fingerprint) WHERE f.kind = 'deadlock' AND e.role IN ('holds', 'waits') AND e.key = 1 AND e.text IS NOT NULL")" -ge 4 ] ||
    fail "deadlock events: $($CHECK count s.db "SELECT group_concat(role) FROM events")"
[ "$($CHECK count s.db "SELECT count(*) FROM events e JOIN findings f USING(fingerprint) WHERE f.kind = 'use-after-free' AND e.role = 'frees'")" -ge 1 ] ||
    fail "use-after-free events"
# the write a null dereference's read took its value from is an event of
# the finding, not of its key (another witness may read another write)
[ "$($CHECK count s.db "SELECT count(*) FROM events e JOIN findings f USING(fingerprint) WHERE f.kind = 'null-deref' AND e.role = 'from' AND e.key = 0")" -ge 1 ] &&
    [ "$($CHECK count s.db "SELECT count(*) FROM events e WHERE e.role = 'from' AND e.key = 1")" = 0 ] ||
    fail "'from' events: $($CHECK count s.db "SELECT group_concat(role || '=' || key) FROM events e JOIN findings f USING(fingerprint) WHERE f.kind = 'null-deref'")"
# the witness is the schedule analyze writes, its kind line set
$CHECK count s.db "SELECT witness FROM occurrences o JOIN findings f USING(fingerprint) WHERE f.kind = 'deadlock' LIMIT 1" |
    grep -q "^kind: deadlock" || fail "witness without its kind"
# a second analysis: the same store
"$FT" batch analyze -q -j 2 $K --store again.db t
same s.db again.db "a second analysis of the same traces"
# --kinds atomicity: none of these
"$FT" batch analyze -q --kinds atomicity --store atom.db t/abba_deadlock-s1.ftrace
[ "$($CHECK count atom.db "SELECT count(*) FROM findings WHERE kind NOT LIKE 'atomicity%'")" = 0 ] ||
    fail "--kinds atomicity stored other kinds"

# --confirm: replayed while analyzing, for what each kind expects
I=$FT_INST
"$FT" batch analyze -q $K --store c.db --confirm --tails 4 \
    t/abba_deadlock-s1.ftrace -- "$I/abba_deadlock"
[ $? = 1 ] || fail "analyze --confirm: exit"
[ "$($CHECK count c.db "SELECT count(*) FROM findings WHERE kind = 'deadlock' AND confirm_status = 'confirmed' AND confirm_failure = 'deadlock'")" = 1 ] ||
    fail "deadlock not confirmed: $($CHECK count c.db "SELECT group_concat(kind || '=' || confirm_status || '/' || coalesce(confirm_failure, '-')) FROM findings")"
"$FT" batch analyze -q $K --store c.db --confirm --tails 4 \
    t/uaf_handoff-s1.ftrace -- "$I/uaf_handoff"
[ "$($CHECK count c.db "SELECT count(*) FROM findings WHERE kind = 'use-after-free' AND confirm_status IN ('confirmed', 'failed_early') AND confirm_failure = 'use-after-free'")" = 1 ] ||
    fail "use after free not confirmed"

# batch confirm: every finding replayed from the recorded command
"$FT" batch confirm --store s.db --tails 4 2>err.txt
[ $? = 1 ] || fail "batch confirm: exit: $(cat err.txt)"
for pk in abba_deadlock:deadlock:deadlock uaf_handoff:use-after-free:use-after-free null_deref:null-deref:null-deref; do
    k=${pk#*:} f=${pk##*:}
    k=${k%%:*}
    [ "$($CHECK count s.db "SELECT count(*) FROM findings WHERE kind = '$k' AND confirm_status IN ('confirmed', 'failed_early') AND confirm_failure = '$f'")" -ge 1 ] ||
        fail "$k not confirmed by batch confirm: $(cat err.txt)"
done
# data_race fails in the other order only (analyze's .alt.schedule):
# batch confirm replays that order too
[ "$($CHECK count s.db "SELECT count(*) FROM findings WHERE kind = 'data-race' AND confirm_status = 'confirmed' AND confirm_failure = 'exit'")" -ge 1 ] ||
    fail "the race's other order not replayed: $($CHECK count s.db "SELECT group_concat(confirm_status || '/' || coalesce(confirm_failure, '-')) FROM findings WHERE kind = 'data-race'")"
# as analyze counts them: a reordering is a bug only when the program
# fails; a deadlock only when the run deadlocks
[ "$($CHECK count s.db "SELECT count(*) FROM findings WHERE kind IN ('order', 'null-deref', 'data-race') AND confirm_status IN ('confirmed', 'refined', 'failed_early') AND confirm_failure IS NULL")" = 0 ] ||
    fail "a reordering without a failure counted as confirmed"
[ "$($CHECK count s.db "SELECT count(*) FROM findings WHERE kind = 'deadlock' AND confirm_status IN ('confirmed', 'failed_early') AND confirm_failure <> 'deadlock'")" = 0 ] ||
    fail "a deadlock confirmed by another failure"

# reports: a rule per kind, each finding with its kind
"$FT" batch report --store s.db --sarif r.sarif --junit r.xml --html h \
    --json >r.jsonl
[ $? = 1 ] || fail "report: exit"
$CHECK sarif r.sarif "$HERE/sarif-schema-2.1.0.json" s.db || fail "SARIF"
$CHECK junit r.xml s.db || fail "JUnit"
$CHECK jsonl r.jsonl s.db || fail "JSON lines"
$CHECK html h/index.html s.db || fail "HTML"
for r in deadlock:Deadlock use-after-free:UseAfterFree null-deref:NullDereference data-race:DataRace; do
    grep -q "\"id\":\"${r%%:*}\",\"name\":\"${r#*:}\"" r.sarif ||
        fail "SARIF: no rule ${r#*:}"
    grep -q "\"kind\":\"${r%%:*}\"" r.jsonl || fail "JSON lines: no ${r%%:*}"
    grep -q "id=\"kind-${r%%:*}\"" h/index.html || fail "HTML: no ${r%%:*}"
done
grep -q "A concurrency bug of kind" r.sarif && fail "SARIF: a rule without its description"
"$FT" batch report --store s.db >text.txt
grep -q "abba_deadlock.c:[0-9]*: error: deadlock: deadlock predicted: thread" text.txt ||
    fail "text report: $(cat text.txt)"
exit 0
