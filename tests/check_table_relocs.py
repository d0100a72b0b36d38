#!/usr/bin/env python3
"""check_table_relocs.py - the generated architecture tables must need no
relocation at start (issue 15: they were ~20 000 R_X86_64_RELATIVE
relocations, half of the program's start-up). Fails when a relocation
section of src/model/arch_tables.c's object applies to a section holding one
of the tables (arch_infos, arch_keys, arch_tensors, arch_syms, the pool ...),
i.e. when a table holds a pointer again: rows hold pool offsets (arch_str).
Relocations elsewhere in the object (code, debug info, a sanitizer's global
descriptors) are allowed. Uses only the standard library.

  check_table_relocs.py READELF OBJECT...   (the object library's objects)
  check_table_relocs.py --object NAME --tables T1,T2,... READELF OBJECT...
      (the same for another table file: src/.../NAME.c and its tables)

Prints "SKIP:" and succeeds without readelf."""
import re
import shutil
import subprocess
import sys

TABLES = {'arch_infos', 'arch_keys', 'arch_tensors', 'arch_syms', 'arch_pool',
          'arch_source_files', 'arch_source_commits', 'arch_hand_names'}


def main():
    global TABLES
    args = sys.argv[1:]
    stem = 'arch_tables'
    while len(args) >= 2 and args[0] in ('--object', '--tables'):
        if args[0] == '--object':
            stem = args[1]
        else:
            TABLES = set(args[1].split(','))
        args = args[2:]
    sys.argv = [sys.argv[0]] + args
    readelf = sys.argv[1] if len(sys.argv) > 1 else ''
    if not readelf or 'NOTFOUND' in readelf or not shutil.which(readelf):
        print('SKIP: no readelf')
        return 0
    objs = [o for o in sys.argv[2:] if re.search(re.escape(stem) + r'\.c\.o(bj)?$', o)]
    if len(objs) != 1:
        print('no single %s object among the arguments' % stem)
        return 1
    obj = objs[0]
    syms = subprocess.run([readelf, '-sW', obj], capture_output=True, text=True, check=True).stdout
    where = {}  # section index -> table names in it
    for line in syms.splitlines():
        f = line.split()
        if len(f) >= 8 and f[7] in TABLES and f[6].isdigit():
            where.setdefault(int(f[6]), []).append(f[7])
    missing = TABLES - {n for v in where.values() for n in v}
    if missing:
        print('tables not found in %s: %s' % (obj, ', '.join(sorted(missing))))
        return 1
    secs = subprocess.run([readelf, '-SW', obj], capture_output=True, text=True, check=True).stdout
    bad = []
    for line in secs.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+(RELA?)\s+(.*)$', line)
        if not m:
            continue
        # the last three columns: Lk (symbol table), Inf (target section), Al
        f = m.group(3).split()
        target = int(f[-2])
        if target in where:
            bad.append('%s (applies to %s)' % (m.group(1), ', '.join(sorted(where[target]))))
    if bad:
        print('%s.c: relocations in the tables: ' % stem + '; '.join(bad))
        print('a table holds a pointer: keep strings in the pool and rows as offsets')
        return 1
    print('%s.c: the %d tables need no relocation' % (stem, len(TABLES)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
