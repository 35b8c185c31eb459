#!/bin/sh
# SPDX-License-Identifier: MIT
# confirm_examples.sh - every data/ atomicity-bug program that prediction
# covers (docs/prediction.md lists the three it cannot: pair_update,
# bank_transfer, account): record a run in which the bug did not happen,
# predict, replay every predicted schedule (analyze --confirm).  The
# violation must be confirmed on each, and on those marked "fail" one
# confirmed violation must make the program abort (directly, or with a
# random tail after the schedule, or before the schedule's end: reorder 4
# aborts right after the checker's violating reads).
set -u
F=$FT_BIN/foretell
W=$FT_WORK/examples
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fails=0
fail() { echo "FAIL(confirm_examples): $*" >&2; fails=$((fails + 1)); }

check() { # name expect stop-after prog [args]
    name=$1 expect=$2 stop=$3 prog=$4
    shift 4
    ok=
    for try in 1 2 3 4 5; do # the natural run must pass
        "$F" record -o "$name.ft" -- "$FT_INST/$prog" "$@" >/dev/null 2>&1 && ok=1 && break
    done
    [ "$ok" ] || { fail "$name: no passing run in 5 tries"; return; }
    "$F" analyze "$name.ft" -o "out-$name" --json -q --stop-after "$stop" \
        --confirm -- "$FT_INST/$prog" "$@" >"$name.json"
    rc=$?
    [ $rc = 1 ] || { fail "$name: analyze exit $rc, expected 1"; return; }
    python3 - "$name.json" "$expect" <<'PY' || fail "$name: expected $expect"
import json, sys
d = json.load(open(sys.argv[1]))
c = [v["confirmation"] for v in d["violations"]]
conf = [x for x in c if x["status"] in ("confirmed", "refined", "failed_early")]
assert conf, c
aborts = [x for x in conf if x["failure"] == "abort"]
if sys.argv[2] == "fail":
    assert aborts, c
else:
    assert not aborts, aborts
PY
}

check best_fig2 fail 0 best_fig2
check counter_rmw fail 2 counter_rmw
check vb_fig2 fail 0 vb_figures 2
check vb_fig3 fail 0 vb_figures 3
check vb_fig4 fail 0 vb_figures 4
check vb_fig9 fail 0 vb_figures 9
check vb_fig10 fail 0 vb_figures 10
check alloc_vector fail 0 alloc_vector
check reorder_4 fail 6 reorder 4
check config_swap fail 0 config_swap
[ $fails = 0 ] && echo "confirm_examples: ok"
exit $fails
