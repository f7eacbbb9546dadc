#!/usr/bin/env python3
"""lib-circles.py - circles of files that call each other in libcausal.so.

Reads the built objects (BUILD/lib/**/*.o, `make` first) with nm: a file
that uses a symbol another file defines takes it from that file (an arrow
from the first to the second).  A header with inline code (static inline
functions, function-like macros) is a file of its own: it takes from the
files whose symbols its inline code names, and every file whose code names
one of its inline functions or macros takes from it.  The circles are the
strongly connected components of more than one file (Tarjan).

  scripts/lib-circles.py [--build DIR] [--edges] [--max N]

--edges prints every arrow of every circle with the names it carries;
--max N exits 1 when a circle of more than N files lies in preload/.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HEADER_DIRS = ("preload", "shim-pthread", "shim-rpc", "util")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip_c(text):
    """Comments, string and character literals out, line breaks kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def inline_items(text):
    """{name: body} of a header's static inline functions and
    function-like macros."""
    items = {}
    for m in re.finditer(r"static\s+inline\b[^;{]*?\b([A-Za-z_]\w*)\s*\(",
                         text):
        depth, j = 0, text.find("{", m.end())
        if j < 0 or ";" in text[m.end():j]:
            continue
        start = j
        while j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                break
            j += 1
        items[m.group(1)] = text[start:j + 1]
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\((.*(?:\\\n.*)*)",
                         text, re.M):
        items[m.group(1)] = m.group(2)
    return items


def nm_symbols(obj):
    defined, used = set(), set()
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("U", "w", "v"):
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCVWGSui" and \
                parts[1] not in "U":
            defined.add(parts[2])
    return defined, used


def tarjan(nodes, edges):
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return comps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--edges", action="store_true")
    ap.add_argument("--max", type=int)
    args = ap.parse_args()

    objs = sorted(glob.glob(os.path.join(args.build, "lib", "**", "*.o"),
                            recursive=True))
    if not objs:
        sys.exit("no objects in %s/lib: build the library first" % args.build)
    prefix = os.path.join(args.build, "lib") + os.sep
    src_of = {o: o[len(prefix):-2] + ".c" for o in objs}
    definer, uses = {}, {}
    for o in objs:
        d, u = nm_symbols(o)
        for s in d:
            definer[s] = src_of[o]
        uses[src_of[o]] = u

    # arrows: file -> {file it takes from: {names}}
    arrows = {}

    def arrow(a, b, name):
        if a != b:
            arrows.setdefault(a, {}).setdefault(b, set()).add(name)

    for src, used in uses.items():
        for s in used:
            if s in definer:
                arrow(src, definer[s], s)

    headers = {}
    for d in HEADER_DIRS:
        for h in sorted(glob.glob(os.path.join(d, "*.h"))):
            with open(h) as f:
                items = inline_items(strip_c(f.read()))
            if items:
                headers[h] = items
    item_home = {}
    for h, items in headers.items():
        for name in items:
            item_home.setdefault(name, h)
    for h, items in headers.items():
        for name, body in items.items():
            for ident in set(IDENT.findall(body)):
                if ident in definer:
                    arrow(h, definer[ident], ident)
                elif ident in item_home and item_home[ident] != h:
                    arrow(h, item_home[ident], ident)
    for src in uses:
        with open(src) as f:
            idents = set(IDENT.findall(strip_c(f.read())))
        for ident in idents & set(item_home):
            arrow(src, item_home[ident], ident)

    nodes = set(uses) | set(headers)
    comps = [c for c in tarjan(nodes, {a: set(b) for a, b in arrows.items()})
             if len(c) > 1]
    comps.sort(key=lambda c: (-len(c), c))
    worst = 0
    print("%d files (%d with inline code in headers); %d circles" %
          (len(nodes), len(headers), len(comps)))
    for c in comps:
        in_preload = sum(1 for f in c if f.startswith("preload/"))
        worst = max(worst, in_preload)
        print("circle of %d (%d in preload/): %s" % (len(c), in_preload,
                                                     " ".join(c)))
        if args.edges:
            for a in c:
                for b in sorted(arrows.get(a, {})):
                    if b in c:
                        print("    %s -> %s: %s" % (
                            a, b, " ".join(sorted(arrows[a][b]))))
    if args.max is not None and worst > args.max:
        sys.exit(1)


if __name__ == "__main__":
    main()
