#!/bin/sh
# SPDX-License-Identifier: MIT
# null_checked.sh - a null dereference is proved only by a crash: a worker
# that checks the pointer another thread clears cannot dereference it, and
# the replay of the null candidate's witness ends in the program's own
# exit status (its check saw the null), which analyze must not report as a
# null dereference confirmed; the race behind it is proved.  (data/
# null_deref, which does crash, is kinds_examples.sh's.)
# Program: tests/confirm/progs/null_checked.c.
NAME=null_checked
. "$(dirname "$0")/lib.sh"

build nc "$P/null_checked.c" -O1
record_passing nc.ft ./nc
"$F" analyze -q --json -o out nc.ft >nc.json 2>nc.err
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1 (the race): $(tail -3 nc.err)"
python3 - nc.json <<'PY' || fail "analyze --json: $(head -c 800 nc.json)"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
null = [x for x in f if x["kind"] == "null-deref"]
assert null, ("no null-dereference candidate was predicted", f)
for x in null:
    c = x["confirmation"]
    assert not x["bug"] and c["status"] == "not_reproduced", x
    assert c["failure"] == "exit", c
assert any(x["bug"] for x in f if x["kind"] != "null-deref"), f
PY
"$F" analyze -o out-text nc.ft >nc.txt 2>&1
grep -q "note: null dereference not reproduced: the replay followed the schedule and ended with exit" nc.txt ||
    fail "text: no note that the null dereference was not reproduced: $(grep null nc.txt | head -3)"
[ $fails = 0 ] && echo "null_checked: ok"
exit $fails
