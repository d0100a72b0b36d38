#!/usr/bin/env python3
"""check_readme.py - the README's sample outputs are real: each block that
follows a marker line

    <!-- sample: ARGS -->

(a blank line, then a block indented by four spaces starting with the line
"$ gguflint ARGS") must be exactly what `gguflint ARGS` prints, run from the
repository root. Fails naming the block that differs.

  check_readme.py GGUFLINT README [--update]

--update rewrites the blocks from the current output (then review the diff).
Uses only the standard library."""
import os
import re
import shlex
import subprocess
import sys

MARKER = re.compile(r'^<!-- sample: (.+?) -->$')


def render(cli, root, args):
    p = subprocess.run([cli] + shlex.split(args), cwd=root, capture_output=True, text=True,
                       errors='replace', timeout=120)
    lines = ['$ gguflint ' + args] + p.stdout.rstrip('\n').split('\n')
    return ['    ' + line if line else '' for line in lines]


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    cli, readme = os.path.abspath(sys.argv[1]), sys.argv[2]
    update = '--update' in sys.argv[3:]
    root = os.path.dirname(os.path.abspath(readme))
    with open(readme, encoding='utf-8') as f:
        lines = f.read().split('\n')
    out, i, samples, stale = [], 0, 0, 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        out.append(lines[i])
        i += 1
        if not m:
            continue
        samples += 1
        # the blank line, then the indented block
        if i < len(lines) and lines[i] == '':
            out.append('')
            i += 1
        start = i
        while i < len(lines) and (lines[i].startswith('    ') or
                                  (lines[i] == '' and i + 1 < len(lines)
                                   and lines[i + 1].startswith('    '))):
            i += 1
        have, want = lines[start:i], render(cli, root, m.group(1))
        if have != want:
            stale += 1
            print(f'README sample "{m.group(1)}" is stale:')
            for k in range(max(len(have), len(want))):
                h = have[k] if k < len(have) else '(missing)'
                w = want[k] if k < len(want) else '(extra)'
                if h != w:
                    print(f'  line {k + 1}:\n    README: {h.strip()[:160]}\n    output: {w.strip()[:160]}')
                    break
        out.extend(want if update else have)
    if samples == 0:
        print('no <!-- sample: ... --> block in', readme)
        return 1
    if update:
        with open(readme, 'w', encoding='utf-8') as f:
            f.write('\n'.join(out))
        print(f'{samples} sample(s) written')
        return 0
    if stale:
        print(f'{stale} of {samples} sample(s) stale; regenerate with: '
              f'python3 tests/check_readme.py build-ci/gguflint README.md --update')
        return 1
    print(f'{samples} README sample(s) match the output')
    return 0


if __name__ == '__main__':
    sys.exit(main())
