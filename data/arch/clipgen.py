#!/usr/bin/env python3
"""clipgen.py - generate gguflint's projector (mmproj) tables from llama.cpp's
multimodal loader, tools/mtmd.

Reads, in a llama.cpp source tree:

  tools/mtmd/clip-impl.h   KEY_* and TN_* names, PROJECTOR_TYPE_NAMES
  tools/mtmd/clip.cpp      clip_model_loader (its constructor, load_hparams,
                           load_tensors), the graph dispatch
                           (clip_image_build_graph) and clip_n_mmproj_embd
  tools/mtmd/models/*.cpp  the graph builders (clip_graph_<name>::build)

and writes, into OUT_DIR:

  clip_projectors.def  every PROJECTOR_TYPE_NAMES entry, its modality, its
                       graph builder and what that builder dereferences
  clip_keys.def        every key the loader reads with get_bool / get_i32 /
                       get_u32 / get_f32 / get_string / get_arr_f32 /
                       get_arr_int: its type, required or not, for which
                       encoders and projector types
  clip_tensors.def     the tensors load_tensors requires per projector type
                       (get_tensor(name) without `false`, a constant name)
  clip_outputs.def     the tensor clip_n_mmproj_embd reads the projector's
                       output width from (ne[dim]), per projector type: the
                       graph and mtmd dereference it without a null check

Usage: python3 data/arch/clipgen.py LLAMA_DIR [OUT_DIR] [STAMP]
STAMP (default below) names the tree's commit and date. The output is
deterministic (the freshness test clip_tables_fresh regenerates and
compares). Facts the sources do not state in a parseable form are in the
HAND_* tables below, each with its source line.
"""

import os
import re
import sys

STAMP = ('llama.cpp 3f545beccee69d9975f466ec7e45fd9aacd8ba90 (2026-08-22, '
         'b10573-14)')

# --------------------------------------------------------------------------
# Hand facts

# Modality of each projector type's encoder (load_hparams: the type is read
# per modality; the audio types are the ones whose load_hparams case sets
# audio_* preprocessing values or that clip_init builds as the audio or gen
# context). Types not listed are vision.
HAND_AUDIO = {
    'ULTRAVOX', 'VOXTRAL', 'QWEN2A', 'QWEN3A', 'GLMA', 'MERALION', 'MUSIC_FLAMINGO',
    'LFM2A', 'GEMMA4A', 'GEMMA4UA', 'GEMMA3NA', 'GRANITE_SPEECH', 'MIMO_AUDIO',
    'PARAKEET', 'DOTS3NOTE_A', 'QWEN3TTS_SPKENC', 'POCKETTTS_SPKENC',
}
HAND_GEN = {'QWEN3TTS_GEN', 'POCKETTTS_GEN'}

# Flags the C check uses that are not a pattern in the source:
#   MINICPMV  clip_encode fills bucket_coords_h/w[1024] per patch row (GG558,
#             llama.cpp #27166)
#   MERGE2    the Qwen2-VL / 2.5-VL graph merges 2 x 2 patches (GG559)
#   MERGE_GT1 the graph calls build_patch_merge_permute(cur, hparams.n_merge),
#             which asserts n_merge > 1 (clip.cpp "GGML_ASSERT(scale_factor >
#             1)"; siglip.cpp the IDEFICS3 and LFM2 branches, dotsocr.cpp,
#             nemotron-v2-vl.cpp)
HAND_FLAGS = {
    'MINICPMV': ['MINICPMV'], 'MINICPMV4_6': ['MINICPMV'],
    'QWEN2VL': ['MERGE2'], 'QWEN25VL': ['MERGE2'],
    'IDEFICS3': ['MERGE_GT1'], 'LFM2': ['MERGE_GT1'], 'DOTS_OCR': ['MERGE_GT1'],
    'DOTS3NOTE_V': ['MERGE_GT1'], 'NEMOTRON_V2_VL': ['MERGE_GT1'],
}

# Builders whose graph needs every layer's attention q/k/v (or a fused qkv)
# although the loader reads them as optional: clip_graph::build_vit
# (clip.cpp "separate q, k, v": build_mm(layer.q_w, ...) when qkv_w is null)
# and clip_graph_llava::build (models/llava.cpp build_mm(layer.q_w, cur)).
# Found by the patterns in VIT_PATTERNS below; listed here for review.
VIT_PATTERNS = (r'\bbuild_vit\(', r'build_mm\(layer\.q_w')
# The patch embedding: build_inp() convolves with patch_embeddings_0
# (clip.cpp "ggml_conv_2d(ctx0, model.patch_embeddings_0, inp_raw, ...)"), and
# so do builders that call ggml_conv_2d with it themselves (qwen2vl.cpp, with
# patch_embeddings_1 as well: G_PE1).
INP_PATTERNS = (r'\bbuild_inp\(\)', r'\(ctx0,\s*model\.patch_embeddings_0\b')
# Dereferences of position_embeddings without a null check: ggml_get_rows /
# a view / ->ne of it (llava.cpp ggml_get_rows(ctx0, model.position_embeddings,
# ...), whisper-enc.cpp model.position_embeddings->ne[1]).
POS_PATTERNS = (r'model\.position_embeddings->', r'\(ctx0,\s*model\.position_embeddings\s*,')
# clip_graph::resize_position_embeddings reads position_embeddings->ne[1]
# before its null check and reshapes the table into a sqrt(ne[1]) square
# (clip.cpp "const int n_per_side = (int)std::sqrt(pos_embd->ne[1]);"):
# G_POS and G_RESIZE for the builders that call it; siglip.cpp calls it
# only for LFM2 and PHI4 (siglip.cpp "if (proj_type == PROJECTOR_TYPE_LFM2
# || proj_type == PROJECTOR_TYPE_PHI4)").
RESIZE_PATTERN = r'\bresize_position_embeddings\('
HAND_RESIZE_ONLY = {'siglip.cpp': {'LFM2', 'PHI4'}}
# Layer biases the graph adds without a null check: a builder that reads
# layer.q_b with no "if (layer.q_b" guard anywhere (qwen2vl.cpp
# "Qcur = ggml_add(ctx0, Qcur, layer.q_b);"): G_QKVB.
QKVB_USE, QKVB_GUARD = r'\blayer\.q_b\b', r'if\s*\(\s*layer\.q_b\b'
# Projector tensors a graph dereferences that the loader reads as optional
# and clip_n_mmproj_embd does not name, by hand: (type, tensor, only when
# this tensor is present ('' always), source).
HAND_GRAPH = [
    ('MLP', 'mm.0.weight', '', 'llava.cpp "embeddings = build_mm(model.mm_0_w, embeddings);"'),
    ('MLP', 'mm.0.bias', '', 'llava.cpp "ggml_add(ctx0, embeddings, model.mm_0_b);"'),
    ('MLP', 'mm.2.bias', 'mm.2.weight',
     'llava.cpp "if (model.mm_2_w) { ... ggml_add(ctx0, embeddings, model.mm_2_b);"'),
]

# --------------------------------------------------------------------------


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def strip_comments(s):
    out, i, n = [], 0, len(s)
    while i < n:
        c = s[i]
        if s.startswith('//', i):
            j = s.find('\n', i)
            i = n if j < 0 else j
        elif s.startswith('/*', i):
            j = s.find('*/', i + 2)
            i = n if j < 0 else j + 2
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and s[j] != c:
                j += 2 if s[j] == '\\' else 1
            out.append(s[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def body_of(src, start_pat):
    """The text of the brace block that follows the first match of start_pat."""
    m = re.search(start_pat, src)
    if not m:
        sys.exit('clipgen: cannot find %r' % start_pat)
    i = src.index('{', m.end())
    depth = 0
    for j in range(i, len(src)):
        if src[j] == '{':
            depth += 1
        elif src[j] == '}':
            depth -= 1
            if depth == 0:
                return src[i:j + 1]
    sys.exit('clipgen: unbalanced block after %r' % start_pat)


def defines(h, prefix):
    d = {}
    for m in re.finditer(r'#define\s+(%s\w+)\s+"([^"]*)"' % prefix, h):
        if m.group(1) in d and d[m.group(1)] != m.group(2):
            sys.exit('clipgen: %s defined twice differently' % m.group(1))
        d[m.group(1)] = m.group(2)
    return d


def projector_names(h):
    m = re.search(r'PROJECTOR_TYPE_NAMES\s*=\s*\{(.*?)\n\};', h, re.S)
    return [(e, n) for e, n in re.findall(r'\{\s*PROJECTOR_TYPE_(\w+)\s*,\s*"([^"]*)"\s*\}', m.group(1))]


def split_args(s):
    """Top-level comma split of a call's argument text."""
    args, depth, cur, q = [], 0, [], None
    for c in s:
        if q:
            cur.append(c)
            if c == q:
                q = None
            continue
        if c in '"\'':
            q = c
        elif c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        elif c == ',' and depth == 0:
            args.append(''.join(cur).strip())
            cur = []
            continue
        cur.append(c)
    if cur or args:
        args.append(''.join(cur).strip())
    return args


def call_args(text, open_paren):
    """The argument text of the call whose '(' is at open_paren, and its end."""
    depth, q = 0, None
    for j in range(open_paren, len(text)):
        c = text[j]
        if q:
            if c == q:
                q = None
            continue
        if c in '"\'':
            q = c
        elif c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0:
                return text[open_paren + 1:j], j
    return None, len(text)


def cformat(fmt, args):
    """printf-style %s/%d substitution with literal arguments, or None."""
    vals = []
    for a in args:
        if re.fullmatch(r'"[^"]*"', a):
            vals.append(a[1:-1])
        elif re.fullmatch(r'\d+', a):
            vals.append(a)
        else:
            return None
    parts = re.split(r'(%[sd])', fmt)
    n = sum(1 for p in parts if p in ('%s', '%d'))
    if n != len(vals):
        return None
    out, k = [], 0
    for p in parts:
        if p in ('%s', '%d'):
            out.append(vals[k])
            k += 1
        else:
            out.append(p)
    return ''.join(out)


def mask_strings(s):
    """s with the contents of string and character literals replaced by
    spaces (same length, so positions still index s)."""
    return re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'',
                  lambda m: m.group(0)[0] + ' ' * (len(m.group(0)) - 2) + m.group(0)[-1], s)


MODALITY_OF = {'is_vision': 'V', 'is_audio': 'A', 'is_gen_audio': 'G',
               'modality==CLIP_MODALITY_VISION': 'V', 'modality==CLIP_MODALITY_AUDIO': 'A',
               'modality==CLIP_MODALITY_GEN_AUDIO': 'G'}


class Walker:
    """Events of a function body in order: braces, case labels, modality
    ifs, and the calls the caller asks for, with the enclosing case set and
    modality."""

    def __init__(self, text):
        self.text = text

    def walk(self, call_re, on_call):
        t = mask_strings(self.text)
        pat = re.compile(r'\{|\}|case\s+PROJECTOR_TYPE_(\w+)\s*:|default\s*:|'
                         r'if\s*\(\s*(is_vision|is_audio|is_gen_audio|modality\s*==\s*CLIP_MODALITY_\w+)\s*\)|'
                         r'bool\s+(\w+)\s*=\s*([^;{}]*);|' + call_re)
        stack = [{'cases': None, 'mod': None, 'locals': {}}]
        pending_cases, pending_mod = [], None
        pos = 0
        while True:
            m = pat.search(t, pos)
            if not m:
                break
            tok = m.group(0)
            pos = m.end()
            if tok == '{':
                stack.append({'cases': pending_cases or None, 'mod': pending_mod, 'locals': {}})
                pending_cases, pending_mod = [], None
            elif tok == '}':
                stack.pop()
            elif m.group(1):
                pending_cases.append(m.group(1))
            elif tok.startswith('default'):
                pending_cases = ['*default*']
            elif m.group(2):
                pending_mod = MODALITY_OF[re.sub(r'\s+', '', m.group(2))]
            elif m.group(3):
                stack[-1]['locals'][m.group(3)] = m.group(4)
            else:
                cases = next((f['cases'] for f in reversed(stack) if f['cases']), None)
                mod = next((f['mod'] for f in reversed(stack) if f['mod']), None)
                local = {}
                for f in stack:
                    local.update(f['locals'])
                pos = on_call(m, cases, mod, local)


def type_set(expr, local):
    """The projector types a `model.proj_type == PROJECTOR_TYPE_X || ...`
    expression (or a bool local holding one) is true for, or None."""
    expr = expr.strip()
    if expr in local:
        expr = local[expr].strip()
    terms = [x.strip() for x in expr.split('||')]
    out = set()
    for x in terms:
        m = re.fullmatch(r'model\.proj_type\s*==\s*PROJECTOR_TYPE_(\w+)', x)
        if not m:
            return None
        out.add(m.group(1))
    return out


GETTERS = {'bool': 'BOOL', 'i32': 'I32', 'u32': 'U32', 'f32': 'F32', 'string': 'STR',
           'arr_f32': 'ARR_F32', 'arr_int': 'ARR_I32'}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    out_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    stamp = sys.argv[3] if len(sys.argv) > 3 else STAMP
    mtmd = os.path.join(root, 'tools', 'mtmd')
    h = strip_comments(read(os.path.join(mtmd, 'clip-impl.h')))
    cpp = strip_comments(read(os.path.join(mtmd, 'clip.cpp')))
    keys = defines(h, 'KEY_')
    tns = defines(h, 'TN_')
    names = projector_names(h)
    enum_to_name = dict(names)
    all_enums = [e for e, _ in names]

    def modality(e):
        return 'A' if e in HAND_AUDIO else 'G' if e in HAND_GEN else 'V'

    # ---- keys: the loader's constructor (modalities, general.*) and load_hparams
    rows = {}  # (key, type, mod, ptype) -> req

    def add_key(key, typ, req, mod, ptype):
        k = (key, typ, mod, ptype)
        rows[k] = 'REQ' if req == 'REQ' or rows.get(k) == 'REQ' else 'OPT'

    loader = cpp[cpp.index('struct clip_model_loader'):]
    ctor = body_of(loader, r'clip_model_loader\s*\(\s*const char \* fname')
    lh = body_of(loader, r'void\s+load_hparams\s*\(')
    get_re = r'\bget_(bool|i32|u32|f32|string|arr_f32|arr_int)\s*\('

    def key_call(text, file_level):
        def on(m, cases, mod, local):
            args, end = call_args(text, m.end() - 1)
            a = split_args(args)
            typ = GETTERS[m.group(m.lastindex)]
            kexpr = a[0]
            req_expr = a[2] if len(a) > 2 else 'true'
            mk = re.fullmatch(r'(KEY_\w+)', kexpr)
            ms = re.fullmatch(r'string_format\(\s*(KEY_\w+)\s*,\s*(prefix|"[^"]*")\s*\)', kexpr)
            if mk:
                fmt, pre = keys[mk.group(1)], None
            elif ms:
                fmt, pre = keys[ms.group(1)], ms.group(2)
            else:
                sys.exit('clipgen: key expression %r' % kexpr)
            ptypes = [c for c in cases if c != '*default*'] if cases else ['']
            for pt in ptypes:
                if req_expr == 'true':
                    req = 'REQ'
                elif req_expr == 'false':
                    req = 'OPT'
                else:
                    ts = type_set(req_expr, local)
                    if ts is None:
                        sys.exit('clipgen: required expression %r' % req_expr)
                    req = 'REQ' if pt in ts else 'OPT'
                    if pt == '':
                        # one row per type the expression names, OPT otherwise
                        for t in sorted(ts):
                            emit_key(fmt, pre, typ, 'REQ', mod, t, file_level)
                        req = 'OPT'
                emit_key(fmt, pre, typ, req, mod, pt, file_level)
            return end
        return on

    def emit_key(fmt, pre, typ, req, mod, pt, file_level):
        if pt:
            pt_mod = modality(pt)
            mods = [pt_mod]
        elif file_level:
            mods = ['F']
        elif mod:
            mods = [mod]
        else:
            mods = ['V', 'A', 'G']
        for md in mods:
            if pre is None:
                key = fmt
            elif pre == 'prefix':
                key = fmt % {'V': 'vision', 'A': 'audio', 'G': 'gen.audio', 'F': '?'}[md]
            else:
                key = fmt % pre[1:-1]
            if pt and pt not in enum_to_name:
                continue
            add_key(key, typ, req, md, enum_to_name.get(pt, ''))

    Walker(ctor).walk(get_re, key_call(ctor, True))
    Walker(lh).walk(get_re, key_call(lh, False))

    # ---- tensors: load_tensors
    lt = body_of(loader, r'void\s+load_tensors\s*\(')
    member_common, member_by_type, required = {}, {}, {}

    # members of clip_model with a constant default (int32_t n_sam_layers = 12;):
    # the bound of a layer loop the loader runs whatever the file says
    model_h = strip_comments(read(os.path.join(mtmd, 'clip-model.h')))
    member_default = {m.group(1): int(m.group(2)) for m in
                      re.finditer(r'\bint(?:32_t)?\s+(\w+)\s*=\s*(\d+)\s*;', model_h)}

    def tensor_name(expr, ptype, loop=None):
        """The name, or with loop = (var, n) the list of names for var in
        0..n-1 (a layer loop of constant bound); None if not constant."""
        expr = expr.strip()
        if expr in tns:
            return tns[expr]
        m = re.fullmatch(r'string_format\(\s*(TN_\w+)\s*(?:,(.*))?\)', expr, re.S)
        if not m or m.group(1) not in tns:
            return None
        a = split_args(m.group(2)) if m.group(2) else []
        mod = modality(ptype) if ptype else 'V'
        pre = {'V': '"v"', 'A': '"a"', 'G': '"a.gen.code"'}[mod]
        a = [pre if x == 'prefix' else x for x in a]
        if loop and loop[0] in a:
            out = [cformat(tns[m.group(1)], [str(i) if x == loop[0] else x for x in a])
                   for i in range(loop[1])]
            return None if None in out else out
        return cformat(tns[m.group(1)], a)

    def layer_loop(pos):
        """(var, bound) of the innermost `for (int var = 0; var < model.X;`
        still open at pos whose X has a constant default, or None."""
        for m in reversed(list(re.finditer(
                r'for\s*\(\s*int\s+(\w+)\s*=\s*0\s*;\s*\1\s*<\s*model\.(\w+)\s*;[^)]*\)\s*\{',
                lt[:pos]))):
            depth, i = 1, m.end()
            while i < pos and depth:
                depth += {'{': 1, '}': -1}.get(lt[i], 0)
                i += 1
            if depth and m.group(2) in member_default:  # the body is still open at pos
                return (m.group(1), member_default[m.group(2)])
        return None

    def on_tensor(m, cases, mod, local):
        args, end = call_args(lt, m.end() - 1)
        a = split_args(args)
        req = len(a) < 2 or a[1] == 'true'
        # the member assigned: "model.X = get_tensor(" just before
        before = lt[max(0, m.start() - 120):m.start()]
        mm = re.search(r'model\.(\w+)\s*=\s*$', before)
        types = [c for c in cases if c != '*default*'] if cases else [None]
        for pt in types:
            name = tensor_name(a[0], pt)
            if name is None:
                names = tensor_name(a[0], pt, layer_loop(m.start()))
                if req and isinstance(names, list) and pt in enum_to_name:
                    for n in names:
                        if n not in required.setdefault(pt, []):
                            required[pt].append(n)
                continue
            if mm:
                if pt is None:
                    member_common.setdefault(mm.group(1), a[0])
                else:
                    member_by_type.setdefault(pt, {}).setdefault(mm.group(1), name)
            if req and pt is not None and pt in enum_to_name:
                required.setdefault(pt, [])
                if name not in required[pt]:
                    required[pt].append(name)
        return end

    sw = lt.index('switch (model.proj_type)')
    Walker(lt).walk(r'\bget_tensor\s*\(', on_tensor)

    # ---- clip_n_mmproj_embd: the output tensor per type
    ne = body_of(cpp, r'int\s+clip_n_mmproj_embd\s*\(')
    outputs = {}
    pending = []
    for m in re.finditer(r'case\s+PROJECTOR_TYPE_(\w+)\s*:|return\s+([^;]*);', ne):
        if m.group(1):
            pending.append(m.group(1))
            continue
        r = re.fullmatch(r'ctx->model\.(\w+)->ne\[(\d)\]', m.group(2).strip())
        for e in pending:
            if r and e in enum_to_name:
                t = member_by_type.get(e, {}).get(r.group(1))
                if not t and r.group(1) in member_common:
                    t = tensor_name(member_common[r.group(1)], e)
                if t:
                    outputs[e] = (t, int(r.group(2)))
        pending = []

    # ---- graph builders
    disp = body_of(cpp, r'clip_get_graph_builder\s*\([^)]*\)\s*(?=\{)')
    builder_of = {}
    pending = []
    for m in re.finditer(r'case\s+PROJECTOR_TYPE_(\w+)\s*:|make_unique<clip_graph_(\w+)>', disp):
        if m.group(1):
            pending.append(m.group(1))
        else:
            for e in pending:
                builder_of[e] = m.group(2)
            pending = []
    files = {}
    mdir = os.path.join(mtmd, 'models')
    for fn in sorted(os.listdir(mdir)):
        if fn.endswith('.cpp'):
            txt = strip_comments(read(os.path.join(mdir, fn)))
            for cls in re.findall(r'clip_graph_(\w+)::build\s*\(', txt):
                files[cls] = (fn, txt)

    def graph_flags(e):
        b = builder_of.get(e)
        if not b or b not in files:
            return []
        txt = files[b][1]
        fl = []
        if any(re.search(p, txt) for p in INP_PATTERNS):
            fl.append('G_INP')
        if re.search(r'\(ctx0,\s*model\.patch_embeddings_1\b', txt):
            fl.append('G_PE1')
        resize = re.search(RESIZE_PATTERN, txt) and (
            files[b][0] not in HAND_RESIZE_ONLY or e in HAND_RESIZE_ONLY[files[b][0]])
        if any(re.search(p, txt) for p in POS_PATTERNS) or resize:
            fl.append('G_POS')
        if resize:
            fl.append('G_RESIZE')
        if re.search(QKVB_USE, txt) and not re.search(QKVB_GUARD, txt):
            fl.append('G_QKVB')
        if any(re.search(p, txt) for p in VIT_PATTERNS):
            fl.append('G_VIT')
        return fl

    os.makedirs(out_dir, exist_ok=True)
    head = ('/* %s - generated by data/arch/clipgen.py from %s, tools/mtmd/.\n'
            ' * Do not edit: regenerate (see data/arch/README.md). */\n')

    with open(os.path.join(out_dir, 'clip_projectors.def'), 'w') as f:
        f.write(head % ('clip_projectors.def', stamp))
        f.write('/* CLIP_PROJECTOR("name", modality, flags, "graph builder file"):\n'
                ' *   modality V vision, A audio, G generation (audio out)\n'
                ' *   G_INP  the graph convolves with v.patch_embd.weight (build_inp() or its own\n'
                ' *          ggml_conv_2d) without a null check\n'
                ' *   G_PE1  ... and with v.patch_embd.weight.1\n'
                ' *   G_POS  the graph dereferences position_embeddings without a null check\n'
                ' *   G_VIT  the graph reads every layer\'s attn_q/k/v (or attn_qkv) weight\n'
                ' *   G_RESIZE the graph resizes position_embd as a sqrt(ne[1]) square\n'
                ' *   G_QKVB the graph adds every layer\'s attn_q/k/v bias unguarded\n'
                ' *   MINICPMV, MERGE2, MERGE_GT1: hand flags (clipgen.py HAND_FLAGS) */\n')
        for e, n in names:
            fl = graph_flags(e) + HAND_FLAGS.get(e, [])
            b = builder_of.get(e)
            fn = files[b][0] if b in files else ''
            f.write('CLIP_PROJECTOR(%-19s %s, %-29s "%s")\n' % (
                '"%s",' % n, modality(e), (' | '.join(fl) or '0') + ',', fn))

    with open(os.path.join(out_dir, 'clip_keys.def'), 'w') as f:
        f.write(head % ('clip_keys.def', stamp))
        f.write('/* CLIP_KEY("key", type, REQ|OPT, modality, "projector type"): every key\n'
                ' * clip_model_loader reads (its constructor and load_hparams). modality F:\n'
                ' * read once per file; V/A/G: read when that encoder is built. An empty\n'
                ' * projector type: read for every type of that encoder. A scalar getter\n'
                ' * (BOOL I32 U32 F32 STR) on a key of another type aborts in\n'
                ' * gguf_get_val_*; an array getter throws. */\n')
        for (key, typ, mod, pt) in sorted(rows, key=lambda r: ('FVAG'.index(r[2]), r[0], r[3], r[1])):
            f.write('CLIP_KEY(%-46s %-8s %s, %s, "%s")\n' % (
                '"%s",' % key, typ + ',', rows[(key, typ, mod, pt)], mod, pt))

    with open(os.path.join(out_dir, 'clip_tensors.def'), 'w') as f:
        f.write(head % ('clip_tensors.def', stamp))
        f.write('/* CLIP_TENSOR("projector type", "tensor"): the tensors load_tensors\n'
                ' * requires for the type (get_tensor(name) without `false`, a constant\n'
                ' * name; per-layer and looped names are checked in C). Rule GG591. */\n')
        for e, n in names:
            for t in required.get(e, []):
                f.write('CLIP_TENSOR(%-19s "%s")\n' % ('"%s",' % n, t))

    with open(os.path.join(out_dir, 'clip_outputs.def'), 'w') as f:
        f.write(head % ('clip_outputs.def', stamp))
        f.write('/* CLIP_OUTPUT("projector type", "tensor", dim): clip_n_mmproj_embd\n'
                ' * returns this tensor\'s ne[dim] as the projector\'s output width; it\n'
                ' * dereferences the tensor without a null check (GG522), and mtmd\n'
                ' * compares the width with the text model\'s n_embd (GG524). */\n')
        for e, n in names:
            if e in outputs:
                f.write('CLIP_OUTPUT(%-19s %-32s %d)\n' % ('"%s",' % n, '"%s",' % outputs[e][0], outputs[e][1]))
        f.write('/* CLIP_USED("projector type", "tensor", "when"): dereferenced by the\n'
                ' * graph (when "when" is "" or a tensor the file has), by hand (clipgen.py\n'
                ' * HAND_GRAPH, each with its source line) */\n')
        for e, t, cond, src in HAND_GRAPH:
            f.write('CLIP_USED(%-19s %-14s %-15s /* %s */\n' % (
                '"%s",' % enum_to_name[e], '"%s",' % t, '"%s")' % cond, src))


if __name__ == '__main__':
    main()
