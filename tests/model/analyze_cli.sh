#!/bin/sh
# SPDX-License-Identifier: MIT
# analyze_cli.sh FORETELL MKFIG2 TMPDIR - `foretell analyze` on the paper's
# figure-2 trace: the table IV/V figures in both output forms, the lists,
# and exit status 2 with a message naming the file on bad input.
set -u
foretell=$1 mkfig2=$2 dir=$3
mkdir -p "$dir"
trace=$dir/fig2.ftrace
fail() { echo "analyze_cli: $*" >&2; exit 1; }
"$mkfig2" "$trace" || fail "cannot write the trace"
out=$("$foretell" analyze --stats "$trace") || fail "exit status $?"
echo "$out" | grep -q '^threads (n) *2$' || fail "threads: $out"
echo "$out" | grep -q '^events (e) *19$' || fail "events: $out"
echo "$out" | grep -q '^global variables (g) *3$' || fail "globals: $out"
echo "$out" | grep -q 'after MAT (CXT)' || fail "no MAT row: $out"
json=$("$foretell" analyze --json --cxt --itrans --mats "$trace") || fail "json exit"
for key in '"threads":2' '"events":19' '"global_vars":3' '"cs_total":' \
    '"cs_lockset_hb":' '"cs_mat":' '"factor_merge":' '"cxt":\[' '"itrans":\['; do
    echo "$json" | grep -q "$key" || fail "json lacks $key: $json"
done
if command -v python3 >/dev/null; then
    echo "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["cs_mat"] < d["cs_lockset_hb"] < d["cs_total"]' \
        || fail "json does not parse or the reductions do not reduce"
fi
"$foretell" analyze "$dir/missing.ftrace" 2>"$dir/err"
[ $? -eq 2 ] || fail "missing file: want exit 2"
grep -q missing.ftrace "$dir/err" || fail "message does not name the file"
printf 'not a trace' >"$dir/bad.ftrace"
"$foretell" analyze "$dir/bad.ftrace" 2>"$dir/err"
[ $? -eq 2 ] || fail "bad file: want exit 2"
"$foretell" analyze 2>/dev/null
[ $? -eq 2 ] || fail "no argument: want exit 2"
# --time bounds the whole command: 4000 annotated regions (108 000
# properties of one code, every instance solved) are not all solved in 2 s;
# the rest are counted not solved,
# or (on a slow machine) the inference is stopped and says where.
awk 'BEGIN { for (t = 1; t <= 2; t++) for (i = 0; i < 2000; i++)
    printf "T%d|begin|10\nT%d|r(x)|11|%d\nT%d|w(x)|12|%d\nT%d|end|13\n",
           t, t, i, t, i + 1, t }' >"$dir/many.std"
json=$("$foretell" analyze --json -q --time 2 --every-instance -o "$dir/many" "$dir/many.std" \
       2>"$dir/many.err")
rc=$?
# a loaded machine may spend the 2 s and the watchdog's grace in the
# reduction, which does not poll: then the watchdog exits 5 naming it
# (its --json document says so: "stopped_in" and "error")
if [ $rc -eq 5 ] && grep -q "ran out in reduction" "$dir/many.err"; then
    echo "$json" | grep -q '"stopped_in":"reduction","error":"--time 2 s ran out in reduction' ||
        fail "--time: the watchdog's JSON: $json"
    json='{"violated":0,"predict_seconds":0,"stopped_in":"reduction"}'
fi
echo "$json" | grep -q '"not_solved":[1-9]\|"stopped_in":"' ||
    fail "--time: all solved"
# nothing found but not everything decided is 5, not the 0 of "clean";
# a violation of any kind (atomicity, or the other kinds') is 1
if echo "$json" | grep -q '"violated":0,' &&
   ! echo "$json" | grep -q '"kind_violated":[1-9]'; then
    [ $rc -eq 5 ] || fail "--time: exit $rc, want 5 (undecided)"
else
    [ $rc -eq 1 ] || fail "--time: exit $rc, want 1 (violations)"
fi
secs=$(echo "$json" | sed -n 's/.*"predict_seconds":\([0-9.]*\).*/\1/p')
awk -v s="$secs" 'BEGIN { exit !(s != "" && s < 15) }' ||
    fail "--time 2: prediction took $secs s"
# On a long trace the near properties are solved first: thread 1's 3000
# updates of x, then thread 2's; the only violations are at the switch
# (thread 1's last writes inside thread 2's first update).  112 000
# properties, of which the far ones come last: found within the bound.
awk 'BEGIN { v = 0; for (t = 1; t <= 2; t++) for (i = 0; i < 3000; i++) {
    printf "T%d|begin|10\nT%d|r(x)|11|%d\nT%d|w(x)|12|%d\nT%d|end|13\n",
           t, t, v, t, v + 1, t; v++ } }' >"$dir/seq.std"
json=$("$foretell" analyze --json -q --time 120 --stop-after 1 \
       -o "$dir/seq" "$dir/seq.std")
rc=$?
counts=$(echo "$json" | grep -o '"violated":[0-9]*,"holds":[0-9]*,"unknown":[0-9]*,"not_solved":[0-9]*')
[ $rc -eq 1 ] || fail "near first: exit $rc, want 1 (a violation): $counts"
echo "$counts" | grep -q '"violated":[1-9]' || fail "near first: none: $counts"
# A stage that does not stop in time (FORETELL_TEST_STALL stands in for
# one): the watchdog exits 5 within --time and its grace, and replaces an
# earlier run's report.json with its own, which says where it stopped.
mkdir -p "$dir/stall"
echo '{"findings":[{"kind":"stale"}]}' >"$dir/stall/report.json"
FORETELL_TEST_STALL=reduction "$foretell" analyze -q --time 1 \
    -o "$dir/stall" "$trace" 2>"$dir/stall.err"
rc=$?
[ $rc -eq 5 ] || fail "stalled: exit $rc, want 5: $(cat "$dir/stall.err")"
grep -q 'ran out in reduction' "$dir/stall.err" || fail "stalled: stderr"
grep -q '"stopped_in":"reduction"' "$dir/stall/report.json" &&
    ! grep -q stale "$dir/stall/report.json" ||
    fail "stalled: report.json: $(cat "$dir/stall/report.json")"
[ -z "$(ls "$dir/stall" | grep -v '^report.json$')" ] ||
    fail "stalled: left $(ls "$dir/stall")"
"$foretell" analyze --time x "$dir/many.std" 2>/dev/null
[ $? -eq 2 ] || fail "--time x: want exit 2"
echo "analyze_cli: ok"
