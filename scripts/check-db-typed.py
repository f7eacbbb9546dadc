#!/usr/bin/env python3
"""check-db-typed - ccsg reads the trace database by typed column only
(store/db-read.h), so that a column renamed in include/causal/db-schema.def
breaks the build of its readers, not a run.  Two checks:

 1. the build: each column that ccsg/ or store/'s reader names by its enum
    (DB_<TABLE>_<COLUMN>, DB_NAME(TABLE, COLUMN)), or store/'s ClickHouse
    copy declares (DB_NAMED(TABLE, column)), is renamed in turn, in a copy
    of db-schema.def put before include/ on the include path, and every
    file that names it must then fail to compile (and compile with the
    real db-schema.def);
 2. the text: no string literal of ccsg/ that holds SQL names a table or
    a column of db-schema.def (the names come from DB_NAME() and
    db_tables[] at run time); the SQL that store/'s ClickHouse copy keeps
    as text names only what its file declares with DB_NAMED().

    python3 scripts/check-db-typed.py [--text | TABLE.COLUMN...]

With columns (rpc_calls.chain ...) only those are renamed, and the
compiler's first error for each is shown; with --text, only the second
check (a second; the suite db-typed runs it).  Exit 0 when the checks
hold.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = os.path.join(SRC, "include/causal/db-schema.def")
READERS = ["ccsg", "store/db-read.c", "store/db-procs.c"]
NAMED = ["store/ch-copy.c", "store/ch-calls.c", "store/ch-read.c",
         "store/ch-write.c", "store/db-clickhouse.c"]
# ClickHouse's own tables (the loads, system.*): their names are not
# db-schema.def's
CH_OWN = re.compile(r"\bFROM (loads|system\.\w+)\b|\(load_id, state\)")
# (no \b before: "%sORDER BY" is SQL too)
SQL_WORDS = re.compile(r"(SELECT|FROM|WHERE|ORDER BY|GROUP BY|JOIN|"
                       r"INSERT|UPDATE|DELETE)\b")


def columns():
    """(TABLE ID, COLUMN ID, table, column) of every DB_COL, in order."""
    text = open(DEF).read()
    tables = dict(re.findall(r"^DB_TABLE\((\w+), (\w+),", text, re.M))
    return [(t, c, tables[t], n) for t, c, n in
            re.findall(r"^DB_COL\((\w+), (\w+), (\w+),", text, re.M)]


def sources():
    out = []
    for r in READERS:
        p = os.path.join(SRC, r)
        if os.path.isfile(p):
            out.append(r)
            continue
        for d, _, files in os.walk(p):
            out += [os.path.relpath(os.path.join(d, f), SRC)
                    for f in sorted(files) if f.endswith(".c")]
    return sorted(out)


def cflags():
    pc = subprocess.run(["pkg-config", "--cflags", "fftw3", "cairo",
                         "fontconfig", "libmicrohttpd", "libtirpc"],
                        capture_output=True, text=True).stdout.split()
    return ["-std=gnu11", "-D_GNU_SOURCE", "-fsyntax-only", "-Iutil",
            "-Istore", "-Iccsg", "-Itracedump"] + pc


def compile_ok(path, inc):
    cc = os.environ.get("CC", "cc")
    p = subprocess.run([cc] + ["-I" + i for i in inc] + ["-Iinclude"] +
                       cflags() + [path], cwd=SRC, capture_output=True,
                       text=True)
    return p.returncode == 0, p.stderr


def check_build(srcs, only):
    text = {s: open(os.path.join(SRC, s)).read() for s in srcs}
    tmp = tempfile.mkdtemp(prefix="check-db-typed.")
    os.mkdir(os.path.join(tmp, "causal"))
    orig = open(DEF).read()
    bad = named = 0
    try:
        for s in srcs:
            ok, err = compile_ok(s, [])
            if not ok:
                print(f"{s} does not compile as it is:\n{err}")
                return False
        for t, c, table, col in columns():
            if only and f"{table}.{col}" not in only:
                continue
            use = re.compile(rf"\bDB_{t}_{c}\b|\bDB_NAME\({t}, {c}\)|"
                             rf"\bDB_NAMED\({t}, {col}\)")
            files = [s for s in srcs if use.search(text[s])]
            if not files:
                continue
            named += 1
            with open(os.path.join(tmp, "causal/db-schema.def"), "w") as f:
                f.write(re.sub(rf"^DB_COL\({t}, {c}, {col},",
                               f"DB_COL({t}, {c}_RENAMED, {col}_renamed,",
                               orig, flags=re.M))
            for s in files:
                ok, err = compile_ok(s, [tmp])
                if ok:
                    bad += 1
                    print(f"FAIL: {table}.{col} renamed, {s} still builds")
                elif only:
                    first = next((l for l in err.splitlines()
                                  if "error" in l), "")
                    print(f"{table}.{col} renamed, {s}:\n    {first}")
            if not only:
                print(f"  {table}.{col}: breaks {', '.join(files)}")
    finally:
        shutil.rmtree(tmp)
    print(f"build: {named} columns named by the readers; renamed, each "
          f"breaks the build of every file that reads it: "
          f"{'no' if bad else 'yes'}")
    return not bad


def literals(code):
    """The string literals of C code, adjacent ones joined, comments and
    character constants left out."""
    out, i, n = [], 0, len(code)
    cur, last_end = None, 0
    while i < n:
        if code.startswith("/*", i):
            i = code.index("*/", i) + 2
        elif code.startswith("//", i):
            i = code.index("\n", i)
        elif code[i] == "'":
            m = re.compile(r"'(\\.|[^\\'])*'").match(code, i)
            i = m.end()
        elif code[i] == '"':
            m = re.compile(r'"(\\.|[^\\"])*"').match(code, i)
            if cur is not None and not code[last_end:i].strip():
                cur += m.group(0)[1:-1]
            else:
                if cur is not None:
                    out.append(cur)
                cur = m.group(0)[1:-1]
            i = last_end = m.end()
        else:
            i += 1
    if cur is not None:
        out.append(cur)
    return out


def name_word():
    """A table's or a column's name as a word."""
    names = set()
    for _, _, table, col in columns():
        names.update((table, col))
    return re.compile(r"\b(" + "|".join(sorted(names)) + r")\b")


def check_text(srcs):
    word = name_word()
    found = 0
    for s in srcs:
        if not s.startswith("ccsg/"):
            continue
        for lit in literals(open(os.path.join(SRC, s)).read()):
            if SQL_WORDS.search(lit) and word.search(lit):
                found += 1
                print(f"FAIL: {s}: SQL names '{word.search(lit).group(1)}'"
                      f" by text: \"{lit}\"")
    print(f"text: string literals of ccsg/ with SQL that name a table or a "
          f"column: {found}")
    return not found


def check_named():
    """store/'s SQL kept as text (the ClickHouse copy and load): every
    table or column its SQL literals, or its literals that are one name,
    hold is declared with DB_NAMED() or DB_NAMED_TABLE() in that file."""
    word = name_word()
    found = 0
    for s in NAMED:
        code = open(os.path.join(SRC, s)).read()
        declared = set(re.findall(r"\bDB_NAMED\(\w+, (\w+)\)", code))
        declared |= set(re.findall(r"\bDB_NAMED_TABLE\((\w+)\)", code))
        for lit in literals(code):
            if not (SQL_WORDS.search(lit) or re.fullmatch(r"\w+", lit)) \
                    or CH_OWN.search(lit):
                continue
            for w in sorted(set(word.findall(lit)) - declared):
                found += 1
                print(f"FAIL: {s}: '{w}' in \"{lit}\" is not declared "
                      f"(DB_NAMED)")
    print(f"text: names in store/'s SQL text not declared by DB_NAMED(): "
          f"{found}")
    return not found


def main():
    text_only = sys.argv[1:] == ["--text"]
    only = set(sys.argv[1:]) - {"--text"}
    srcs = sources()
    ok = text_only or check_build(srcs + NAMED, only)
    ok = check_text(srcs) and ok
    ok = check_named() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
