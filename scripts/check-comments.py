#!/usr/bin/env python3
"""scripts/check-comments.py [--stats] FILE...: the limits on comments (docs/conventions.md, issue 31).

Fails (exit 1), naming FILE:LINE, on
  - a header (.h) whose preamble, the comment that opens the file, runs over 15 lines;
  - a `.doc` string of a schema row (`.doc = "..." "..."`, literals joined) over 160 characters;
  - a line inside a comment, or carrying one, wider than 130 columns.
Derivations, evidence and fit history live in docs/model/ instead. `make format-check` runs it on
the sources it formats; tests/data/check-comments/ holds a fixture that it must reject (Makefile).
--stats prints the preamble line counts of the headers (median, max) and checks nothing.
--self-test checks the fixtures of tests/data/check-comments/: good.h meets every limit exactly and
passes; each other file breaks one limit once, at the line marked @bad, and must be rejected there.
"""
import os
import re
import statistics
import sys

PREAMBLE_MAX = 15
DOC_MAX = 160
COLUMNS_MAX = 130


def comment_lines(text):
    """Yields (line_number, start_line_of_comment, end_line) of every comment, skipping strings."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            line += text.count("\n", i, j)
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            end = line + text.count("\n", i, j)
            yield line, end
            line = end
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield line, line
            i = j
        else:
            i += 1


def preamble_span(text):
    """(first, last) line of the comment that opens the file, or None."""
    m = re.match(r"\s*", text)
    rest = text[m.end():]
    if not rest.startswith("/*"):
        return None
    first = text.count("\n", 0, m.end()) + 1
    j = text.find("*/", m.end())
    if j < 0:
        return None
    return first, first + text.count("\n", m.end(), j)


DOC_RE = re.compile(r"\.doc\s*=\s*((?:\"(?:[^\"\\\n]|\\.)*\"\s*)+)")
LIT_RE = re.compile(r"\"((?:[^\"\\\n]|\\.)*)\"")


def doc_strings(text):
    """Yields (line, value) of every `.doc = "..."` (adjacent literals joined, escapes counted once)."""
    for m in DOC_RE.finditer(text):
        value = "".join(LIT_RE.findall(m.group(1)))
        value = re.sub(r"\\(x[0-9a-fA-F]+|[0-7]{1,3}|.)", "_", value)
        yield text.count("\n", 0, m.start()) + 1, value


def check(path, problems):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    if path.endswith(".h"):
        span = preamble_span(text)
        if span and span[1] - span[0] + 1 > PREAMBLE_MAX:
            problems.append(f"{path}:{span[0]}: header preamble of {span[1] - span[0] + 1} lines (at most {PREAMBLE_MAX}; "
                            "evidence and history go to docs/model/)")
    for line, value in doc_strings(text):
        if len(value) > DOC_MAX:
            problems.append(f"{path}:{line}: .doc string of {len(value)} characters (at most {DOC_MAX})")
    seen = set()
    for first, last in comment_lines(text):
        for k in range(first, last + 1):
            if k in seen:
                continue
            seen.add(k)
            width = len(lines[k - 1].expandtabs(8))
            if width > COLUMNS_MAX:
                problems.append(f"{path}:{k}: comment line of {width} columns (at most {COLUMNS_MAX})")


def stats(paths):
    counts = []
    for path in paths:
        if not path.endswith(".h"):
            continue
        with open(path, encoding="utf-8") as f:
            span = preamble_span(f.read())
        n = span[1] - span[0] + 1 if span else 0
        counts.append((n, path))
    for n, path in sorted(counts, reverse=True):
        print(f"{n:4d} {path}")
    ns = [n for n, _ in counts]
    if ns:
        print(f"headers {len(ns)}: median {statistics.median(ns)}, max {max(ns)}, "
              f"over {PREAMBLE_MAX}: {sum(n > PREAMBLE_MAX for n in ns)}, >= 40: {sum(n >= 40 for n in ns)}")


FIXTURES = os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "check-comments"))
KIND = {"preamble.h": "header preamble", "doc.c": ".doc string", "wide.c": "comment line"}


def self_test():
    """0 when the check passes good.h and rejects each bad fixture exactly at its @bad line."""
    failed = 0
    for name in sorted(os.listdir(FIXTURES)):
        path = os.path.join(FIXTURES, name)
        problems = []
        check(path, problems)
        if name == "good.h":
            ok = not problems
        else:
            with open(path, encoding="utf-8") as f:
                bad = [i + 1 for i, line in enumerate(f.read().split("\n")) if "@bad" in line]
            ok = (len(problems) == 1 and len(bad) == 1 and problems[0].startswith(f"{path}:{bad[0]}: ")
                  and KIND[name] in problems[0])
        if not ok:
            failed += 1
            print(f"check-comments --self-test: {name}: got {problems or 'no problem'}", file=sys.stderr)
    if failed == 0:
        print(f"check-comments --self-test: {len(os.listdir(FIXTURES))} fixtures as expected")
    return 1 if failed else 0


def main(argv):
    if argv and argv[0] == "--self-test":
        return self_test()
    if argv and argv[0] == "--stats":
        stats(argv[1:])
        return 0
    problems = []
    for path in argv:
        check(path, problems)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-comments: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-comments: {len(argv)} files within the comment limits")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
