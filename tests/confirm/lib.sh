# SPDX-License-Identifier: MIT
# lib.sh - what the tests/confirm scripts about one program share: sourced
# with NAME set (the test's name in its messages); sets F (foretell), P
# (progs/), a fresh $FT_WORK as the current directory, fail() counting
# failures in $fails, build OUT SOURCE [CFLAGS...] (foretell-cc, -g;
# a program that does not build ends the test), and record_passing TRACE
# PROG [ARGS...] (a passing recorded run in 5 tries, else the test ends;
# record's stderr in TRACE.err; RECORD_OPTS: record's options).  Env: FT_BIN, FT_WORK.
set -u
F=$FT_BIN/foretell
P=$(cd "$(dirname "$0")/progs" && pwd)
rm -rf "$FT_WORK" && mkdir -p "$FT_WORK" && cd "$FT_WORK" || exit 1
fails=0
fail() { echo "FAIL($NAME): $*" >&2; fails=$((fails + 1)); }
build() {
    out=$1 src=$2
    shift 2
    "$FT_BIN/foretell-cc" -g "$@" -o "$out" "$src" ||
        { echo "FAIL($NAME): cannot build $src" >&2; exit 1; }
}
record_passing() {
    trace=$1
    shift
    for try in 1 2 3 4 5; do # the recorded run may fail too
        # shellcheck disable=SC2086 # RECORD_OPTS is a list of options
        "$F" record ${RECORD_OPTS:-} -o "$trace" -- "$@" >/dev/null 2>"$trace.err" && return 0
    done
    echo "FAIL($NAME): no passing run of $* in 5: $(tail -2 "$trace.err")" >&2
    exit 1
}
