#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""storecheck.py - an independent reader of what `foretell batch` writes,
for the tests in this directory: it reads the store with Python's own
sqlite3 and the reports with json, jsonschema, xml.etree and html.parser,
and recomputes fingerprints from docs/batch.md's rule with hashlib.

  storecheck.py dump DB               canonical content (no times)
  storecheck.py consistent DB         integrity, references, counts
  storecheck.py keys DB               every key and fingerprint recomputed
  storecheck.py count DB SQL          one number
  storecheck.py sarif LOG SCHEMA DB [new=N unchanged=N absent=N]
  storecheck.py junit XML DB
  storecheck.py jsonl FILE DB
  storecheck.py html FILE DB
Exits 1 with a message on the first thing that is wrong."""

import hashlib
import html.parser
import json
import os
import sqlite3
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("storecheck: " + msg, file=sys.stderr)
    sys.exit(1)


def db(path, write=False):
    """Read-only, except after a crash: a reader that finds a hot journal
    must be able to roll it back, as foretell's own connections do."""
    if not os.path.exists(path):
        fail(path + ": no such store")
    return sqlite3.connect("file:" + path + ("?mode=rw" if write else
                                             "?mode=ro"), uri=True)


def tables(c):
    return {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE"
                                    " type = 'table'")}


def dump(path):
    c = db(path)
    out = []
    for q in ["SELECT hash, path, program, argv, build_id, recorded_ns, events,"
              " threads, end_reason, exit_status, status, message, exit_code,"
              " regions, properties, violated, holds, unknown, observed,"
              " findings, options FROM traces ORDER BY hash",
              "SELECT fingerprint, kind, key, confirm_status, confirm_failure,"
              " confirm_detail, confirm_trace FROM findings ORDER BY"
              " fingerprint",
              "SELECT * FROM occurrences ORDER BY fingerprint, trace",
              "SELECT * FROM events ORDER BY fingerprint, trace, ord"]:
        for row in c.execute(q):
            out.append(repr(row))
        out.append("--")
    print("\n".join(out))


def consistent(path):
    c = db(path, write=True)
    if c.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
        fail(path + ": integrity check failed")
    have = tables(c)
    if not have:
        return  # killed before the schema was committed: an empty store
    if not {"meta", "traces", "findings", "occurrences", "events"} <= have:
        fail(path + ": a part of the schema: " + ", ".join(sorted(have)))
    checks = {
        "occurrence without its trace":
            "SELECT count(*) FROM occurrences WHERE trace NOT IN"
            " (SELECT hash FROM traces)",
        "occurrence without its finding":
            "SELECT count(*) FROM occurrences WHERE fingerprint NOT IN"
            " (SELECT fingerprint FROM findings)",
        "finding without an occurrence":
            "SELECT count(*) FROM findings WHERE fingerprint NOT IN"
            " (SELECT fingerprint FROM occurrences)",
        "event without its occurrence":
            "SELECT count(*) FROM events e WHERE NOT EXISTS (SELECT 1 FROM"
            " occurrences o WHERE o.fingerprint = e.fingerprint AND"
            " o.trace = e.trace)",
        "trace whose findings count is not its occurrences":
            "SELECT count(*) FROM traces t WHERE findings != (SELECT"
            " count(*) FROM occurrences o WHERE o.trace = t.hash)",
    }
    for what, q in checks.items():
        n = c.execute(q).fetchone()[0]
        if n:
            fail("%s: %d %s" % (path, n, what))


def field(s):
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n")


def key_of(kind, events):
    """docs/batch.md, "Fingerprints"."""
    lines = set()
    for module, file, function, text, line, offset in events:
        if text is not None:
            last = field("".join(ch for ch in text if ch not in " \t\r\v\f"))
        elif line or not offset:
            last = "#%d" % line
        else:
            last = "+0x%x" % offset
        lines.add("site " + field(module) + "|" +
                  field(os.path.basename(file)) + "|" + field(function) +
                  "|" + last)
    body = "".join(l + "\n" for l in sorted(lines, key=lambda s:
                                            s.encode()))
    return "foretell-fingerprint 1\nkind " + field(kind) + "\n" + body


def keys(path):
    c = db(path)
    n = 0
    for fp, kind, key in c.execute("SELECT fingerprint, kind, key FROM"
                                   " findings"):
        if hashlib.sha256(key.encode()).hexdigest()[:32] != fp:
            fail("%s: fingerprint %s is not the hash of its key" % (path, fp))
        for (trace,) in c.execute("SELECT trace FROM occurrences WHERE"
                                  " fingerprint = ?", (fp,)).fetchall():
            ev = c.execute("SELECT module, file, function, text, line, offset"
                           " FROM events WHERE fingerprint = ? AND trace = ?"
                           " AND key = 1", (fp, trace)).fetchall()
            if not ev:
                fail("%s: occurrence %s/%s has no key event" % (path, fp,
                                                                 trace))
            got = key_of(kind, ev)
            if got != key:
                fail("%s: key of %s in %s recomputed as %r, stored %r" %
                     (path, fp, trace[:12], got, key))
            n += 1
    print(n)


def count(path, sql):
    c = db(path)
    print(c.execute(sql).fetchone()[0] if tables(c) else 0)


def sarif(log, schema_path, path, expect):
    import jsonschema
    doc = json.load(open(log))
    schema = json.load(open(schema_path))
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc),
                    key=lambda e: list(e.path))
    if errors:
        fail("%s: not valid SARIF 2.1.0: %s at %s" %
             (log, errors[0].message, list(errors[0].path)))
    c = db(path)
    fps = {r[0]: r for r in c.execute("SELECT fingerprint, kind FROM"
                                      " findings")}
    results = doc["runs"][0]["results"]
    rules = [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]]
    states = {}
    seen = set()
    for r in results:
        fp = r["partialFingerprints"]["foretell/v1"]
        st = r.get("baselineState")
        states[st] = states.get(st, 0) + 1
        if st == "absent":
            if fp in fps:
                fail("%s: %s absent but in the store" % (log, fp))
            continue
        if fp not in fps or fp in seen:
            fail("%s: result %s not a finding of the store (or twice)" %
                 (log, fp))
        seen.add(fp)
        if rules[r["ruleIndex"]] != r["ruleId"] or r["ruleId"] != fps[fp][1]:
            fail("%s: rule of %s" % (log, fp))
        wit = c.execute("SELECT witness FROM occurrences WHERE fingerprint ="
                        " ? ORDER BY trace LIMIT 1", (fp,)).fetchone()[0]
        if wit:
            steps = [l.split(" ", 4) for l in wit.split("\n")
                     if l and l[0].isdigit()]
            steps = steps[-1000:]
            flows = r["codeFlows"][0]["threadFlows"]
            order = sorted(loc["executionOrder"] for f in flows
                           for loc in f["locations"])
            if order != list(range(1, len(steps) + 1)):
                fail("%s: %s: executionOrder is not 1..%d" %
                     (log, fp, len(steps)))
            by = {}
            for f in flows:
                for loc in f["locations"]:
                    by[loc["executionOrder"]] = (f["id"], loc["importance"])
            for i, s in enumerate(steps):
                tid, _, _, mark, _ = s
                if by[i + 1] != ("thread " + tid, "essential" if mark == "!"
                                 else "unimportant"):
                    fail("%s: %s: step %d is %s, the witness says thread %s"
                         " mark %s" % (log, fp, i + 1, by[i + 1], tid, mark))
    if seen != set(fps):
        fail("%s: %d findings in the store, %d results" % (log, len(fps),
                                                          len(seen)))
    for kv in expect:
        k, v = kv.split("=")
        if states.get(k, 0) != int(v):
            fail("%s: %d results %s, expected %s (%s)" %
                 (log, states.get(k, 0), k, v, states))


def junit(xml, path):
    c = db(path)
    root = ET.parse(xml).getroot()
    cases = root.findall("./testsuite/testcase")
    traces = {r[0]: r for r in c.execute("SELECT path, status, findings"
                                         " FROM traces")}
    if len(cases) != len(traces) or int(root.get("tests")) != len(traces):
        fail("%s: %d test cases, %d traces" % (xml, len(cases), len(traces)))
    fails = 0
    for tc in cases:
        t = traces.get(tc.get("name"))
        if not t:
            fail("%s: test case %s is no trace" % (xml, tc.get("name")))
        f = tc.find("failure")
        e = tc.find("error")
        if t[1] in ("analyzed", "damaged"):
            if (f is not None) != (t[2] > 0) or e is not None:
                fail("%s: %s: failure element and %d findings" %
                     (xml, t[0], t[2]))
            if f is not None:
                fails += 1
                if f.text.count("\n") != t[2]:
                    fail("%s: %s: %d lines for %d findings" %
                         (xml, t[0], f.text.count("\n"), t[2]))
        elif e is None:
            fail("%s: %s is %s but has no error" % (xml, t[0], t[1]))
    if int(root.get("failures")) != fails:
        fail("%s: failures=%s, counted %d" % (xml, root.get("failures"),
                                               fails))


def jsonl(path_jl, path):
    c = db(path)
    kinds = {}
    for line in open(path_jl):
        o = json.loads(line)
        kinds[o["type"]] = kinds.get(o["type"], 0) + 1
        if o["type"] == "finding":
            k = c.execute("SELECT key FROM findings WHERE fingerprint = ?",
                          (o["fingerprint"],)).fetchone()
            if not k or k[0] != o["key"]:
                fail("%s: finding %s" % (path_jl, o["fingerprint"]))
    want = {"summary": 1,
            "trace": c.execute("SELECT count(*) FROM traces").fetchone()[0],
            "finding": c.execute("SELECT count(*) FROM findings").fetchone()[0]}
    for k, v in want.items():
        if kinds.get(k, 0) != v:
            fail("%s: %d %s lines, expected %d" % (path_jl, kinds.get(k, 0),
                                                   k, v))


class Page(html.parser.HTMLParser):
    """The findings' <details> and, inside each, the swimlane table."""

    def __init__(self):
        super().__init__()
        self.findings = {}
        self.cur = None
        self.table = None
        self.row = None
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "details":
            self.cur = a["id"][2:]
            self.findings[self.cur] = {"threads": [], "rows": []}
        elif tag == "table" and self.cur:
            self.table = a.get("class")
        elif tag == "tr" and self.table == "lanes":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = [a.get("class") or "", ""]
            self.row.append(self.cell)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell[1] += data

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.cell = None
        elif tag == "tr" and self.row is not None:
            f = self.findings[self.cur]
            if not f["threads"]:
                f["threads"] = [c[1] for c in self.row[1:]]
            else:
                f["rows"].append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None
        elif tag == "details":
            self.cur = None


def page(html_path, path):
    p = Page()
    p.feed(open(html_path, encoding="utf-8").read())
    c = db(path)
    fps = [r[0] for r in c.execute("SELECT fingerprint FROM findings")]
    if sorted(p.findings) != sorted(fps):
        fail("%s: %d findings on the page, %d in the store" %
             (html_path, len(p.findings), len(fps)))
    for fp, f in p.findings.items():
        wit = c.execute("SELECT witness FROM occurrences WHERE fingerprint ="
                        " ? ORDER BY trace LIMIT 1", (fp,)).fetchone()[0]
        steps = [l.split(" ", 4) for l in (wit or "").split("\n")
                 if l and l[0].isdigit()][-500:]
        tids = []
        for s in steps:
            if "thread " + s[0] not in tids:
                tids.append("thread " + s[0])
        if f["threads"] != tids or len(f["rows"]) != len(steps):
            fail("%s: %s: lanes %s with %d rows; the witness has %s, %d "
                 "steps" % (html_path, fp, f["threads"], len(f["rows"]),
                            tids, len(steps)))
        for row, s in zip(f["rows"], steps):
            filled = [i for i, cell in enumerate(row[1:]) if cell[0]]
            if filled != [tids.index("thread " + s[0])]:
                fail("%s: %s: a step in the wrong lane" % (html_path, fp))
            marked = "mark" in row[1 + filled[0]][0]
            if marked != (s[3] == "!"):
                fail("%s: %s: mark of step %s" % (html_path, fp, s))


def main(a):
    if len(a) < 2:
        fail(__doc__)
    cmd = a[0]
    if cmd == "dump":
        dump(a[1])
    elif cmd == "consistent":
        consistent(a[1])
    elif cmd == "keys":
        keys(a[1])
    elif cmd == "count":
        count(a[1], a[2])
    elif cmd == "sarif":
        sarif(a[1], a[2], a[3], a[4:])
    elif cmd == "junit":
        junit(a[1], a[2])
    elif cmd == "jsonl":
        jsonl(a[1], a[2])
    elif cmd == "html":
        page(a[1], a[2])
    else:
        fail("unknown command " + cmd)


if __name__ == "__main__":
    main(sys.argv[1:])
