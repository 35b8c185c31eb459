#!/bin/sh
# SPDX-License-Identifier: MIT
# manpages.sh FORETELL SRC - see CMakeLists.txt.  Reads the man pages as
# roff source (an option "--out" is written "\-\-out" there).
set -u
ft=$1 src=$2 man=$2/docs/man
fail() { echo "FAIL(manpages): $*" >&2; status=1; }
status=0
command -v bash >/dev/null || { echo "no bash: skipped"; exit 77; }
"$ft" --help >top.txt 2>&1 || fail "foretell --help exit $?"
grep -q -- '--version' top.txt || fail "--help does not list --version"
grep -q 'help <command>' top.txt || fail "--help does not show 'foretell help <command>'"
cmds=$(awk '/^commands:$/ {s=1; next} /^[a-z]+:$/ {s=0} s && /^  [a-z]/ {print $1}' top.txt)
[ -n "$cmds" ] || fail "no commands in foretell --help"
[ -f "$man/foretell.1" ] || fail "no docs/man/foretell.1"
[ -f "$man/foretell-cc.1" ] || fail "no docs/man/foretell-cc.1"

# options: the option names a --help text lists
options() { awk '/^options:$/ {s=1; next} /^[a-z]+:$/ {s=0}
    s && /^  -/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w)
        if (w ~ /^-/) print w; else break } }'; }
# roff: how the name is spelt in a page
roff() { printf '%s' "$1" | sed 's/-/\\-/g'; }
# completion: the words bash completion offers after "foretell WORDS... CUR"
complete_words() {
    bash -c '. "$1/scripts/foretell.bash"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
             _foretell; printf "%s\n" "${COMPREPLY[@]}"' sh "$src" "$@"
}

complete_words "$ft" "" >comp.txt
for c in $cmds; do
    page=$man/foretell-$c.1
    [ -f "$page" ] || { fail "no man page docs/man/foretell-$c.1 (scripts/gen_man.py)"; continue; }
    grep -q "foretell-$c.1" "$src/docs/man/foretell.1" ||
        grep -q "foretell\\\\-$c" "$man/foretell.1" || fail "foretell.1 does not list $c"
    grep -qx "$c" comp.txt || fail "completion does not offer '$c'"
    "$ft" "$c" --help >h1.txt 2>&1
    "$ft" help "$c" >h2.txt 2>&1
    cmp -s h1.txt h2.txt || fail "'foretell help $c' differs from 'foretell $c --help'"
    subs=
    [ "$c" = batch ] && subs=$(awk '/^commands:$/ {s=1; next} /^$/ {s=0} s && /^  [a-z]/ {print $1}' h1.txt)
    for sub in "" $subs; do
        "$ft" $c $sub --help >h.txt 2>&1
        complete_words "$ft" $c $sub - >comp_opts.txt
        for o in $(options <h.txt); do
            grep -qF -- "$(roff "$o")" "$page" ||
                fail "docs/man/foretell-$c.1 lacks ${sub:+$sub }$o (rerun scripts/gen_man.py)"
            grep -qx -- "$o" comp_opts.txt || fail "completion of '$c $sub' lacks $o"
            # the guides document every long option (batch: docs/batch.md)
            case $o in --help|--*) ;; *) continue ;; esac
            [ "$o" = --help ] && continue
            guide=$src/docs/user-guide.md
            [ "$c" = batch ] && guide="$guide $src/docs/batch.md"
            # shellcheck disable=SC2086
            cat $guide | grep -qE -- "$o([^a-z-]|\$)" ||
                fail "docs/user-guide.md does not document '$c${sub:+ $sub}' $o"
        done
    done
done
# every FORETELL_ environment variable the sources read is in the guide
for v in $(grep -rhoE '"FORETELL_[A-Z0-9_]+"' "$src/recorder" "$src/replay" "$src/cli" \
               "$src/predict" "$src/smt" "$src/batch" --include=*.c | tr -d '"' | sort -u); do
    grep -q -- "\`$v\`" "$src/docs/user-guide.md" ||
        fail "docs/user-guide.md (Environment variables) does not name $v"
done
# a command the table does not have is an error, by name
"$ft" help no-such-command >/dev/null 2>err.txt; r=$?
[ $r = 2 ] || fail "'foretell help no-such-command' exit $r, not 2"
grep -q no-such-command err.txt || fail "the error does not name the command"
[ $status = 0 ] && echo "manpages: ok"
exit $status
