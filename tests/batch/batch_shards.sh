#!/bin/sh
# SPDX-License-Identifier: MIT
# batch_shards.sh - job arrays: four shards (chosen by --shard, by
# Slurm's SLURM_ARRAY_TASK_* with a MIN and a STEP, and by Kubernetes'
# JOB_COMPLETION_INDEX with --shard-count) analyze disjoint traces that
# cover the directory; merged, they equal one unsharded run; merging again
# (or merging a store that already has everything) changes nothing; a
# shard re-run alone finds the same traces.
name=batch_shards
. "$(dirname "$0")/lib.sh"

fast_traces t
run() { "$FT" batch analyze -q --stop-after 1 -j 2 "$@"; }
run --store all.db t
[ $? = 1 ] || fail "unsharded run"
run --store s0.db --shard 0/4 t
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 run --store s1.db t
JOB_COMPLETION_INDEX=2 run --store s2.db --shard-count 4 t
SLURM_ARRAY_TASK_ID=10 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_STEP=2 \
    SLURM_ARRAY_TASK_COUNT=4 run --store s3.db t
total=0
for i in 0 1 2 3; do
    [ -e s$i.db ] || fail "shard $i wrote no store"
    n=$($CHECK count s$i.db "SELECT count(*) FROM traces")
    total=$((total + n))
done
[ $total = 7 ] || fail "the shards analyzed $total traces, not 7"
"$FT" batch merge -q m.db s0.db s1.db s2.db s3.db || fail "merge"
same all.db m.db "merged shards against the unsharded run"
"$FT" batch merge m.db s2.db s0.db 2>err.txt || fail "merge again"
grep -q "s2.db: 0 traces, 0 findings, 0 occurrences added" err.txt ||
    fail "merging again added: $(cat err.txt)"
"$FT" batch merge -q m.db all.db || fail "merge a store that is all there"
same all.db m.db "after merging again"
# in another order, into a store that had one shard already
cp s3.db m2.db
"$FT" batch merge -q m2.db s1.db s3.db s0.db s2.db || fail "merge, order 2"
same all.db m2.db "merged in another order"
# a shard re-run: skipped where it was, the same from scratch
cp s1.db s1-again.db
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 run --store s1-again.db t
same s1.db s1-again.db "shard 1 re-run on its store"
SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 run --store s1-fresh.db t
same s1.db s1-fresh.db "shard 1 re-run from scratch"
# a task id outside its array is an error, not a silent empty shard
SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=4 run --store x.db t 2>err.txt
[ $? = 2 ] || fail "bad SLURM_ARRAY_TASK_ID accepted"
grep -q "is not a task of the array" err.txt || fail "message: $(cat err.txt)"
exit 0
