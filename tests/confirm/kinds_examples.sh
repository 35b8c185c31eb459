#!/bin/sh
# SPDX-License-Identifier: MIT
# kinds_examples.sh - the property kinds beyond atomicity (predict/kind.h)
# on data/ programs: record a run in which the bug did not happen, analyze
# it (findings are replayed by default with the recorded program), and
# require the finding of the program's kind, proved by replay (the JSON
# "findings" entry with "bug": true); the correct programs give no bug of
# any kind.  A row: NAME KIND PROG [ARGS].
set -u
F=$FT_BIN/foretell
W=$FT_WORK
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(kinds_examples): $*" >&2; fails=$((fails + 1)); }

record() { # name prog [args]: a passing run into name.ft
    name=$1
    shift
    for try in 1 2 3 4 5; do
        "$F" record -o "$name.ft" -- "$@" >/dev/null 2>&1 && return 0
    done
    fail "$name: no passing run in 5 tries"
    return 1
}

bug() { # name kind prog [args]
    name=$1 kind=$2
    shift 2
    record "$name" "$FT_INST/$@" || return
    "$F" analyze "$name.ft" -o "out-$name" --json -q --kinds "$kind" \
        >"$name.json" 2>"$name.err"
    rc=$?
    [ $rc = 1 ] || { fail "$name: analyze exit $rc, expected 1 ($(head -3 "$name.err"))"; return; }
    python3 - "$name.json" "$kind" <<'PY' || fail "$name: no $kind proved by replay"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == sys.argv[2]]
assert any(x["bug"] for x in f), f
for x in f:
    assert len(x["fingerprint"]) == 16 and x["sites"] and x["events"], x
    assert all(e["stack"] and e["site"] for e in x["events"]), x["events"]
PY
}

clean() { # name prog [args]: no bug of any kind
    name=$1
    shift
    record "$name" "$FT_INST/$@" || return
    # --time: the order and null properties of a correct program may each
    # take the solver long; unknowns are no bugs
    "$F" analyze "$name.ft" -o "out-$name" --json -q --time 20 \
        >"$name.json" 2>"$name.err"
    rc=$?
    [ $rc = 0 ] || fail "$name: analyze exit $rc, expected 0"
    python3 - "$name.json" <<'PY' || fail "$name: a finding on a correct program"
import json, sys
d = json.load(open(sys.argv[1]))
assert not [x for x in d["findings"] if x["bug"]], d["findings"]
assert d["kind_bugs"] == 0
PY
}

bug abba_deadlock deadlock abba_deadlock
bug rpro_d1 deadlock rpro_d1
bug rpro_d2 deadlock rpro_d2
bug philosophers deadlock philosophers
bug missed_signal lost-wakeup missed_signal
bug lost_wakeup lost-wakeup lost_wakeup
bug init_order order init_order
bug vb_fig1 order vb_figures 1
bug double_free order double_free
bug uaf_handoff use-after-free uaf_handoff
bug null_deref null-deref null_deref
bug data_race data-race data_race
# as text: each event of a finding with the source line under it, as
# compilers print it
"$F" analyze abba_deadlock.ft -o out-text -q --no-confirm --kinds deadlock \
    >abba.txt 2>&1
grep -qE '^ +[0-9]+ \| .*pthread_mutex_lock\(' abba.txt ||
    fail "abba_deadlock: no source line under the events: $(head -8 abba.txt)"

clean correct_locked correct_locked
clean correct_atomics correct_atomics
clean prodcons_sem prodcons_sem
clean barrier_phases barrier_phases
[ $fails = 0 ] && echo "kinds_examples: ok"
exit $fails
