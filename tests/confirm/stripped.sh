#!/bin/sh
# SPDX-License-Identifier: MIT
# stripped.sh - findings on a program stripped of symbols and line
# information: each access is named by its module and offset and its
# machine instruction (capstone, the trace's INSN entries), each variable
# by its module and offset (not its address in the run), in the text
# report and the JSON, and two unrelated races stay two findings (they
# were one, "?:0" and "?:0", when sites without a file all looked alike).
# Program: tests/confirm/progs/two_races.c.
NAME=stripped
. "$(dirname "$0")/lib.sh"
build tr "$P/two_races.c" -O0
strip tr || { echo "FAIL(stripped): strip failed" >&2; exit 1; }
"$F" record -o tr.ft -- ./tr >/dev/null 2>&1 ||
    { echo "FAIL(stripped): the recording failed" >&2; exit 1; }
"$F" analyze -q --json --no-confirm --kinds data-race -o out tr.ft \
    >tr.json 2>tr.err
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1: $(tail -3 tr.err)"
python3 - tr.json <<'PY' || fail "analyze --json: $(head -c 1500 tr.json)"
import json, re, sys
d = json.load(open(sys.argv[1]))
races = [f for f in d["findings"] if f["kind"] == "data-race"]
assert len(races) == 2, ("want the races on a and b apart", races)
assert len({f["fingerprint"] for f in races}) == 2, races
for f in races:
    for s in f["sites"]:
        assert re.fullmatch(r"tr\+0x[0-9a-f]+", s), s
    for e in f["events"]:
        assert re.match(r"mov ", e.get("instruction", "")), e
        # the variable: no symbol, so where it is in the module
        assert re.fullmatch(r"tr\+0x[0-9a-f]+", e.get("object", "")), e
PY
"$F" analyze -q --no-confirm --kinds data-race -o out-text tr.ft >tr.txt 2>&1
grep -q '^    tr+0x[0-9a-f]* | mov .*dword ptr \[rip' tr.txt ||
    fail "text: no instruction line: $(head -8 tr.txt)"
[ $fails = 0 ] && echo "stripped: ok"
exit $fails
