#!/bin/bash
# SPDX-License-Identifier: MIT
# bad_input.sh - hostile and careless input to every reader and to every
# command that runs a program (issue 15): nothing hangs, nothing sizes a
# table by an id from the file, and each case exits with its documented
# code and a message naming the file and what is wrong.
#  (a) FIFOs and directories where a file is read: schedule, the trace a
#      schedule's trace: line names, replay --trace, analyze (binary, STD,
#      spec), dump, and the runtime's own FORETELL_SCHEDULE;
#  (b) hostile ids: a trace naming site 100,000,000 or 0xffffffff;
#  (c) the same hostile schedules through the CLI's and the runtime's
#      parsing: both refuse, with the same line and message;
#  (d) replay -q: the runtime's refusals reach the user (status channel),
#      and a program exiting with a refusal code is not taken for one;
#  (e) programs that exist but cannot be executed (126) or do not (127),
#      for record, replay, explore and analyze --confirm; explore -o FILE;
#  (f) empty inputs and NUL bytes in text inputs;
#  (g) foretell-cc -x c / foretell-c++ -x c++ on sources of any name.
# Usage: bad_input.sh BIN_DIR INST_DIR SOURCE_DIR WORK
set -u
BIN=$1 INST=$2 SRC=$3 WORK=$4
F=$BIN/foretell
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails+1)); }
# expect CODE PATTERN CMD...: within TMO (20) s, exit CODE, output matching
# PATTERN
expect() {
    local code=$1 pat=$2; shift 2
    timeout "${TMO:-20}" "$@" > out.txt 2>&1
    local rc=$?
    if [ $rc -eq 124 ]; then fail "'$*' hung (killed after ${TMO:-20} s)"; return 1; fi
    if [ $rc -ne "$code" ]; then fail "'$*' exited $rc, expected $code: $(tail -3 out.txt | tr '\n' ' ')"; return 1; fi
    if [ -n "$pat" ] && ! grep -Eq -- "$pat" out.txt; then fail "'$*': no /$pat/ in: $(head -5 out.txt | tr '\n' ' ')"; return 1; fi
    echo "ok: $* -> $rc"
}

PC=$INST/prodcons_sem
: > plain
"$F" record -o pc.ft -- "$PC" >/dev/null 2>&1 || fail "cannot record $PC"
"$F" replay --trace pc.ft -o r.ft --save-schedule pc.sched -q -- "$PC" \
    >/dev/null 2>&1 || fail "cannot make a schedule"

# ---- (a) FIFOs and directories ----
mkfifo fifo fifo.std
mkdir dir
expect 2 "fifo: error: cannot read schedule: is a FIFO" "$F" replay --schedule fifo -- "$PC"
expect 2 "dir: error: cannot read schedule: is a directory" "$F" replay --schedule dir -- "$PC"
expect 2 "fifo.*is a FIFO" "$F" replay --trace fifo -- "$PC"
sed "s|^trace: .*|trace: $PWD/fifo|" pc.sched > tfifo.sched
expect 0 "finished" "$F" replay --schedule tfifo.sched -o t.ft -- "$PC"
expect 2 "fifo: error: .*cannot open trace: is a FIFO" "$F" analyze fifo
expect 2 "fifo.std: error: .*cannot open: is a FIFO" "$F" analyze fifo.std
expect 2 "fifo: error: .*cannot open: is a FIFO" "$F" analyze --std fifo
expect 2 "dir: error: .*is a directory" "$F" analyze dir
expect 2 "fifo: error: cannot open: is a FIFO" "$F" analyze --spec fifo pc.ft
expect 2 "dir: error: cannot open: is a directory" "$F" analyze --spec dir pc.ft
expect 2 "fifo.*is a FIFO" "$F" dump fifo
expect 81 "cannot read schedule fifo: is a FIFO" \
    env FORETELL_TRACE=rt.ft FORETELL_SCHEDULE=fifo "$PC"

# ---- (b) hostile ids ----
R=$SRC/tests/fuzz/regressions/model
expect 2 "far-site-100000000: error: at byte 161: SITES entry: site id 100000000, but site 2 is not defined" \
    "$F" analyze "$R/far-site-100000000"
expect 2 "far-site-ffffffff: error: at byte 161: SITES entry: site id 4294967295" \
    "$F" analyze --stats "$R/far-site-ffffffff"

# ---- (c) one parser: the CLI and the runtime refuse alike ----
sed '/^steps:/,$d' pc.sched > head.txt   # magic and headers before steps:
n=0
hostile() { # hostile BODY-AFTER-HEADERS: both parsers, same message
    n=$((n+1))
    { cat head.txt; printf "$1"; } > h$n.sched
    timeout 20 "$F" replay --schedule h$n.sched -o h.ft -- "$PC" > cli.txt 2>&1
    local rc=$?
    timeout 20 env FORETELL_TRACE=h.ft FORETELL_SCHEDULE=h$n.sched "$PC" \
        > rt.txt 2>&1
    local rrc=$?
    local cli rt
    cli=$(sed -n 's/: error: malformed schedule$//p' cli.txt)
    rt=$(sed -n 's/^foretell: //p' rt.txt)
    if [ $rc -ne 2 ] || [ $rrc -ne 81 ] || [ -z "$cli" ] || [ "$cli" != "$rt" ]; then
        fail "h$n.sched: CLI (exit $rc) '$cli' vs runtime (exit $rrc) '$rt'"
    else
        echo "ok: h$n.sched: both refuse: $cli"
    fi
}
hostile 'steps: 1\n1024 1 read - a.c:1\nend\n'
hostile 'steps: 1\n4294967294 1 read - a.c:1\nend\n'
hostile 'steps: 1\n0 1 read - a\0.c:1\nend\n'
hostile 'steps: 100000000\n0 1 read - a.c:1\nend\n'
hostile 'steps: 1\n0 1 read - \nend\n'
hostile 'steps: 1\n0 18446744073709551615 read - a.c:1\nend\n'
hostile 'steps: 1\n0 1 read - a.c:1\nend\n\n'
hostile 'steps: 2\n0 1 read - a.c:1\n'
hostile 'colour: blue\nsteps: 0\nend\n'

# ---- (d) replay -q: the runtime's reason, not a guess ----
expect 2 "refused to run it: FORETELL_STRATEGY=bogus" \
    "$F" replay -q --strategy bogus --schedule pc.sched -o q.ft -- "$PC"
# every policy's parser refuses on the status channel with its own reason
expect 2 "refused to run it: FORETELL_STRATEGY=pos:bogus: pos takes only seed=X" \
    "$F" replay -q --strategy pos:bogus --schedule pc.sched -o q.ft -- "$PC"
expect 2 "refused to run it: FORETELL_STRATEGY=surw:w=x: " \
    "$F" replay -q --strategy surw:w=x --schedule pc.sched -o q.ft -- "$PC"
expect 2 "nodir/q.ft: cannot write: no such directory" \
    "$F" replay -q --schedule pc.sched -o "$PWD/nodir/q.ft" -- "$PC"
printf '#!/bin/sh\nexit 81\n' > exit81 && chmod +x exit81
expect 2 "not built with foretell-cc \(no foretell runtime started in it; exit status 81\)" \
    "$F" replay -q --schedule pc.sched -o q.ft -- ./exit81

# ---- (e) 126 cannot be executed, 127 not found ----
: > empty && chmod +x empty
: > noexec
for p in ./empty ./noexec ./dir ./nosuch; do
    case $p in
    ./empty) code=126 why="is an empty file" ;;
    ./noexec) code=126 why="no execute permission" ;;
    ./dir) code=126 why="is a directory" ;;
    *) code=127 why="program not found" ;;
    esac
    expect $code "$p: .*$why" "$F" record -o e.ft -- $p
    expect $code "$p: .*$why" "$F" replay --schedule pc.sched -- $p
    expect $code "$p: .*$why" "$F" explore --budget 2 -- $p
    expect $code "$p: .*$why" "$F" analyze pc.ft -o ao --confirm -- $p
done
[ ! -e e.ft ] || fail "record wrote a trace for a program it could not run"
# an output path that can never hold bugs is refused before the first run
expect 2 "plain: is a file, not a directory" \
    "$F" explore --budget 50 -o plain -- "$PC"

# ---- (f) empty inputs, NUL bytes ----
: > empty.std
: > empty.ftrace
expect 2 "empty.std: error: .*no events" "$F" analyze empty.std
expect 2 "empty.ftrace: error: .*empty file" "$F" analyze empty.ftrace
printf 'T0|w(x)|1\nT1|r(x)\0|2\nT1|w(y)|3\n' > nul.std
expect 2 "nul.std: error: at byte 10: line 2: a NUL byte" "$F" analyze nul.std
printf 'f\ng\0h\n' > nul.spec
expect 2 "nul.spec: error: line 2: a NUL byte" "$F" analyze --spec nul.spec pc.ft

# ---- (g) the wrappers under -x ----
cp "$SRC/data/best_fig2.c" fig2.txt
TMO=120 expect 0 "" "$BIN/foretell-cc" -O1 -x c fig2.txt -o fig2x
TMO=120 expect 0 "" "$BIN/foretell-cc" -O1 -x c "$SRC/data/best_fig2.c" -x none -o fig2y
expect 0 "trace fig2x.ft" "$F" record -o fig2x.ft -- ./fig2x
cp "$SRC/data/account.cpp" account.txt
TMO=180 expect 0 "" "$BIN/foretell-c++" -O1 -x c++ account.txt -o accx
expect 0 "trace accx.ft" "$F" record -o accx.ft -- ./accx

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "bad_input: all passed"
