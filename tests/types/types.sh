#!/bin/sh
# SPDX-License-Identifier: MIT
# types.sh - the TYPES chunk (docs/trace-format.md): `foretell record`
# describes the globals the run touched and the heap structs its lines
# dereference, and dump and analyze name memory and print values as the
# program does: g.inner.count = -7, arr[3] = -42, colour = BLUE,
# pool->completed (a heap struct through `pool->`).  A trace without the
# chunk (an older foretell's) still prints as before: balance+8, 0x...
# Programs: tests/types/typed_vars.c, typed_class.cc (C++: members of
# *this named without `this->`).
set -u
F=$FT_BIN/foretell
W=$FT_WORK
P=$(dirname "$0")
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(types): $*" >&2; fails=$((fails + 1)); }

"$FT_BIN/foretell-cc" -O1 -g -o tv "$P/typed_vars.c" ||
    { echo "FAIL(types): cannot build the program" >&2; exit 1; }
"$F" record -o tv.ft -- ./tv >out.txt 2>err.txt ||
    { echo "FAIL(types): record: $(cat err.txt)" >&2; exit 1; }
"$F" dump tv.ft >d.txt 2>err.txt || fail "dump: $(cat err.txt)"
want() { grep -Eq -- "$1" d.txt || fail "dump: no line matching '$1'"; }
A='addr=0x[0-9a-f]+'
want " write +$A\[g\.tag\] size=1 value='Q' "
want " write +$A\[g\.inner\.count\] size=8 value=-7 "
want " write +$A\[g\.hist\[2\]\] size=2 value=300 "
want " write +$A\[ready\] size=1 value=true "
want " write +$A\[colour\] size=4 value=BLUE "
want " write +$A\[colour\] size=4 value=RED "
want " write +$A\[ratio\] size=8 value=2\.5 "
want " write +$A\[arr\[3\]\] size=8 value=-42 "
want " write +$A\[pool->submitted, [^]]*typed_vars\.c:[0-9]+#1\] size=8 value=4 "
want " write +$A\[pool->completed, [^]]*typed_vars\.c:[0-9]+#1\+8\] size=8 value=3 "
want " write +$A\[\(\(struct pool\*\)arg\)->load, [^]]*#1\+16\] size=8 value=0\.75 "

"$F" dump --json tv.ft >d.json 2>err.txt || fail "dump --json: $(cat err.txt)"
python3 - d.json <<'PY' || fail "dump --json: $(head -c 600 d.json)"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
by = {}
for e in evs:
    k = e.get("addr_variable") or e.get("addr_field")
    if k and e["kind"] == "write":
        by[k] = e
assert by["g.inner.count"]["value_text"] == "-7", by["g.inner.count"]
assert by["g.inner.count"]["value"] == "0xfffffffffffffff9", by["g.inner.count"]
assert by["arr[3]"]["value_text"] == "-42"
assert by["pool->completed"]["value_text"] == "3"
assert "typed_vars.c" in by["pool->completed"]["addr_object"]
assert by["ready"]["value_text"] == "true"
PY

# stats lists the shared variables by the same names
"$F" stats tv.ft >s.txt 2>err.txt || fail "stats: $(cat err.txt)"
for v in 'colour' 'pool->completed' 'arr\[3\]'; do
    grep -Eq "^  0x[0-9a-f]+ +[0-9]+ accesses  $v$" s.txt ||
        fail "stats: shared variable $v not named: $(grep accesses s.txt)"
done

# analyze names the racing members and prints the values by type
"$F" analyze -q --json -o out tv.ft >a.json 2>a.err
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "analyze: exit $rc: $(tail -3 a.err)"
python3 - a.json <<'PY' || fail "analyze --json: $(head -c 900 a.json)"
import json, re, sys
d = json.load(open(sys.argv[1]))
msgs = [f["message"] for f in d["findings"]]
objs = {e.get("object"): e for f in d["findings"] for e in f["events"]}
assert "pool->completed" in objs and "colour" in objs, sorted(objs)
assert objs["colour"]["value_text"] in ("RED", "BLUE"), objs["colour"]
order = [m for m in msgs if m.startswith("thread 0 reads colour")]
assert order and re.search(r"\((RED|BLUE)\) where the recorded run read "
                           r"(RED|BLUE)$", order[0]), msgs
vs = {v for x in d["violations"] for v in x["variables"]}
assert "pool->completed" in vs, vs
PY

"$F" analyze -q -o out-t tv.ft >a.txt 2>&1
grep -Eq "^  reads: thread 0 read colour = (RED|BLUE) at .*typed_vars\.c:[0-9]+; locks held: none$" a.txt ||
    fail "analyze: the read of colour without its value: $(grep -m2 'colour' a.txt)"
grep -Eq "^  (reads|writes|from): thread [01] (read|write) pool->completed = [03] at " a.txt ||
    fail "analyze: no access of pool->completed with its value: $(grep -m2 'completed' a.txt)"

# a trace without TYPES (written by an older foretell): the TYPES chunk's
# kind byte made unknown (readers skip unknown kinds), names and values
# as before
python3 - tv.ft old.ft <<'PY' || fail "cannot hide the TYPES chunk"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
off, hidden = 0, 0
while off + 16 <= len(b):
    assert b[off] == 0x94 and b[off + 2] == 0xcf and b[off + 11] == 0xc6
    n = int.from_bytes(b[off + 12:off + 16], "big")
    if b[off + 1] == 11:
        b[off + 1] = 63  # unknown, plain (64 and up mark compressed chunks)
        hidden += 1
    off += 16 + n + 5
assert hidden, "no TYPES chunk"
open(sys.argv[2], "wb").write(b)
PY
"$F" dump old.ft >o.txt 2>err.txt || fail "dump old: $(cat err.txt)"
grep -Eq " write +$A\[g\+16\] size=8 value=0xfffffffffffffff9 " o.txt ||
    fail "old trace: $(grep -m1 'g+16' o.txt)"
grep -Eq " write +$A\[arr\+24\] size=8 value=0xffffffffffffffd6 " o.txt ||
    fail "old trace: $(grep -m1 'arr+24' o.txt)"
grep -Eq " write +$A\[[^],]*typed_vars\.c:[0-9]+#1\+8\] size=8 value=0x3 " o.txt ||
    fail "old trace: $(grep -m1 '#1+8' o.txt)"
"$F" analyze -q -o out-o old.ft >o-a.txt 2>&1
grep -Eq "^  reads: thread 0 read colour at " o-a.txt ||
    fail "old trace: analyze: $(grep -m1 'read colour' o-a.txt)"
grep -q "heap@[^ ]*typed_vars\.c:[0-9]*#1+8" o-a.txt ||
    fail "old trace: the heap variable is not named by its allocation: $(grep -m1 'variables:' o-a.txt)"
grep -Eq "^  [a-z]+: thread [0-9]+ [a-z_]+ [^ ]+ = |variables: .*pool->" o-a.txt &&
    fail "old trace: typed text: $(grep -Em1 ' = |variables: .*pool->' o-a.txt)"

# C++: members of *this named bare in member functions
"$FT_BIN/foretell-c++" -O1 -g -o tc "$P/typed_class.cc" ||
    fail "cannot build typed_class.cc"
"$F" record -o tc.ft -- ./tc >out.txt 2>err.txt || fail "record tc: $(cat err.txt)"
"$F" dump tc.ft >c.txt 2>err.txt || fail "dump tc: $(cat err.txt)"
grep -Eq " write +$A\[this->hits, [^]]*typed_class\.cc:[0-9]+#1\] size=8 value=3 " c.txt ||
    fail "C++: no write of this->hits: $(grep typed_class.cc:.*#1 c.txt)"
grep -Eq " write +$A\[this->level, [^]]*#1\+8\] size=4 value=-3 " c.txt ||
    fail "C++: no write of this->level: $(grep typed_class.cc:.*#1 c.txt)"

[ $fails = 0 ] && echo "types: ok"
exit $fails
