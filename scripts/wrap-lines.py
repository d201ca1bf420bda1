#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: rewrap the lines of C files that run past 100 columns (tabs at 8) and leave every
# other line as it is: a long string literal is split at a blank into two adjacent literals (the
# second aligned under the first), a long comment line continues on a new line with the same
# prefix, and what is left (code) is handed to clang-format with the project's .clang-format,
# for those lines only.
#
#   scripts/wrap-lines.py FILE...
"""Rewrap only the over-long lines of C sources."""
import re
import shutil
import subprocess
import sys

LIMIT = 100


def width(s):
    """Display width of s with tabs at 8."""
    return len(s.expandtabs(8))


def indent_to(col):
    """Tabs and spaces reaching display column col."""
    return "\t" * (col // 8) + " " * (col % 8)


def literals(line):
    """(start, end) index pairs of the string literals in a line (end after the closing quote)."""
    out, i, n = [], 0, len(line)
    while i < n:
        c = line[i]
        if line.startswith("//", i) or line.startswith("/*", i):
            break
        if c == "'":
            j = i + 1
            while j < n and line[j] != "'":
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            out.append((i, j + 1))
            i = j + 1
            continue
        i += 1
    return out


def split_literal(line):
    """Split the literal crossing the limit at its last blank that fits; None if none does."""
    for start, end in literals(line):
        if width(line[:end]) <= LIMIT:
            continue
        col0 = width(line[:start])
        best = None
        for k in range(start + 1, end - 1):
            if line[k] == " " and width(line[:k + 1]) + 1 <= LIMIT and k + 1 < end - 1:
                best = k
        if best is None or col0 + 1 >= LIMIT - 20:
            return None
        first = line[:best + 1] + '"'
        second = indent_to(col0) + '"' + line[best + 1:]
        return [first, second]
    return None


COMMENT = re.compile(r"^(\s*)(\*(?= |$)|//|/\*)( ?)(.*)$")


def split_comment(line):
    """A comment line past the limit continues on the next line with the same prefix."""
    m = COMMENT.match(line)
    if not m:
        return None
    lead, mark, sp, text = m.groups()
    if mark == "/*":
        cont = lead + " * "
    else:
        cont = lead + mark + " "
    head = lead + mark + sp
    words = text.split(" ")
    for i in range(len(words), 0, -1):
        first = head + " ".join(words[:i])
        if width(first) <= LIMIT and words[i:] and words[i:] != ["*/"]:
            return [first.rstrip(), cont + " ".join(words[i:])]
    return None


def joinable(rest, nxt):
    """May the rest of a split comment line run on into the next line (same paragraph)?"""
    m, r = COMMENT.match(nxt), COMMENT.match(rest)
    if not m or not r or m.group(2) == "/*" or rest.rstrip().endswith("*/"):
        return False
    text = m.group(4)
    if (m.group(1), m.group(2)) != (r.group(1), r.group(2)) or not text.strip():
        return False
    if text.startswith(" ") or r.group(4).startswith(" "):
        return False  # indented: a table or an example, kept as laid out
    return not re.match(r"(@|-|\d+[.)]|[A-Z][a-z]+:)", text) and not text.startswith("*/")


def fix(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out, changed, i = [], False, 0
    while i < len(lines):
        cur = lines[i]
        i += 1
        if width(cur) <= LIMIT:
            out.append(cur)
            continue
        is_comment = bool(COMMENT.match(cur))
        parts = split_comment(cur) if is_comment else split_literal(cur)
        if not parts:
            out.append(cur)
            continue
        changed = True
        out.append(parts[0])
        rest = parts[1]
        if is_comment and i < len(lines) and joinable(rest, lines[i]):
            nxt = COMMENT.match(lines[i])
            lines[i] = rest + " " + nxt.group(4)
        else:
            lines.insert(i, rest)
    if changed:
        open(path, "w", encoding="utf-8").write("\n".join(out))
    code = [str(i + 1) for i, l in enumerate(out) if width(l) > LIMIT]
    if code and shutil.which("clang-format"):
        subprocess.run(["clang-format", "-i"] + [f"--lines={n}:{n}" for n in code] + [path],
                       check=True)
    left = sum(1 for l in open(path, encoding="utf-8").read().split("\n") if width(l) > LIMIT)
    if left:
        print(f"{path}: {left} lines still over {LIMIT} columns: split them by hand")
    return left


def main():
    left = 0
    for path in sys.argv[1:]:
        left += fix(path)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
