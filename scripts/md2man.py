#!/usr/bin/python3
"""md2man.py OUTLINE OUT - a man page made from the text of docs/.

OUTLINE is man/NAME.N.md: a title line, '# NAME(N): what it is', then a list
of links to parts of docs/, in the order of the page:

    * [Synopsis](../docs/ccsg.md#synopsis)     that section of ccsg.md
    * [ccsg impact](../docs/impact.md)         the whole file

Each part's heading becomes .SH, the headings under it .SS, deeper ones a
bold line; paragraphs, lists, tables and code blocks become man(7) macros.
A link in the text is its words (in italics); a link to a part of another
page, or to a doc that is in no page, says where that is.  So the page and
the doc are one text (uftrace makes its man pages from doc/*.md the same
way), and the outlines together must take every section of every docs
file they use, each once: a section added to docs/ reaches a page, or the
build says that it does not.  Only python3's standard library is needed.
"""
import glob
import os
import re
import sys

HEADING = re.compile(r'^(#{1,6}) +(.*?) *#*$')
FENCE = re.compile(r'^ *```')
ITEM = re.compile(r'^( *)([*-]|\d+\.) +')
LINK = re.compile(r'\[((?:[^\]`]|`[^`]*`)*)\]\(([^)\s]*)\)')
OUTLINE_TITLE = re.compile(r'^# +([a-z0-9_.-]+)\(([1-8])\): +(.+)$')


def fail(msg):
    sys.stderr.write('md2man: %s\n' % msg)
    sys.exit(1)


def slug(title):
    """GitHub's anchor for a heading."""
    t = title.strip().lower().replace('`', '')
    t = re.sub(r'[^\w\- ]', '', t)
    return t.replace(' ', '-')


class Doc:
    """A markdown file: its lines and its sections (level, title, slug,
    first line of the body, end line)."""

    def __init__(self, path):
        self.path = os.path.normpath(path)
        with open(path, encoding='utf-8') as f:
            self.lines = f.read().split('\n')
        self.sections = []
        fenced = False
        for i, line in enumerate(self.lines):
            if FENCE.match(line):
                fenced = not fenced
            m = not fenced and HEADING.match(line)
            if m:
                self.sections.append([len(m.group(1)), m.group(2),
                                      slug(m.group(2)), i, len(self.lines)])
        for k, s in enumerate(self.sections):
            for t in self.sections[k + 1:]:
                if t[0] <= s[0]:
                    s[4] = t[3]
                    break
        seen = set()
        for s in self.sections:
            if s[2] in seen:
                fail('%s: two sections are #%s' % (self.path, s[2]))
            seen.add(s[2])

    def section(self, anchor):
        for s in self.sections:
            if s[2] == anchor:
                return s
        fail('%s has no section #%s' % (self.path, anchor))

    def whole(self):
        """The file as one part: from its title to its end."""
        if not self.sections or self.sections[0][0] != 1:
            fail('%s does not start with a # title' % self.path)
        return self.sections[0]


DOCS = {}


def doc(path):
    path = os.path.normpath(path)
    if path not in DOCS:
        if not os.path.exists(path):
            fail('no such file: %s' % path)
        DOCS[path] = Doc(path)
    return DOCS[path]


class Outline:
    def __init__(self, path):
        self.path = path
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        m = OUTLINE_TITLE.match(lines[0])
        if not m:
            fail("%s: the first line must be '# NAME(N): what it is'" % path)
        self.name, self.section, self.what = m.groups()
        self.page = '%s(%s)' % (self.name, self.section)
        self.parts = []  # (doc, section)
        base = os.path.dirname(path)
        for line in lines[1:]:
            m = re.match(r'^\* \[[^\]]*\]\(([^)#]+)(?:#([^)]+))?\)$', line)
            if not m:
                continue
            d = doc(os.path.join(base, m.group(1)))
            self.parts.append((d, d.section(m.group(2)) if m.group(2)
                               else d.whole()))


def covers(part_section, s):
    """Does part_section (a section) hold section s of the same doc?"""
    return part_section[3] <= s[3] and s[4] <= part_section[4]


def check_coverage(outlines):
    """Every section of a doc an outline uses is in exactly one part, and
    a doc used by sections has no text before its first one."""
    used = {}
    for o in outlines:
        for d, s in o.parts:
            used.setdefault(d.path, []).append((o, s))
    for path, parts in used.items():
        d = DOCS[path]
        for i, (o, s) in enumerate(parts):
            for o2, s2 in parts[i + 1:]:
                if covers(s, s2) or covers(s2, s):
                    fail('%s#%s is in %s and in %s' % (
                        path, s2[2], o.page, o2.page))
        for s in d.sections:
            if s[0] > 2:
                continue
            if not any(covers(p, s) for _, p in parts):
                if s[0] == 1:
                    body = d.lines[s[3] + 1:d.sections[1][3]
                                   if len(d.sections) > 1 else s[4]]
                    if any(line.strip() for line in body):
                        fail('%s: the text under its title is in no man '
                             'page (put it in a section)' % path)
                    continue
                fail('%s#%s is in no man page: add it to an outline in man/'
                     % (path, s[2]))


# ---- inline text ------------------------------------------------------------

def esc(text, code=False):
    """roff-escaped text: backslashes, non-ASCII, and in code the minus."""
    out = []
    for c in text:
        if c == '\\':
            out.append('\\e')
        elif c == '-' and code:
            out.append('\\-')
        elif ord(c) > 126:
            out.append('\\[u%04X]' % ord(c))
        else:
            out.append(c)
    return ''.join(out)


def breakable(roff):
    """A long word of code may break after & | / ; , (groff's \\:),
    rather than run past the line."""
    words = roff.split(' ')
    return ' '.join(re.sub(r'([&|/;,])', r'\1\\:', w) if len(w) > 30 else w
                    for w in words)


FONTS = {(False, False): 'R', (True, False): 'B', (False, True): 'I',
         (True, True): 'BI'}


def font(bold, italic):
    f = FONTS[(bold, italic)]
    return '\\f' + (f if len(f) == 1 else '(' + f)


class Inline:
    """Markdown inline text to roff, within a page (for links)."""

    def __init__(self, page, here):
        self.page = page      # the Outline being made
        self.here = here      # the doc the text is in

    def convert(self, s, bold=False, italic=False):
        out = []
        i = 0
        while i < len(s):
            c = s[i]
            if c == '`':
                n = len(s[i:]) - len(s[i:].lstrip('`'))
                j = s.find('`' * n, i + n)
                if j < 0:
                    out.append(esc(s[i:i + n]))
                    i += n
                    continue
                code = s[i + n:j].replace('\n', ' ')
                if n > 1:
                    code = code.strip()
                out.append(font(True, italic) + breakable(esc(code, True)) +
                           font(bold, italic))
                i = j + n
            elif c == '[' and LINK.match(s, i):
                m = LINK.match(s, i)
                out.append(font(bold, True) +
                           self.convert(m.group(1), bold, True) +
                           font(bold, italic) +
                           self.where(m.group(2), m.group(1), bold, italic))
                i = m.end()
            elif s.startswith('**', i) and s.find('**', i + 2) > i + 2:
                j = s.find('**', i + 2)
                out.append(font(True, italic) +
                           self.convert(s[i + 2:j], True, italic) +
                           font(bold, italic))
                i = j + 2
            elif (c == '*' and i + 1 < len(s) and not s[i + 1].isspace()
                  and s.find('*', i + 1) > i + 1):
                j = s.find('*', i + 1)
                out.append(font(bold, True) +
                           self.convert(s[i + 1:j], bold, True) +
                           font(bold, italic))
                i = j + 1
            elif c == '\\' and i + 1 < len(s) and s[i + 1] in '\\`*_[]()#|<>!-.':
                out.append(esc(s[i + 1]))
                i += 2
            elif s.startswith('<!--', i):
                j = s.find('-->', i)
                i = len(s) if j < 0 else j + 3
            else:
                out.append(esc(c))
                i += 1
        return ''.join(out)

    def where(self, target, text, bold=False, italic=False):
        """What a link adds after its words: nothing within this page, the
        page that holds its target, or the doc's path."""
        if re.match(r'^[a-z]+:', target):
            return ''
        path, _, anchor = target.partition('#')
        full = os.path.normpath(os.path.join(os.path.dirname(self.here.path),
                                             path)) if path else self.here.path
        if not os.path.exists(full):
            fail('%s: a link to %s, which does not exist' % (self.here.path,
                                                             target))
        if os.path.dirname(full) != os.path.dirname(self.here.path) or \
                not full.endswith('.md'):
            return ''
        d = doc(full)
        s = d.section(anchor) if anchor else d.whole()
        for o in OUTLINES:
            for pd, ps in o.parts:
                # a link to a whole doc goes to the page of its first part
                if pd.path == d.path and (covers(ps, s) or not anchor):
                    if o is self.page or text == o.page:
                        return ''
                    return ' in %s%s%s(%s)' % (font(True, italic), esc(o.name),
                                               font(bold, italic), o.section)
        return ' in ' + esc(os.path.join(os.path.basename(
            os.path.dirname(full)), os.path.basename(full)))


# ---- blocks -----------------------------------------------------------------

def parse(lines):
    """Markdown lines to blocks: ('p', text), ('code', lines),
    ('list', [blocks of an item...]), ('table', rows), ('h', level, title)."""
    blocks = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.strip().startswith('<!--') and \
                line.strip().endswith('-->'):
            i += 1
        elif FENCE.match(line):
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            blocks.append(('code', [l[indent:] if l[:indent].strip() == ''
                                    else l.lstrip() for l in lines[i + 1:j]]))
            i = j + 1
        elif HEADING.match(line):
            m = HEADING.match(line)
            blocks.append(('h', len(m.group(1)), m.group(2)))
            i += 1
        elif line.lstrip().startswith('|'):
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith('|'):
                cells = split_row(lines[i])
                if not all(re.match(r'^:?-+:?$', c) for c in cells):
                    rows.append(cells)
                i += 1
            blocks.append(('table', rows))
        elif ITEM.match(line):
            items = []
            while i < len(lines) and ITEM.match(lines[i]) and \
                    not ITEM.match(lines[i]).group(1):
                width = len(ITEM.match(lines[i]).group(0))
                body = [lines[i][width:]]
                i += 1
                while i < len(lines):
                    l = lines[i]
                    if not l.strip():
                        # a blank line: the item goes on if indented text
                        # follows
                        j = i
                        while j < len(lines) and not lines[j].strip():
                            j += 1
                        if j < len(lines) and lines[j].startswith(' ' * 2):
                            body.extend([''] * (j - i))
                            i = j
                            continue
                        break
                    if ITEM.match(l) and not ITEM.match(l).group(1):
                        break
                    if not l.startswith(' ') and (HEADING.match(l) or
                                                  FENCE.match(l)):
                        break
                    body.append(l[width:] if l[:width].strip() == ''
                                else l.lstrip())
                    i += 1
                items.append(parse(body))
            blocks.append(('list', items))
        else:
            j = i
            while j < len(lines) and lines[j].strip() and \
                    not FENCE.match(lines[j]) and not HEADING.match(lines[j]) \
                    and not ITEM.match(lines[j]) and \
                    not lines[j].lstrip().startswith('|'):
                j += 1
            blocks.append(('p', '\n'.join(l.strip() for l in lines[i:j])))
            i = j
    return blocks


def split_row(line):
    cells, cur, i = [], '', 0
    s = line.strip()
    s = s[1:] if s.startswith('|') else s
    s = s[:-1] if s.endswith('|') and not s.endswith('\\|') else s
    code = False
    while i < len(s):
        c = s[i]
        if c == '\\' and i + 1 < len(s) and s[i + 1] == '|':
            cur += '|'
            i += 2
            continue
        if c == '`':
            code = not code
        if c == '|' and not code:
            cells.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    cells.append(cur.strip())
    return cells


def text_lines(roff):
    """Filled text: no line may start with a control character."""
    out = []
    for line in roff.split('\n'):
        line = line.strip()
        if line:
            out.append('\\&' + line if line[0] in ".'" else line)
    return out


def code_lines(lines):
    out = []
    for line in lines:
        line = esc(line.rstrip(), True)
        out.append('\\&' + line if line[:1] in (".", "'") else line)
    return out


def quote(arg):
    return '"' + arg.replace('"', '\\(dq') + '"'


class Render:
    def __init__(self, page, here, top):
        self.inline = Inline(page, here)
        self.top = top      # the heading level that is .SH
        self.out = []

    def blocks(self, blocks, indent=False):
        """indent: inside a list item (paragraphs continue its indent)."""
        first = True
        for b in blocks:
            kind = b[0]
            if kind == 'h':
                self.heading(b[1], b[2])
            elif kind == 'p':
                if not (indent and first):
                    self.out.append('.IP' if indent else '.PP')
                self.out.extend(text_lines(self.inline.convert(b[1])))
            elif kind == 'code':
                self.out.append('.IP' if indent else '.PP')
                if not indent:
                    self.out.append('.RS 4')
                self.out.append('.nf')
                self.out.extend(code_lines(b[1]))
                self.out.append('.fi')
                if not indent:
                    self.out.append('.RE')
            elif kind == 'list':
                if indent:
                    self.out.append('.RS')
                for item in b[1]:
                    self.out.append('.IP \\(bu 2')
                    self.blocks(item, True)
                if indent:
                    self.out.append('.RE')
            elif kind == 'table':
                self.table(b[1])
            first = False

    def table(self, rows):
        head, rows = rows[0], rows[1:]
        for row in rows:
            self.out.append('.TP')
            self.out.extend(text_lines(self.inline.convert(row[0])) or ['\\&'])
            for k, cell in enumerate(row[1:], 1):
                if not cell:
                    continue
                if k > 1:
                    self.out.append('.br')
                text = self.inline.convert(cell)
                if len(row) > 2 and k > 1:
                    text = self.inline.convert(head[k]) + ': ' + text
                self.out.extend(text_lines(text))

    def heading(self, level, title):
        plain = re.sub(r'`', '', LINK.sub(r'\1', title))
        if level == self.top:
            self.out.append('.SH ' + quote(esc(plain.upper())))
        elif level == self.top + 1:
            self.out.append('.SS ' + quote(esc(plain)))
        else:
            self.out.append('.PP')
            self.out.extend(text_lines(font(True, False) +
                                       self.inline.convert(title, True) +
                                       font(False, False)))


OUTLINES = []


def main():
    if len(sys.argv) != 3:
        fail('usage: md2man.py man/NAME.N.md OUT')
    outline_path, out_path = sys.argv[1], sys.argv[2]
    here = os.path.dirname(outline_path) or '.'
    for p in sorted(glob.glob(os.path.join(here, '*.[1-8].md'))):
        OUTLINES.append(Outline(p))
    page = next((o for o in OUTLINES
                 if os.path.samefile(o.path, outline_path)), None)
    if not page:
        fail('%s is not an outline of %s (NAME.N.md)' % (outline_path, here))
    check_coverage(OUTLINES)
    out = ['.\\" %s(%s) - made by scripts/md2man.py from %s: edit the text '
           'in docs/' % (page.name, page.section, outline_path),
           '.TH %s %s "" causal "causal manual"' % (
               esc(page.name.upper()), page.section),
           '.nh', '.ad l', '.SH NAME',
           esc(page.name) + ' \\- ' + esc(page.what)]
    for d, s in page.parts:
        r = Render(page, d, s[0])
        r.blocks(parse(d.lines[s[3]:s[4]]))
        out.extend(r.out)
    tmp = out_path + '.tmp'
    with open(tmp, 'w', encoding='ascii') as f:
        f.write('\n'.join(out) + '\n')
    os.replace(tmp, out_path)


if __name__ == '__main__':
    main()
