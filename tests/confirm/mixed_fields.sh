#!/bin/sh
# SPDX-License-Identifier: MIT
# mixed_fields.sh - a load of two fields at once: the reader copies a
# status of two ints in one 8-byte load; the filler and the finisher set
# one field each.  From a passing run, analyze must predict the reader
# seeing the status finished and empty, and prove it by replay (the
# abort), which needs the model to cut the load into one read per field
# (docs/ctm.md, "Mixed-size accesses"): before, the load was a read of
# the first field alone and the finisher's write did not touch it.
# Program: tests/confirm/progs/mixed_fields.c.
NAME=mixed_fields
. "$(dirname "$0")/lib.sh"

build mf "$P/mixed_fields.c" -O1
record_passing mf.ft ./mf
"$F" dump mf.ft | grep -q ' read .*size=8 value=0x0 .*mixed_fields.c' ||
    fail "the recorded run has no 8-byte load of both fields at 0: $("$F" dump mf.ft | grep mixed_fields.c: | head -5)"
"$F" analyze --stats --json mf.ft | grep -q '"mixed_split":[1-9]' ||
    fail "--stats: no access split"
"$F" analyze -q --json -o out mf.ft >mf.json 2>mf.err
rc=$?
[ $rc = 1 ] || fail "analyze: exit $rc, expected 1: $(tail -3 mf.err)"
python3 - mf.json <<'PY' || fail "analyze --json: $(head -c 800 mf.json)"
import json, sys
d = json.load(open(sys.argv[1]))
bugs = [x for x in d["findings"] if x["kind"] == "order" and x["bug"]]
assert bugs, d["findings"]
c = bugs[0]["confirmation"]
assert c["failure"] == "abort", c
assert "st.done" in bugs[0]["message"], bugs[0]["message"]
PY
[ $fails = 0 ] && echo "mixed_fields: ok"
exit $fails
