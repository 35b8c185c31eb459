#!/bin/sh
# SPDX-License-Identifier: MIT
# memory.sh OLD_FORETELL NEW_FORETELL TRACE... - peak memory of
# `foretell analyze TRACE -j 2 --json` for two builds in the same run
# (issue 16's target: under 200 bytes per event at 10^6 events).  Per
# trace, RUNS (default 3) runs of each build, alternating old and new so
# that both see the same machine, each under /usr/bin/time; prints the
# medians of wall time and peak RSS (%M, KiB), bytes per event (peak RSS
# in KiB x 1000 / events, as docs/prediction.md's tables have it; the
# last column is the same with x 1024), and whether the JSON verdicts of
# the two builds agree (the JSON without its *_seconds fields).  TIME
# (default 300) is passed as --time to both, ARGS (default none, e.g.
# --no-confirm) too.  Not a test: prints a table and leaves nothing
# behind.  Needs /usr/bin/time (Debian package time).
set -eu
[ $# -ge 3 ] || { echo "usage: $0 OLD_FORETELL NEW_FORETELL TRACE..." >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
old=$1
new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
time=${TIME:-300}
runs=${RUNS:-3}
printf 'trace\tevents\tbuild\truns\twall_s\tpeak_rss_kb\tbytes_per_event\tbytes_per_event_1024\tsame_json\n'
for t in "$@"; do
    name=$(basename "$t")
    events=$("$new" stats --json "$t" 2>/dev/null |
             python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
    : >"$tmp/old.runs"
    : >"$tmp/new.runs"
    i=0
    while [ "$i" -lt "$runs" ]; do
        for b in old new; do
            eval bin=\$$b
            rc=0
            # shellcheck disable=SC2086
            /usr/bin/time -o "$tmp/time" -f '%e %M' \
                "$bin" analyze "$t" -j 2 --json -q --time "$time" \
                ${ARGS:-} -o "$tmp/out" >"$tmp/$b.json" 2>/dev/null || rc=$?
            rm -rf "$tmp/out"
            # exit 1 (found) and 5 (stopped) are answers, not failures
            tail -n 1 "$tmp/time" | sed "s/\$/ $rc/" >>"$tmp/$b.runs"
        done
        i=$((i + 1))
    done
    python3 - "$tmp" "$name" "$events" <<'EOF'
import json, statistics, sys
tmp, name, events = sys.argv[1], sys.argv[2], int(sys.argv[3])
def verdicts(b):
    try:
        d = json.load(open("%s/%s.json" % (tmp, b)))
    except Exception:
        return None
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if "seconds" not in k}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    return strip(d)
same = "yes" if verdicts("old") == verdicts("new") else "NO"
for b in ("old", "new"):
    rows = [l.split() for l in open("%s/%s.runs" % (tmp, b)) if l.strip()]
    wall = statistics.median(float(r[0]) for r in rows)
    rss = statistics.median(int(r[1]) for r in rows)
    rcs = ",".join(sorted(set(r[2] for r in rows)))
    print("\t".join([name, str(events), b + " (exit " + rcs + ")",
                     str(len(rows)), "%.2f" % wall, str(rss),
                     "%.0f" % (rss * 1000 / events),
                     "%.0f" % (rss * 1024 / events), same]))
EOF
done
