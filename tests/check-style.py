#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Description: the C sources keep to the column limit of the project's .clang-format (100, tabs
# at 8): every .c and .h under lib/ cli/ include/ preload/ examples/ bench/ tests/. A line past it
# is named with its file and number; scripts/wrap-lines.py FILE rewraps such lines. A self-test
# first shows the check failing on a long line and passing on a short one (its negative control).
#
#   check-style.py SOURCE_ROOT [BASELINE]
# BASELINE (optional): lines "COUNT FILE" allowing a file at most COUNT long lines while a tree is
# being brought under the limit; with none, no file may have any.
"""Column limit of the C sources."""
import os
import re
import sys
import tempfile

DIRS = ("lib", "cli", "include", "preload", "examples", "bench", "tests")


def column_limit(root):
    """ColumnLimit of ROOT/.clang-format: the one place the limit is stated."""
    with open(os.path.join(root, ".clang-format"), encoding="utf-8") as f:
        m = re.search(r"^ColumnLimit:\s*(\d+)", f.read(), re.M)
    if not m:
        raise SystemExit("check-style: .clang-format states no ColumnLimit")
    return int(m.group(1))


def long_lines(path, limit):
    """Numbers of the lines of PATH wider than LIMIT with tabs at 8."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return [i for i, line in enumerate(f, 1) if len(line.rstrip("\n").expandtabs(8)) > limit]


def sources(root):
    for top in DIRS:
        for d, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith(("build", ".")))
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, n), root)


def violations(root, limit, allowed):
    bad = []
    for rel in sources(root):
        lines = long_lines(os.path.join(root, rel), limit)
        if len(lines) > allowed.get(rel, 0):
            shown = ", ".join(map(str, lines[:8])) + (" ..." if len(lines) > 8 else "")
            bad.append(f"{rel}: {len(lines)} lines over {limit} columns (lines {shown})")
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, ".clang-format"), "w", encoding="utf-8") as f:
            f.write("ColumnLimit: 20\n")
        os.mkdir(os.path.join(root, "lib"))
        path = os.path.join(root, "lib", "a.c")
        with open(path, "w", encoding="utf-8") as f:
            f.write("int a;\n\tint bb = 1; /* 28 */\n")
        caught = violations(root, column_limit(root), {}) == [
            "lib/a.c: 1 lines over 20 columns (lines 2)"]
        with open(path, "w", encoding="utf-8") as f:
            f.write("int a;\n\tint bb = 1;\n")
        clean = violations(root, column_limit(root), {}) == []
    if not (caught and clean):
        print("check-style: self-test failed: a long line was not caught, or a short one was")
    return caught and clean


def main():
    if len(sys.argv) not in (2, 3) or not self_test():
        return 2
    root = sys.argv[1]
    allowed = {}
    if len(sys.argv) == 3:
        with open(sys.argv[2], encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    n, rel = line.split()
                    allowed[rel] = int(n)
    limit = column_limit(root)
    bad = violations(root, limit, allowed)
    for b in bad:
        print(b)
    n = sum(1 for _ in sources(root))
    print(f"style: {n} C sources, {len(bad)} over the {limit}-column limit"
          + (f" ({len(allowed)} files still allowed some: {os.path.basename(sys.argv[2])})"
             if allowed else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
