#!/bin/sh
# SPDX-License-Identifier: MIT
# time_bound.sh - `analyze --time S` bounds the whole command on a trace
# whose analysis cannot finish in S: the work queue of issue 16's shapes
# (bench/predict/shapes/workqueue.c, 1000 items, ~11,000 events: 967
# atomicity properties of one code, most of them for the solver when
# every instance is solved, --every-instance, and the other
# kinds' candidates, whose findings are replayed against the recorded
# program).  The command must return within S plus the solver's grace and
# a margin for a loaded machine, with a complete JSON document that says
# what it left undecided, the other kinds decided first (their cheap
# decisions need no solver), and no replay started after the bound.
set -u
F=$FT_BIN/foretell
W=$FT_WORK
S=${FT_SHAPES:?}
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(time_bound): $*" >&2; fails=$((fails + 1)); }
now() { date +%s.%N; }

"$FT_BIN/foretell-cc" -O1 -g -o wq "$S/workqueue.c" ||
    { echo "FAIL(time_bound): cannot build workqueue.c" >&2; exit 1; }
"$F" record -o wq.ft -- ./wq 1000 >/dev/null 2>&1 || fail "record wq"

for bound in 3 6; do
    t0=$(now)
    "$F" analyze --json -q --time $bound --every-instance -o out-$bound wq.ft \
        >wq-$bound.json 2>wq-$bound.err
    rc=$?
    t1=$(now)
    el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    # the solver thread is abandoned 2 s past the bound; 6 s more for a
    # loaded machine (or a sanitizer build) to write the report and exit
    awk -v e="$el" -v b="$bound" 'BEGIN { exit !(e <= b + 8) }' ||
        fail "--time $bound took $el s (more than $bound + 8)"
    case $rc in 1|5) ;; *) fail "--time $bound: exit $rc ($(head -3 wq-$bound.err))" ;; esac
    python3 - wq-$bound.json $bound <<'PY' || fail "--time $bound: the JSON does not say what was left"
import json, sys
d = json.load(open(sys.argv[1]))
# atomicity: the bound left properties unsolved, counted as such
assert d["properties"] > 900 and d["unknown"] > 0 and d["not_solved"] > 0, d
# the other kinds went first: their candidates were all made and most
# decided without the solver
assert d["kind_candidates"] > 0, d
assert d["kind_violated"] + d["kind_holds"] > 0, d
# a finding is replayed, or says the bound stopped it from being
for f in d["findings"]:
    c = f["confirmation"]
    assert c["status"] != "not_run" or "not replayed" in (c["refinement"] or "") \
        or "not finished" in (c["refinement"] or ""), c
PY
    echo "--time $bound: $el s, exit $rc"
done
[ $fails = 0 ] || exit 1
echo "time_bound: ok"
