#!/usr/bin/env python3
"""check_rule_coverage.py - every rule of the table is triggered by some test.

  check_rule_coverage.py GGUFLINT TRIGGERED_DIR TEST...

Each cmocka test writes the ids of the rules its runs reported to
TRIGGERED_DIR/TEST.ids (tests/support/triggered.c). The union of those files
must hold every id `GGUFLINT rules` lists. When a test's file is missing (the
suite was run only in part) the check is skipped (exit 77), not failed."""
import os
import subprocess
import sys


def main():
    cli, tdir, tests = sys.argv[1], sys.argv[2], sys.argv[3:]
    missing = [t for t in tests if not os.path.exists(os.path.join(tdir, t + '.ids'))]
    if missing:
        print(f'skipped: no record from {len(missing)} test(s) ({" ".join(missing[:5])}...): '
              'run the whole suite')
        return 77
    triggered = set()
    by_test = {}
    for t in tests:
        with open(os.path.join(tdir, t + '.ids'), encoding='ascii') as f:
            ids = {line.strip() for line in f if line.strip()}
        by_test[t] = ids
        triggered |= ids
    out = subprocess.run([cli, 'rules'], capture_output=True, text=True, check=True).stdout
    rules = [line.split()[0] for line in out.splitlines() if line.startswith('GG')]
    never = [r for r in rules if r not in triggered]
    print(f'{len(rules)} rules, {len(rules) - len(never)} triggered by the {len(tests)} tests')
    if never:
        print('never triggered by any test: ' + ' '.join(never))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
