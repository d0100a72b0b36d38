"""mmproj.py - multimodal projector files against mtmd's loader, for the
loader oracle.

For every projector type the loader names (tools/mtmd/clip-impl.h
PROJECTOR_TYPE_NAMES), start from the keys every encoder has and repair the
file from the loader's messages ("Key not found", "unable to find tensor",
"failed to find tensor", a type assertion in gguf_get_val_*), with tensor
shapes of the usual ViT layout (patch embedding [p, p, 3, n_embd], position
embedding [n_embd, n_pos], square attention matrices, FFN [n_embd, n_ff],
projector matrices [n_embd, n_embd_text]). Each file is then loaded with
warmup on (mtmd's default, which runs the graph once) and off. Mutants: each
key dropped and retyped, out-of-range values, each tensor dropped and
reshaped."""

import os
import re

import ggufw
import oracle
import repair

N_EMBD = 64
N_FF = 128
PATCH = 8
IMAGE = 32
N_HEAD = 4

KEY_TYPES = [
    (r'\.has_\w+|use_gelu|use_silu|\.causal', 'bool', True),
    (r'epsilon|_eps$|scale_factor|router_gain|rope.freq_base', 'f32', 1e-5),
    (r'image_mean|image_std', ('array', 'f32'), [0.5, 0.5, 0.5]),
    (r'image_grid_pinpoints', ('array', 'i32'), [IMAGE, IMAGE]),
    (r'feature_layer|wa_layer_indexes|spatial_offsets', ('array', 'i32'), [0]),
    (r'mm_patch_merge_type', 'str', 'flat'),
    (r'projector_type$', 'str', 'mlp'),
]
VALUES = {'image_size': IMAGE, 'patch_size': PATCH, 'embedding_length': N_EMBD,
          'feed_forward_length': N_FF, 'block_count': 1, 'head_count': N_HEAD,
          'head_count_kv': N_HEAD, 'projection_dim': N_EMBD, 'num_mel_bins': 128,
          'spatial_merge_size': 2, 'n_wa_pattern': 1, 'window_size': 16,
          'image_min_pixels': 256, 'image_max_pixels': 4096, 'minicpmv_version': 2,
          'minicpmv_query_num': 16, 'stack_factor': 2, 'chunk_size': 64,
          'head_dim': N_EMBD // N_HEAD, 'preproc_image_size': IMAGE}


def projector_types(src):
    text = open(os.path.join(src, 'tools', 'mtmd', 'clip-impl.h')).read()
    return re.findall(r'\{\s*PROJECTOR_TYPE_\w+\s*,\s*"([^"]+)"\s*\}', text)


def key_guess(key):
    for pat, vt, v in KEY_TYPES:
        if re.search(pat, key):
            return vt, v
    last = key.split('.')[-1]
    return 'u32', VALUES.get(last, 1)


def start(ptype, audio):
    enc = 'audio' if audio else 'vision'
    kvs = [['general.architecture', 'str', 'clip'], ['general.name', 'str', 'oracle-mmproj'],
           ['general.file_type', 'u32', 0],
           ['clip.has_%s_encoder' % enc, 'bool', True], ['clip.projector_type', 'str', ptype],
           ['clip.use_gelu', 'bool', True]]
    for k in ('embedding_length', 'feed_forward_length', 'block_count', 'projection_dim',
              'attention.head_count'):
        kvs.append(['clip.%s.%s' % (enc, k), 'u32', VALUES[k.split('.')[-1]]])
    kvs.append(['clip.%s.attention.layer_norm_epsilon' % enc, 'f32', 1e-5])
    if not audio:
        kvs += [['clip.vision.image_size', 'u32', IMAGE], ['clip.vision.patch_size', 'u32', PATCH],
                ['clip.vision.image_mean', ('array', 'f32'), [0.5, 0.5, 0.5]],
                ['clip.vision.image_std', ('array', 'f32'), [0.5, 0.5, 0.5]]]
    else:
        kvs.append(['clip.audio.num_mel_bins', 'u32', 128])
    return {'kvs': kvs, 'tensors': []}


def shape_guess(name, n_text):
    n_pos = (IMAGE // PATCH) ** 2
    if name.endswith('patch_embd.weight') or name.endswith('patch_embd.weight.1'):
        return [PATCH, PATCH, 3, N_EMBD]
    if 'position_embd' in name:
        return [N_EMBD, n_pos + 1]
    if name.endswith('class_embd'):
        return [N_EMBD]
    if name.endswith('.bias') or 'norm' in name or 'ln' in name.split('.')[-2:][0]:
        if name.startswith('mm.'):
            return [n_text]
        return [N_EMBD]
    if 'ffn_up' in name or 'ffn_gate' in name:
        return [N_EMBD, N_FF]
    if 'ffn_down' in name:
        return [N_FF, N_EMBD]
    if name.startswith('mm.') or name.startswith('resampler'):
        return [N_EMBD, n_text]
    return [N_EMBD, N_EMBD]


RE_KEY = re.compile(r'Key not found: (\S+)')
RE_TENSOR = re.compile(r'(?:unable|failed) to find tensor (\S+)')
RE_TYPE_ASSERT = re.compile(r'gguf\.cpp:\d+: GGML_ASSERT\(type_to_gguf_type')
RETYPE_ORDER = ['u32', 'i32', 'f32', 'bool', 'str']


def fix(model, msg, added, n_text):
    m = RE_KEY.search(msg)
    if m:
        key = m.group(1)
        if repair.kv_index(model, key) >= 0:
            return False
        vt, v = key_guess(key)
        model['kvs'].append([key, vt, v])
        added.append(key)
        return True
    m = RE_TENSOR.search(msg)
    if m:
        name = m.group(1)
        if repair.tensor_index(model, name) >= 0:
            return False
        model['tensors'].append([name, shape_guess(name, n_text), 'F32'])
        return True
    if RE_TYPE_ASSERT.search(msg) and added:
        kv = model['kvs'][repair.kv_index(model, added[-1])]
        if isinstance(kv[1], tuple) or kv[1] not in RETYPE_ORDER:
            return False
        nxt = RETYPE_ORDER.index(kv[1]) + 1
        if nxt >= len(RETYPE_ORDER):
            return False
        kv[1] = RETYPE_ORDER[nxt]
        kv[2] = repair.convert(kv[2], kv[1])
        return True
    return False


# The usual vision tower (a ViT as converters write it, names in gguf-py's
# V_ENC_* style): mtmd reads most of these as optional and dereferences them
# in the graph, so the repair alone does not find them.
TOWER = ['v.patch_embd.weight', 'v.patch_embd.bias', 'v.position_embd.weight', 'v.pre_ln.weight',
         'v.pre_ln.bias', 'v.post_ln.weight', 'v.post_ln.bias']
TOWER_BLOCK = ['attn_q.weight', 'attn_q.bias', 'attn_k.weight', 'attn_k.bias', 'attn_v.weight',
               'attn_v.bias', 'attn_out.weight', 'attn_out.bias', 'ln1.weight', 'ln1.bias',
               'ln2.weight', 'ln2.bias', 'ffn_up.weight', 'ffn_up.bias', 'ffn_down.weight',
               'ffn_down.bias']
PROJ = {'mlp': [('mm.0.weight', [N_EMBD, 64]), ('mm.0.bias', [64]), ('mm.2.weight', [64, 64]),
                ('mm.2.bias', [64])]}


def with_tower(model, ptype, n_text):
    m = repair.clone(model)
    have = {t[0] for t in m['tensors']}
    names = TOWER + ['v.blk.0.' + x for x in TOWER_BLOCK]
    for name in names:
        if name not in have:
            m['tensors'].append([name, shape_guess(name, n_text), 'F32'])
    for name, shape in PROJ.get(ptype, []):
        if name not in have:
            m['tensors'].append([name, shape, 'F32'])
    return m


def build(o, ptype, text_path, d, n_text):
    """(model, verdict without warmup, warmup verdict) of the best file."""
    model, verdict = build_load(o, ptype, text_path, d, n_text)
    path = os.path.join(d, 'repair-%s.gguf' % re.sub(r'[^A-Za-z0-9_.-]', '_', ptype))
    if not verdict.ok and not verdict.crash:
        return model, verdict, verdict
    if repair.kv_index(model, 'clip.has_vision_encoder') >= 0:
        full = with_tower(model, ptype, n_text)
        ggufw.write(path, full)
        v = o.mmproj(text_path, path, False)
        if v.ok:
            model, verdict = full, v
    ggufw.write(path, model)
    return model, verdict, o.mmproj(text_path, path, True)


def build_load(o, ptype, text_path, d, n_text):
    verdict = None
    for audio in (False, True):
        model = start(ptype, audio)
        added = []
        path = os.path.join(d, 'repair-%s.gguf' % re.sub(r'[^A-Za-z0-9_.-]', '_', ptype))
        for _ in range(200):
            ggufw.write(path, model)
            verdict = o.mmproj(text_path, path, False)
            if verdict.ok or not fix(model, verdict.msg, added, n_text):
                break
        if verdict.ok:
            return model, verdict
        if 'vision projector type' not in verdict.msg and 'no vision encoder' not in verdict.msg:
            return model, verdict
    return model, verdict


RETYPE = {'u32': 'i32', 'i32': 'u32', 'f32': 'u32', 'bool': 'u32', 'str': 'u32'}


def model_mutants(base):
    out = []

    def mk(cls, detail, fn):
        m = repair.clone(base)
        fn(m)
        out.append((cls, detail, m))

    for i, (k, vt, v) in enumerate(base['kvs']):
        if k.startswith('general.'):
            continue
        mk('mmproj-key-drop', k, lambda m, i=i: m['kvs'].pop(i))
        if not isinstance(vt, tuple) and vt in RETYPE:
            nt = RETYPE[vt]

            def rt(m, i=i, nt=nt):
                m['kvs'][i][1] = nt
                m['kvs'][i][2] = repair.convert(m['kvs'][i][2], nt)
            mk('mmproj-key-retype', '%s:%s' % (k, nt), rt)
        if isinstance(vt, tuple) and isinstance(v, list) and v:
            mk('mmproj-key-retype', '%s:short' % k, lambda m, i=i: m['kvs'][i].__setitem__(2, m['kvs'][i][2][:-1]))
            mk('mmproj-key-retype', '%s:i32' % k, lambda m, i=i: m['kvs'][i].__setitem__(1, ('array', 'i32')))
        if vt == 'u32':
            mk('mmproj-key-zero', k, lambda m, i=i: m['kvs'][i].__setitem__(2, 0))
    for key, val in (('clip.vision.image_size', 70000), ('clip.vision.image_size', 65537),
                     ('clip.vision.patch_size', 7), ('clip.vision.attention.head_count', 3),
                     ('clip.vision.patch_size', 70000)):
        i = repair.kv_index(base, key)
        if i >= 0:
            mk('mmproj-value', '%s=%d' % (key, val), lambda m, i=i, val=val: m['kvs'][i].__setitem__(2, val))
    if repair.kv_index(base, 'clip.use_gelu') >= 0:
        mk('mmproj-value', 'use_gelu+use_silu', lambda m: m['kvs'].append(['clip.use_silu', 'bool', True]))
    for j, (name, shape, gt) in enumerate(base['tensors']):
        if name.startswith('v.blk.') and not name.startswith('v.blk.0.'):
            continue
        if name.startswith('a.blk.') and not name.startswith('a.blk.0.'):
            continue
        mk('mmproj-tensor-drop', name, lambda m, j=j: m['tensors'].pop(j))

        def grow(m, j=j):
            s = list(m['tensors'][j][1])
            s[0] += 1
            m['tensors'][j][1] = s
        mk('mmproj-tensor-reshape', name, grow)
    return out


BUILT = {}  # projector type -> (load verdict, warmup verdict) of its base file


def WARMUP_OK(ptype):
    return BUILT.get(ptype, ('', ''))[1] == 'OK'


def cases(pool, bases, work, rate, src):
    if 'llama' not in bases:
        return []
    text_model, text_path = bases['llama']
    n_text = repair.N_EMBD
    types = projector_types(src)
    d = os.path.join(work, 'mmproj')
    os.makedirs(d, exist_ok=True)

    def one(o, ptype):
        return ptype, build(o, ptype, text_path, d, n_text)

    out = []
    for ptype, (model, verdict, warm) in pool.map(one, types):
        BUILT[ptype] = (str(verdict), str(warm))
        if not verdict.ok:
            continue
        sub = os.path.join(d, re.sub(r'[^A-Za-z0-9_.-]', '_', ptype))
        os.makedirs(sub, exist_ok=True)
        rows = [('mmproj-base', 'base', model)] + model_mutants(model)
        for cls, detail, m in rows:
            if cls != 'mmproj-base' and not oracle.sampled('%s|%s|%s' % (ptype, cls, detail), rate):
                continue
            p = os.path.join(sub, '%s-%s.gguf' % (cls, re.sub(r'[^A-Za-z0-9_.=-]+', '_', detail)[:80]))
            ggufw.write(p, m)
            for warm in ((True, False) if WARMUP_OK(ptype) else (False,)):
                out.append(('mmproj:' + ptype, cls + ('@warmup' if warm else '@nowarmup'), detail, p, text_path, warm))
    return out
