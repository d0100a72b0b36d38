"""adapters.py - LoRA adapters against their base, for the loader oracle.

For a few base models the generator built, an adapter that fits (pairs
lora_a [ne0, r] / lora_b [r, ne1] for two matrices of layer 0, and the
flipped pair for token_embd), then one change at a time: the architecture,
general.type and adapter.type (missing, other values, other types), alpha's
type, a target the base lacks, each shape, a lone half of a pair, a bad
suffix, alora invocation tokens of each type, a 3-D lora_a. The shapes
follow the LoRA file format (convert_lora_to_gguf.py writes lora_a as
[in, rank] and lora_b as [rank, out]), not gguflint's checks."""

import os
import subprocess

import ggufw
import repair

BASES = ('llama', 'qwen2', 'qwen3', 'gemma3', 'phi3', 'starcoder2', 'mistral3', 'granite')
RANK = 8


def _supports_base(gguflint):
    r = subprocess.run([gguflint, '--help'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return '--base' in r.stdout


def _pairs(model):
    mats = [t for t in model['tensors'] if t[0].startswith('blk.0.') and len(t[1]) == 2]
    return mats[:2]


def adapter_for(model, arch, pairs, embd=None):
    kvs = [['general.architecture', 'str', arch], ['general.type', 'str', 'adapter'],
           ['adapter.type', 'str', 'lora'], ['adapter.lora.alpha', 'f32', 16.0]]
    tensors = []
    for name, shape, _ in pairs:
        tensors.append([name + '.lora_a', [shape[0], RANK], 'F32'])
        tensors.append([name + '.lora_b', [RANK, shape[1]], 'F32'])
    if embd:
        tensors.append([embd[0] + '.lora_a', [RANK, embd[1][1]], 'F32'])
        tensors.append([embd[0] + '.lora_b', [RANK, embd[1][0]], 'F32'])
    return {'kvs': kvs, 'tensors': tensors}


def _set_kv(m, key, vt, v):
    i = repair.kv_index(m, key)
    if i < 0:
        m['kvs'].append([key, vt, v])
    else:
        m['kvs'][i][1:] = [vt, v]


def _drop_kv(m, key):
    i = repair.kv_index(m, key)
    if i >= 0:
        m['kvs'].pop(i)


def mutants(clean, arch, other_arch):
    out = [('lora', 'clean', clean)]

    def mk(cls, detail, fn):
        m = repair.clone(clean)
        fn(m)
        out.append((cls, detail, m))

    t0 = clean['tensors'][0][0]  # X.lora_a
    mk('lora-arch', 'other:' + other_arch, lambda m: _set_kv(m, 'general.architecture', 'str', other_arch))
    mk('lora-arch', 'misspelled', lambda m: _set_kv(m, 'general.architecture', 'str', arch + 'x'))
    mk('lora-type', 'general.type=model', lambda m: _set_kv(m, 'general.type', 'str', 'model'))
    mk('lora-type', 'general.type:missing', lambda m: _drop_kv(m, 'general.type'))
    mk('lora-type', 'general.type:u32', lambda m: _set_kv(m, 'general.type', 'u32', 1))
    mk('lora-type', 'adapter.type=cvec', lambda m: _set_kv(m, 'adapter.type', 'str', 'cvec'))
    mk('lora-type', 'adapter.type:missing', lambda m: _drop_kv(m, 'adapter.type'))
    mk('lora-type', 'adapter.type:u32', lambda m: _set_kv(m, 'adapter.type', 'u32', 0))
    mk('lora-alpha', 'u32', lambda m: _set_kv(m, 'adapter.lora.alpha', 'u32', 16))
    mk('lora-alpha', 'f64', lambda m: _set_kv(m, 'adapter.lora.alpha', 'f64', 16.0))
    mk('lora-alpha', 'missing', lambda m: _drop_kv(m, 'adapter.lora.alpha'))
    mk('lora-alora', 'u32-array', lambda m: _set_kv(m, 'adapter.alora.invocation_tokens', ('array', 'u32'), [1, 2, 3]))
    mk('lora-alora', 'i32-array', lambda m: _set_kv(m, 'adapter.alora.invocation_tokens', ('array', 'i32'), [1, 2, 3]))
    mk('lora-alora', 'u32-scalar', lambda m: _set_kv(m, 'adapter.alora.invocation_tokens', 'u32', 1))
    mk('lora-alora', 'empty-array', lambda m: _set_kv(m, 'adapter.alora.invocation_tokens', ('array', 'u32'), []))

    def target_missing(m):
        m['tensors'].append(['blk.0.oracle_missing.weight.lora_a', [64, RANK], 'F32'])
        m['tensors'].append(['blk.0.oracle_missing.weight.lora_b', [RANK, 64], 'F32'])
    mk('lora-target', 'not-in-base', target_missing)

    def layer_out_of_range(m):
        base = t0[:-len('.lora_a')].replace('blk.0.', 'blk.99.')
        m['tensors'].append([base + '.lora_a', list(clean['tensors'][0][1]), 'F32'])
        m['tensors'].append([base + '.lora_b', list(clean['tensors'][1][1]), 'F32'])
    mk('lora-target', 'layer-99', layer_out_of_range)

    def grow(i, d):
        def fn(m):
            m['tensors'][i][1][d] += 1
        return fn
    mk('lora-shape', 'lora_a.ne0+1', grow(0, 0))
    mk('lora-shape', 'lora_b.ne1+1', grow(1, 1))
    mk('lora-shape', 'rank-mismatch', grow(1, 0))
    mk('lora-shape', 'lora_a-3d', lambda m: m['tensors'][0].__setitem__(1, m['tensors'][0][1] + [2]))
    mk('lora-shape', 'lora_a-3d-1', lambda m: m['tensors'][0].__setitem__(1, m['tensors'][0][1] + [1]))
    mk('lora-shape', 'swapped-a-b', lambda m: (m['tensors'][0].__setitem__(1, [RANK, m['tensors'][0][1][0]]), m['tensors'][1].__setitem__(1, [m['tensors'][1][1][1], RANK])))
    mk('lora-pair', 'lora_a-only', lambda m: m['tensors'].pop(1))
    mk('lora-suffix', 'lora_c', lambda m: m['tensors'][0].__setitem__(0, t0[:-1] + 'c'))
    mk('lora-tensor-type', 'lora_a:F16', lambda m: m['tensors'][0].__setitem__(2, 'F16'))
    mk('lora-embd', 'token_embd-flipped', lambda m: None)
    return out


def cases(pool, bases, work, rate):
    gguflint_base = None
    out = []
    names = [a for a in BASES if a in bases]
    for k, arch in enumerate(names):
        model, base_path = bases[arch]
        pairs = _pairs(model)
        if not pairs:
            continue
        embd = next((t for t in model['tensors'] if t[0] == 'token_embd.weight'), None)
        clean = adapter_for(model, arch, pairs, embd)
        other = names[(k + 1) % len(names)] if len(names) > 1 else 'llama'
        d = os.path.join(work, 'lora-' + arch)
        os.makedirs(d, exist_ok=True)
        for cls, detail, m in mutants(clean, arch, other):
            if cls == 'lora-embd':  # token_embd's pair in the non-flipped (wrong) layout
                m = adapter_for(model, arch, pairs)
                if embd:
                    m['tensors'].append([embd[0] + '.lora_a', [embd[1][0], RANK], 'F32'])
                    m['tensors'].append([embd[0] + '.lora_b', [RANK, embd[1][1]], 'F32'])
            p = os.path.join(d, '%s-%s.gguf' % (cls, detail.replace(':', '-').replace('=', '-')))
            ggufw.write(p, m)
            out.append((arch, cls, detail, p, base_path, None, ('BASE', base_path)))
    return out
