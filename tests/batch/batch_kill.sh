#!/bin/sh
# SPDX-License-Identifier: MIT
# batch_kill.sh - a batch killed at any point leaves a store that a rerun
# completes, with nothing lost or counted twice: the store of an
# uninterrupted run is compared with one built by runs killed (SIGKILL)
# at SQLite's 1st, 2nd, ... write or sync of the run (kill_at.c, preloaded:
# before and after journal and database writes, inside and between
# transactions, the schema's included), and by runs killed from outside
# at moments while traces are being analyzed.  After every kill the store
# passes SQLite's integrity check and its references and counts agree.
name=batch_kill
. "$(dirname "$0")/lib.sh"
[ -r "$FT_KILL_AT_LIB" ] || fail "no kill_at library ($FT_KILL_AT_LIB)"

# runs that analyze fast: each killed run analyzes its traces in flight
# again
fast_traces t
N=7
# (atomicity only: the other kinds take a second a trace, and the runs
# here are many)
run() { "$FT" batch analyze -q --kinds atomicity --stop-after 1 -j 2 t "$@"; }
run --store ref.db
[ $? = 1 ] || fail "reference run"

# killed inside SQLite, at the k-th write or sync of each run: the first
# runs die creating the schema (13 writes here), the next ones at every
# point of their first transactions, until a run makes fewer writes than
# k and completes.  How many writes a transaction takes depends on the
# filesystem (its sector size sets the journal's), so the loop runs until
# that happens (bounded), not a fixed count.
k=0 kills=0 partial=0
while [ $k -lt 300 ]; do
    k=$((k + 1))
    LD_PRELOAD=$FT_KILL_AT_LIB FT_KILL_AT=$k \
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
        run --store s.db 2>err.txt
    rc=$?
    [ $rc = 137 ] || break
    kills=$((kills + 1))
    $CHECK consistent s.db || fail "after a kill at write $k"
    n=$($CHECK count s.db "SELECT count(*) FROM traces")
    [ "$n" -gt 0 ] && [ "$n" -lt $N ] && partial=$((partial + 1))
done
[ $rc = 137 ] && { run --store s.db 2>err.txt; rc=$?; }
[ $rc = 1 ] || fail "the run after the kills: exit $rc: $(cat err.txt)"
[ $kills -ge 20 ] && [ $partial -ge 2 ] ||
    fail "only $kills kills ($partial with a partial store): proves little"
echo "$kills kills inside SQLite, $partial with a partial store"
same ref.db s.db "after $kills kills inside SQLite"

# killed from outside while traces are analyzed
rm -f s2.db
for d in 0.3 1; do
    run --store s2.db 2>/dev/null &
    pid=$!
    sleep $d
    kill -9 $pid 2>/dev/null
    wait $pid
    [ -e s2.db ] && { $CHECK consistent s2.db || fail "after kill -9 at $d s"; }
done
run --store s2.db
[ $? = 1 ] || fail "the rerun after kill -9"
same ref.db s2.db "after kill -9 from outside"
# no analysis was left running by the killed batches
sleep 0.5
pgrep -f "foretell batch analyze -q --stop-after 1 -j 2 t --store s2.db" >/dev/null &&
    fail "analysis processes outlived their batch"
exit 0
