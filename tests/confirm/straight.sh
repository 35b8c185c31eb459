#!/bin/sh
# SPDX-License-Identifier: MIT
# straight.sh - how far a thread goes on after a violating read returned
# another value (docs/prediction.md, the data argument): the trace carries
# each site's straight-line span (STRAIGHT chunk), a witness in which a
# test-then-set reads the flag taken and sets it anyway is not predicted
# (the program would have tried again: every witness it gave replayed to
# a divergence), and the lost update beside it is, proved by replay.
# Program: tests/confirm/progs/test_then_set.c.
set -u
F=$FT_BIN/foretell
W=$FT_WORK
P=$(dirname "$0")/progs
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(straight): $*" >&2; fails=$((fails + 1)); }

"$FT_BIN/foretell-cc" -O1 -g -o tts "$P/test_then_set.c" ||
    { echo "FAIL(straight): cannot build the program" >&2; exit 1; }
# a passing run (the lost update needs a switch inside hits = hits + 1)
ok=0
for seed in 1 2 3 4 5 6 7 8; do
    if "$F" record -o t.ft --seed $seed -- ./tts >/dev/null 2>&1; then
        ok=1
        break
    fi
done
[ $ok = 1 ] || { echo "FAIL(straight): no passing run in 8" >&2; exit 1; }
"$F" analyze -q --json --confirm -o out t.ft -- ./tts >t.json 2>t.err
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1 (a proved bug): $(tail -3 t.err)"
python3 - t.json <<'PY' || fail "analyze --json: $(head -c 600 t.json)"
import json, sys
d = json.load(open(sys.argv[1]))
vs = d["violations"]
st = [(v["kind"], v["variables"], v["confirmation"]["status"]) for v in vs]
# no witness that does not replay
bad = [s for s in st if s[2] != "confirmed"]
assert not bad, ("unconfirmed witnesses", st)
# the lost update on hits, proved
assert any("hits" in s[1] and s[2] == "confirmed" for s in st), st
PY
exit $((fails > 0))
