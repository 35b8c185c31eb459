#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh [BUILD_DIR] - recording overhead of foretell against native and
# against libtsan (gcc -fsanitize=thread), same programs, same run.  Not a
# test: nothing is asserted, times are printed (docs/benchmarks.md).
#
# For each kernel (dense.c: access-dense, locks.c: lock-heavy, workq.c: a
# work queue feeding a locked hash table) it builds three binaries (gcc
# -O2: native, libtsan, foretell-cc) and times, as the median of RUNS runs:
#   native    the plain binary
#   tsan      the libtsan binary (race detection on)
#   pass      the foretell-cc binary run without recording (hooks only)
#   rt        the foretell-cc binary with FORETELL_TRACE set (the runtime
#             alone: record, serialise threads, write the trace)
#   rt0       the same with FORETELL_FLUSH_MS=0: without the watchdog's
#             timed flush of the open chunk (rt/rt0: what bounding the
#             events a SIGKILL loses costs)
#   record    `foretell record -o T -- prog` (what a user runs: rt plus the
#             command's own work before and after)
# and prints record/native, record/tsan, rt/tsan, events, trace bytes per
# event and events per second of `record`.  Then trace compression, in
# the same run: `record` and rt again with --no-compress
# (FORETELL_COMPRESS=0, format 3) against the default (zstd level 1 in the
# runtime's writer thread), their wall times, rt's CPU time (user+system,
# all threads: what compressing costs the machine), bytes per event and
# ratios, and the load average before and after.  Then the native
# binaries recorded through the LD_PRELOAD runtime (`record --backend
# preload`: synchronisation only) against native and against `record` of
# the foretell-cc build; then the native binaries recorded under Valgrind
# with foretell's tool (`record --backend valgrind`: every access)
# against native, `valgrind --tool=none`, libtsan and `record` of the
# foretell-cc build.  Last, dense_bound.c: the
# dense kernel's two threads encoding and writing their events at once,
# with no hooks at all (a lower bound for any recorder), against libtsan.
#
# Environment: RUNS (default 5), DENSE_ROUNDS (1000), LOCK_OPS (200000),
# WORKQ_ITEMS (100000), QUANTUM (unset: the runtime's default),
# TMPDIR (traces are written there and deleted).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-bench}
runs=${RUNS:-5}
here=$root/bench/recorder
case $runs in '' | *[!0-9]* | 0)
    echo "run.sh: RUNS must be a positive integer (got '$runs')" >&2
    exit 2 ;;
esac
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j2 --target foretell foretell_wrappers foretell_preload >/dev/null
cmake --build "$build" -j2 --target foretell_valgrind >/dev/null 2>&1 || true
for tool in gcc "$build/bin/foretell-cc" "$build/bin/foretell"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "run.sh: $tool not found" >&2
        exit 127
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ft-bench-rec.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
if [ -n "${QUANTUM:-}" ]; then
    export FORETELL_QUANTUM="$QUANTUM"
fi

# now_ns: monotonic-enough wall clock in nanoseconds.
now_ns() { date +%s%N; }

# median_ms CMD...: runs CMD $runs times (output discarded), prints the
# median wall time in milliseconds.  Before each run, untimed, the traces
# of earlier runs are deleted and dirty pages written back: truncating the
# previous 200 MB trace cost the next run 30-80 ms, and the write-back of
# earlier runs' traces throttled the next one (dense: 160 to 340 ms),
# both the file system's work, not this run's.
median_ms() {
    : >"$tmp/times"
    i=0
    while [ $i -lt "$runs" ]; do
        rm -f "$tmp"/*.ftrace
        sync
        t0=$(now_ns)
        if ! "$@" >/dev/null 2>"$tmp/err"; then
            echo "run.sh: failed: $*" >&2
            cat "$tmp/err" >&2
            exit 4
        fi
        t1=$(now_ns)
        echo $(((t1 - t0) / 1000)) >>"$tmp/times"
        i=$((i + 1))
    done
    sort -n "$tmp/times" | awk '{v[NR] = $1} END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%.1f\n", m / 1000 }'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
: >"$tmp/compress"
# median_cpu CMD...: as median_ms, but prints "WALL_MS CPU_MS", CPU the
# user+system time of CMD and its children (/usr/bin/time): on a loaded
# machine the wall time says more about the neighbours than about CMD.
median_cpu() {
    : >"$tmp/times"
    i=0
    while [ $i -lt "$runs" ]; do
        rm -f "$tmp"/*.ftrace
        sync
        if ! /usr/bin/time -f '%e %U %S' -o "$tmp/one" "$@" >/dev/null 2>"$tmp/err"; then
            echo "run.sh: failed: $*" >&2
            cat "$tmp/err" >&2
            exit 4
        fi
        tail -1 "$tmp/one" >>"$tmp/times"
        i=$((i + 1))
    done
    awk '{w[NR] = $1 * 1000; c[NR] = ($2 + $3) * 1000}
    function med(v, n,   i, j, t) {
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
                t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
            }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    END { printf "%.1f %.1f\n", med(w, NR), med(c, NR) }' "$tmp/times"
}
if [ ! -x /usr/bin/time ]; then
    echo "run.sh: /usr/bin/time not found (Debian package time)" >&2
    exit 127
fi

printf '%-6s %9s %9s %9s %9s %9s %9s %8s %8s %8s %7s %10s %6s %8s\n' kernel \
    native_ms tsan_ms pass_ms rt_ms rt0_ms record_ms rec/nat rec/tsan \
    rt/tsan rt/rt0 events B/ev Mev/s
for k in dense locks workq; do
    case $k in
    dense) args=${DENSE_ROUNDS:-1000} ;;
    locks) args=${LOCK_OPS:-200000} ;;
    workq) args=${WORKQ_ITEMS:-100000} ;;
    esac
    gcc -O2 -g -pthread -o "$tmp/$k.native" "$here/$k.c"
    gcc -O2 -g -fsanitize=thread -o "$tmp/$k.tsan" "$here/$k.c"
    "$build/bin/foretell-cc" -O2 -o "$tmp/$k.ft" "$here/$k.c"
    nat=$(median_ms "$tmp/$k.native" "$args")
    tsan=$(median_ms "$tmp/$k.tsan" "$args")
    [ "$k" = dense ] && dense_tsan=$tsan
    pass=$(env -u FORETELL_TRACE "$tmp/$k.ft" "$args" >/dev/null &&
        median_ms env -u FORETELL_TRACE "$tmp/$k.ft" "$args")
    rt=$(median_ms env FORETELL_TRACE="$tmp/$k.rt.ftrace" "$tmp/$k.ft" "$args")
    rt0=$(median_ms env FORETELL_FLUSH_MS=0 FORETELL_TRACE="$tmp/$k.rt.ftrace" \
        "$tmp/$k.ft" "$args")
    rm -f "$tmp/$k.rt.ftrace"
    rec=$(median_ms "$build/bin/foretell" record -o "$tmp/$k.ftrace" -- \
        "$tmp/$k.ft" "$args")
    # One more recording for the event count and size.
    "$build/bin/foretell" record -o "$tmp/$k.ftrace" -- "$tmp/$k.ft" \
        "$args" >/dev/null 2>"$tmp/rec.err"
    events=$(sed -n 's/.*: \([0-9][0-9]*\) events,.*/\1/p' "$tmp/rec.err")
    bytes=$(wc -c <"$tmp/$k.ftrace")
    rm -f "$tmp/$k.ftrace"
    # The runtime alone, compressed and not, with CPU times; then `record`
    # uncompressed (format 3).
    rtz=$(median_cpu env FORETELL_TRACE="$tmp/$k.rt.ftrace" "$tmp/$k.ft" "$args")
    rtnc=$(median_cpu env FORETELL_COMPRESS=0 FORETELL_TRACE="$tmp/$k.rt.ftrace" \
        "$tmp/$k.ft" "$args")
    rm -f "$tmp/$k.rt.ftrace"
    recnc=$(median_ms "$build/bin/foretell" record --no-compress \
        -o "$tmp/$k.ftrace" -- "$tmp/$k.ft" "$args")
    "$build/bin/foretell" record --no-compress -o "$tmp/$k.ftrace" -- \
        "$tmp/$k.ft" "$args" >/dev/null 2>"$tmp/rec.err"
    ncevents=$(sed -n 's/.*: \([0-9][0-9]*\) events,.*/\1/p' "$tmp/rec.err")
    ncbytes=$(wc -c <"$tmp/$k.ftrace")
    rm -f "$tmp/$k.ftrace"
    echo "$k $rtz $rtnc $rec $recnc ${events:-0} $bytes ${ncevents:-0} $ncbytes" \
        >>"$tmp/compress"
    echo "$k $args $nat $rec $tsan" >>"$tmp/native"
    awk -v k="$k" -v nat="$nat" -v tsan="$tsan" -v pass="$pass" -v rt="$rt" \
        -v rt0="$rt0" -v rec="$rec" -v ev="${events:-0}" -v by="$bytes" 'BEGIN {
        printf "%-6s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %8.1f %8.2f %8.2f %7.3f %10d %6.2f %8.2f\n",
            k, nat, tsan, pass, rt, rt0, rec, rec / nat, rec / tsan, rt / tsan,
            rt / rt0, ev, (ev ? by / ev : 0), ((rec > 0) ? ev / (rec * 1000) : 0) }'
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
# Programs not built with foretell-cc: the native binary recorded through
# the LD_PRELOAD runtime (synchronisation only, docs/recorder.md), against
# the native run and `record` of the foretell-cc build, same run.
: >"$tmp/preload"
while read -r k args nat rec tsan; do
    pre=$(median_ms "$build/bin/foretell" record --backend preload \
        -o "$tmp/$k.ftrace" -- "$tmp/$k.native" "$args")
    "$build/bin/foretell" record --backend preload -o "$tmp/$k.ftrace" -- \
        "$tmp/$k.native" "$args" >/dev/null 2>"$tmp/rec.err"
    pev=$(sed -n 's/.*: \([0-9][0-9]*\) events,.*/\1/p' "$tmp/rec.err")
    pby=$(wc -c <"$tmp/$k.ftrace")
    rm -f "$tmp/$k.ftrace"
    echo "$k $nat $pre $rec ${pev:-0} $pby" >>"$tmp/preload"
done <"$tmp/native"
echo
echo "LD_PRELOAD runtime (native binary, synchronisation only) against native"
echo "and against record of the foretell-cc build (same runs' medians):"
printf '%-6s %9s %9s %9s %8s %8s %10s %6s\n' kernel native_ms preload_ms \
    record_ms pre/nat pre/rec events B/ev
awk '{ printf "%-6s %9.1f %9.1f %9.1f %8.2f %8.3f %10d %6.2f\n", $1, $2, $3,
    $4, ($2 > 0 ? $3 / $2 : 0), ($4 > 0 ? $3 / $4 : 0), $5,
    ($5 ? $6 / $5 : 0) }' "$tmp/preload"
# The native binaries recorded under Valgrind with foretell's tool
# (`record --backend valgrind`: every access, docs/recorder.md), against
# native, Valgrind's own `none` tool (what Valgrind costs by itself),
# libtsan and `record` of the foretell-cc build, same run.  Skipped
# without valgrind or the tool.
if command -v valgrind >/dev/null 2>&1 &&
    [ -f "$build/lib/foretell-valgrind/foretell-amd64-linux" ]; then
    : >"$tmp/vg"
    while read -r k args nat rec tsan; do
        none=$(median_ms valgrind -q --tool=none "$tmp/$k.native" "$args")
        vg=$(median_ms "$build/bin/foretell" record --backend valgrind \
            -o "$tmp/$k.ftrace" -- "$tmp/$k.native" "$args")
        "$build/bin/foretell" record --backend valgrind -o "$tmp/$k.ftrace" \
            -- "$tmp/$k.native" "$args" >/dev/null 2>"$tmp/rec.err"
        vev=$(sed -n 's/.*: \([0-9][0-9]*\) events,.*/\1/p' "$tmp/rec.err")
        vby=$(wc -c <"$tmp/$k.ftrace")
        rm -f "$tmp/$k.ftrace"
        echo "$k $nat $none $tsan $rec $vg ${vev:-0} $vby" >>"$tmp/vg"
    done <"$tmp/native"
    echo
    echo "Valgrind recorder (native binary, every access) against native, valgrind"
    echo "--tool=none, libtsan and record of the foretell-cc build (same runs' medians):"
    printf '%-6s %9s %9s %9s %9s %9s %8s %8s %8s %8s %10s %6s\n' kernel \
        native_ms none_ms tsan_ms record_ms vgrec_ms vg/nat vg/none vg/tsan \
        vg/rec events B/ev
    awk '{ printf "%-6s %9.1f %9.1f %9.1f %9.1f %9.1f %8.1f %8.2f %8.2f %8.2f %10d %6.2f\n",
        $1, $2, $3, $4, $5, $6, ($2 > 0 ? $6 / $2 : 0), ($3 > 0 ? $6 / $3 : 0),
        ($4 > 0 ? $6 / $4 : 0), ($5 > 0 ? $6 / $5 : 0), $7, ($7 ? $8 / $7 : 0) }' \
        "$tmp/vg"
fi
echo
echo "trace compression (zstd level 1 in the writer thread, the default, against"
echo "--no-compress; same runs' medians):"
printf '%-6s %8s %8s %6s %8s %8s %6s %9s %9s %6s %7s %7s %7s\n' kernel \
    rt_ms rt_nc_ms rt/nc rt_cpu rt_nccpu cpu/nc record_ms rec_nc_ms rec/nc \
    B/ev B/ev_nc nc/zstd
awk '{
    bz = $8 ? $9 / $8 : 0; bp = $10 ? $11 / $10 : 0
    printf "%-6s %8.1f %8.1f %6.3f %8.1f %8.1f %6.3f %9.1f %9.1f %6.3f %7.2f %7.2f %7.2f\n",
        $1, $2, $4, ($4 > 0 ? $2 / $4 : 0), $3, $5, ($5 > 0 ? $3 / $5 : 0),
        $6, $7, ($7 > 0 ? $6 / $7 : 0), bz, bp, (bz > 0 ? bp / bz : 0) }' "$tmp/compress"
echo "load average (1, 5, 15 min): before $load_before, after $load_after;" \
    "$(nproc) cores"
echo
gcc -O2 -g -pthread -I"$root" -o "$tmp/dense_bound" "$here/dense_bound.c" \
    "$root/recorder/encode.c"
bound=$(median_ms "$tmp/dense_bound" "${DENSE_ROUNDS:-1000}" \
    "$tmp/bound.ftrace")
awk -v b="$bound" -v t="$dense_tsan" 'BEGIN {
    printf "dense_bound (two threads encode and write at once, no hooks): %.1f ms, %.2fx tsan\n",
        b, b / t }'
echo "runs per figure: $runs (median); quantum: ${FORETELL_QUANTUM:-default}"
