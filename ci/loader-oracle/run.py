#!/usr/bin/env python3
"""run.py - the loader differential: llama.cpp's real loaders against gguflint.

  run.py --driver DRIVER --gguflint GGUFLINT --llama-src DIR --out DIR [--full]

1. For every architecture name of llama.cpp (src/llama-arch.cpp) and of
   `gguflint archs`, build a minimal model the loader accepts (repair.py).
2. Lint every base model: it must be clean in the default profile (no error,
   no warning).
3. Write mutants of every class (mutants.py; optional tensors from gguf-py's
   tensor lists, placed and sized by the loader's answers); load each
   through the driver, lint each with gguflint --profile ggml and --profile
   security, and compare: a file the loader refuses must have an error under
   ggml; a file it loads must have none; a file that crashes the loader must
   have an error under security.
4. LoRA adapters against their base, mmproj files against a text model
   (adapters.py, mmproj.py).

Every disagreement not explained by allowlist.tsv (deliberate extra rules,
reviewed) or known-gaps.tsv (open gaps, each with its reason, to be closed)
fails the stage. Without --full a deterministic sample of the mutants runs
(every base model always runs). Writes report.md, results.tsv,
disagreements.tsv and bases.tsv to --out."""

import argparse
import concurrent.futures
import fnmatch
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ggufw  # noqa: E402
import oracle  # noqa: E402
import repair  # noqa: E402
import mutants  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def llama_arch_names(src):
    text = open(os.path.join(src, 'src', 'llama-arch.cpp')).read()
    return re.findall(r'\{\s*LLM_ARCH_\w+\s*,\s*"([^"]+)"\s*\}', text)


def gguflint_arch_names(gguflint):
    r = subprocess.run([gguflint, 'archs', '--format', 'json'], stdout=subprocess.PIPE, text=True)
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        return []
    rows = doc.get('architectures', doc) if isinstance(doc, dict) else doc
    return [r.get('name') for r in rows if isinstance(r, dict) and r.get('name')]


def gguf_py_tensors(src):
    """{arch name: [tensor name patterns]} from gguf-py's constants.py."""
    path = os.path.join(src, 'gguf-py', 'gguf', 'constants.py')
    if not os.path.exists(path):
        return {}
    spec = importlib.util.spec_from_file_location('oracle_gguf_constants', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = {}
    for arch, tensors in mod.MODEL_TENSORS.items():
        name = mod.MODEL_ARCH_NAMES.get(arch)
        if name:
            out[name] = [mod.TENSOR_NAMES[t] for t in tensors if t in mod.TENSOR_NAMES]
    return out


def safe(s):
    return re.sub(r'[^A-Za-z0-9_.=-]+', '_', s)[:80]


class Pool:
    """One driver per worker thread."""

    def __init__(self, driver, jobs):
        self.driver, self.jobs = driver, jobs
        self.local = threading.local()
        self.all = []
        self.lock = threading.Lock()

    def get(self):
        o = getattr(self.local, 'o', None)
        if o is None:
            o = oracle.Oracle(self.driver)
            self.local.o = o
            with self.lock:
                self.all.append(o)
        return o

    def map(self, fn, items):
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as ex:
            return list(ex.map(lambda it: fn(self.get(), it), items))

    def requests(self):
        return sum(o.requests for o in self.all)

    def close(self):
        for o in self.all:
            o.close()


def load_rows(path):
    rows = []
    if not os.path.exists(path):
        return rows
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        f = line.split('\t')
        if len(f) >= 6:
            rows.append({'kind': f[0], 'arch': f[1], 'class': f[2], 'detail': f[3],
                         'rules': f[4], 'reason': f[5], 'used': 0})
    return rows


# rules whose findings predict a failure at the first decode (the graph
# build or a CPU kernel), not at the load
DECODE_RULES = {'GG534', 'GG546', 'GG547', 'GG533'}


def explain(rows, kind, arch, cls, detail, ids=None):
    """The first row matching the case (fnmatch patterns); a row whose rules
    column names rule ids (comma-separated; '-' or '*' for none) matches
    only a case whose gguflint findings, of any severity, include them all."""
    for r in rows:
        need = [x for x in r['rules'].split(',') if x not in ('', '-', '*')]
        if (fnmatch.fnmatchcase(kind, r['kind']) and fnmatch.fnmatchcase(arch, r['arch'])
                and fnmatch.fnmatchcase(cls, r['class'])
                and fnmatch.fnmatchcase(detail, r['detail'])
                and (ids is None or all(x in ids for x in need))):
            r['used'] += 1
            return r
    return None


GAPS_HEADER = """# known-gaps.tsv - loader/gguflint disagreements that are open: each is a gap
# gguflint has to close (issue 22), not a deliberate extra rule (those are in
# allowlist.tsv). Written by run.py --write-gaps from a --full run; a row that
# no longer matches anything is reported as stale, and a disagreement that is
# in neither file fails the stage.
# kind	arch	class	detail	gguflint errors	reason
"""


def gap_rules(info):
    m = re.search(r'gguflint: (\S+)', info)
    return m.group(1) if m else '-'


def gap_reason(kind, cls, info):
    if kind == 'base-not-clean':
        return 'open: the minimal model llama.cpp loads gets findings (table older than the loader)'
    if kind == 'crash-missed':
        return 'open: llama.cpp crashes and --profile security has no error'
    if kind == 'miss':
        return 'open: llama.cpp refuses the file and gguflint has no error'
    return 'open: llama.cpp loads the file and gguflint errs'


def errors_of(findings):
    return sorted({f[0] for f in findings if f[1] == 'error'})


def warnings_of(findings):
    return sorted({f[0] for f in findings if f[1] == 'warning'})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--driver', required=True)
    ap.add_argument('--gguflint', required=True)
    ap.add_argument('--llama-src', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--full', action='store_true')
    ap.add_argument('--sample', type=float, default=0.25,
                    help='share of the mutants run without --full (default 0.25)')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--archs', default='', help='comma-separated subset (debugging)')
    ap.add_argument('--report-only', action='store_true', help='exit 0 whatever is found')
    ap.add_argument('--write-gaps', metavar='FILE',
                    help='write every unexplained disagreement as a known-gaps row to FILE')
    args = ap.parse_args()
    rate = 1.0 if args.full else args.sample
    t0 = time.time()
    work = os.path.join(args.out, 'files')
    os.makedirs(work, exist_ok=True)
    pool = Pool(args.driver, args.jobs)

    names = llama_arch_names(args.llama_src)
    for n in gguflint_arch_names(args.gguflint):
        if n not in names:
            names.append(n)
    if args.archs:
        names = [n for n in names if n in args.archs.split(',')]

    # 1. base models
    def build(o, arch):
        d = os.path.join(work, safe(arch))
        os.makedirs(d, exist_ok=True)
        model, verdict, steps = repair.build(o, arch, d)
        path = os.path.join(d, 'base.gguf')
        ggufw.write(path, model)
        return arch, model, verdict, steps, path

    built = pool.map(build, names)
    bases = {}
    base_rows = []
    for arch, model, verdict, steps, path in built:
        base_rows.append([arch, 'built' if verdict.ok else 'not-built', str(steps), str(verdict)])
        if verdict.ok:
            bases[arch] = (model, path)
    base_lint = oracle.lint(args.gguflint, [bases[a][1] for a in bases], 'ggml')

    # 2. mutants
    cases = []  # (arch, class, detail, path)
    gpy = gguf_py_tensors(args.llama_src)
    for arch in bases:
        model, path = bases[arch]
        for cls, detail, m in mutants.model_mutants(model, arch):
            if not oracle.sampled('%s|%s|%s' % (arch, cls, detail), rate):
                continue
            p = os.path.join(work, safe(arch), '%s-%s.gguf' % (cls, safe(detail)))
            ggufw.write(p, m)
            cases.append((arch, cls, detail, p))

    def optional_tensors(o, arch):
        """gguf-py's tensors for the arch that the base lacks, one per file,
        shaped by the loader's answer."""
        model, _ = bases[arch]
        have = {t[0] for t in model['tensors']}
        out = []
        for pat in gpy.get(arch, []):
            name = (pat.format(bid=0) if '{bid}' in pat else pat) + '.weight'
            if name in have:
                continue
            if not oracle.sampled('%s|tensor-optional|%s' % (arch, name), rate):
                continue
            m = repair.clone(model)
            m['tensors'].append([name, [1], 'F32'])
            p = os.path.join(work, safe(arch), 'tensor-optional-%s.gguf' % safe(name))
            v = None
            for _ in range(4):
                ggufw.write(p, m)
                v = o.model(p)
                mm = repair.RE_SHAPE.search(v.msg) if not v.ok else None
                if not (mm and mm.group(1) == name):
                    break
                want = repair.shape_of(mm.group(2))
                if 0 in want or want == m['tensors'][-1][1]:
                    break
                m['tensors'][-1][1] = want
            out.append((arch, 'tensor-optional', name, p))
        return out

    for rows in pool.map(optional_tensors, list(bases)):
        cases.extend(rows)

    try:
        import adapters
        cases.extend(adapters.cases(pool, bases, work, rate))
    except ImportError:
        pass
    try:
        import mmproj
        cases.extend(mmproj.cases(pool, bases, work, rate, args.llama_src))
    except ImportError:
        pass

    def verdict_of(o, case):
        arch, cls, detail, path = case[:4]
        if cls.startswith('lora'):
            return o.lora(case[4], path)
        if cls.startswith('mmproj'):
            return o.mmproj(case[4], path, case[5])
        return o.model(path)

    stage = {}
    verdicts = pool.map(verdict_of, cases)

    # a model the loader accepts is also run: a context and one decoded
    # token reach the graph build, where llama.cpp asserts what a load
    # never checks; the file's verdict is then that of its first use
    # (only for architectures whose own base decodes: else every mutant
    # would fail the same way)
    names_b = list(bases)
    base_dec = dict(zip(names_b, pool.map(lambda o, a: o.decode(bases[a][1]), names_b)))
    for r in base_rows:
        if r[0] in base_dec:
            r.append('decodes' if base_dec[r[0]].ok else 'decode: ' + str(base_dec[r[0]])[:200])
    dec_idx = [i for i, (c, v) in enumerate(zip(cases, verdicts))
               if v.ok and not c[1].startswith(('lora', 'mmproj')) and
               c[0] in base_dec and base_dec[c[0]].ok]
    for i, d in zip(dec_idx, pool.map(lambda o, c: o.decode(c[3]), [cases[i] for i in dec_idx])):
        if not d.ok:
            verdicts[i] = d
            stage[i] = 'decode'
    lint_args = {}
    for c in cases:
        lint_args.setdefault(tuple(c[6]) if len(c) > 6 else (), []).append(c[3])
    ggml, sec = {}, {}
    helptext = subprocess.run([args.gguflint, '--help'], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True).stdout
    for extra, paths in lint_args.items():
        if extra and extra[0] == 'BASE':
            # an adapter is linted against its base where gguflint can take one
            extra = ('--base', extra[1]) if '--base' in helptext else ()
        ggml.update(oracle.lint(args.gguflint, sorted(set(paths)), 'ggml', extra))
        sec.update(oracle.lint(args.gguflint, sorted(set(paths)), 'security', extra))

    # 3. compare
    allow = load_rows(os.path.join(HERE, 'allowlist.tsv'))
    gaps = load_rows(os.path.join(HERE, 'known-gaps.tsv'))
    results, unexplained = [], []
    per_arch, per_class = {}, {}
    crashes = []

    def record(kind, arch, cls, detail, info, ids):
        why = explain(allow, kind, arch, cls, detail, ids)
        tag = 'allowlist' if why else None
        if not why:
            why = explain(gaps, kind, arch, cls, detail, ids)
            tag = 'known-gap' if why else None
        if not why:
            unexplained.append([kind, arch, cls, detail, info])
        return tag

    base_errors = {}
    for arch, _, _, _, path in built:
        if arch not in bases:
            continue
        f = base_lint.get(path, [])
        base_errors[arch] = set(errors_of(f))
        bad = errors_of(f) + warnings_of(f)
        if bad:
            record('base-not-clean', arch, 'base', 'base', ','.join(bad) + ' ' +
                   '; '.join(x[3] for x in f if x[1] in ('error', 'warning'))[:300],
                   {x[0] for x in f})
    for ci, (case, v) in enumerate(zip(cases, verdicts)):
        arch, cls, detail, path = case[:4]
        fg, fs = ggml.get(path, []), sec.get(path, [])
        eg, es = errors_of(fg), errors_of(fs)
        reject = not v.ok
        kind = 'agree'
        if v.crash and not es:
            kind = 'crash-missed'
        elif reject and not eg:
            kind = 'miss'
        elif not reject and eg:
            kind = 'false-error'
            if set(eg) <= base_errors.get(arch, set()):
                kind = 'inherited'  # the base's own false error, counted once there
            elif (set(eg) <= DECODE_RULES and ci not in stage and
                  not (arch in base_dec and base_dec[arch].ok)):
                # an error that predicts a failure at the first decode, on an
                # architecture whose own base does not decode here: the
                # oracle cannot run the graph to check it
                kind = 'graph-unverified'
            elif cls.endswith('@nowarmup'):
                # mtmd loads it without warmup, but its default runs the
                # graph: an error may predict the warmup crash, which only the
                # @warmup row (where the type's base file warms up) can check
                kind = 'graph-unverified'

        tag = ''
        if kind not in ('agree', 'inherited', 'graph-unverified'):
            info = '%s%s | gguflint: %s' % ('at decode: ' if ci in stage else '', str(v)[:240],
                                             ','.join(eg) or '-')
            if kind == 'false-error':
                info += ' ' + '; '.join(x[3] for x in fg if x[1] == 'error')[:300]
            tag = record(kind, arch, cls, detail, info, {x[0] for x in fg}) or 'UNEXPLAINED'
        if v.crash:
            crashes.append([arch, cls, detail, str(v)[:200], ','.join(es) or '-'])
        results.append([arch, cls, detail, v.kind if ci not in stage else 'DECODE-' + v.kind,
                        v.msg[:200].replace('\t', ' '),
                        ','.join(eg) or '-', ','.join(es) or '-', kind, tag])
        for table, k in ((per_arch, arch), (per_class, cls.split(':')[0])):
            row = table.setdefault(k, {'files': 0, 'rejects': 0, 'crashes': 0, 'agree': 0,
                                       'miss': 0, 'false-error': 0, 'crash-missed': 0, 'inherited': 0,
                                       'graph-unverified': 0})
            row['files'] += 1
            row['rejects'] += reject
            row['crashes'] += v.crash
            row[kind] += 1

    pool.close()
    with open(os.path.join(args.out, 'results.tsv'), 'w') as f:
        f.write('arch\tclass\tdetail\tloader\tmessage\tggml_errors\tsecurity_errors\tverdict\twhy\n')
        for r in results:
            f.write('\t'.join(r) + '\n')
    with open(os.path.join(args.out, 'bases.tsv'), 'w') as f:
        f.write('arch\tstatus\tsteps\tloader\tdecode\n')
        for r in base_rows:
            f.write('\t'.join(r) + '\n')
    with open(os.path.join(args.out, 'disagreements.tsv'), 'w') as f:
        f.write('kind\tarch\tclass\tdetail\tinfo\n')
        for r in unexplained:
            f.write('\t'.join(x.replace('\t', ' ') for x in r) + '\n')

    if args.write_gaps:
        with open(args.write_gaps, 'w') as f:
            # the whole open set: the rows that still match, then the new ones
            # (stale rows, which match nothing any more, are left out)
            f.write(GAPS_HEADER)
            rows = [[r['kind'], r['arch'], r['class'], r['detail'], r['rules'], r['reason']]
                    for r in gaps if r['used']]
            rows += [[kind, arch, cls, detail, gap_rules(info), gap_reason(kind, cls, info)]
                     for kind, arch, cls, detail, info in unexplained]
            for row in sorted(rows):
                f.write('\t'.join(row) + '\n')
    stale = [r for r in allow + gaps if r['used'] == 0]
    n_built = len(bases)
    with open(os.path.join(args.out, 'report.md'), 'w') as f:
        w = f.write
        w('# Loader differential (%s mode)\n\n' % ('full' if args.full else 'sampled %.2f' % rate))
        w('- architectures: %d names, %d base models built, %d not built\n'
          % (len(names), n_built, len(names) - n_built))
        w('- files: %d mutants; loader requests: %d; %.0f s\n'
          % (len(cases), pool.requests(), time.time() - t0))
        w('- unexplained disagreements: %d; allowlisted: %d; known gaps: %d; stale entries: %d\n\n'
          % (len(unexplained), sum(r['used'] for r in allow), sum(r['used'] for r in gaps),
             len(stale)))
        w('## Per class\n\n| class | files | loader rejects | crashes | agree | miss | false error | false error of the base | crash not an error (security) |\n|---|---|---|---|---|---|---|---|---|\n')
        for k in sorted(per_class):
            r = per_class[k]
            w('| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n' % (k, r['files'], r['rejects'], r['crashes'], r['agree'], r['miss'], r['false-error'], r['inherited'], r['crash-missed']))
        w('\n## Per architecture\n\n| architecture | base | files | loader rejects | crashes | agree | miss | false error | crash missed |\n|---|---|---|---|---|---|---|---|---|\n')
        for arch, status, steps, msg, *_ in base_rows:
            r = per_arch.get(arch, {'files': 0, 'rejects': 0, 'crashes': 0, 'agree': 0, 'miss': 0, 'false-error': 0, 'crash-missed': 0})
            w('| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n' % (arch, status if status == 'built' else 'not built: ' + msg[:80].replace('|', '/'), r['files'], r['rejects'], r['crashes'], r['agree'], r['miss'], r['false-error'], r['crash-missed']))
        try:
            import mmproj as mm
            built_mm = mm.BUILT
        except ImportError:
            built_mm = {}
        if built_mm:
            w('\n## Per projector type (mmproj)\n\n| projector type | base file, no warmup | with warmup | files | loader rejects | crashes | agree | miss | false error | crash missed |\n|---|---|---|---|---|---|---|---|---|---|\n')
            for pt in sorted(built_mm):
                lv, wv = built_mm[pt]
                r = per_arch.get('mmproj:' + pt, {'files': 0, 'rejects': 0, 'crashes': 0, 'agree': 0, 'miss': 0, 'false-error': 0, 'crash-missed': 0})
                w('| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d |\n' % (pt, lv[:70].replace('|', '/'), wv[:70].replace('|', '/'), r['files'], r['rejects'], r['crashes'], r['agree'], r['miss'], r['false-error'], r['crash-missed']))
        w('\n## Crashes (%d)\n\n| architecture | class | detail | loader | security errors |\n|---|---|---|---|---|\n' % len(crashes))
        for c in crashes:
            w('| %s |\n' % ' | '.join(x.replace('|', '/') for x in c))
        if stale:
            w('\n## Stale allowlist / known-gap entries (matched nothing)\n\n')
            for r in stale:
                w('- %s %s %s %s\n' % (r['kind'], r['arch'], r['class'], r['detail']))
    print(open(os.path.join(args.out, 'report.md')).read().split('## Per architecture')[0])
    for r in unexplained[:60]:
        print('UNEXPLAINED\t' + '\t'.join(r))
    if len(unexplained) > 60:
        print('... %d more in %s' % (len(unexplained) - 60, os.path.join(args.out, 'disagreements.tsv')))
    print('loader-oracle: %d passed, %d failed' % (len(results) + n_built - len(unexplained), len(unexplained)))
    return 0 if (args.report_only or not unexplained) else 1


if __name__ == '__main__':
    sys.exit(main())
