#!/usr/bin/env python3
"""histfacts.py - write history-more.tsv, the first llama.cpp commit, date and
build tag of each tokenizer model (the `tokenizer.ggml.model` values the
vocabulary loader compares with) and of each architecture key the loaders
read (data/arch/gen_keys.def), which ../shared/llama.cpp-history.tsv does not
hold. Reads a git repository of llama.cpp (a mirror whose history ends at
the reference tree's commit):

    python3 data/llama/histfacts.py LLAMA_GIT_DIR data/llama [--arch-dir=data/arch]

One pass over `git log --reverse -p` of the loader sources (llama.cpp,
src/llama.cpp, src/llama-arch.cpp, src/llama-vocab.cpp, src/llama-model.cpp
and src/models/): a name's first commit is the first commit that adds a
line holding it, as `git log -S` finds it:

- a tokenizer model: `tokenizer_name == "X"` / `tokenizer_model == "X"`;
- a key suffix S: a string literal "%s.S" (or "{arch}.S", "llama.S": the
  first GGUF loader's spellings); a suffix `=K` of gen_keys.def (a key read
  without the architecture prefix): the literal "K".

The first tag is the lowest `bNNNN` tag containing that commit (none: empty,
newer than every tag), as the history file gives it. Dates are commit dates
(YYYY-MM-DD, `%cs`). Only facts are written (names, commits, dates, tags);
the output is sorted, so two runs on one repository give the same bytes.
histgen.py reads the file beside the history file (history_table_fresh).
"""

import os
import re
import subprocess
import sys

from histargs import split_args

PATHS = ['llama.cpp', 'src/llama.cpp', 'src/llama-arch.cpp', 'src/llama-vocab.cpp',
         'src/llama-model.cpp', 'src/models']
TOK_RE = re.compile(r'tokenizer_(?:name|model)\s*==\s*"([A-Za-z0-9_.\-]+)"')
LIT_RE = re.compile(r'"([^"\\\s]+)"')


def key_suffixes(arch_dir):
    """The suffixes of gen_keys.def ('=K' kept as is)."""
    out = set()
    with open(os.path.join(arch_dir, 'gen_keys.def'), encoding='utf-8') as f:
        for line in f:
            m = re.match(r'GEN_KEY\("([^"]+)"', line)
            if m:
                out.add(m.group(1))
    return out


def git(repo, *args):
    return subprocess.run(['git', '--git-dir', repo] + list(args), check=True,
                          capture_output=True, text=True, errors='replace').stdout


def first_tag(repo, commit):
    tags = git(repo, 'tag', '--contains', commit, '--list', 'b*').split()
    nums = sorted(int(t[1:]) for t in tags if re.fullmatch(r'b\d+', t))
    return 'b%d' % nums[0] if nums else ''


def scan(repo, suffixes):
    plain = {s for s in suffixes if not s.startswith('=')}
    bare = {s[1:]: s for s in suffixes if s.startswith('=')}
    found = {}  # (kind, name) -> (commit, date)
    p = subprocess.Popen(['git', '--git-dir', repo, 'log', '--reverse', '-p', '--no-renames',
                          '--format=@@@ %H %cs', '--'] + PATHS,
                         stdout=subprocess.PIPE, text=True, errors='replace')
    commit = date = None
    for line in p.stdout:
        if line.startswith('@@@ '):
            _, commit, date = line.split()
            continue
        if not line.startswith('+') or line.startswith('+++'):
            continue
        for m in TOK_RE.finditer(line):
            found.setdefault(('tokenizer_model', m.group(1)), (commit, date))
        for m in LIT_RE.finditer(line):
            lit = m.group(1)
            if lit in bare:
                found.setdefault(('key', bare[lit]), (commit, date))
            for pre in ('%s.', '{arch}.', 'llama.'):
                if lit.startswith(pre) and lit[len(pre):] in plain:
                    found.setdefault(('key', lit[len(pre):]), (commit, date))
    if p.wait() != 0:
        raise SystemExit('histfacts: git log failed')
    return found


def main(argv):
    (repo, out), opts = split_args(argv, __doc__, 2)
    if os.path.isdir(os.path.join(repo, '.git')):
        repo = os.path.join(repo, '.git')
    suffixes = key_suffixes(opts.get('arch-dir', os.path.join(out, '..', 'arch')))
    found = scan(repo, suffixes)
    missing = sorted(s for s in suffixes if ('key', s) not in found)
    if missing:
        print('histfacts: keys never found (left out):', ' '.join(missing), file=sys.stderr)
    tags = {}
    rows = []
    for (kind, name), (commit, date) in sorted(found.items()):
        if commit not in tags:
            tags[commit] = first_tag(repo, commit)
        rows.append('\t'.join((kind, name, commit, date, tags[commit])))
    with open(os.path.join(out, 'history-more.tsv'), 'w', encoding='utf-8') as f:
        f.write('kind\tname\tfirst_commit\tfirst_date\tfirst_tag\n')
        f.write('\n'.join(rows) + '\n')


if __name__ == '__main__':
    main(sys.argv[1:])
