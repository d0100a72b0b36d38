#!/usr/bin/env python3
"""check_arch_map.py SOURCE_DIR - every src/**/*.c file is named in
docs/ARCHITECTURE.md (as `name.c`, `name.[ch]` or `name.h`/`name.c` in a
list), so the map a new maintainer reads cannot drift from the tree
(issue 23). Exits 1 listing the files it does not name."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
doc = open(os.path.join(root, 'docs', 'ARCHITECTURE.md'), encoding='utf-8').read()
named = set()
for m in re.finditer(r'([A-Za-z0-9_]+)\.(?:c|\[ch\]|\{[^}]*c[^}]*\})', doc):
    named.add(m.group(1))
missing = []
for dirpath, _, files in os.walk(os.path.join(root, 'src')):
    for f in sorted(files):
        if f.endswith('.c') and f[:-2] not in named:
            missing.append(os.path.relpath(os.path.join(dirpath, f), root))
if missing:
    print('docs/ARCHITECTURE.md does not name %d source file(s):' % len(missing))
    for p in missing:
        print('  ' + p)
    sys.exit(1)
print('arch_map: every one of the source files is named in docs/ARCHITECTURE.md')
