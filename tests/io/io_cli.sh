#!/bin/bash
# SPDX-License-Identifier: MIT
# io_cli.sh - what foretell does to the files it writes and the programs
# it runs, when things go wrong (issue 15, data loss and write errors):
#   outputs   an existing trace survives a typo in the program's name or
#             an uninstrumented program; `record -o prog -- prog` keeps the
#             program; a FIFO, a device, a directory are refused; the same
#             for replay -o and explore -o (checked before any run);
#             stdout on /dev/full is exit 4; stats prints exit codes and
#             signal names.
#   full      on a full file system (a small tmpfs): record, replay -o,
#             analyze -o, symbolize say so (path, strerror) and exit 4,
#             leave no empty schedule and no damaged trace; symbolize on a
#             read-only file system exits 4; explore saves a bug to
#             another file system than TMPDIR (EXDEV).
#   kill      a hung program killed with SIGKILL leaves its events (the
#             runtime's timed flush); killing foretell record, replay or
#             explore with SIGKILL kills the program.
#   flush     the timed flush at every tick keeps traces whole and
#             replays exact (17 threads switching at every key point);
#   exec      events before execve are in the trace, which ends "exec";
#             an instrumented image exec'd with the same FORETELL_TRACE
#             does not truncate it.
#   compress  a run recorded compressed (format 4: by the writer thread,
#             the default, and inline) and with --no-compress (format 3)
#             dumps the same events; a flipped
#             byte or a cut inside a compressed chunk keeps the chunks
#             before it (exit 2, the byte named); a bad FORETELL_COMPRESS
#             is ignored with a warning.
# Usage: io_cli.sh BIN_DIR INST_DIR WORK PART.  Exit 77 (skipped) for
# `full` when a tmpfs cannot be mounted (not root, no mount namespace).
set -u
BIN=$1 INST=$2 WORK=$3 PART=$4
F=$BIN/foretell
CC=$BIN/foretell-cc
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# expect CODE PATTERN CMD...: exit status CODE and output matching PATTERN.
expect() {
    local code=$1 pat=$2; shift 2
    timeout 60 "$@" > out.txt 2>&1
    local rc=$?
    if [ $rc -ne "$code" ]; then fail "'$*' exited $rc, expected $code: $(tail -3 out.txt | tr '\n' ' ')"; return 1; fi
    if ! grep -Eq -- "$pat" out.txt; then fail "'$*': no /$pat/ in: $(head -5 out.txt | tr '\n' ' ')"; return 1; fi
    echo "ok: $* -> $rc"
}
same() { cmp -s "$1" "$2" || fail "$1 changed ($3)"; }
# events TRACE: how many events foretell reads in it.
events() { "$F" stats --json "$1" 2>/dev/null | sed -n 's/.*"events":\([0-9]*\).*/\1/p'; }
# dead PID: the process is gone or a zombie.
dead() { ! [ -d "/proc/$1" ] || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
# child_of PID: its first child's pid (waits up to 20 s for one: replay
# reads the recorded trace first, slow on a loaded machine).
child_of() {
    local i c
    for i in $(seq 200); do
        c=$(cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . | head -1)
        [ -n "$c" ] && { echo "$c"; return; }
        sleep 0.1
    done
}
# A program: a thread created and joined, then what argv[1] says.
cat > prog.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int g;
static volatile int v;
static void *run(void *p) { (void)p; for (int i = 0; i < 50; i++) g += i; return 0; }
int main(int argc, char **argv)
{
    pthread_t t;
    pthread_create(&t, 0, run, 0);
    pthread_join(t, 0);
    const char *what = argc > 1 ? argv[1] : "exit";
    if (!strcmp(what, "pause"))        /* hangs outside any hook */
        for (;;)
            pause();
    if (!strcmp(what, "spin"))         /* hangs inside hooks */
        for (;;)
            __atomic_fetch_add(&g, 1, __ATOMIC_RELAXED);
    if (!strcmp(what, "abort"))
        abort();
    if (!strcmp(what, "many"))         /* a large trace */
        for (int i = 0; i < 200000; i++)
            v = v + i;
    if (!strcmp(what, "exec")) {
        execl("/bin/true", "true", (char *)0);
        return 9;
    }
    if (!strcmp(what, "reexec")) {
        /* The environment the process started with, FORETELL_TRACE
         * included: as a program that saved it would pass it on. */
        static char buf[1 << 16], *env[512];
        FILE *f = fopen("/proc/self/environ", "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0, k = 0;
        for (size_t i = 0; i < n && k < 511; i += strlen(buf + i) + 1)
            env[k++] = buf + i;
        char *args[] = {argv[0], "many", 0};
        execve("/proc/self/exe", args, env);
        return 9;
    }
    return atoi(what);
}
C
"$CC" -O1 -o prog prog.c || { echo "FAIL: cannot build prog"; exit 1; }

# chunks FILE: "offset kind seq length" of every intact chunk frame.
chunks() {
    python3 - "$1" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
off = 0
while off + 16 <= len(d) and d[off] == 0x94:
    n = int.from_bytes(d[off + 12:off + 16], 'big')
    if off + 21 + n > len(d):
        break
    print(off, d[off + 1], int.from_bytes(d[off + 3:off + 11], 'big'), n)
    off += 21 + n
PY
}
# version FILE: the format version its HEADER names.
version() {
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); i = d.index(b"\xa7version") + 8; print(d[i])' "$1"
}

case $PART in
compress)
    cat > many.c <<'C'
#include <pthread.h>
#include <stdlib.h>
static int a[4096];
static void *run(void *p)
{
    long n = (long)p;
    for (long i = 0; i < n; i++)
        a[i % 4096] += (int)i;
    return 0;
}
int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, run, (void *)n);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], 0);
    return 0;
}
C
    "$CC" -O1 -o many many.c || { echo "FAIL: cannot build many"; exit 1; }
    # The same environment's size in both runs (FORETELL_COMPRESS=1 and the
    # =0 that --no-compress sets) and no ASLR when setarch can turn it
    # off: then both runs have the same addresses in the program's image
    # (0x55...).  Not in mmap'd memory (0x7f...): the compressing runtime
    # maps its zstd context first, and the thread stacks come after it.
    norand=
    setarch "$(uname -m)" -R true 2>/dev/null && norand="setarch $(uname -m) -R"
    # The writer thread writes a chunk plain while it is behind, so which
    # chunks it compresses depends on timing: z.ftrace is written without
    # it (FORETELL_RT_WRITER=0), compressing every chunk that shrinks;
    # d.ftrace the default way.  No watchdog: a steal (a thread descheduled
    # for 200 ms on a loaded machine) would change the interleaving.
    expect 0 "exit 0" env FORETELL_WATCHDOG_MS=0 FORETELL_RT_WRITER=0 FORETELL_COMPRESS=1 $norand "$F" record -o z.ftrace -- ./many 200000
    expect 0 "exit 0" env FORETELL_WATCHDOG_MS=0 FORETELL_RT_WRITER=0 FORETELL_COMPRESS=1 $norand "$F" record --no-compress -o p.ftrace -- ./many 200000
    expect 0 "exit 0" env FORETELL_WATCHDOG_MS=0 FORETELL_RT_WRITER=1 FORETELL_COMPRESS=1 $norand "$F" record -o d.ftrace -- ./many 200000
    [ "$(version d.ftrace)" = 4 ] || fail "default trace: version $(version d.ftrace), not 4"
    [ "$(version z.ftrace)" = 4 ] || fail "compressed trace: version $(version z.ftrace), not 4"
    [ "$(version p.ftrace)" = 3 ] || fail "--no-compress trace: version $(version p.ftrace), not 3"
    nz=$(chunks z.ftrace | awk '$2 == 66' | wc -l)
    np=$(chunks p.ftrace | awk '$2 >= 64' | wc -l)
    [ "$nz" -ge 3 ] || fail "compressed trace: $nz compressed EVENTS chunks"
    [ "$np" = 0 ] || fail "--no-compress trace: $np compressed chunks"
    zb=$(wc -c < z.ftrace) pb=$(wc -c < p.ftrace)
    [ $((zb * 3)) -lt "$pb" ] || fail "compressed $zb bytes, plain $pb"
    strip() { if [ -n "$norand" ]; then sed 's/0x7f[0-9a-f]*/MMAP/g'; else sed 's/0x[0-9a-f]*//g'; fi; }
    "$F" dump z.ftrace | strip > z.txt
    "$F" dump p.ftrace | strip > p.txt
    "$F" dump d.ftrace | strip > d.txt
    cmp -s d.txt p.txt || fail "default and plain traces dump differently: $(diff d.txt p.txt | head -3 | tr '\n' ' ')"
    [ "$(wc -l < z.txt)" -ge 800000 ] || fail "only $(wc -l < z.txt) events dumped"
    cmp -s z.txt p.txt || fail "compressed and plain traces dump differently: $(diff z.txt p.txt | head -3 | tr '\n' ' ')"
    echo "ok: $(wc -l < z.txt) events dump the same; $zb bytes compressed, $pb plain"
    # damage in the second compressed EVENTS chunk
    set -- $(chunks z.ftrace | awk '$2 == 66' | sed -n 2p)
    at=$1 n=$4
    head -c "$at" z.ftrace > before.ftrace
    before=$(events before.ftrace)
    [ "${before:-0}" -gt 0 ] || fail "no events before the second compressed chunk"
    cp z.ftrace flip.ftrace
    pos=$((at + 16 + n / 2))
    printf '\377' | dd of=flip.ftrace bs=1 seek=$pos conv=notrunc 2>/dev/null
    cmp -s flip.ftrace z.ftrace && { printf '\0' | dd of=flip.ftrace bs=1 seek=$pos conv=notrunc 2>/dev/null; }
    expect 2 "recovered $before events; stopped at byte $at: CRC mismatch in compressed EVENTS chunk at byte $at" "$F" dump flip.ftrace
    [ "$(grep -c '^ *[0-9]* t[0-9]' out.txt)" = "$before" ] || fail "dump of flip.ftrace printed $(grep -c '^ *[0-9]* t[0-9]' out.txt) events, not $before"
    head -c $((at + 16 + n / 2)) z.ftrace > cut.ftrace
    expect 2 "recovered $before events; stopped at byte $at: truncated chunk" "$F" dump cut.ftrace
    expect 2 "recovered $before events; stopped at byte $at" "$F" stats cut.ftrace
    # a bad level: a warning, and the default
    expect 0 "ignoring FORETELL_COMPRESS=fast" env FORETELL_COMPRESS=fast "$F" record -o w.ftrace -- ./many 10
    [ "$(version w.ftrace)" = 4 ] || fail "FORETELL_COMPRESS=fast: not the default"
    ;;
outputs)
    "$F" record -o keep.ftrace -- ./prog 3 >/dev/null 2>&1
    cp keep.ftrace keep.orig
    expect 127 "no such file" "$F" record -o keep.ftrace -- ./prog_typo
    same keep.ftrace keep.orig "record of a missing program"
    expect 2 "not built with foretell-cc" "$F" record -o keep.ftrace -- /bin/true
    same keep.ftrace keep.orig "record of an uninstrumented program"
    cp prog prog.orig
    expect 2 "prog: exists and is not a foretell trace" "$F" record -o prog -- ./prog
    same prog prog.orig "record -o prog -- prog"
    mkfifo fifo
    expect 2 "fifo: is a FIFO" "$F" record -o fifo -- ./prog
    [ -p fifo ] || fail "the FIFO was removed"
    expect 2 "is a directory" "$F" record -o . -- ./prog
    if mknod chardev c 1 3 2>/dev/null; then
        expect 2 "chardev: is a character device" "$F" record -o chardev -- ./prog
        [ -c chardev ] || fail "the device node was removed"
    fi
    # a new recording replaces the old one, whole; no temporary file left
    expect 0 "exit 0" "$F" record -o keep.ftrace -- ./prog 0
    ! cmp -s keep.ftrace keep.orig || fail "the new trace did not replace the old"
    [ -z "$(ls -A | grep '^\.')" ] || fail "temporary files left: $(ls -A | grep '^\.')"
    # statuses as people say them, in text and JSON
    "$F" record -o st.ftrace -- ./prog 3 >/dev/null 2>&1
    expect 0 "^ended: +exit 3$" "$F" stats st.ftrace
    expect 0 '"status":"exit 3","exit_code":3' "$F" stats --json st.ftrace
    "$F" record -o ab.ftrace -- ./prog abort >/dev/null 2>&1
    expect 0 "^ended: +signal 6 \(SIGABRT\)$" "$F" stats ab.ftrace
    expect 0 '"signal":6,"signal_name":"SIGABRT"' "$F" stats --json ab.ftrace
    # replay -o: the same rules, checked before the run
    cp keep.ftrace keep.orig
    expect 127 "not found" "$F" replay --trace keep.ftrace -o keep.ftrace -- ./prog_typo
    same keep.ftrace keep.orig "replay -o of a missing program"
    expect 2 "prog: exists and is not a foretell trace" "$F" replay --trace keep.ftrace -o prog -- ./prog
    same prog prog.orig "replay -o prog -- prog"
    expect 2 "fifo: is a FIFO" "$F" replay --trace keep.ftrace -o fifo -- ./prog
    # explore -o FILE is refused before the first run
    cat > count.c <<'C'
#include <stdio.h>
int main(void) { FILE *f = fopen("runs.txt", "a"); if (f) fputs("run\n", f); return 0; }
C
    "$CC" -o count count.c
    : > notadir
    expect 2 "notadir: is a file, not a directory" "$F" explore -q --budget 20 -o notadir -- ./count
    [ ! -s runs.txt ] || fail "explore ran $(wc -l < runs.txt) runs before refusing -o FILE"
    # standard output that cannot be written
    for c in stats check dump; do
        expect 4 "foretell $c: cannot write to standard output: No space left" \
            sh -c "'$F' $c keep.ftrace > /dev/full"
    done
    expect 4 "cannot write to standard output" sh -c "'$F' analyze keep.ftrace -o an > /dev/full"
    ;;
full)
    mkdir -p mnt
    if ! mount -t tmpfs -o size=256k none mnt 2>/dev/null; then
        echo "cannot mount a tmpfs here (not root?): skipped"
        exit 77
    fi
    trap 'umount -l "$WORK/mnt" 2>/dev/null' EXIT
    # record: the runtime's ENOSPC reaches the command
    expect 4 "cannot write trace 'mnt/big.ftrace': No space left on device; the trace is cut at byte" \
        "$F" record -o mnt/big.ftrace -- ./prog many
    # what was written is kept, and says where it stops
    expect 2 "mnt/big.ftrace: warning: recovered [0-9]+ events; stopped at byte" \
        "$F" stats mnt/big.ftrace
    rm -f mnt/big.ftrace
    # replay -o says its trace was cut
    "$F" record -o many.ftrace -- ./prog many >/dev/null 2>&1
    expect 4 "mnt/rep.ftrace: error: cannot write the replayed run's trace: No space left on device; the trace is cut" \
        "$F" replay --trace many.ftrace -o mnt/rep.ftrace -- ./prog many
    rm -f mnt/rep.ftrace
    # analyze -o: no empty schedule, stops at the first failure
    "$F" record -o fig2.ftrace -- "$INST/best_fig2" >/dev/null 2>&1
    mkdir mnt/out
    head -c 300k /dev/zero > mnt/filler 2>/dev/null
    expect 4 "foretell analyze: error: .*No space left on device" \
        "$F" analyze fig2.ftrace -o mnt/out
    [ "$(grep -c 'foretell analyze: error' out.txt)" = 1 ] ||
        fail "analyze went on after the first failed write: $(grep -c 'error' out.txt) errors"
    [ -z "$(find mnt/out -type f -empty)" ] || fail "empty schedules left: $(find mnt/out -type f -empty)"
    [ -z "$(ls -A mnt/out)" ] || fail "analyze left files on a full disk: $(ls -A mnt/out)"
    # symbolize on a full disk: exit 4, the trace as it was
    FORETELL_TRACE=raw.ftrace ./prog 0 >/dev/null 2>&1   # no symbols yet
    rm -f mnt/filler
    cp raw.ftrace mnt/raw.ftrace
    head -c 300k /dev/zero > mnt/filler 2>/dev/null
    expect 4 "mnt/raw.ftrace: error: cannot append: No space left on device \(the trace is unchanged\)" \
        "$F" symbolize mnt/raw.ftrace
    same mnt/raw.ftrace raw.ftrace "symbolize on a full disk"
    rm -f mnt/filler
    # symbolize on a read-only file system
    mount -o remount,ro mnt || fail "cannot remount read-only"
    expect 4 "cannot append: Read-only file system" "$F" symbolize mnt/raw.ftrace
    same mnt/raw.ftrace raw.ftrace "symbolize on a read-only file system"
    mount -o remount,rw mnt
    # explore -o on another file system than TMPDIR: the trace is copied
    rm -rf mnt/*
    export TMPDIR=$WORK
    expect 1 "1 distinct bug" "$F" explore -q --budget 1 -o mnt/bugs -- ./prog abort
    [ -s mnt/bugs/bug-1.ftrace ] && [ -s mnt/bugs/bug-1.schedule ] ||
        fail "explore did not save the bug across file systems: $(ls mnt/bugs 2>&1)"
    expect 0 "events" "$F" stats mnt/bugs/bug-1.ftrace
    ;;
kill)
    # A hung program killed with SIGKILL: its events are in the trace.
    "$F" record -o hang.ftrace -- ./prog pause >/dev/null 2>&1 &
    rec=$!
    kid=$(child_of $rec)
    sleep 0.6
    kill -KILL "$kid"
    wait $rec
    n=$(events hang.ftrace)
    [ "${n:-0}" -ge 6 ] || fail "a program killed after 0.6 s left ${n:-0} events (expected its thread's)"
    echo "ok: SIGKILL after 0.6 s: $n events kept"
    # Killing foretell kills the program: record, replay, explore.
    # the trace replay follows: stopped after 20 000 key points (a spin
    # recorded for a fixed time is as long as the machine is fast: 0.2 s
    # made 6.8 M events, 109 MB, which a loaded CI machine took over the
    # 20 s child_of waits to load before it started the program)
    FORETELL_MAX_STEPS=20000 "$F" record -o spin.ftrace -- ./prog spin \
        >/dev/null 2>&1
    for how in record replay explore; do
        case $how in
        record) "$F" record -o k.ftrace -- ./prog spin >/dev/null 2>&1 & ;;
        replay) "$F" replay --trace spin.ftrace -o k.ftrace -- ./prog spin >/dev/null 2>&1 & ;;
        explore) "$F" explore -q --budget 3 --run-timeout 60 -o kx -- ./prog spin >/dev/null 2>&1 & ;;
        esac
        fp=$!
        kid=$(child_of $fp)
        [ -n "$kid" ] || { fail "$how: no program started"; continue; }
        sleep 0.3
        kill -KILL $fp
        wait $fp 2>/dev/null
        for i in $(seq 30); do dead "$kid" && break; sleep 0.1; done
        if dead "$kid"; then
            echo "ok: SIGKILL of foretell $how killed the program"
        else
            fail "foretell $how killed with SIGKILL: the program ($kid) still runs"
            kill -KILL "$kid"
        fi
    done
    ;;
flush)
    # The timed flush at every watchdog tick (FORETELL_FLUSH_MS=1) while
    # 17 threads hand the baton around at every key point: every trace
    # whole (no damage, no lost event) and every replay follows its
    # schedule.  A baton taken from a thread not yet started lost events.
    export FORETELL_FLUSH_MS=1
    for i in $(seq 8); do
        FORETELL_HEAP_CHECK=1 FORETELL_SEED=$i FORETELL_QUANTUM=1 \
            timeout 60 setarch "$(uname -m)" -R "$F" record -o r.ftrace -- \
            "$INST/reorder" 16 >/dev/null 2>&1
        timeout 60 "$F" stats r.ftrace >/dev/null 2>st.txt ||
            { fail "seed $i: recorded trace: $(tail -1 st.txt)"; continue; }
        timeout 60 "$F" replay --trace r.ftrace -o p.ftrace -q -- "$INST/reorder" 16 \
            >/dev/null 2>rep.txt
        grep -Eq 'steps followed ([0-9]+)/\1$' rep.txt ||
            fail "seed $i: replay: $(grep -E 'diverged|followed' rep.txt | head -2 | tr '\n' ' ')"
        timeout 60 "$F" stats p.ftrace >/dev/null 2>st.txt ||
            fail "seed $i: replayed trace: $(tail -1 st.txt)"
    done
    echo "ok: 8 recordings and replays with a flush at every tick"
    ;;
exec)
    expect 0 "exec: exit 0" "$F" record -o ex.ftrace -- ./prog exec
    n=$(events ex.ftrace)
    [ "${n:-0}" -ge 6 ] || fail "events before execve lost: ${n:-0}"
    expect 0 "thread_create" "$F" dump ex.ftrace
    expect 0 "^ended: +exec: exit 0$" "$F" stats ex.ftrace
    # an instrumented image exec'd with the same FORETELL_TRACE
    expect 0 "exec: exit 0" "$F" record -o re.ftrace -- ./prog reexec
    expect 0 "thread_create" "$F" dump re.ftrace
    n=$(events re.ftrace)
    [ "${n:-0}" -ge 6 ] && [ "$n" -lt 1000 ] ||
        fail "re-exec: $n events (expected the first image's only)"
    ;;
*)
    echo "io_cli.sh: unknown part '$PART'" >&2
    exit 2
    ;;
esac
[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all $PART tests passed"
