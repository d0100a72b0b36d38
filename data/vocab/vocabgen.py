#!/usr/bin/env python3
"""vocabgen.py - generate gguflint's tokenizer tables from llama.cpp's vocabulary loader.

Reads a llama.cpp source tree (src/llama-vocab.cpp: llama_vocab::impl::load
and the impl struct's member defaults; src/llama-vocab.h: the
llama_vocab_pre_type enum), the tree's MANIFEST.md (its commit, date and
build) and the history file beside the tree (llama.cpp-history.tsv: the
first commit, date and build of every pre-tokenizer name), and writes:

  gen_tokmodels.def  every tokenizer.ggml.model name the loader accepts, with
                     the vocabulary type it selects, the special ids it
                     assumes when a key is absent, whether it needs merges
                     (and the pre-tokenizer that excuses them), whether it
                     reads tokenizer.ggml.pre, and the pre-tokenizer it forces
  gen_pretok.def     every tokenizer.ggml.pre name the loader accepts, with
                     the pre-tokenizer type it selects, whether it clears the
                     default BOS id, and the first commit/date/build

Both files start with VOCAB_SOURCE(commit, date, build, commits after it):
the tree they came from. Names found only in newer upstream files than the
tree are in the HAND_* tables below, each with where it was read; they are
written with origin NEWER and dropped as soon as the tree itself has them.

Usage:

  python3 data/vocab/vocabgen.py LLAMA_TREE [OUT_DIR] [--history TSV]

LLAMA_TREE is a llama.cpp checkout (at least src/llama-vocab.cpp,
src/llama-vocab.h and MANIFEST.md, or pass --commit/--date/--build); TSV
defaults to LLAMA_TREE/../llama.cpp-history.tsv. OUT_DIR defaults to this
script's folder. The output is deterministic: tests/check_tables_fresh.cmake
regenerates it and compares.

The parser reads only the if / else-if chains on `tokenizer_model == "..."`
and `tokenizer_pre == "..."` and the assignments inside their blocks; it
fails loudly (exit 1) when the shape it expects is not there, so a changed
loader is noticed instead of silently producing a short table.
"""

import os
import re
import sys

# --------------------------------------------------------------------------
# Names newer than the tree, kept by hand (each with where it was read).

# Tokenizer models. plamo3: upstream added LLAMA_VOCAB_TYPE_PLAMO3 (= 8, after
# LLAMA_VOCAB_TYPE_TEST = 7) after build b10573; it is in the public headers
# by b11474 (a release note in the search index, id 70349228869, lists it as
# the only additive header change) and a port of the newer loader (search
# index id 71024184170, citing upstream abeada335, llama-vocab.cpp) selects
# it in the plamo2 branch with the same default ids. The tree of 2026-08-22
# throws "unknown tokenizer: 'plamo3'".
HAND_MODELS = [
    # name, vocab type, same facts as, source
    ('plamo3', 'PLAMO3', 'plamo2',
     'upstream after b10573 (LLAMA_VOCAB_TYPE_PLAMO3; index ids 71024184170, 70349228869)'),
]

# Pre-tokenizer names in ggml-org/llama.cpp's src/llama-vocab.cpp @
# 00ad355e009e83abf98f96a6ded7193b95763681 (search index id 68663492641):
# that copy has every name of the tree plus these three.
HAND_PRE = [
    # name, pre-tokenizer type, clears the default BOS, source
    ('spark2_5', 'SPARK2_5', False, 'ggml-org/llama.cpp @ 00ad355e (index id 68663492641)'),
    ('hy_v4', 'HY_V4', False, 'ggml-org/llama.cpp @ 00ad355e (index id 68663492641)'),
    ('ufakzeka', 'UFAKZEKA', False, 'ggml-org/llama.cpp @ 00ad355e (index id 68663492641)'),
]

# The C rows hold names in fixed char arrays (no pointers, nothing to
# relocate): src/checks/vocab_tables.h sizes them.
MODEL_NAME_MAX = 15
PRE_NAME_MAX = 31

SPECIALS = ['bos', 'eos', 'unk', 'sep', 'pad', 'mask']


def die(msg):
    sys.stderr.write('vocabgen.py: %s\n' % msg)
    sys.exit(1)


def strip_comments(text):
    """Blank out // and /* */ comments, keeping string literals and offsets."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def block_end(text, open_at):
    """Index just past the '}' matching the '{' at open_at (comments stripped)."""
    depth = 0
    i, n = open_at, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        if c == '{':
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    die('unbalanced braces')


def paren_end(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == '(':
            depth += 1
        elif text[i] == ')':
            depth -= 1
            if depth == 0:
                return i + 1
    die('unbalanced parentheses')


def chain(text, start, var):
    """The if / else-if chain starting at `start` whose conditions compare
    `var` with string literals: [(names, body)], plus the final else body
    (or None). A condition that is not only `var == "..."` alternatives is
    returned with names None and its source text."""
    branches = []
    pos = start
    final_else = None
    first = True
    while True:
        m = re.compile(r'\s*(?:else\s+)?if\s*\(' if not first else r'\s*if\s*\(').match(text, pos)
        if not m:
            m2 = re.compile(r'\s*else\s*\{').match(text, pos)
            if m2:
                ob = m2.end() - 1
                final_else = text[ob:block_end(text, ob)]
            break
        if not first and not re.match(r'\s*else', text[pos:m.end()]):
            break
        first = False
        po = m.end() - 1
        pe = paren_end(text, po)
        cond = text[po + 1:pe - 1]
        bm = re.compile(r'\s*\{').match(text, pe)
        if not bm:
            die('expected a block after if (%s)' % cond.strip())
        ob = bm.end() - 1
        be = block_end(text, ob)
        body = text[ob:be]
        alts = [a.strip() for a in cond.split('||')]
        names = []
        for a in alts:
            am = re.fullmatch(r'%s\s*==\s*"([^"]*)"' % re.escape(var), a)
            if not am:
                names = None
                break
            names.append(am.group(1))
        branches.append((names, body, cond.strip()))
        pos = be
    return branches, final_else


def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def read(path):
    try:
        with open(path, encoding='utf-8') as f:
            return f.read()
    except OSError as e:
        die('cannot read %s: %s' % (path, e))


def stamp_from_manifest(tree, args):
    commit, date, build, ahead = args.get('commit'), args.get('date'), args.get('build'), None
    man = os.path.join(tree, 'MANIFEST.md')
    if os.path.exists(man):
        t = read(man)
        m = re.search(r'commit `([0-9a-f]{40})` of (\d{4}-\d\d-\d\d)', t)
        if m:
            commit = commit or m.group(1)
            date = date or m.group(2)
        m = re.search(r'`(b\d+)-(\d+)-g[0-9a-f]+`', t)
        if m:
            build = build or m.group(1)
            ahead = int(m.group(2))
    if not (commit and date and build):
        die('no commit/date/build: give --commit, --date and --build or a MANIFEST.md')
    return commit, date, build, ahead if ahead is not None else int(args.get('ahead', 0))


def parse(tree):
    src = strip_comments(read(os.path.join(tree, 'src', 'llama-vocab.cpp')))
    hdr = strip_comments(read(os.path.join(tree, 'src', 'llama-vocab.h')))

    enum = {}
    em = re.search(r'enum\s+llama_vocab_pre_type\s*\{(.*?)\}', hdr, re.S)
    if not em:
        die('no llama_vocab_pre_type enum in src/llama-vocab.h')
    for m in re.finditer(r'LLAMA_VOCAB_PRE_TYPE_(\w+)\s*=\s*(\d+)', em.group(1)):
        enum[m.group(1)] = int(m.group(2))

    # the impl struct's defaults of the special ids
    sm = re.search(r'struct\s+llama_vocab::impl\s*\{', src)
    if not sm:
        die('no struct llama_vocab::impl')
    struct = src[sm.end() - 1:block_end(src, sm.end() - 1)]
    base = {}
    for s in SPECIALS:
        m = re.search(r'llama_token\s+special_%s_id\s*=\s*(-?\d+|LLAMA_TOKEN_NULL)\s*;' % s, struct)
        if not m:
            die('no default for special_%s_id' % s)
        base[s] = -1 if m.group(1) == 'LLAMA_TOKEN_NULL' else int(m.group(1))

    lm = re.search(r'void\s+llama_vocab::impl::load\s*\([^)]*\)\s*\{', src)
    if not lm:
        die('no llama_vocab::impl::load')
    load = src[lm.end() - 1:block_end(src, lm.end() - 1)]

    def specials(body, start):
        d = dict(start)
        for m in re.finditer(r'\bspecial_(\w+)_id\s*=\s*(-?\d+|LLAMA_TOKEN_NULL)\s*;', body):
            if m.group(1) in d:
                d[m.group(1)] = -1 if m.group(2) == 'LLAMA_TOKEN_NULL' else int(m.group(2))
        return d

    models = []  # dicts
    # the models without a vocabulary: their own if, which returns early
    nm = re.search(r'if\s*\(\s*tokenizer_model\s*==', load)
    if not nm:
        die('no tokenizer_model comparison in load')
    br, _ = chain(load, nm.start(), 'tokenizer_model')
    if len(br) != 1 or br[0][0] is None or 'return' not in br[0][1]:
        die('the first tokenizer_model test is not the no-vocabulary case')
    for name in br[0][0]:
        tm = re.search(r'\btype\s*=\s*LLAMA_VOCAB_TYPE_(\w+)\s*;', br[0][1])
        models.append({'name': name, 'type': tm.group(1) if tm else 'NONE', 'no_vocab': True,
                       'specials': specials(br[0][1], base), 'merges': False,
                       'merges_unless_pre': '', 'forced_pre': '', 'origin': 'TREE',
                       'source': ''})
    after = nm.start() + len(br[0][1])
    cm = re.compile(r'if\s*\(\s*tokenizer_model\s*==').search(load, after)
    if not cm:
        die('no tokenizer_model chain')
    branches, final_else = chain(load, cm.start(), 'tokenizer_model')
    if not final_else or 'unknown tokenizer' not in final_else:
        die('the tokenizer_model chain does not end in "unknown tokenizer"')
    for names, body, cond in branches:
        if names is None:
            die('tokenizer_model condition not understood: %s' % cond)
        tm = re.search(r'\btype\s*=\s*LLAMA_VOCAB_TYPE_(\w+)\s*;', body)
        if not tm:
            die('no vocab type for %s' % names)
        merges = 'cannot find tokenizer merges' in body
        unless = ''
        if merges:
            km = re.search(r'tokenizer_pre\s*==\s*"([^"]+)"', body)
            unless = km.group(1) if km else ''
        fm = re.search(r'\btokenizer_pre\s*=\s*"([^"]*)"\s*;', body)
        for name in names:
            models.append({'name': name, 'type': tm.group(1), 'no_vocab': False,
                           'specials': specials(body, base), 'merges': merges,
                           'merges_unless_pre': unless,
                           'forced_pre': fm.group(1) if fm else '', 'origin': 'TREE',
                           'source': ''})

    # which vocabulary types read tokenizer.ggml.pre: the `type == X` branch
    # holding the pre-tokenizer chain
    pre_types = set()
    pre_body = None
    for m in re.finditer(r'if\s*\(\s*type\s*==\s*LLAMA_VOCAB_TYPE_(\w+)\s*\)\s*\{', load):
        ob = m.end() - 1
        body = load[ob:block_end(load, ob)]
        if 'unknown pre-tokenizer type' in body:
            pre_types.add(m.group(1))
            pre_body = body
    if len(pre_types) != 1:
        die('expected one vocabulary type with a pre-tokenizer chain, found %s' % sorted(pre_types))
    pm = re.search(r'if\s*\(\s*tokenizer_pre', pre_body)
    if not pm:
        die('no tokenizer_pre chain')
    pbranches, pelse = chain(pre_body, pm.start(), 'tokenizer_pre')
    if not pelse or 'unknown pre-tokenizer type' not in pelse:
        die('the tokenizer_pre chain does not end in "unknown pre-tokenizer type"')
    pres = []
    for names, body, cond in pbranches:
        if names is None:
            if re.fullmatch(r'tokenizer_pre\s*\.\s*empty\s*\(\s*\)', cond):
                continue  # missing: the default, with a warning (GG585)
            die('tokenizer_pre condition not understood: %s' % cond)
        tm = re.search(r'\bpre_type\s*=\s*LLAMA_VOCAB_PRE_TYPE_(\w+)\s*;', body)
        if not tm:
            die('no pre-tokenizer type for %s' % names)
        if tm.group(1) not in enum:
            die('LLAMA_VOCAB_PRE_TYPE_%s is not in the enum' % tm.group(1))
        no_bos = re.search(r'\bspecial_bos_id\s*=\s*LLAMA_TOKEN_NULL\s*;', body) is not None
        for name in names:
            pres.append({'name': name, 'type': tm.group(1), 'value': enum[tm.group(1)],
                         'no_bos': no_bos, 'origin': 'TREE', 'source': ''})
    return models, pres, pre_types


def history(path):
    first = {}
    if not path or not os.path.exists(path):
        return first
    for line in read(path).splitlines()[1:]:
        f = line.split('\t')
        if len(f) >= 5 and f[0] == 'vocab_pre_name':
            first[f[1]] = (f[2], f[3], f[4])
    return first


def main():
    pos, args = [], {}
    argv = sys.argv[1:]
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith('--') and i + 1 < len(argv):
            args[a[2:]] = argv[i + 1]
            i += 2
        else:
            pos.append(a)
            i += 1
    if not pos:
        sys.stderr.write(__doc__)
        return 2
    tree = pos[0]
    out = pos[1] if len(pos) > 1 else os.path.dirname(os.path.abspath(__file__))
    hist = args.get('history', os.path.join(tree, '..', 'llama.cpp-history.tsv'))

    commit, date, build, ahead = stamp_from_manifest(tree, args)
    models, pres, pre_types = parse(tree)
    first = history(hist)

    seen = {m['name'] for m in models}
    for name, vtype, like, source in HAND_MODELS:
        if name in seen:
            continue
        base = next((m for m in models if m['name'] == like), None)
        if base is None:
            die('HAND_MODELS: %s is like %s, which the tree lacks' % (name, like))
        m = dict(base)
        m.update({'name': name, 'type': vtype, 'origin': 'NEWER', 'source': source})
        models.append(m)
    seen = {p['name'] for p in pres}
    for name, ptype, no_bos, source in HAND_PRE:
        if name in seen:
            continue
        pres.append({'name': name, 'type': ptype, 'value': -1, 'no_bos': no_bos,
                     'origin': 'NEWER', 'source': source})

    names = [m['name'] for m in models]
    if len(set(names)) != len(names):
        die('a tokenizer model is listed twice')
    pnames = [p['name'] for p in pres]
    if len(set(pnames)) != len(pnames):
        die('a pre-tokenizer is listed twice')
    for m in models:
        if len(m['name']) > MODEL_NAME_MAX or len(m['merges_unless_pre']) > PRE_NAME_MAX:
            die('tokenizer model name too long for the C row: %s' % m['name'])
        m['reads_pre'] = m['type'] in pre_types and not m['forced_pre']
        if m['forced_pre'] and m['forced_pre'] not in pnames:
            die('%s forces the unknown pre-tokenizer %s' % (m['name'], m['forced_pre']))
    for p in pres:
        if len(p['name']) > PRE_NAME_MAX:
            die('pre-tokenizer name too long for the C row: %s' % p['name'])

    head = ('/* GENERATED by data/vocab/vocabgen.py from llama.cpp src/llama-vocab.cpp\n'
            ' * (llama_vocab::impl::load) @ %s (%s, %s-%d): do not edit.\n'
            ' * Rows with origin NEWER come from newer upstream files (vocabgen.py HAND_*). */\n'
            % (commit, date, build, ahead))
    src_line = 'VOCAB_SOURCE(%s, %s, %s, %d)\n' % (c_str(commit), c_str(date), c_str(build), ahead)

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'gen_tokmodels.def'), 'w', encoding='utf-8', newline='\n') as f:
        f.write(head)
        f.write(src_line)
        f.write('/* TOK_MODEL(name, vocab type, flags, bos, eos, unk, sep, pad, mask,\n'
                ' *           merges not needed with this pre-tokenizer, forced pre-tokenizer,\n'
                ' *           origin, source)\n'
                ' * flags: NO_VOCAB (no tokens needed), MERGES (throws "cannot find tokenizer\n'
                ' * merges"), READS_PRE (tokenizer.ggml.pre must be a known name: the %s\n'
                ' * chain); ids are the defaults assumed when the key is absent, -1 none. */\n'
                % '/'.join(sorted(pre_types)))
        for m in models:
            flags = [n for n, on in (('NO_VOCAB', m['no_vocab']), ('MERGES', m['merges']),
                                     ('READS_PRE', m['reads_pre'])) if on]
            f.write('TOK_MODEL(%s, %s, %s, %s, %s, %s, %s, %s)\n' % (
                c_str(m['name']), m['type'], '|'.join(flags) if flags else '0',
                ', '.join(str(m['specials'][s]) for s in SPECIALS),
                c_str(m['merges_unless_pre']), c_str(m['forced_pre']), m['origin'],
                c_str(m['source'])))
    with open(os.path.join(out, 'gen_pretok.def'), 'w', encoding='utf-8', newline='\n') as f:
        f.write(head)
        f.write(src_line)
        f.write('/* PRE_TOK(name, pre-tokenizer type, LLAMA_VOCAB_PRE_TYPE_ value (-1 not in\n'
                ' *         the tree), flags, first commit, first date, first build, origin,\n'
                ' *         source)\n'
                ' * flags: NO_BOS (the branch clears the default BOS id). First commit, date\n'
                ' * and build of the name: llama.cpp-history.tsv ("" when not listed). */\n')
        for p in pres:
            c, d, b = first.get(p['name'], ('', '', ''))
            f.write('PRE_TOK(%s, %s, %d, %s, %s, %s, %s, %s, %s)\n' % (
                c_str(p['name']), p['type'], p['value'], 'NO_BOS' if p['no_bos'] else '0',
                c_str(c[:12]), c_str(d), c_str(b), p['origin'], c_str(p['source'])))
    sys.stdout.write('%d tokenizer models (%d newer), %d pre-tokenizers (%d newer, %d with a '
                     'first build) from %s %s\n' % (
                         len(models), sum(m['origin'] == 'NEWER' for m in models), len(pres),
                         sum(p['origin'] == 'NEWER' for p in pres),
                         sum(p['name'] in first for p in pres), build, date))
    return 0


if __name__ == '__main__':
    sys.exit(main())
