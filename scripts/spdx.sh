#!/bin/sh
# spdx.sh [--check] [DIR] - gives every source file of the repository
# (DIR, default the repository's top) that lacks one an SPDX licence line,
# `SPDX-License-Identifier: MIT` (LICENSE), as a comment in the file's own
# syntax: `/* ... */` for C/C++, `#` for shell, CMake, Python, `.\"` for
# roff.  It goes after a `#!` line, or last in the programs whose line
# numbers reports and tests cite (data/, test programs, bench shapes),
# and keeps the file's mode.  Only files
# git tracks are touched (never build trees, fetched code or data traces);
# files whose format has no comments (JSON, traces, corpora) are left
# alone.  --check lists the files that lack the line and exits 1 if any.
set -eu
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"
tag="SPDX-License-Identifier: MIT"
list=$(mktemp)
trap 'rm -f "$list"' EXIT
git ls-files >"$list"
missing=0
while IFS= read -r f; do
    [ -f "$f" ] || continue
    case $f in
    */corpus/*|*/regressions/*|*.json|*.tsv|*.ftrace|*.std|*.schedule|*.md|LICENSE) continue ;;
    *.c|*.h|*.cc|*.cpp|*.hpp) style=c ;;
    *.sh|*.py|*.bash|*CMakeLists.txt|*.cmake|*.cmake.in|.ci/run|scripts/foretell-cc|scripts/foretell-c++) style=hash ;;
    *.1) style=roff ;;
    *) continue ;;
    esac
    { head -n 5 "$f"; tail -n 3 "$f"; } | grep -q 'SPDX-License-Identifier' && continue
    if [ $check = 1 ]; then echo "$f"; missing=1; continue; fi
    case $style in
    c) line="/* $tag */" ;;
    hash) line="# $tag" ;;
    roff) line=".\\\" $tag" ;;
    esac
    tmp=$(mktemp "$f.spdx.XXXXXX")
    # programs whose line numbers reports, tests and docs cite (the
    # examples, test programs, bench shapes): the line goes last
    case $f in
    data/*|*/progs/*|*/fixtures/*|bench/*/shapes/*) tail_line=1 ;;
    *) tail_line=0 ;;
    esac
    if [ $tail_line = 1 ]; then
        { cat "$f"; [ -z "$(tail -c 1 "$f")" ] || echo; printf '%s\n' "$line"; } >"$tmp"
    elif head -n 1 "$f" | grep -q '^#!'; then
        { head -n 1 "$f"; printf '%s\n' "$line"; tail -n +2 "$f"; } >"$tmp"
    else
        { printf '%s\n' "$line"; cat "$f"; } >"$tmp"
    fi
    chmod --reference="$f" "$tmp"
    mv "$tmp" "$f"
    echo "spdx: $f"
done <"$list"
exit $missing
