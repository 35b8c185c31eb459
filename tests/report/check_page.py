#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# check_page.py - reads a `foretell report --html` page (as written, or as
# a browser's rendered DOM) with Python's HTML parser, an independent
# reader, and checks every finding's swimlanes against the schedule file
# the page names: one lane per thread of the witness, one row per step in
# the schedule's order, each step in the lane of its thread with its kind.
# Then the page-wide expectations given as arguments:
#   --text S      S is the source line of some step (a pre.src in a lane)
#   --loc S       S is in some step's file:line (escaped names come back
#                 as the same text)
#   --findings N  the page has N finding sections
#   --first-rank R  the first finding's rank (0: confirmed by replay)
#   --sourced 1   every step of every witness shows its source line (but
#                 a signal that ended a failing run: it has no site)
# Exit 0, or 1 with what is wrong.
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []   # each: {"rank", "note", "lanes", "rows"}
        self.stack = []      # open elements: (tag, attrs)
        self.cell = None     # the lane cell being read
        self.bad_tags = []
        self.text_of = None  # ("note"|"src"|"loc"|"kind", buffer)
        self.srcs, self.locs = [], []

    def cur(self):
        return self.sections[-1] if self.sections else None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("script", "i", "img", "iframe", "link"):
            self.bad_tags.append(tag)
        cls = (a.get("class") or "").split()
        self.stack.append((tag, cls))
        if tag == "section" and "finding" in cls:
            self.sections.append({"rank": int(a.get("data-rank", -1)),
                                  "note": "", "lanes": [], "rows": []})
        s = self.cur()
        if s is None:
            return
        if tag == "th" and "lane" in cls:
            s["lanes"].append(int(a["data-tid"]))
        elif tag == "tr" and "data-step" in a:
            s["rows"].append({"step": int(a["data-step"]),
                              "tid": int(a["data-tid"]), "cells": [],
                              "src": False})
        elif tag == "td" and s["rows"] and self.in_lanes():
            s["rows"][-1]["cells"].append("")
            self.cell = s["rows"][-1]["cells"]
        elif tag == "p" and "note" in cls and "finding" in [
                c for t, cl in self.stack for c in cl]:
            self.text_of = ["note", ""]
        elif tag == "pre" and "src" in cls and self.cell is not None:
            self.text_of = ["src", ""]
            s["rows"][-1]["src"] = True
        elif tag == "span" and "loc" in cls and self.cell is not None:
            self.text_of = ["loc", ""]

    def in_lanes(self):
        return any(t == "table" and "lanes" in c for t, c in self.stack)

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break
        if tag == "td":
            self.cell = None
        if self.text_of and tag in ("p", "pre", "span"):
            kind, text = self.text_of
            if kind == "note" and tag == "p":
                self.cur()["note"] += text
            elif kind == "src" and tag == "pre":
                self.srcs.append(text)
            elif kind == "loc" and tag == "span":
                self.locs.append(text)
            else:
                return
            self.text_of = None

    def handle_data(self, data):
        if self.cell is not None and self.cell:
            self.cell[-1] += data
        if self.text_of:
            self.text_of[1] += data


def schedule_steps(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    n = next(int(l.split(": ")[1]) for l in lines if l.startswith("steps: "))
    body = [l for l in lines[lines.index(next(l for l in lines
                                              if l.startswith("steps: "))) + 1:]
            if l and not l.startswith("#") and l != "end"]
    assert len(body) == n, (path, len(body), n)
    return [(int(l.split(" ")[0]), l.split(" ")[2]) for l in body]


def main():
    args = sys.argv[1:]
    page = Page()
    page.feed(open(args[0], encoding="utf-8").read())
    errors = []
    if page.bad_tags:
        errors.append("elements the page never writes (escaping broken?): %s"
                      % sorted(set(page.bad_tags)))
    checked = 0
    for k, s in enumerate(page.sections, 1):
        note = s["note"]
        if " from " not in note or "steps" not in note:
            continue
        path = note.split(" from ", 1)[1].split(", source lines", 1)[0]
        path = path.rstrip(".")
        want = schedule_steps(path)[-500:]
        tids = []
        for t, _ in want:
            if t not in tids:
                tids.append(t)
        if s["lanes"] != tids:
            errors.append("finding %d: lanes %s, the witness's threads %s"
                          % (k, s["lanes"], tids))
        got = [(r["tid"], r["cells"]) for r in s["rows"]]
        if len(got) != len(want):
            errors.append("finding %d: %d rows, %d steps in %s"
                          % (k, len(got), len(want), path))
        steps = [r["step"] for r in s["rows"]]
        if steps != sorted(steps):
            errors.append("finding %d: steps out of order: %s" % (k, steps))
        for i, ((tid, kind), (rtid, cells)) in enumerate(zip(want, got)):
            filled = [c for c, text in enumerate(cells[1:]) if text.strip()]
            lane = s["lanes"].index(tid) if tid in s["lanes"] else -1
            if rtid != tid or filled != [lane] or \
                    not cells[1 + lane].strip().lstrip("! ").startswith(kind):
                errors.append("finding %d step %d: %s of thread %d expected "
                              "in lane %d, row has thread %d, cells %s"
                              % (k, i + 1, kind, tid, lane, rtid, cells))
                break
        checked += 1
    i = 1
    while i < len(args):
        opt, val = args[i], args[i + 1]
        i += 2
        if opt == "--text" and not any(val in t for t in page.srcs):
            errors.append("no step shows the source line %r" % val)
        elif opt == "--loc" and not any(val in t for t in page.locs):
            errors.append("no step is at %r (%s)" % (val, page.locs[:3]))
        elif opt == "--sourced" and val == "1" and not all(
                r["src"] or "signal" in "".join(r["cells"][1:])
                for s in page.sections for r in s["rows"]):
            errors.append("steps without their source line")
        elif opt == "--findings" and len(page.sections) != int(val):
            errors.append("%d findings, expected %s"
                          % (len(page.sections), val))
        elif opt == "--first-rank" and (
                not page.sections or page.sections[0]["rank"] != int(val)):
            errors.append("first finding's rank %s, expected %s" % (
                page.sections[0]["rank"] if page.sections else None, val))
    if not checked:
        errors.append("no finding with a witness drawn")
    ranks = [s["rank"] for s in page.sections]
    if ranks != sorted(ranks):
        errors.append("findings not surest first: ranks %s" % ranks)
    for e in errors:
        print("check_page: %s: %s" % (args[0], e))
    if not errors:
        print("check_page: %s: %d findings, %d witnesses checked"
              % (args[0], len(page.sections), checked))
    return 1 if errors else 0


sys.exit(main())
