#!/bin/sh
# SPDX-License-Identifier: MIT
# batch_fingerprint.sh - the same bug in two builds is one finding: the
# program built twice, in two directories, the second time with lines
# added above the bug and the whole file re-indented (every line number
# and every path differs, so do the build ids); both runs recorded, then
# the sources removed, so the analysis has only what the traces recorded
# (the SOURCE chunk the symboliser wrote).  Both traces give the same
# fingerprints, keyed by the lines' text; a trace recorded with
# FORETELL_TRACE alone (no symbols) gets them from `foretell symbolize`.
name=batch_fingerprint
. "$(dirname "$0")/lib.sh"

mkdir a b c
cp "$FT_SRC/data/best_fig2.c" a/fig2.c
{ printf '/* a header\n * added in\n * a later\n * commit\n */\n'
  sed 's/^    /\t/; s/^\(\t*\)  */\1/' "$FT_SRC/data/best_fig2.c"; } >b/fig2.c
cp a/fig2.c c/fig2.c
cmp -s a/fig2.c b/fig2.c && fail "the edit did nothing"
for d in a b c; do
    (cd $d && "$FT_BIN/foretell-cc" -O1 -o prog fig2.c) || fail "build $d"
done
rec ta.ftrace 1 20000 a/prog
rec tb.ftrace 1 20000 b/prog
FORETELL_TRACE=$work/tc.ftrace c/prog >/dev/null 2>&1
"$FT" symbolize tc.ftrace 2>/dev/null || fail "symbolize"
rm -rf a b c
"$FT" batch analyze -q --store s.db ta.ftrace tb.ftrace tc.ftrace
[ $? = 1 ] || fail "no findings"
fps() {
    $CHECK count s.db "SELECT group_concat(fingerprint) FROM (SELECT o.fingerprint FROM occurrences o JOIN traces t ON t.hash = o.trace WHERE t.path = '$1' ORDER BY 1)"
}
fa=$(fps ta.ftrace)
[ -n "$fa" ] && [ "$fa" != 0 ] || fail "no findings in the first build"
[ "$fa" = "$(fps tb.ftrace)" ] ||
    fail "the edited build split the findings: $fa / $(fps tb.ftrace)"
[ "$fa" = "$(fps tc.ftrace)" ] ||
    fail "the trace symbolised later differs: $fa / $(fps tc.ftrace)"
# ... although the lines, the paths and the builds differ
[ "$($CHECK count s.db "SELECT count(DISTINCT line) FROM events WHERE role = 'region-begin'")" -gt \
  "$($CHECK count s.db "SELECT count(DISTINCT fingerprint) FROM events WHERE role = 'region-begin'")" ] ||
    fail "the line numbers did not change: the test proves nothing"
[ "$($CHECK count s.db "SELECT count(DISTINCT build_id) FROM traces")" = 3 ] ||
    fail "not three builds"
$CHECK count s.db "SELECT count(*) FROM events WHERE key = 1 AND text IS NULL" |
    grep -qx 0 || fail "key events without their source line"
$CHECK keys s.db >/dev/null || fail "keys"
exit 0
