"""mutants.py - one change at a time to a model the loader accepts.

Each mutant is (class, detail, model). The classes:

  key-drop       a key removed (each key but general.architecture)
  key-retype     a scalar key given another type (u32 -> i32, f32 -> u32, ...)
  key-zero       a numeric hyperparameter set to 0
  key-huge       a count hyperparameter set to 2^31
  tensor-drop    a tensor removed (every global tensor, every tensor of layer 0)
  tensor-reshape a tensor's first dimension grown by one
  tensor-retype  a tensor stored as F16, or as Q8_0 where its rows allow
  tensor-extra   a tensor no loader reads (an unknown name)
  heads          head counts that do not divide, kv heads above heads
  experts        expert_used_count above expert_count
  vocab          tokenizer keys dropped, mistyped, of the wrong length, unknown names
  name           the architecture's name in another case, or one letter off

The optional-tensor class needs the loader's answers and is in run.py."""

import repair

RETYPE = {'u32': ['i32', 'f32', 'str', 'u64'], 'i32': ['u32', 'f32'], 'f32': ['u32', 'f64', 'str'],
          'bool': ['u8', 'u32'], 'str': ['u32'], 'u64': ['u32'], 'f64': ['f32']}


def _mutant(base, cls, detail, change):
    m = repair.clone(base)
    change(m)
    return (cls, detail, m)


def model_mutants(base, arch):
    out = []
    kvs = base['kvs']
    for i, (k, vt, v) in enumerate(kvs):
        if k == 'general.architecture':
            continue
        out.append(_mutant(base, 'key-drop', k, lambda m, i=i: m['kvs'].pop(i)))
        if not isinstance(vt, tuple):
            for nt in RETYPE.get(vt, []):
                def rt(m, i=i, nt=nt):
                    m['kvs'][i][1] = nt
                    m['kvs'][i][2] = repair.convert(m['kvs'][i][2], nt)
                out.append(_mutant(base, 'key-retype', '%s:%s' % (k, nt), rt))
        if k.startswith(arch + '.') and not isinstance(vt, tuple) and vt in ('u32', 'i32', 'f32'):
            if v != 0:
                out.append(_mutant(base, 'key-zero', k,
                                   lambda m, i=i: m['kvs'][i].__setitem__(2, 0)))
            if vt == 'u32' and any(s in k for s in ('count', 'length', 'size', 'rank')):
                out.append(_mutant(base, 'key-huge', k,
                                   lambda m, i=i: m['kvs'][i].__setitem__(2, 2**31)))
        if k.startswith(arch + '.') and isinstance(vt, tuple) and isinstance(v, list) and v:
            out.append(_mutant(base, 'key-retype', '%s:short-array' % k,
                               lambda m, i=i: m['kvs'][i].__setitem__(2, m['kvs'][i][2][:-1])))
    for j, (name, shape, gt) in enumerate(base['tensors']):
        if name.startswith('blk.') and not name.startswith('blk.0.'):
            continue
        out.append(_mutant(base, 'tensor-drop', name, lambda m, j=j: m['tensors'].pop(j)))

        def grow(m, j=j):
            s = list(m['tensors'][j][1])
            s[0] += 1
            m['tensors'][j][1] = s
        out.append(_mutant(base, 'tensor-reshape', name, grow))
        if gt == 'F32':
            out.append(_mutant(base, 'tensor-retype', '%s:F16' % name,
                               lambda m, j=j: m['tensors'][j].__setitem__(2, 'F16')))
            if shape[0] % 32 == 0 and len(shape) >= 2:
                out.append(_mutant(base, 'tensor-retype', '%s:Q8_0' % name,
                                   lambda m, j=j: m['tensors'][j].__setitem__(2, 'Q8_0')))
    out.append(_mutant(base, 'tensor-extra', 'blk.0.oracle_unknown.weight',
                       lambda m: m['tensors'].append(['blk.0.oracle_unknown.weight', [8], 'F32'])))
    hc = repair.kv_index(base, arch + '.attention.head_count')
    hkv = repair.kv_index(base, arch + '.attention.head_count_kv')
    if hc >= 0 and not isinstance(kvs[hc][1], tuple):
        out.append(_mutant(base, 'heads', 'head_count=3',
                           lambda m: m['kvs'][hc].__setitem__(2, 3)))
        if hkv >= 0 and not isinstance(kvs[hkv][1], tuple):
            out.append(_mutant(base, 'heads', 'head_count_kv>head_count',
                               lambda m: m['kvs'][hkv].__setitem__(2, kvs[hc][2] * 2)))
    ec = repair.kv_index(base, arch + '.expert_count')
    eu = repair.kv_index(base, arch + '.expert_used_count')
    if ec >= 0 and eu >= 0:
        out.append(_mutant(base, 'experts', 'expert_used_count>expert_count',
                           lambda m: m['kvs'][eu].__setitem__(2, kvs[ec][2] + 1)))
    for key in ('tokenizer.ggml.tokens', 'tokenizer.ggml.model', 'tokenizer.ggml.scores',
                'tokenizer.ggml.token_type'):
        i = repair.kv_index(base, key)
        if i >= 0:
            out.append(_mutant(base, 'vocab', 'drop:' + key, lambda m, i=i: m['kvs'].pop(i)))
    i = repair.kv_index(base, 'tokenizer.ggml.model')
    if i >= 0:
        out.append(_mutant(base, 'vocab', 'model=oracle-unknown',
                           lambda m, i=i: m['kvs'][i].__setitem__(2, 'oracle-unknown')))
        out.append(_mutant(base, 'vocab', 'model=gpt2-no-merges',
                           lambda m, i=i: m['kvs'][i].__setitem__(2, 'gpt2')))
    i = repair.kv_index(base, 'tokenizer.ggml.scores')
    if i >= 0:
        out.append(_mutant(base, 'vocab', 'scores:short',
                           lambda m, i=i: m['kvs'][i].__setitem__(2, m['kvs'][i][2][:-1])))
    i = repair.kv_index(base, 'tokenizer.ggml.token_type')
    if i >= 0:
        out.append(_mutant(base, 'vocab', 'token_type:short',
                           lambda m, i=i: m['kvs'][i].__setitem__(2, m['kvs'][i][2][:-1])))
    i = repair.kv_index(base, 'tokenizer.ggml.bos_token_id')
    if i >= 0:
        out.append(_mutant(base, 'vocab', 'bos_token_id=100000',
                           lambda m, i=i: m['kvs'][i].__setitem__(2, 100000)))
    out.append(_mutant(base, 'vocab', 'pre=oracle-unknown',
                       lambda m: m['kvs'].append(['tokenizer.ggml.pre', 'str', 'oracle-unknown'])))
    a = repair.kv_index(base, 'general.architecture')
    out.append(_mutant(base, 'name', 'upper', lambda m: m['kvs'][a].__setitem__(2, arch.upper())))
    out.append(_mutant(base, 'name', 'extra-letter',
                       lambda m: m['kvs'][a].__setitem__(2, arch + 'x')))
    return out
