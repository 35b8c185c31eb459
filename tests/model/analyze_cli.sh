#!/bin/sh
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
echo "analyze_cli: ok"
