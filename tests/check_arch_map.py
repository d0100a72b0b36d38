#!/usr/bin/env python3
"""check_arch_map.py SOURCE_DIR - docs/ARCHITECTURE.md is a true map of src/
(issue 23: the map had drifted):

1. every src/FOLDER/*.c is named in FOLDER's row of the "Folders and files"
   table (as `name.c`, or `name.[ch]` for a .c with its header), and every
   `name.c` / `name.[ch]` a row names exists in that folder;
2. every file of src/ that holds mutable static state (a `static` object
   that is not const, at file or function scope) is named in the section
   "Global state", and every file that section names exists;
3. only src/common/cpu.c probes the CPU's features (__builtin_cpu_*, cpuid,
   getauxval, xgetbv).

Exits 1 listing every mismatch. Uses only the standard library."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
src = os.path.join(root, 'src')
doc = open(os.path.join(root, 'docs', 'ARCHITECTURE.md'), encoding='utf-8').read()
problems = []


def section(title):
    m = re.search(r'^## ' + re.escape(title) + r'\n(.*?)(?=^## |\Z)', doc, re.M | re.S)
    if not m:
        problems.append('docs/ARCHITECTURE.md has no section "## %s"' % title)
        return ''
    return m.group(1)


def sources():
    for dirpath, _, files in os.walk(src):
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                yield os.path.relpath(os.path.join(dirpath, f), src).replace(os.sep, '/')


# 1. the folder table
ROW = re.compile(r'^\|\s*`src/([a-z_]+)/`\s*\|(.*)$', re.M)
NAME = re.compile(r'(?<![\w/.])([A-Za-z0-9_]+)\.(c|\[ch\])(?![\w\[])')
named = {}
for m in ROW.finditer(section('Folders and files')):
    folder = m.group(1)
    for tok in re.findall(r'`([^`]+)`', m.group(2)):
        for n in NAME.finditer(tok):
            named.setdefault(folder, set()).add(n.group(1) + '.c')
present = {}
for rel in sources():
    if rel.endswith('.c') and '/' in rel:
        folder, name = rel.split('/', 1)
        present.setdefault(folder, set()).add(name)
for folder in sorted(present):
    for name in sorted(present[folder] - named.get(folder, set())):
        problems.append('src/%s/%s is not in the row of src/%s/' % (folder, name, folder))
for folder in sorted(named):
    for name in sorted(named[folder] - present.get(folder, set())):
        problems.append('the row of src/%s/ names %s, which does not exist' % (folder, name))

# 2. mutable static state
STATIC = re.compile(r'^\s*static\s+(?!inline\b)(?!_Static_assert)([^()]*)$')


def is_const_object(decl):
    """const T x, const T x[], T *const p; not const T *p (the pointer moves)"""
    if re.search(r'\*\s*const\b', decl):
        return True
    return re.search(r'\bconst\b', decl) is not None and not re.search(r'\*\s*\w+\s*(\[|=|;|,)', decl)


state_files = set()
for rel in sources():
    text = open(os.path.join(src, rel), encoding='utf-8', errors='replace').read()
    text = re.sub(r'/\*.*?\*/', lambda c: '\n' * c.group(0).count('\n'), text, flags=re.S)
    for line in text.splitlines():
        m = STATIC.match(line)
        if m and re.search(r'[;={]\s*$|\[[^\]]*\]\s*[;=]', line) and not is_const_object(m.group(1)):
            state_files.add(rel)
            break
state_doc = section('Global state')
listed = set(re.findall(r'`((?:[a-z_]+/)?[A-Za-z0-9_]+\.[ch])`', state_doc))
for rel in sorted(state_files - listed):
    problems.append('src/%s holds mutable static state but "Global state" does not name it' % rel)
for rel in sorted(listed):
    if not os.path.exists(os.path.join(src, rel)):
        problems.append('"Global state" names %s, which is not a file of src/' % rel)

# 3. one CPU-feature probe
PROBE = re.compile(r'__builtin_cpu_(init|supports|is)|\b__cpuid|\bcpuid\b|\bgetauxval\b|\bxgetbv\b|_xgetbv')
for rel in sources():
    if rel == 'common/cpu.c':
        continue
    text = open(os.path.join(src, rel), encoding='utf-8', errors='replace').read()
    code = re.sub(r'/\*.*?\*/|//[^\n]*', '', text, flags=re.S)
    if PROBE.search(code):
        problems.append('src/%s probes the CPU: common/cpu.c is the one probe' % rel)

if problems:
    print('docs/ARCHITECTURE.md does not match src/ (%d):' % len(problems))
    for p in problems:
        print('  ' + p)
    sys.exit(1)
print('arch_map: %d source files in %d folders mapped; %d files with set-once state listed; '
      'one CPU probe' % (sum(len(v) for v in present.values()), len(present), len(state_files)))
