#!/bin/sh
# SPDX-License-Identifier: MIT
# before_after.sh OLD_FORETELL NEW_FORETELL TRACE... - `foretell analyze`
# of two builds on the same traces, one after the other in the same run
# (issue 16): per trace, the whole command's wall time, its stages
# (inference: loading to properties; prediction: deciding, solving,
# trimming), the verdicts, and the per-property seconds (median, p90,
# max: the JSON's property_seconds, every property looked at, holds
# included; for a build before 2026-11-28 that has none, of the
# properties the JSON lists, violations and unknown ones), the instances
# left covered by a
# violated static property ("-" for a build without them, docs/
# prediction.md), then the ratio old/new of the
# whole command; then the other kinds' candidates (order, race, ...):
# how many, how many stayed unknown, and their seconds (kind_seconds).  TIME (default 120) is passed as
# --time to both, ARGS (default none, e.g. --no-confirm) too.  Not a
# test: prints a table and leaves nothing behind.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 OLD_FORETELL NEW_FORETELL TRACE..." >&2; exit 2; }
old=$1
new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
time=${TIME:-120}
printf 'trace\tbuild\twall_s\tinfer_s\tpredict_s\tprops\tviolated\tholds\tunknown\tcovered\tprop_med_s\tprop_p90_s\tprop_max_s\texit\tkinds\tkinds_unknown\tkind_med_s\tkind_p90_s\tkind_max_s\n'
for t in "$@"; do
    name=$(basename "$t")
    for b in old new; do
        eval bin=\$$b
        t0=$(date +%s.%N)
        rc=0
        # shellcheck disable=SC2086 # ARGS is a list of options
        "$bin" analyze --json -q --time "$time" ${ARGS:-} -o "$tmp/out" "$t" \
            >"$tmp/$b.json" 2>/dev/null || rc=$?
        t1=$(date +%s.%N)
        rm -rf "$tmp/out"
        python3 - "$tmp/$b.json" "$name" "$b" "$t0" "$t1" "$rc" <<'EOF'
import json, sys
path, name, build, t0, t1, rc = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception:
    d = {}
secs = sorted(p.get("seconds", 0) for k in ("violations", "unsolved")
              for p in d.get(k, []))
def q(f):
    return "%.3f" % secs[min(len(secs) - 1, int(f * len(secs)))] if secs else "-"
# a build that gives every property's seconds (holds included) says so
ps, ks = d.get("property_seconds"), d.get("kind_seconds")
def fig(x, k):
    return "%.3f" % x[k] if x and k in x else "-"
print("\t".join([name, build, "%.2f" % (float(t1) - float(t0)),
                 "%.2f" % d.get("infer_seconds", 0),
                 "%.2f" % d.get("predict_seconds", 0),
                 str(d.get("properties", "-")), str(d.get("violated", "-")),
                 str(d.get("holds", "-")), str(d.get("unknown", "-")),
                 str(d.get("covered", "-")),
                 fig(ps, "median") if ps else q(0.5),
                 fig(ps, "p90") if ps else q(0.9),
                 fig(ps, "max") if ps else ("%.3f" % secs[-1] if secs else "-"),
                 rc,
                 str(d.get("kind_candidates", "-")),
                 str(d.get("kind_unknown", "-")),
                 fig(ks, "median"), fig(ks, "p90"), fig(ks, "max")]))
EOF
    done
done
