#!/bin/sh
# SPDX-License-Identifier: MIT
# run_rt_test.sh NAME - one runtime/wrapper test (see CMakeLists.txt).
# Environment: FT_BIN (foretell-cc's directory), FT_DUMP (tracedump),
# FT_PROGS (test programs), FT_WORK (scratch directory).
set -u
name=$1
work=$FT_WORK/$name
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
CC=$FT_BIN/foretell-cc
CXX=$FT_BIN/foretell-c++
P=$FT_PROGS

fail() { echo "FAIL($name): $*" >&2; exit 1; }
build() { out=$1; shift; "$CC" -O1 -o "$out" "$@" || fail "cannot build $out"; }
# record TRACE PROG...: run under the recorder, leaves $rc
record() { t=$1; shift; FORETELL_TRACE=$t "$@" >out.txt 2>err.txt; rc=$?; }
dump() { "$FT_DUMP" "$@" >dump.txt; drc=$?; }
has() { grep -q -- "$1" dump.txt || fail "trace lacks '$1'"; }
count() { grep -c -- "$1" dump.txt; }
consistent() { "$FT_DUMP" --check --quiet "$1" >check.txt || fail "inconsistent trace: $(tail -1 check.txt)"; }

case $name in
wrapper_modes)
    cat >a.c <<'C'
#include <pthread.h>
int helper(int x);
static int g;
static void *run(void *p) { (void)p; g = helper(g); return 0; }
int main(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_join(t, 0); return g == 42 ? 0 : 1; }
C
    echo 'int helper(int x) { return x + 42; }' >b.c
    "$CC" -c a.c -o a.o && "$CC" -c b.c || fail "compile-only"
    [ -f b.o ] || fail "-c without -o must write b.o"
    nm a.o | grep -q __tsan_func_entry || fail "a.o is not instrumented"
    "$CC" a.o b.o -o linkonly && ./linkonly || fail "link-only"
    "$CC" -O2 a.c b.c -o multi && ./multi || fail "compile-and-link, two sources"
    "$CC" a.c b.o -o mixed && ./mixed || fail "source plus object"
    "$CC" a.c b.c && ./a.out || fail "default a.out"
    "$CC" -static a.c b.c -o st && ./st || fail "-static"
    record st.ft ./st; [ $rc = 0 ] || fail "-static recorded exit $rc"
    dump st.ft; has "1 THREAD_START 0"; has "end.reason exit"
    "$CC" -fPIE -pie a.c b.c -o pie && ./pie || fail "-pie"
    record pie.ft ./pie; [ $rc = 0 ] || fail "-pie recorded exit $rc"
    ! nm st | grep -q ' __tsan_report' || fail "libtsan was linked"
    ! ldd ./pie | grep -q libtsan || fail "libtsan.so was linked"
    FORETELL_CC=no-such-compiler "$CC" a.c 2>err.txt; r=$?
    [ $r = 127 ] || fail "missing compiler gave $r"
    grep -q no-such-compiler err.txt || fail "message does not name the compiler"
    FORETELL_RT=/nonexistent/rt.a "$CC" a.c b.c 2>err.txt; r=$?
    [ $r = 127 ] || fail "missing runtime gave $r"
    ;;
wrapper_cxx)
    "$CXX" -O1 -c "$P/cxx_threads.cc" -o c.o && "$CXX" c.o -o cxx && ./cxx >/dev/null ||
        fail "C++ compile then link"
    "$CXX" -O1 "$P/cxx_threads.cc" -o cxx2 && ./cxx2 >/dev/null || fail "C++ one step"
    ;;
annotations)
    # foretell.h under the wrapper records the user's regions; under a
    # plain compiler it compiles to nothing and needs no runtime
    inc=$P/../../../recorder
    build ann -I"$inc" "$P/annotate.c"
    record ann.ft ./ann; [ $rc = 0 ] || fail "annotated program exit $rc"
    dump ann.ft
    [ "$(count REGION_BEGIN)" = 2 ] || fail "$(count REGION_BEGIN) REGION_BEGIN, not 2"
    [ "$(count REGION_END)" = 2 ] || fail "$(count REGION_END) REGION_END, not 2"
    consistent ann.ft
    gcc -O1 -pthread -I"$inc" -o plain "$P/annotate.c" && ./plain || fail "plain gcc build"
    ! nm plain | grep -q __foretell_region || fail "plain build calls the runtime"
    ;;
wrapper_clang)
    command -v clang >/dev/null || { echo "clang not installed: skipped"; exit 0; }
    FORETELL_CC=clang build counter "$P/counter.c"
    FORETELL_QUANTUM=37 record c.ft ./counter; [ $rc = 0 ] || fail "clang build exit $rc"
    dump c.ft; [ "$(count ' MUTEX_LOCK ')" = 2000 ] || fail "clang: lock events"
    # read-before-write instrumentation: counter++ shows its read.
    [ "$(count ' READ ')" -ge 2000 ] || fail "clang: reads of counter++ missing"
    consistent c.ft
    ;;
wrapper_shared)
    "$CC" -shared -fPIC -O1 -o libshl.so "$P/shlib.c" || fail "-shared"
    build shmain "$P/shmain.c" -L. -lshl -Wl,-rpath,"$work"
    record sh.ft ./shmain; [ $rc = 0 ] || fail "exit $rc"
    dump sh.ft; [ "$(count ' MUTEX_LOCK ')" = 100 ] || fail "library locks not recorded"
    consistent sh.ft
    build dl "$P/dlopen_main.c" -ldl
    record dl.ft ./dl "$work/libshl.so"; [ $rc = 0 ] || fail "dlopen: exit $rc $(cat err.txt)"
    dump dl.ft; has "^# modules "; [ "$(count ' MUTEX_LOCK ')" = 10 ] || fail "dlopen'ed locks"
    consistent dl.ft
    ;;
counter)
    build counter "$P/counter.c"
    FORETELL_QUANTUM=50 record c.ft ./counter; [ $rc = 0 ] || fail "exit $rc"
    dump c.ft
    for t in 0 1 2; do has "^$t THREAD_START 0"; done
    has "^0 THREAD_CREATE [0-9]* 1"; has "^0 THREAD_JOIN [0-9]* 2"
    [ "$(count ' MUTEX_LOCK ')" = 2000 ] || fail "lock count"
    [ "$(count ' MUTEX_UNLOCK ')" = 2000 ] || fail "unlock count"
    # quantum 50 must interleave the two workers many times
    sw=$(awk '$1 != "#" { if ($1 != last) n++; last = $1 } END { print n }' dump.txt)
    [ "$sw" -gt 20 ] || fail "only $sw thread changes with quantum 50"
    # the last write of the counter stores 2000
    grep ' WRITE ' dump.txt | tail -1 | grep -q ' 8 2000$' || fail "last counter write"
    consistent c.ft
    ;;
mutex_types)
    build mt "$P/mutex_types.c"
    ./mt >/dev/null || fail "native run"
    record mt.ft ./mt; [ $rc = 0 ] || fail "recorded run: $(cat err.txt)"
    dump mt.ft
    has "MUTEX_LOCK [0-9]* 0x[0-9a-f]* 0 35"   # EDEADLK
    has "MUTEX_LOCK [0-9]* 0x[0-9a-f]* 1 16"   # trylock EBUSY
    has "MUTEX_LOCK [0-9]* 0x[0-9a-f]* 2 110"  # timedlock ETIMEDOUT
    has "MUTEX_UNLOCK [0-9]* 0x[0-9a-f]* 1$"   # EPERM
    has "MUTEX_INIT [0-9]* 0x[0-9a-f]* 2$"     # errorcheck type
    # the runtime names each unlock by a thread that does not hold the
    # mutex (the API misuse ThreadSanitizer reports), before the unlock
    has "MISUSE [0-9]* 0x[0-9a-f]* 2 0$"       # rec, held by thread 0
    has "MISUSE [0-9]* 0x[0-9a-f]* 3 0$"       # ec, held by nobody
    [ "$(count ' MISUSE ')" = 3 ] || fail "MISUSE events: $(count ' MISUSE '), want 3"
    ;;
sync_mix)
    build sm "$P/sync_mix.c"
    for q in 0 3 20000; do
        FORETELL_QUANTUM=$q record sm$q.ft ./sm; [ $rc = 0 ] || fail "quantum $q: exit $rc"
        consistent sm$q.ft
    done
    dump sm3.ft
    for k in COND_WAIT COND_WAKE COND_SIGNAL COND_BROADCAST SEM_INIT SEM_WAIT \
             SEM_POST BARRIER_INIT BARRIER_ARRIVE BARRIER_LEAVE RW_WRLOCK RW_RDLOCK \
             RW_UNLOCK ONCE_DONE THREAD_EXIT; do has " $k"; done
    [ "$(count ' ONCE_ENTER [0-9]* 0x[0-9a-f]* 1$')" = 1 ] || fail "once ran twice"
    [ "$(count ' BARRIER_LEAVE [0-9]* 0x[0-9a-f]* 1$')" = 1 ] || fail "serial thread"
    [ "$(count ' MUTEX_LOCK [0-9]* 0x[0-9a-f]* 3 0$')" = 4 ] || fail "spin locks"
    ;;
deadlock)
    build abba "$P/abba.c"
    record d.ft ./abba; [ $rc = 86 ] || fail "deadlock exit status $rc"
    grep -q "thread 1 waits for mutex" err.txt || fail "no report: $(cat err.txt)"
    grep -q "thread 2 waits for mutex" err.txt || fail "no report for thread 2"
    dump d.ft
    grep -v '^#' dump.txt | tail -1 | grep -q DEADLOCK || fail "last event is not DEADLOCK"
    has "end.reason deadlock"
    ;;
writer)
    # A trace of ~20 chunks: the writer thread's ring of 8 slots wraps
    # around; written inline (FORETELL_RT_WRITER=0) it holds the same
    # events.  Both must be readable and consistent, chunks in order.
    cat >w.c <<'C'
#include <pthread.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long n, a[64];
static void *run(void *p)
{
    for (long i = 0; i < 150000; i++) {
        pthread_mutex_lock(&m);
        n++;
        a[i & 63] += n;
        pthread_mutex_unlock(&m);
    }
    return p;
}
int main(void)
{
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, run, 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
    return n == 300000 ? 0 : 1;
}
C
    build w w.c
    record on.ft ./w; [ $rc = 0 ] || fail "writer thread: exit $rc"
    FORETELL_RT_WRITER=0 record off.ft ./w; [ $rc = 0 ] || fail "inline: exit $rc"
    for f in on off; do
        dump $f.ft; [ $drc = 0 ] || fail "$f.ft not readable"
        has "end.reason exit"
        [ "$(count ' MUTEX_LOCK ')" = 300000 ] || fail "$f.ft: lock count"
        grep '^# end.events' dump.txt >$f.events
        consistent $f.ft
    done
    cmp -s on.events off.events || fail "event counts differ: $(cat on.events off.events)"
    # 1 MiB of events a slot, compressed or not when written (the writer
    # thread writes plain while it is behind; inline, all are compressed)
    dump on.ft
    grep -Eq '^# chunks [0-9]+ events (9|[1-9][0-9]+) compressed' dump.txt ||
        fail "too few EVENTS chunks to wrap the ring: $(grep '^# chunks' dump.txt)"
    # (but the last, which may be too small to shrink)
    dump off.ft
    set -- $(sed -n 's/^# chunks [0-9]* events \([0-9]*\) compressed \([0-9]*\)$/\1 \2/p' dump.txt)
    [ "${1:-0}" -ge 9 ] && [ "${2:-0}" -ge $(($1 - 1)) ] ||
        fail "inline: not every EVENTS chunk compressed: $(grep '^# chunks' dump.txt)"
    FORETELL_COMPRESS=0 record plain.ft ./w; [ $rc = 0 ] || fail "uncompressed: exit $rc"
    [ "$(stat -c %s plain.ft)" -gt 8000000 ] || fail "trace too small to wrap the ring"
    dump plain.ft; grep -q '^# chunks [0-9]* events [0-9]* compressed 0$' dump.txt ||
        fail "FORETELL_COMPRESS=0: $(grep '^# chunks' dump.txt)"
    ;;
segv)
    build segv "$P/segv.c"
    record s.ft ./segv; [ $rc = 139 ] || fail "SEGV exit status $rc"
    dump s.ft; [ $drc = 0 ] || fail "trace not readable"
    grep -v '^#' dump.txt | tail -1 | grep -q "^1 SIGNAL 11$" || fail "last event is not SIGNAL 11"
    has "end.reason signal"
    ;;
sigterm)
    build sf "$P/spin_forever.c"
    FORETELL_TRACE=t.ft ./sf >out.txt 2>err.txt &
    pid=$!
    i=0
    until grep -q started out.txt 2>/dev/null || [ $i -ge 200 ]; do sleep 0.05; i=$((i + 1)); done
    sleep 0.2
    kill -TERM $pid
    wait $pid; rc=$?
    [ $rc = 143 ] || fail "exit status $rc, expected death by SIGTERM"
    dump t.ft; [ $drc = 0 ] || fail "trace not readable"
    grep -v '^#' dump.txt | tail -1 | grep -q " SIGNAL 15$" || fail "last event is not SIGNAL 15"
    has "end.reason signal"; has " SLEEP "
    ;;
cancel)
    # pthread_cancel of threads blocked in pthread_cond_wait and sleep:
    # not a deadlock; cleanup handlers run; the replay ends (issue 15).
    build cancel "$P/cancel.c"
    record c.ft ./cancel; [ $rc = 0 ] || fail "exit $rc: $(cat out.txt err.txt)"
    grep -q '^ok$' out.txt || fail "program output lost: $(cat out.txt)"
    "$FT_BIN/foretell" check c.ft >/dev/null 2>&1 || fail "check failed"
    "$FT_BIN/foretell" dump c.ft 2>/dev/null | grep -q thread_cancel ||
        fail "no thread_cancel event"
    "$FT_BIN/foretell" replay -q --timeout 20 --max-steps 100000 --trace c.ft \
        -o r.ft -- ./cancel >out.txt 2>err.txt || fail "replay: $(cat err.txt)"
    ;;
sighandler)
    # A handler writing shared memory, for a signal sent to the process
    # while the baton holder sleeps and main is blocked in join: the
    # handler runs (no hang) and the trace stays one interleaving.
    build sh "$P/sighandler.c"
    for i in 1 2 3; do
        FORETELL_TRACE=s.ft timeout 60 ./sh >out.txt 2>err.txt; rc=$?
        [ $rc = 0 ] || fail "run $i: exit $rc: $(cat out.txt err.txt)"
        "$FT_BIN/foretell" check s.ft >check.txt 2>&1 || fail "check: $(cat check.txt)"
        # the handler's first write: shared = 1 + 10
        "$FT_BIN/foretell" dump s.ft 2>/dev/null | grep -Eq ' write .* value=(0xb|11) ' ||
            fail "the handler's accesses are not in the trace"
    done
    ;;
sloppy)
    # Undefined but common: void main and a function falling off its end
    # return what is left in eax; the hooks must not change it.
    for o in -O1 -O2; do
        cc $o -w -o nat "$P/sloppy.c" -pthread || fail "native build"
        ./nat; n=$?
        "$CC" $o -w -o ins "$P/sloppy.c" || fail "cannot build sloppy"
        ./ins; i=$?
        record s.ft ./ins
        [ $n = $i ] && [ $n = $rc ] || fail "$o: native exit $n, instrumented $i, recorded $rc"
    done
    ;;
passthrough)
    build c "$P/counter.c"
    unset FORETELL_TRACE
    ./c >out.txt || fail "passthrough run"
    grep -q counter=2000 out.txt || fail "wrong output"
    [ -z "$(ls ./*.ft 2>/dev/null)" ] || fail "a trace was written"
    FORETELL_TRACE= ./c >/dev/null || fail "empty FORETELL_TRACE"
    ;;
trace_patterns)
    # FORETELL_TRACE patterns: %e basename, %p pid, %n the first free
    # number (claimed atomically: 6 processes started at once get 0..5),
    # %% a '%'; an unknown %x is kept, with a warning.
    build c "$P/counter.c"
    mkdir d
    for i in 1 2 3 4 5 6; do FORETELL_TRACE=d/%e-%n.ft ./c >/dev/null & done
    wait
    [ "$(ls d | tr '\n' ' ')" = "c-0.ft c-1.ft c-2.ft c-3.ft c-4.ft c-5.ft " ] ||
        fail "%n: got $(ls d | tr '\n' ' ')"
    for f in d/*.ft; do consistent "$f"; done
    FORETELL_TRACE='p%p-%%-%e.ft' ./c >/dev/null &
    pid=$!
    wait $pid || fail "pattern run failed"
    [ -f "p$pid-%-c.ft" ] || fail "%p/%%/%e: got $(ls ./*.ft)"
    FORETELL_TRACE='q%z.ft' ./c >/dev/null 2>err.txt || fail "unknown pattern run"
    [ -f 'q%z.ft' ] || fail "unknown %z not kept literally"
    grep -q "is kept as it is" err.txt || fail "no warning for %z"
    # record and replay give the runtime an exact path: a '%' in it stays
    "$FT_BIN/foretell" record -o 'r%n%p.ft' -- ./c >/dev/null 2>&1 || fail "record with '%' in the path"
    [ -f 'r%n%p.ft' ] || fail "record: $(ls)"
    FORETELL_TRACE=nodir/%e.ft ./c >/dev/null 2>err.txt; rc=$?
    [ $rc = 85 ] || fail "unwritable pattern: exit $rc"
    grep -q "cannot write trace nodir/c.ft" err.txt || fail "message: $(cat err.txt)"
    ;;
watchdog)
    build pb "$P/pipe_block.c"
    FORETELL_WATCHDOG_MS=50 record p.ft ./pb; [ $rc = 0 ] || fail "exit $rc"
    dump p.ft; has "^0 STEAL 0$"; consistent p.ft
    ;;
sleep_spin)
    build ss "$P/sleep_spin.c"
    FORETELL_QUANTUM=1000 record s.ft ./ss; [ $rc = 0 ] || fail "exit $rc"
    dump s.ft; has "^1 SLEEP [0-9]* 2000000$"; has "^1 SLEEP [0-9]* 1000000$"
    has " YIELD "; has "ATOMIC_STORE"; consistent s.ft
    ;;
fork)
    build f "$P/forks.c"
    record f.ft ./f; [ $rc = 0 ] || fail "exit $rc"
    dump f.ft; [ $drc = 0 ] || fail "trace damaged"
    [ "$(count ' THREAD_START ')" = 3 ] || fail "the child's threads got into the trace"
    has "end.reason exit"
    ;;
cxx_threads)
    "$CXX" -O1 -o cxx "$P/cxx_threads.cc" || fail build
    record x.ft ./cxx; [ $rc = 0 ] || fail "exit $rc"
    dump x.ft
    [ "$(count ' THREAD_START 0$')" = 4 ] || fail "std::thread threads: $(count ' THREAD_START ')"
    [ "$(count ' THREAD_CREATE ')" = 3 ] || fail "std::thread start not intercepted"
    [ "$(count ' THREAD_JOIN ')" = 3 ] || fail "std::thread::join not intercepted"
    ! grep -q ' STEAL ' dump.txt || fail "the watchdog had to intervene"
    [ "$(count ' MALLOC ')" -ge 300 ] || fail "operator new not recorded"
    [ "$(count ' THREAD_EXIT')" = 3 ] || fail "thread exits"
    # thread_local destructors run before THREAD_EXIT and are recorded
    [ "$(count ' MUTEX_LOCK ')" = 3 ] || fail "thread_local destructor locks"
    # C++ names demangled by the symboliser, as people read them; a spec
    # file names a function without its parameter list
    "$FT_BIN/foretell" symbolize x.ft >/dev/null 2>&1 || fail "symbolize"
    "$FT_BIN/foretell" dump x.ft >names.txt 2>&1
    grep -q '(work(int))$' names.txt || fail "work(int) not demangled: $(grep -m3 'cxx_threads.cc' names.txt)"
    grep -q '(Tally::~Tally())$' names.txt || fail "Tally::~Tally() not demangled"
    ! grep -q '(_Z' names.txt || fail "a mangled name is left: $(grep -m1 '(_Z' names.txt)"
    echo work >spec.txt
    "$FT_BIN/foretell" analyze --regions --spec spec.txt x.ft >regions.txt 2>&1
    grep -q ' work(int) .*\[spec\]' regions.txt || fail "spec 'work' does not name work(int): $(head -3 regions.txt)"
    # regions in libstdc++'s code are left out unless asked for
    ! grep -q ' /usr/include/' regions.txt || fail "a region in a system header: $(grep -m1 /usr/include regions.txt)"
    "$FT_BIN/foretell" analyze --regions --system-regions x.ft >sysreg.txt 2>&1
    grep -q ' /usr/include/c++/' sysreg.txt || fail "--system-regions: no region in libstdc++"
    # a block std::vector allocated is named by the program's line that
    # grew the vector, the allocating header's site after it
    grep -q 'heap@[^ ]*cxx_threads\.cc:[0-9]*\[[a-z_]*\.h:[0-9]*#1\]' sysreg.txt ||
        fail "libstdc++'s blocks not named by the program's line: $(grep -m1 -o 'heap@[^ ]*' sysreg.txt)"
    ;;
cxx_condvar)
    "$CXX" -O1 -o cv "$P/cxx_condvar.cc" || fail build
    for q in 0 5; do
        FORETELL_QUANTUM=$q record cv$q.ft ./cv; [ $rc = 0 ] || fail "quantum $q: exit $rc"
        consistent cv$q.ft
    done
    dump cv5.ft
    [ "$(count ' COND_WAIT ')" -ge 1 ] || fail "condition_variable::wait not modelled"
    [ "$(count ' COND_BROADCAST ')" = 60 ] || fail "notify_all count"
    [ "$(count ' COND_WAKE [0-9]* 0x[0-9a-f]* 0x[0-9a-f]* 1$')" = 1 ] || fail "wait_for timeout"
    [ "$(count ' SLEEP [0-9]* 1000000$')" = 3 ] || fail "sleep_for"
    ! grep -q ' STEAL ' dump.txt || fail "the watchdog had to intervene"
    ;;
racy)
    compilers=gcc
    command -v clang >/dev/null && compilers="gcc clang"
    for cc in $compilers; do
        for o in -O0 -O2; do
            FORETELL_CC=$cc "$CC" $o -Wno-atomic-alignment -o racy "$P/racy.c" 2>/dev/null ||
                FORETELL_CC=$cc "$CC" $o -o racy "$P/racy.c" || fail "build $cc $o"
            for q in 1 3 1000; do
                FORETELL_QUANTUM=$q record r.ft ./racy
                [ $rc = 0 ] || fail "$cc $o quantum $q: exit $rc"
                consistent r.ft
            done
            FORETELL_QUANTUM=2 FORETELL_SEED=7 record r.ft ./racy
            [ $rc = 0 ] || fail "$cc $o seeded: exit $rc"
            consistent r.ft
        done
    done
    dump r.ft
    sw=$(awk '$1 != "#" { if ($1 != last) n++; last = $1 } END { print n }' dump.txt)
    [ "$sw" -gt 1000 ] || fail "only $sw thread changes with quantum 2"
    for k in READ_WIDE WRITE_WIDE ATOMIC_RMW ATOMIC_CAS ATOMIC_LOAD REALLOC FREE; do has " $k "; done
    ;;
seeds)
    build c "$P/counter.c"
    for s in 1 2 3; do
        FORETELL_SEED=$s FORETELL_QUANTUM=10 record s$s.ft ./c
        [ $rc = 0 ] || fail "seed $s exit $rc"
        consistent s$s.ft
        "$FT_DUMP" s$s.ft | awk '$1 != "#" {print $1}' >tids$s.txt
    done
    FORETELL_SEED=1 FORETELL_QUANTUM=10 record again.ft ./c
    "$FT_DUMP" again.ft | awk '$1 != "#" {print $1}' >again.txt
    cmp -s tids1.txt again.txt || fail "same seed gave another schedule"
    cmp -s tids1.txt tids2.txt && cmp -s tids1.txt tids3.txt && fail "seeds do not matter"
    ;;
paired_reads)
    # A read recorded while the thread's write is pending is marked paired
    # (opcodes 14, 15: docs/trace-format.md) and directly followed by that
    # write, with no other thread between, under any quantum; a read with
    # nothing pending, or of the pending write's own bytes, is not marked.
    build paired "$P/paired.c"
    # after RE: the event printed after the first matching RE (any thread)
    after() { RE=$1 awk 'n { print; exit } $0 ~ ENVIRON["RE"] { n = 1 }' d.txt; }
    tid_of() { grep -E -m1 -- "$1" d.txt | awk '{ print $2 }'; }
    for q in 1 1000; do
        "$FT_BIN/foretell" record --quantum $q -o p$q.ft -- ./paired >out.txt 2>err.txt ||
            fail "quantum $q: record failed: $(cat err.txt)"
        "$FT_BIN/foretell" dump p$q.ft >d.txt 2>err.txt || fail "dump: $(cat err.txt)"
        y=' read +addr=0x[0-9a-f]*\[y\] size=4 value=7 paired=1 '
        grep -Eq -- "$y" d.txt || fail "q$q: the read of y is not paired: $(grep -m1 '\[y\]' d.txt)"
        t=$(tid_of "$y")
        after "$y" | grep -Eq -- "^ *[0-9]+ $t +write +addr=0x[0-9a-f]*\[x\] size=4 value=2 " ||
            fail "q$q: the paired read of y is followed by: $(after "$y")"
        s8=' read +addr=0x[0-9a-f]*\[src8\] size=8 value=0x2200000011 paired=1 '
        grep -Eq -- "$s8" d.txt || fail "q$q: *a = *b (8 bytes): the read is not paired"
        after "$s8" | grep -Eq -- "^ *[0-9]+ $t +write +addr=0x[0-9a-f]*\[dst8\] size=8 " ||
            fail "q$q: the paired read of *b is followed by: $(after "$s8")"
        s16=' read_wide +addr=0x[0-9a-f]*\[src16\] size=16 bytes=[0-9a-f]* paired=1 '
        grep -Eq -- "$s16" d.txt || fail "q$q: *a = *b (16 bytes): the read is not paired"
        after "$s16" | grep -Eq -- "^ *[0-9]+ $t +write_wide +addr=0x[0-9a-f]*\[dst16\] size=16 " ||
            fail "q$q: the paired wide read of *b is followed by: $(after "$s16")"
        # nothing pending (z), the pending write's own bytes (x): unmarked
        grep -E -- ' read +addr=0x[0-9a-f]*\[z\] ' d.txt | grep -vq paired= ||
            fail "q$q: the read of z: $(grep -m1 '\[z\]' d.txt)"
        grep -E -- ' read +addr=0x[0-9a-f]*\[x\] size=4 value=12 ' d.txt | grep -vq paired= ||
            fail "q$q: the read of x: $(grep -m1 ' read .*\[x\]' d.txt)"
        [ "$(grep -c 'paired=1' d.txt)" = 3 ] ||
            fail "q$q: $(grep -c 'paired=1' d.txt) paired reads, not 3: $(grep 'paired=1' d.txt)"
        [ "$(tid_of "$s16")" = "$t" ] || fail "q$q: the copies ran in another thread"
        # JSON shows the mark; the independent decoder reads ops 14 and 15
        "$FT_BIN/foretell" dump --json p$q.ft | grep -q '"addr_variable":"y".*"paired":1' ||
            fail "q$q: dump --json lacks the mark"
        dump p$q.ft
        [ "$(count ' READ_PAIRED ')" = 2 ] && [ "$(count ' READ_WIDE_PAIRED ')" = 1 ] ||
            fail "q$q: tracedump: $(grep PAIRED dump.txt)"
        consistent p$q.ft
    done
    ;;
*) fail "unknown test" ;;
esac
echo "ok $name"
