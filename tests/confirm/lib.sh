# SPDX-License-Identifier: MIT
# lib.sh - what the tests/confirm scripts about one program share: sourced
# with NAME set (the test's name in its messages); sets F (foretell), P
# (progs/), a fresh $FT_WORK as the current directory, fail() counting
# failures in $fails, and build OUT SOURCE [CFLAGS...] (foretell-cc, -g;
# a program that does not build ends the test).  Env: FT_BIN, FT_WORK.
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
