#!/bin/sh
# SPDX-License-Identifier: MIT
# slurm.sh - the batch on a real job array: starts a one-node Slurm
# cluster on this machine (Debian's slurm-wlm, authenticated by its own
# munged; private configuration, key, sockets, ports and state under the
# work directory, so it touches nothing of the system's), submits the
# job script of docs/batch.md with `sbatch --array=0-3` over a directory
# of traces, waits for the four tasks, merges their stores and compares
# the result with one unsharded run.  Everything it started is stopped at
# its end, whatever happens.  Needs root and the packages (setup.sh
# installs them); without them it says why and is skipped (exit 77).
# Bounded: every Slurm client call runs under timeout(1), the node has
# 60 s to come up and the job array 150 s to finish (CTest's 300 s
# timeout is never what stops it), and a failure prints the daemons' logs.
name=batch_slurm
. "$(dirname "$0")/lib.sh"

skip() { echo "SKIP($name): $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "not root: slurmd and munged must start as root"
for b in munged slurmctld slurmd sbatch sinfo squeue scancel timeout; do
    command -v "$b" >/dev/null 2>&1 ||
        [ -x "/usr/sbin/$b" ] || skip "$b not installed (scripts/setup.sh installs slurm-wlm and munge)"
done
PATH=$PATH:/usr/sbin

S=$work/slurm
mkdir -p "$S/state" "$S/spool" "$S/log"
chmod 700 "$S"
pids=""
cleanup() {
    [ -s "$S/job" ] &&
        SLURM_CONF=$S/slurm.conf timeout 10 scancel "$(cat "$S/job")" 2>/dev/null
    for p in $pids; do kill "$p" 2>/dev/null; done
    sleep 0.5
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    true
}
trap cleanup EXIT INT TERM

# munge: a key of our own, a private socket
dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge.key"
munged --force --foreground --socket="$S/munge.sock" \
    --key-file="$S/munge.key" --pid-file="$S/munged.pid" \
    --seed-file="$S/munged.seed" --log-file="$S/log/munged.log" \
    >"$S/log/munged.out" 2>&1 &
pids="$pids $!"

# ports from the pid, so that two runs of this test do not meet
base=$((20000 + ($$ % 4000) * 2))
host=$(hostname -s)
cpus=$(nproc)
cat >"$S/slurm.conf" <<CONF
ClusterName=ft$$
SlurmctldHost=$host
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge.sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=5
MaxArraySize=100
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=ft Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$S/slurm.conf
i=0
until [ -S "$S/munge.sock" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$S/munge.sock" ] || fail "munged did not start: $(cat "$S/log/munged.log")"
slurmctld -D -i -f "$S/slurm.conf" >"$S/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$S/slurm.conf" -N "$host" >"$S/log/slurmd.out" 2>&1 &
pids="$pids $!"
logs() { tail -5 "$S/log/slurmctld.log" "$S/log/slurmd.log" "$S/log/slurmctld.out" "$S/log/slurmd.out" 2>&1; }
up() { timeout 10 sinfo -h -o %T 2>/dev/null | grep -q idle; }
end=$(($(date +%s) + 60))
until up || [ "$(date +%s)" -ge $end ]; do sleep 0.2; done
up ||
    fail "the node did not come up in 60 s: $(logs)"

fast_traces t
# the job script of docs/batch.md (one CPU per task here, and
# --stop-after 1 to keep the test short)
cat >job.sh <<JOB
#!/bin/sh
#SBATCH --job-name=foretell-batch
#SBATCH --cpus-per-task=1
#SBATCH --output=$work/task-%a.out
"$FT" batch analyze -j "\$SLURM_CPUS_PER_TASK" --trace-time 600 --stop-after 1 \\
    --store "$work/shard-\$SLURM_ARRAY_TASK_ID.db" "$work/t"
rc=\$?
[ \$rc -le 1 ]
JOB
# sbatch --wait polls until the array ends; timeout bounds it (a job left
# pending, a node gone down); the job id it printed on submission is kept
# so that cleanup cancels what is left
timeout 150 sbatch --parsable --array=0-3 --wait job.sh >"$S/job.out" 2>"$S/job.err"
rc=$?
head -1 "$S/job.out" | cut -d';' -f1 >"$S/job"
[ $rc != 124 ] || fail "the job array did not end in 150 s: $(timeout 10 squeue 2>&1; logs)"
[ $rc = 0 ] || fail "sbatch --wait: exit $rc: $(cat "$S/job.err" task-*.out 2>&1 | tail -20)"
for i in 0 1 2 3; do
    [ -s shard-$i.db ] || fail "task $i wrote no store: $(cat task-$i.out)"
    grep -q "shard $i/4 (from SLURM_ARRAY_TASK_ID=$i)" task-$i.out ||
        fail "task $i did not take its shard from Slurm: $(cat task-$i.out)"
done
"$FT" batch merge -q merged.db shard-0.db shard-1.db shard-2.db shard-3.db ||
    fail "merge"
"$FT" batch analyze -q --store one.db --stop-after 1 "$work/t"
[ $? = 1 ] || fail "unsharded run"
same one.db merged.db "the four Slurm tasks merged against one run"
exit 0
