"""repair.py - build a minimal model the real loader accepts, from its own
error messages.

Start from general.architecture, a tiny SPM vocabulary and no tensors; load;
read the loader's complaint (a key not found, a key of the wrong type, an
array of the wrong length, a missing tensor, a tensor of the wrong shape,
an n_rot it expects) and change the file the way the message asks; repeat
until it loads or the message is one this module does not understand. Only
the loader's messages and the names of keys drive it: it never reads
gguflint's tables or llama.cpp's source."""

import copy
import os
import re

import ggufw

N_EMBD = 64
N_HEAD = 4
N_LAYER = 2
N_FF = 128
N_CTX = 256
N_EXPERT = 4

# A first guess for a key the loader asks for, by the end of its name. The
# loader's "wrong type" answer corrects the type; the value only has to be
# plausible for a tiny model.
GUESSES = [
    ('context_length', 'u32', N_CTX), ('embedding_length', 'u32', N_EMBD),
    ('block_count', 'u32', N_LAYER), ('feed_forward_length', 'u32', N_FF),
    ('expert_feed_forward_length', 'u32', N_FF), ('expert_shared_feed_forward_length', 'u32', N_FF),
    ('attention.head_count', 'u32', N_HEAD), ('attention.head_count_kv', 'u32', N_HEAD),
    ('layer_norm_rms_epsilon', 'f32', 1e-5), ('layer_norm_epsilon', 'f32', 1e-5),
    ('group_norm_epsilon', 'f32', 1e-5), ('group_norm_groups', 'u32', 4),
    ('rope.dimension_count', 'u32', N_EMBD // N_HEAD), ('expert_count', 'u32', N_EXPERT),
    ('expert_used_count', 'u32', 2), ('expert_shared_count', 'u32', 1),
    ('expert_group_count', 'u32', 1), ('expert_group_used_count', 'u32', 1),
    ('key_length', 'u32', N_EMBD // N_HEAD), ('value_length', 'u32', N_EMBD // N_HEAD),
    ('key_length_mla', 'u32', N_EMBD // N_HEAD), ('value_length_mla', 'u32', N_EMBD // N_HEAD),
    ('vocab_size', 'u32', 0), ('leading_dense_block_count', 'u32', 1),
    ('sliding_window', 'u32', 64), ('q_lora_rank', 'u32', 32), ('kv_lora_rank', 'u32', 32),
    ('ssm.conv_kernel', 'u32', 4), ('ssm.inner_size', 'u32', 2 * N_EMBD),
    ('ssm.state_size', 'u32', 16), ('ssm.time_step_rank', 'u32', 4), ('ssm.group_count', 'u32', 1),
    ('wkv.head_size', 'u32', 16), ('rescale_every_n_layers', 'u32', 0),
    ('time_mix_extra_dim', 'u32', 32), ('time_decay_extra_dim', 'u32', 32),
    ('decay_lora_rank', 'u32', 16), ('iclr_lora_rank', 'u32', 16),
    ('value_residual_mix_lora_rank', 'u32', 16), ('gate_lora_rank', 'u32', 16),
    ('token_shift_count', 'u32', 2), ('causal', 'bool', True), ('pooling_type', 'u32', 0),
    ('expert_gating_func', 'u32', 1), ('expert_weights_scale', 'f32', 1.0),
    ('expert_weights_norm', 'bool', False), ('logit_scale', 'f32', 1.0),
    ('shortconv.l_cache', 'u32', 3), ('conv_kernel', 'u32', 4),
    ('nextn_predict_layers', 'u32', 0), ('attention.clamp_kqv', 'f32', 8.0),
    ('attention.max_alibi_bias', 'f32', 8.0), ('attention.scale', 'f32', 1.0),
    ('embedding_scale', 'f32', 1.0), ('residual_scale', 'f32', 1.0),
    ('rope.freq_base', 'f32', 10000.0), ('rope.scaling.factor', 'f32', 1.0),
    ('decoder_start_token_id', 'u32', 0), ('attention.relative_buckets_count', 'u32', 32),
    ('features_length', 'u32', N_EMBD), ('posnet.embedding_length', 'u32', N_EMBD),
    ('posnet.block_count', 'u32', 1), ('convnext.embedding_length', 'u32', N_EMBD),
    ('convnext.block_count', 'u32', 1), ('swin_norm', 'bool', False),
]

TYPE_NAMES = {'u8': 'u8', 'i8': 'i8', 'u16': 'u16', 'i16': 'i16', 'u32': 'u32', 'i32': 'i32',
              'f32': 'f32', 'bool': 'bool', 'str': 'str', 'u64': 'u64', 'i64': 'i64',
              'f64': 'f64', 'arr': 'array'}


def guess(key):
    best = None
    for suffix, vt, v in GUESSES:
        if key.endswith('.' + suffix) and (best is None or len(suffix) > len(best[0])):
            best = (suffix, vt, v)
    if best:
        return best[1], best[2]
    return 'u32', 1


def spm_vocab():
    toks = ['<unk>', '<s>', '</s>'] + ['<0x%02X>' % b for b in range(256)]
    toks += ['\u2581', '\u2581a', '\u2581b', 'a', 'b']
    types = [2, 3, 3] + [6] * 256 + [1] * 5
    scores = [0.0] * len(toks)
    return [
        ['tokenizer.ggml.model', 'str', 'llama'],
        ['tokenizer.ggml.tokens', ('array', 'str'), toks],
        ['tokenizer.ggml.scores', ('array', 'f32'), scores],
        ['tokenizer.ggml.token_type', ('array', 'i32'), types],
        ['tokenizer.ggml.bos_token_id', 'u32', 1],
        ['tokenizer.ggml.eos_token_id', 'u32', 2],
        ['tokenizer.ggml.unknown_token_id', 'u32', 0],
    ]


def n_vocab(model):
    for k, vt, v in model['kvs']:
        if k == 'tokenizer.ggml.tokens':
            return len(v)
    return 0


# What every converter writes for a transformer; the loader ignores what it
# does not read, and the mutants drop each one to see whether it does.
STANDARD = ('context_length', 'embedding_length', 'block_count', 'feed_forward_length',
            'attention.head_count', 'attention.head_count_kv')

# Keys that size tensors: when the loader expects a shape with a 0 in it, one
# of these was read as 0 because it is absent; they are tried in this order.
SIZING = ('attention.head_count', 'feed_forward_length', 'attention.head_count_kv',
          'expert_feed_forward_length', 'expert_count', 'expert_used_count',
          'expert_shared_feed_forward_length', 'ssm.inner_size', 'ssm.state_size',
          'ssm.conv_kernel', 'ssm.time_step_rank', 'ssm.group_count', 'wkv.head_size',
          'attention.key_length', 'attention.value_length', 'rope.dimension_count',
          'attention.q_lora_rank', 'attention.kv_lora_rank', 'shortconv.l_cache',
          'features_length', 'vocab_size', 'attention.key_length_mla',
          'attention.value_length_mla', '@tokenizer.ggml.token_type_count')


def start(arch):
    kvs = [['general.architecture', 'str', arch], ['general.name', 'str', 'oracle'],
           ['general.file_type', 'u32', 0], ['general.quantization_version', 'u32', 2]]
    for suffix in STANDARD:
        vt, v = guess(arch + '.' + suffix)
        kvs.append([arch + '.' + suffix, vt, v])
    return {'kvs': kvs + spm_vocab(), 'tensors': []}


def add_sizing_key(model):
    """A shape with a 0 asked for: add the first sizing key the file lacks."""
    arch = model['kvs'][0][2]
    for suffix in SIZING:
        key = suffix[1:] if suffix.startswith('@') else arch + '.' + suffix
        if kv_index(model, key) < 0:
            vt, v = guess(key)
            if suffix == '@tokenizer.ggml.token_type_count':
                v = 2
            if suffix == 'vocab_size':
                v = n_vocab(model)
            model['kvs'].append([key, vt, v])
            return True
    return False


def kv_index(model, key):
    for i, kv in enumerate(model['kvs']):
        if kv[0] == key:
            return i
    return -1


def tensor_index(model, name):
    for i, t in enumerate(model['tensors']):
        if t[0] == name:
            return i
    return -1


def n_layer(model):
    for k, vt, v in model['kvs']:
        if k.endswith('.block_count') and vt == 'u32':
            return v
    return N_LAYER


def convert(v, vt):
    if vt == 'str':
        return str(v)
    if vt in ('f32', 'f64'):
        return float(v) if not isinstance(v, str) else 1.0
    if vt == 'bool':
        return bool(v) if not isinstance(v, str) else False
    try:
        return int(v)
    except (TypeError, ValueError):
        return 1


RE_KEY_NF = re.compile(r"(?:array )?key not found in model: (\S+)")
RE_WRONG_TYPE = re.compile(r"key (\S+) has wrong type (\S+) but expected type (\S+)")
RE_ARR_ELT = re.compile(r"(\S+) has wrong array element type (\S+)")
RE_ARR_LEN = re.compile(r"key (\S+) has wrong array length; expected (\d+), got (\d+)")
RE_SCALAR = re.compile(r"expected scalar, found array for key: (\S+)")
RE_MISSING = re.compile(r"(?:missing tensor '([^']+)'|tensor '([^']+)' not found)")
RE_SHAPE = re.compile(r"tensor '([^']+)' has wrong shape; expected ([\d ,]+), got ([\d ,]+)")
RE_NROT = re.compile(r"invalid n_rot: (\d+), expected (\d+)")


def shape_of(text):
    dims = [int(x) for x in text.replace(' ', '').split(',') if x]
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return dims


# Messages that do not name the key they are about (a loader's own throw or
# a GGML_ASSERT on a hyperparameter), mapped by hand from the message's
# words to the keys it speaks of: (pattern, [(suffix, type, value)]). Each
# is added only when the file lacks it; keys that the file has are set to the
# value given (the message says their value is wrong).
HINTS = [
    (r'zero experts|n_expert_used > 0|n_expert > 0|n_expert must be|n_expert && n_expert_used',
     [('expert_count', 'u32', N_EXPERT), ('expert_used_count', 'u32', 2)]),
    (r'needs to define token type count', [('@tokenizer.ggml.token_type_count', 'u32', 2)]),
    (r'requires MLA|n_embd_head_qk_nope >= 1',
     [('attention.key_length_mla', 'u32', 24), ('attention.value_length_mla', 'u32', 16),
      ('attention.kv_lora_rank', 'u32', 32), ('rope.dimension_count', 'u32', 8)]),
    (r'norm epsilon', [('attention.layer_norm_rms_epsilon', 'f32', 1e-5)]),
    (r"requires '(?:extract|target)_layers'", [('target_layers', ('array', 'i32'), [0, 1, 1])]),
    (r'kda_gate_lower_bound', [('kda.gate_lower_bound', 'f32', -5.0)]),
    (r'expects sqrtsoftplus', [('expert_gating_func', 'u32', 4)]),
    (r'adapter token id arrays', [('adapters.count', 'u32', N_LAYER)]),
    (r'n_layer_nextn must be', [('nextn_predict_layers', 'u32', N_LAYER)]),
]


def apply_hint(model, msg):
    arch = model['kvs'][0][2]
    for pat, keys in HINTS:
        if not re.search(pat, msg):
            continue
        changed = False
        for suffix, vt, v in keys:
            key = suffix[1:] if suffix.startswith('@') else arch + '.' + suffix
            i = kv_index(model, key)
            if i < 0:
                model['kvs'].append([key, vt, v])
                changed = True
            elif model['kvs'][i][2] != v:
                model['kvs'][i][1:] = [vt, v]
                changed = True
        return changed
    return False


def fix(model, msg):
    """Change the model as the loader's message asks; False if not understood."""
    if apply_hint(model, msg):
        return True
    m = RE_WRONG_TYPE.search(msg)
    if m:
        key, _, want = m.groups()
        i = kv_index(model, key)
        want = TYPE_NAMES.get(want, want)
        if i < 0 or want not in ggufw.VTYPES:
            return False
        kv = model['kvs'][i]
        if want == 'array':
            kv[1] = ('array', kv[1] if not isinstance(kv[1], tuple) else kv[1][1])
            kv[2] = [kv[2]] * n_layer(model)
        else:
            kv[1] = want
            kv[2] = convert(kv[2], want)
        return True
    m = RE_ARR_ELT.search(msg)
    if m:
        key = m.group(1)
        i = kv_index(model, key)
        if i < 0:
            return False
        kv = model['kvs'][i]
        kv[1] = ('array', 'u32')
        kv[2] = [convert(x, 'u32') for x in kv[2]]
        return True
    m = RE_ARR_LEN.search(msg)
    if m:
        key, want, _ = m.group(1), int(m.group(2)), m.group(3)
        i = kv_index(model, key)
        if i < 0:
            return False
        kv = model['kvs'][i]
        v = kv[2] if isinstance(kv[2], list) else [kv[2]]
        kv[2] = (v * want)[:want] if v else [1] * want
        return True
    m = RE_SCALAR.search(msg)
    if m:
        i = kv_index(model, m.group(1))
        if i < 0:
            return False
        kv = model['kvs'][i]
        kv[1] = kv[1][1]
        kv[2] = kv[2][0] if kv[2] else 1
        return True
    m = RE_KEY_NF.search(msg)
    if m:
        key = m.group(1)
        if kv_index(model, key) >= 0:
            return False
        vt, v = guess(key)
        if key.endswith('.vocab_size'):
            v = n_vocab(model)
        if 'array key' in msg:
            vt, v = ('array', vt), [v] * n_layer(model)
        model['kvs'].append([key, vt, v])
        return True
    m = RE_SHAPE.search(msg)
    if m:
        name, want = m.group(1), shape_of(m.group(2))
        i = tensor_index(model, name)
        if i < 0:
            return False
        if 0 in want:
            return add_sizing_key(model)
        if model['tensors'][i][1] == want:
            return False
        model['tensors'][i][1] = want
        return True
    m = RE_MISSING.search(msg)
    if m:
        name = m.group(1) or m.group(2)
        if tensor_index(model, name) >= 0:
            return False
        model['tensors'].append([name, [1], 'F32'])
        return True
    m = RE_NROT.search(msg)
    if m:
        want = int(m.group(2))
        for kv in model['kvs']:
            if kv[0].endswith('.rope.dimension_count'):
                kv[2] = want
                return True
        arch = model['kvs'][0][2]
        model['kvs'].append([arch + '.rope.dimension_count', 'u32', want])
        return True
    return False


def build(oracle, arch, workdir, max_steps=400):
    """(model, verdict, steps): the minimal model the loader accepts, or the
    last model and the message the repair did not understand."""
    model = start(arch)
    path = os.path.join(workdir, 'repair-%s.gguf' % re.sub(r'[^A-Za-z0-9_.-]', '_', arch))
    verdict = None
    for step in range(max_steps):
        ggufw.write(path, model)
        verdict = oracle.model(path)
        if verdict.ok:
            return model, verdict, step + 1
        if not fix(model, verdict.msg):
            return model, verdict, step + 1
    return model, verdict, max_steps


def clone(model):
    return copy.deepcopy(model)
