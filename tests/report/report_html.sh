#!/bin/sh
# SPDX-License-Identifier: MIT
# report_html.sh MODE - `foretell report --html` end to end: data/ programs
# built with foretell-cc (one from a source file whose name is markup,
# uaf<i>&x.c, so that escaping is tested where a page shows file names),
# recorded, analyzed (confirmed by replay) and explored; each report drawn
# and read back by check_page.py: one lane per thread of each witness, the
# steps in the schedule's order each in its thread's lane, the source
# lines, the confirmed findings first.
#   MODE=page     the pages as written, the inputs it takes (a directory,
#                 its report.json, a moved directory) and bad input
#   MODE=browser  the same pages as headless Chromium renders them (its
#                 --dump-dom), skipped (77) only where chromium is missing
set -u
MODE=${1:-page}
F=$FT_BIN/foretell
CC=$FT_BIN/foretell-cc
CHECK="python3 $FT_SRC/tests/report/check_page.py"
W=$FT_WORK/$MODE
rm -rf "$W" && mkdir -p "$W/src" && cd "$W" || exit 1
fail() { echo "FAIL(report_html $MODE): $*" >&2; exit 1; }
# the browser CMake found, else one on PATH
CHROMIUM=${FT_CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ "$MODE" = browser ] && [ ! -x "$CHROMIUM" ]; then
    echo "no chromium (scripts/setup.sh installs it): skipped"
    exit 77
fi

cp "$FT_SRC/data/uaf_handoff.c" "src/uaf<i>&x.c"
"$CC" -g -O1 -o uaf "src/uaf<i>&x.c" -lpthread || fail "foretell-cc uaf_handoff"
"$CC" -g -O1 -o vb "$FT_SRC/data/vb_figures.c" -lpthread || fail "foretell-cc vb_figures"
"$F" record -o uaf.ft -- ./uaf >/dev/null 2>&1 || fail "record uaf_handoff"
"$F" record -o vb.ft -- ./vb 4 >/dev/null 2>&1 || fail "record vb_figures 4"
"$F" analyze uaf.ft -o out-uaf -q >uaf.txt 2>&1
[ $? = 1 ] || fail "analyze uaf: $(tail -3 uaf.txt)"
"$F" analyze vb.ft -o out-vb -q >vb.txt 2>&1
[ $? = 1 ] || fail "analyze vb: $(tail -3 vb.txt)"
[ -s out-uaf/report.json ] || fail "analyze -o out-uaf wrote no report.json"
"$F" explore -o exp -- ./uaf >exp.txt 2>&1
[ $? = 1 ] || fail "explore found nothing: $(tail -3 exp.txt)"
[ -s exp/report.json ] || fail "explore -o exp wrote no report.json"

# the number of findings a report.json holds
nfind() {
    python3 -c "import json; d=json.load(open('$1'))
print(len(d.get('findings', [])) + len(d.get('violations', [])) + len(d.get('bugs', [])))"
}

"$F" report --html h-uaf out-uaf >rep.out 2>rep.err || fail "report out-uaf: $(cat rep.err)"
[ "$(cat rep.out)" = "h-uaf/index.html" ] || fail "report printed '$(cat rep.out)'"
"$F" report --html h-vb out-vb 2>rep.err >/dev/null || fail "report out-vb: $(cat rep.err)"
"$F" report --html h-exp exp 2>rep.err >/dev/null || fail "report exp: $(cat rep.err)"

# what each page must show (the source lines are uaf_handoff.c's and
# vb_figures.c's own; the uaf witness ends at the worker's read)
FREED='assert(job->magic == JOB_LIVE);'
check() { # PAGE-OR-DOM WHICH
    case $2 in
    uaf) $CHECK "$1" --findings "$(nfind out-uaf/report.json)" --first-rank 0 \
             --text "$FREED" --loc 'uaf<i>&x.c:' --sourced 1 ;;
    vb) $CHECK "$1" --findings "$(nfind out-vb/report.json)" --first-rank 0 \
            --text 't3 = b; /* BUG: fig 4' --sourced 1 ;;
    exp) $CHECK "$1" --findings 1 --first-rank 0 --text "$FREED" \
             --loc 'uaf<i>&x.c:36' --sourced 1 ;;
    esac
}

if [ "$MODE" = browser ]; then
    for p in uaf vb exp; do
        # a profile of its own: nothing read from or left in $HOME
        timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
            --user-data-dir="$W/chrome" --dump-dom \
            "file://$W/h-$p/index.html" >"dom-$p.html" 2>"chrome-$p.err" ||
            fail "chromium on h-$p: exit $? ($(tail -2 "chrome-$p.err"))"
        grep -q '<section class="finding"' "dom-$p.html" ||
            fail "chromium's DOM of h-$p has no finding"
        check "dom-$p.html" $p || fail "rendered h-$p/index.html"
    done
    echo "ok: report --html pages as Chromium renders them"
    exit 0
fi

for p in uaf vb exp; do
    check "h-$p/index.html" $p || fail "h-$p/index.html"
done
# the failing run's witness (a random tail after vb's CA schedule made
# the assertion fail) is drawn from that run's trace
grep -q 'ca-0.failing.schedule</code>, source lines from <code>out-vb/ca-0.tail.ftrace' h-vb/index.html ||
    fail "vb: the tail's failing run is not the witness drawn"
grep -q '<script\|<link\|<img\|src="http' h-uaf/index.html && fail "the page loads or runs something"
# an atomicity violation's regions, with their lines
grep -Eq '<td class="loc">[^<]*vb_figures.c:[1-9][0-9]*-[1-9][0-9]*</td>' h-vb/index.html ||
    fail "vb: regions without their lines"

# the same page from the JSON file itself, and from a moved directory
# (schedules and traces found beside the document)
"$F" report --html h-json out-uaf/report.json >/dev/null 2>rep.err || fail "report FILE: $(cat rep.err)"
grep -v 'From <code>' h-uaf/index.html >a.html
grep -v 'From <code>' h-json/index.html >b.html
cmp -s a.html b.html || fail "report out-uaf/report.json differs from report out-uaf"
mv exp moved
"$F" report --html h-moved moved >/dev/null 2>rep.err || fail "report moved: $(cat rep.err)"
grep -q 'steps from <code>moved/bug-1.schedule</code>, source lines from <code>moved/bug-1.ftrace' h-moved/index.html ||
    fail "moved directory: schedule and trace not found beside report.json"
check h-moved/index.html exp || fail "h-moved/index.html"

# hostile text in the document itself is text on the page
mkdir hostile
cat >hostile/report.json <<'J'
{"trace": "<script>alert(1)</script>", "findings": [{"kind": "<i>k</i>",
 "status": "bug", "message": "</p><script>x</script>", "events": [],
 "schedule": "nowhere/<i>.schedule"}], "violations": [],
 "observed_violations": [{"region": 3, "thread": 1, "function": "<f>",
  "file": "a.c", "lines": [5, 7], "out": {"thread": 1, "site": "a.c:5"},
  "via": {"thread": 2, "site": "a.c:9"}, "in": {"thread": 1, "site": "a.c:7"}}],
 "misuse": [{"what": "unlock of a mutex not held", "mutex": "<m>",
  "thread": 2, "site": "a.c:12", "function": "g"}]}
J
"$F" report --html h-hostile hostile >/dev/null 2>rep.err || fail "hostile: $(cat rep.err)"
grep -q '<script\|<i>' h-hostile/index.html && fail "hostile text became markup"
grep -q '&lt;/p&gt;&lt;script&gt;x&lt;/script&gt;' h-hostile/index.html || fail "hostile message not shown"
grep -q 'nowhere/&lt;i&gt;.schedule: not found' h-hostile/index.html || fail "missing schedule not named"
# what the recorded run showed itself: listed, escaped
grep -q 'R3</td><td class="n">1</td><td class="loc">&lt;f&gt; a.c:5-7</td>' h-hostile/index.html ||
    fail "observed violation not listed"
grep -q 'unlock of a mutex not held (&lt;m&gt;)</td><td class="n">2</td><td class="loc">a.c:12 g' h-hostile/index.html ||
    fail "misuse not listed"

# bad input: a message naming the path, exit 2, nothing written
bad() { # WHAT EXPECTED-MESSAGE ARGS...
    what=$1 msg=$2
    shift 2
    "$F" report "$@" >bad.out 2>bad.err
    rc=$?
    [ $rc = 2 ] || fail "$what: exit $rc, expected 2 ($(cat bad.err))"
    grep -q -- "$msg" bad.err || fail "$what: message '$(cat bad.err)', expected '$msg'"
}
bad "missing input" "no-such-dir: error: No such file or directory" --html h-x no-such-dir
bad "directory without report.json" "src: error: no report.json here" --html h-x src
bad "not JSON" "vb.txt:1: error: not a JSON document" --html h-x vb.txt
echo '{"x": 1}' >other.json
bad "another JSON document" 'other.json: error: not the report of foretell analyze' --html h-x other.json
bad "a file as DIR" "vb.txt: error: not a directory" --html vb.txt out-uaf
bad "a DIR that cannot be created" "no/such/parent: error: cannot create the directory" --html no/such/parent out-uaf
bad "no --html" "missing --html DIR" out-uaf
bad "no INPUT" "missing INPUT" --html h-x
mkfifo fifo.json
bad "a FIFO" "fifo.json: error: .*FIFO" --html h-x fifo.json
[ -e h-x ] && fail "a failed report left h-x behind"
mkdir ro
chmod 555 ro
if [ "$(id -u)" = 0 ]; then
    # root writes anywhere its permissions allow: /proc is not writable
    bad "an unwritable DIR" "/proc/self: error: " --html /proc/self out-uaf
else
    bad "an unwritable DIR" "ro: error: the directory is not writable" --html ro out-uaf
fi
"$F" report --help | grep -q "usage: foretell report --html DIR INPUT" || fail "--help"
echo "ok: report --html pages, inputs and bad input"
