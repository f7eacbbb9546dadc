#!/usr/bin/env python3
"""structure.py - the house in figures: folders, files, arrows and circles.

    make && python3 scripts/structure.py [--build DIR] [--arrows] [--json]

Reads the tracked sources (git ls-files) and the objects a build made of
them, and prints:
  - each folder of production code: its files, its lines and its share of
    all production lines (production: the C sources, headers and .def
    tables outside test/ and examples/; web/ counts, it is built into ccsg);
  - the files over 1,000 lines;
  - the arrows between folders: includes (from the #include lines) and calls
    (a symbol one object uses and another defines, from nm);
  - the circles of files that call each other: strongly connected components
    of the call graph between source files, with the names that tie them.
    A header with inline code that calls out (static inline functions) is a
    node of its own: its includers call what it calls.
With --arrows every file-to-file call arrow is printed too.  Nothing is
built here: run `make` first (the objects of build/lib and build/tool).
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

PROD_EXT = ('.c', '.h', '.def')
NOT_PROD = ('test/', 'examples/', 'scripts/', 'docs/', 'man/', '.ci/')


def tracked(root):
    out = subprocess.check_output(['git', '-c', 'safe.directory=*', '-C', root,
                                   'ls-files'], text=True)
    return [f for f in out.split('\n') if f and os.path.exists(os.path.join(root, f))]


def production(files):
    prod = []
    for f in files:
        if f.startswith(NOT_PROD):
            continue
        if f.endswith(PROD_EXT) or f.startswith('web/') and f.endswith(('.js', '.html', '.css')):
            prod.append(f)
    return prod


def lines(root, f):
    with open(os.path.join(root, f), 'rb') as fh:
        return fh.read().count(b'\n')


def folder(f):
    """A file's room: its directory (ccsg/export/ is a room of its own)."""
    d = os.path.dirname(f)
    return (d or '.') + '/'


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


# the -I folders of the Makefile, in the order a quoted include is found
SEARCH = ('preload', 'ccsg', 'store', 'util')


def includes(root, prod):
    """file -> set of tracked headers it includes (resolved as the compiler
    would: its own folder first, then the -I folders)."""
    known = set(prod)
    arrows = collections.defaultdict(set)
    for f in prod:
        if not f.endswith(('.c', '.h')):
            continue
        text = open(os.path.join(root, f), errors='replace').read()
        for inc in INCLUDE.findall(text):
            own = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            cands = [own] if own in known else []
            cands += [c for c in [inc, 'include/' + inc] +
                      [d + '/' + inc for d in SEARCH] if c in known]
            if cands:
                arrows[f].add(cands[0])
    return arrows


SHARED = ('util', 'store')


def objects(build):
    """unit -> {source path: object}: the library's objects (build/lib) and
    each tool's (build/tool), so that a name is resolved within what is
    linked together."""
    units = collections.defaultdict(dict)
    for sub in ('lib', 'tool'):
        top = os.path.join(build, sub)
        for d, _, names in os.walk(top):
            for n in names:
                if n.endswith('.o'):
                    obj = os.path.join(d, n)
                    src = os.path.relpath(obj, top)[:-2] + '.c'
                    tool = src.split('/')[0]
                    key = 'lib' if sub == 'lib' else \
                        'shared' if tool in SHARED else tool
                    units[key][src] = obj
    # the folders every tool links (util/, store/) belong to each tool
    shared = units.pop('shared', {})
    for key in units:
        if key != 'lib':
            units[key].update(shared)
    return units


def symbols(objs):
    """obj -> (defined, used) names, for every object, from two runs of nm
    (one per object would mean hundreds of processes)."""
    table = {o: (set(), set()) for o in objs}
    for which, flags in ((0, ['--defined-only', '-g']), (1, ['-u'])):
        out = subprocess.check_output(['nm', '-A'] + flags + sorted(table),
                                      text=True)
        for l in out.splitlines():
            obj, _, rest = l.partition(':')
            if rest.strip() and obj in table:
                table[obj][which].add(rest.split()[-1])
    return table


INLINE_FN = re.compile(r'static\s+(?:__attribute__\(\([^)]*\)\)\s*)?inline\b[^;{]*\{')
CALL = re.compile(r'\b([A-Za-z_][A-Za-z0-9_]*)\s*\(')


def inline_calls(text):
    """The names called inside a header's static inline function bodies."""
    names = set()
    for m in INLINE_FN.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {'{': 1, '}': -1}.get(text[i], 0)
            i += 1
        names |= set(CALL.findall(text[m.end():i]))
    return names


def wrapper(unit, name):
    """A name the library interposes (malloc, pthread_create): a call to it
    from inside the library is the program's function, not an arrow."""
    return unit == 'lib' and not name.startswith('causal_')


def calls(root, prod, build, inc):
    """file -> {file: [names]}: who calls (or reads) what another defines,
    within one link unit; headers with static inline code are nodes too."""
    arrows = collections.defaultdict(lambda: collections.defaultdict(list))
    units = objects(build)
    syms = symbols({o for objs in units.values()
                     for src, o in objs.items() if src in prod})
    for unit, objs in units.items():
        definer, uses = {}, {}
        for src, obj in objs.items():
            if src not in prod:
                continue
            d, u = syms[obj]
            for s in d:
                definer.setdefault(s, src)
            uses[src] = u
        headers = {}
        for src in list(uses):
            for h in inc.get(src, ()):
                if h.endswith('.h') and h not in headers:
                    names = inline_calls(open(os.path.join(root, h),
                                              errors='replace').read())
                    headers[h] = names
        for h, names in headers.items():
            if names:
                uses[h] = names
        for f, used in uses.items():
            for s in sorted(used):
                g = definer.get(s)
                if g and g != f and not wrapper(unit, s) and s not in arrows[f][g]:
                    arrows[f][g].append(s)
        # a file that includes an inline-code header takes its calls
        for f in objs:
            for h in inc.get(f, ()):
                if headers.get(h) and h != f and '(inline code)' not in arrows[f][h]:
                    arrows[f][h].append('(inline code)')
    return modules(root, arrows)


def modules(root, arrows):
    """A header with inline code and the .c of the same name beside it are
    one module (xdr-size.h and xdr-size.c): no circle between them."""
    def node(f):
        c = f[:-2] + '.c'
        return c if f.endswith('.h') and os.path.exists(os.path.join(root, c)) else f
    out = collections.defaultdict(dict)
    for f, gs in arrows.items():
        for g, names in gs.items():
            a, b = node(f), node(g)
            if a != b and names:
                out[a].setdefault(b, [])
                out[a][b] += [n for n in names if n not in out[a][b]]
    return out


def circles(arrows):
    """Tarjan's strongly connected components of more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in arrows.get(v, {}):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(set(arrows) | {w for a in arrows.values() for w in a}):
        if v not in index:
            visit(v)
    return sorted(out, key=lambda c: (-len(c), c))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=None, help='the build folder (default build/)')
    ap.add_argument('--arrows', action='store_true', help='print every call arrow')
    ap.add_argument('--json', action='store_true', help='the figures as JSON')
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    root = subprocess.check_output(['git', '-c', 'safe.directory=*', '-C', here,
                                    'rev-parse', '--show-toplevel'], text=True).strip()
    build = a.build or os.path.join(root, 'build')
    if not os.path.isdir(os.path.join(build, 'tool')):
        sys.exit("structure: no objects in '%s': run make first" % build)
    prod = production(tracked(root))
    size = {f: lines(root, f) for f in prod}
    total = sum(size.values())
    rooms = collections.defaultdict(list)
    for f in prod:
        rooms[folder(f)].append(f)
    inc = includes(root, prod)
    arrows = calls(root, set(prod), build, inc)
    circ = circles(arrows)
    big = sorted((f for f in prod if size[f] > 1000), key=lambda f: -size[f])
    room_lines = {r: sum(size[f] for f in fs) for r, fs in rooms.items()}
    largest = max(room_lines, key=room_lines.get)
    figures = {
        'production_lines': total,
        'folders': len(rooms),
        'files': len(prod),
        'largest_folder': largest,
        'largest_folder_share': round(100.0 * room_lines[largest] / total, 1),
        'files_over_1000_lines': {f: size[f] for f in big},
        'circles': circ,
    }
    if a.json:
        print(json.dumps(figures, indent=1))
        return
    print('%d production lines in %d files, %d folders; the largest, %s, holds %.1f%%'
          % (total, len(prod), len(rooms), largest, figures['largest_folder_share']))
    print('\nfolders (files, lines, share):')
    for r in sorted(rooms, key=lambda r: -room_lines[r]):
        print('  %-20s %3d %7d %5.1f%%' % (r, len(rooms[r]), room_lines[r],
                                          100.0 * room_lines[r] / total))
    print('\nfiles over 1,000 lines: %s' % (', '.join('%s %d' % (f, size[f]) for f in big)
                                             or 'none'))
    fold_inc = collections.Counter()
    for f, hs in inc.items():
        for h in hs:
            if folder(f) != folder(h):
                fold_inc[(folder(f), folder(h))] += 1
    fold_call = collections.Counter()
    for f, gs in arrows.items():
        for g, names in gs.items():
            if folder(f) != folder(g):
                fold_call[(folder(f), folder(g))] += len(names)
    print('\narrows between folders (includes / names called):')
    for k in sorted(set(fold_inc) | set(fold_call)):
        print('  %-20s -> %-20s %3d / %3d' % (k[0], k[1], fold_inc[k], fold_call[k]))
    print('\ncircles of files that call each other: %d' % len(circ))
    for c in circ:
        print('  %d files: %s' % (len(c), ', '.join(c)))
        for f in c:
            for g in c:
                if g in arrows.get(f, {}):
                    names = arrows[f][g]
                    print('    %s -> %s: %s%s' % (f, g, ', '.join(names[:5]),
                                                 ' and %d more' % (len(names) - 5)
                                                 if len(names) > 5 else ''))
    if a.arrows:
        print('\ncall arrows:')
        for f in sorted(arrows):
            for g in sorted(arrows[f]):
                print('  %s -> %s: %s' % (f, g, ', '.join(arrows[f][g])))


if __name__ == '__main__':
    main()
