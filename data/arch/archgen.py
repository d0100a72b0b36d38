#!/usr/bin/env python3
"""archgen.py - generate gguflint's architecture tables from a llama.cpp tree.

Reads a complete llama.cpp source tree of the per-model layout (every
architecture a class llama_model_<x> in src/models/<x>.cpp with
load_arch_hparams() and load_arch_tensors(); the shared parts in
src/llama-model.cpp, src/llama-arch.cpp, src/llama-hparams.{h,cpp},
src/llama-model.h, src/llama-model-loader.h, src/models/models.h) and
gguf-py/gguf/constants.py, and writes, next to this script:

  gen_syms.def     the hyper-parameter symbols the shape formulas use
  gen_archs.def    GEN_STAMP (the tree's commit, date, build), the files read,
                   every LLM_ARCH_NAMES entry with its coverage level
  gen_keys.def     the [arch].* keys each loader reads: type, required
  gen_tensors.def  the tensors each loader creates: name, shape formula,
                   required or not, and the condition under which it is made
  gen_gguf_py.def  the tensor names gguf-py's MODEL_TENSORS lists per
                   architecture (GG594)
  gguf_py_report.txt  the tables' tensor names against gguf-py's (a report)

The C code interprets the formulas (src/model/arch_eval.c); see
data/arch/README.md for the format. Usage:

  python3 data/arch/archgen.py LLAMA_TREE [OUT_DIR] [--commit=SHA --date=YYYY-MM-DD --build=B]

The commit, date and build default to those of LLAMA_TREE/MANIFEST.md. The
output is deterministic, so a freshness test can regenerate it and compare.

The parser understands the subset of C++ these functions are written in:
blocks, if/else, for loops over layers, switch on the layer, try/catch,
local declarations and lambdas, and create_tensor / ml.get_key* calls.
Anything else makes the tensors it guards "conditional" (never reported
missing, never reported unexpected) or, for a statement it cannot place at
all, lowers the architecture's coverage.
"""

import os
import re
import sys

# --------------------------------------------------------------------------
# Facts read from the tree beside the per-model loaders (filled by main()).
# Each was a hand table while the generator read a partial copy; the
# complete tree states them all:
#
# RECURRENT: llm_arch_is_recurrent() (src/llama-arch.cpp): every layer of
#   these is recurrent.
# LOAD_LOCALS: the LLAMA_LOAD_LOCALS macro (src/llama-model.h), the locals
#   every load_arch_tensors() starts with.
# HELPERS: llama_model_base's tensor helpers (src/llama-model.cpp):
#   name -> (parameters, body tokens); a call statement is replaced by the
#   body with the arguments put in.
# METHODS: the llama_hparams accessors whose body is one return statement
#   (src/llama-hparams.cpp), as expressions over hparams members.
# FLAG_VALUES: the create_tensor flags (src/llama-model-loader.h).
RECURRENT = set()
HELPERS = {}
METHODS = {}

# Symbols computed by the C side (src/arch_eval.c), not read from one key.
# name -> meaning (documentation only; the C code implements each).
DERIVED = {
    'n_vocab': 'number of tokenizer.ggml.tokens (else token_embd.weight ne[1])',
    'n_token_types': 'tokenizer.ggml.token_type_count',
    'n_cls_out': 'length of [arch].classifier.output_labels, else 1',
    'n_head': 'attention.head_count (layer 0 of a per-layer array)',
    'n_head_kv': 'attention.head_count_kv, default n_head (layer 0)',
    'n_ff': 'feed_forward_length (layer 0)',
    'n_embd_head_k': 'attention.key_length, default n_embd / n_head (0 without heads)',
    'n_embd_head_v': 'attention.value_length, default n_embd / n_head (0 without heads)',
    'n_rot': 'rope.dimension_count, default n_embd_head_k (0 without heads)',
    'n_embd_k_gqa': 'n_embd_head_k * n_head_kv',
    'n_embd_v_gqa': 'n_embd_head_v * n_head_kv',
    'rope_longrope': 'rope.scaling.type == "longrope"',
    'is_swa': 'per layer: attention.sliding_window_pattern when it is an array (else unknown)',
}
# per-layer forms (hparams.f(i)) the C side evaluates at a layer
PER_LAYER = ['n_head', 'n_head_kv', 'n_ff', 'n_embd_k_gqa', 'n_embd_v_gqa', 'is_recurrent',
             'n_embd_head_k', 'n_embd_head_v', 'is_swa']

# --------------------------------------------------------------------------
# Tokenizer

TOKEN_RE = re.compile(r'''
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<chr>'(?:[^'\\]|\\.)*')
  | (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fFuUlL]*)
  | (?P<id>[A-Za-z_]\w*)
  | (?P<op>::|->|==|!=|<=|>=|&&|\|\||\|=|&=|\+=|-=|\*=|/=|\+\+|--|<<|>>|[{}()\[\];,.?:<>=+\-*/%!&|~^#])
''', re.S | re.X)


def tokenize(text):
    out = []
    pos = 0
    while pos < len(text):
        m = TOKEN_RE.match(text, pos)
        if not m:
            raise SyntaxError('cannot tokenize at %r' % text[pos:pos + 40])
        pos = m.end()
        kind = m.lastgroup
        if kind in ('ws', 'comment'):
            continue
        out.append(m.group(kind))
    return out


# --------------------------------------------------------------------------
# Statements

class Parser:
    def __init__(self, toks):
        self.t = toks
        self.p = 0

    def peek(self, k=0):
        i = self.p + k
        return self.t[i] if i < len(self.t) else None

    def next(self):
        tok = self.t[self.p]
        self.p += 1
        return tok

    def expect(self, tok):
        got = self.next()
        if got != tok:
            raise SyntaxError('expected %r, got %r near %r' % (tok, got, self.t[self.p - 5:self.p + 5]))

    def balanced(self, open_, close):
        """Tokens between a balanced open_/close pair (the opener already consumed)."""
        depth = 1
        out = []
        while True:
            tok = self.next()
            if tok == open_:
                depth += 1
            elif tok == close:
                depth -= 1
                if depth == 0:
                    return out
            out.append(tok)

    def block(self):
        self.expect('{')
        stmts = []
        while self.peek() != '}':
            stmts.append(self.stmt())
        self.next()
        return ('block', stmts)

    def stmt(self):
        tok = self.peek()
        if tok == '{':
            return self.block()
        if tok == 'case':
            self.next()
            name = []
            while self.peek() != ':':
                name.append(self.next())
            self.next()
            return ('case', ''.join(name))
        if tok == 'default':
            self.next()
            self.expect(':')
            return ('default',)
        if tok == 'if':
            self.next()
            self.expect('(')
            cond = self.balanced('(', ')')
            then = self.stmt()
            other = None
            if self.peek() == 'else':
                self.next()
                other = self.stmt()
            return ('if', cond, then, other)
        if tok == 'for':
            self.next()
            self.expect('(')
            head = self.balanced('(', ')')
            body = self.stmt()
            return ('for', head, body)
        if tok == 'switch':
            self.next()
            self.expect('(')
            head = self.balanced('(', ')')
            body = self.block()
            return ('switch', head, body)
        if tok == 'try':
            self.next()
            body = self.block()
            self.expect('catch')
            self.expect('(')
            self.balanced('(', ')')
            handler = self.block()
            return ('try', body, handler)
        if tok == 'break':
            self.next()
            self.expect(';')
            return ('break',)
        # an expression or declaration statement up to ';' at depth 0
        out = []
        depth = 0
        while True:
            tok = self.next()
            if tok in '([{':
                depth += 1
            elif tok in ')]}':
                depth -= 1
            elif tok == ';' and depth == 0:
                return ('expr', out)
            out.append(tok)


def function_body(toks, qualified):
    """The statement list of `... llama_model::NAME(...) { ... }`."""
    parts = qualified.split('::')
    for i in range(len(toks) - 3):
        if toks[i] == parts[0] and toks[i + 1] == '::' and toks[i + 2] == parts[1] and toks[i + 3] == '(':
            j = i + 4
            depth = 1
            while depth:
                if toks[j] == '(':
                    depth += 1
                elif toks[j] == ')':
                    depth -= 1
                j += 1
            while toks[j] != '{':
                j += 1
            p = Parser(toks)
            p.p = j
            return p.block()[1]
    raise SyntaxError('function %s not found' % qualified)


# --------------------------------------------------------------------------
# Expressions (a Pratt parser for the C++ expression subset)

BINARY = {
    '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5, '==': 6, '!=': 6,
    '<': 7, '<=': 7, '>': 7, '>=': 7, '<<': 8, '>>': 8,
    '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
}
TYPE_WORDS = {'int', 'int32_t', 'int64_t', 'uint32_t', 'uint64_t', 'size_t', 'float', 'double',
              'bool', 'unsigned', 'long', 'char'}


class Expr:
    def __init__(self, toks):
        self.t = toks
        self.p = 0

    def peek(self, k=0):
        i = self.p + k
        return self.t[i] if i < len(self.t) else None

    def next(self):
        tok = self.t[self.p]
        self.p += 1
        return tok

    def parse(self):
        e = self.expr(0)
        if self.p != len(self.t):
            raise SyntaxError('trailing tokens %r' % self.t[self.p:])
        return e

    def expr(self, minprec):
        left = self.unary()
        while True:
            op = self.peek()
            if op == '?' and minprec <= 0:
                self.next()
                a = self.expr(0)
                if self.next() != ':':
                    raise SyntaxError('bad ternary')
                b = self.expr(0)
                left = ('?', left, a, b)
                continue
            prec = BINARY.get(op)
            if prec is None or prec < minprec or (op in ('<', '>') and self.is_template()):
                return left
            self.next()
            right = self.expr(prec + 1)
            left = ('bin', op, left, right)

    def is_template(self):
        return False

    def unary(self):
        tok = self.peek()
        if tok in ('!', '-', '+', '~', '&', '*'):
            self.next()
            return ('un', tok, self.unary())
        if tok == '(' and self.peek(1) in TYPE_WORDS and self.peek(2) == ')':
            self.p += 3
            return self.unary()
        return self.postfix(self.primary())

    def primary(self):
        tok = self.next()
        if tok == '(':
            e = self.expr(0)
            if self.next() != ')':
                raise SyntaxError('missing )')
            return e
        if tok == '{':
            items = []
            while self.peek() != '}':
                items.append(self.expr(0))
                if self.peek() == ',':
                    self.next()
            self.next()
            return ('init', items)
        if tok.startswith('"'):
            return ('str', tok[1:-1])
        if re.match(r'\d|\.\d', tok):
            s = tok.rstrip('fFuUlL')
            try:
                return ('num', int(s))
            except ValueError:
                return ('num', float(s))
        if tok in ('static_cast', 'reinterpret_cast') and self.peek() == '<':
            while self.next() != '>':
                pass
            if self.next() != '(':
                raise SyntaxError('bad cast')
            e = self.expr(0)
            self.next()
            return e
        if tok in TYPE_WORDS and self.peek() == '(':
            self.next()
            e = self.expr(0)
            self.next()
            return e
        if re.match(r'[A-Za-z_]', tok):
            name = tok
            while self.peek() == '::':
                self.next()
                name += '::' + self.next()
            return ('id', name)
        raise SyntaxError('unexpected token %r' % tok)

    def postfix(self, e):
        while True:
            tok = self.peek()
            if tok in ('.', '->'):
                self.next()
                e = ('mem', e, self.next())
            elif tok == '(':
                self.next()
                args = []
                while self.peek() != ')':
                    args.append(self.expr(0))
                    if self.peek() == ',':
                        self.next()
                self.next()
                e = ('call', e, args)
            elif tok == '[':
                self.next()
                idx = self.expr(0)
                self.next()
                e = ('idx', e, idx)
            elif tok in ('++', '--'):
                self.next()
            else:
                return e


def parse_expr(toks):
    return Expr(toks).parse()


# --------------------------------------------------------------------------
# Source tables

def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def map_entries(text, table):
    """{ ENUM, "string" } pairs of a static std::map named `table`."""
    m = re.search(r'\b' + table + r'\s*=\s*\{(.*?)\n\};', text, re.S)
    if not m:
        raise SyntaxError('table %s not found' % table)
    return re.findall(r'\{\s*(\w+)\s*,\s*"([^"]*)"\s*\}', m.group(1))


def hparams_members(text):
    """member name -> (C type, default literal or None) of struct llama_hparams."""
    out = {}
    m = re.search(r'struct llama_hparams \{(.*?)\n\};', text, re.S)
    for line in m.group(1).split('\n'):
        line = line.split('//')[0].strip().rstrip(';')
        if not line or '(' in line:
            continue
        dm = re.match(r'(?:enum\s+)?([\w:<>, ]+?)\s+(\w+)\s*(?:=\s*(.+))?$', line)
        # (not the statements of the header's inline methods: `return true;`)
        if dm and dm.group(1).split()[0] not in ('return', 'case', 'break', 'if', 'else'):
            out[dm.group(2)] = (dm.group(1).strip(), dm.group(3).strip() if dm.group(3) else None)
    return out


def sources_commits(text):
    out = {}
    for m in re.finditer(r'^(src/[\w./-]+)\s+@\s+([0-9a-f]{40})', text, re.M):
        out[m.group(1)] = m.group(2)
    # files the search index returned by id, without a commit
    for m in re.finditer(r'^(src/[\w./-]+)\s+index id (\d+)', text, re.M):
        out[m.group(1)] = 'index id ' + m.group(2)
    # files read from a named repository (a fork's copy when upstream's stored
    # version predates the per-model loaders): "from OWNER/NAME @ COMMIT, index id N"
    for m in re.finditer(r'^(src/[\w./-]+)\s+from ([\w.-]+/[\w.-]+) @ ([0-9a-f]{40}), index id (\d+)',
                         text, re.M):
        out[m.group(1)] = '%s@%s, index id %s' % (m.group(2), m.group(3)[:12], m.group(4))
    return out


# --------------------------------------------------------------------------
# Key reads (load_hparams)

def key_type(ctype, method):
    if method == 'get_key_or_arr':
        if 'float' in ctype:
            return 'F32_LAYERS'
        if 'int, 4' in ctype.replace(' ', ' '):
            return 'SECTIONS'
        return 'LAYERS'
    if method == 'get_arr':
        # llama_model_loader::get_arr: the element type of the target
        if 'string' in ctype:
            return 'ARR_STR'
        if 'float' in ctype:
            return 'ARR_F32'
        if re.search(r'\b(u?int\d+_t|int|llama_token|bool)\b', ctype):
            return 'ARR_INT'
        return 'ARR_ANY'
    if ctype in ('uint32_t', 'llama_pooling_type', 'enum llama_pooling_type'):
        return 'U32'
    if ctype == 'int32_t' or ctype == 'llama_token':
        return 'I32'
    if ctype == 'float':
        return 'F32'
    if ctype == 'bool':
        return 'BOOL'
    if ctype in ('std::string',):
        return 'STR'
    return None


class KeyReads:
    def __init__(self, kv_names, members):
        self.kv = dict(kv_names)
        self.members = members
        self.locals = {}

    def reads_in(self, toks):
        """Every ml.get_key*(...) call in a token list: (kv_enum, target, method, required)."""
        out = []
        for i in range(len(toks) - 3):
            if toks[i] == 'ml' and toks[i + 1] == '.' and toks[i + 2].startswith('get_') and toks[i + 3] == '(':
                method = toks[i + 2]
                p = Parser(toks)
                p.p = i + 4
                inner = p.balanced('(', ')')
                args = split_args(inner)
                if method == 'get_arr_n' or not args:
                    continue
                kv = args[0][0] if args[0] else None
                target = ''.join(args[1]) if len(args) > 1 else ''
                req = True
                if method == 'get_key_or_arr':
                    if len(args) > 3:
                        req = not is_false(args[3])
                    elif len(args) == 3 and ''.join(args[2]) in ('true', 'false'):
                        # the scalar overload get_key_or_arr(kid, uint32_t &, bool required)
                        req = not is_false(args[2])
                elif len(args) > 2:
                    req = not is_false(args[2])
                out.append((kv, target, method, req))
        return out

    def ctype_of(self, target):
        if target.startswith('hparams.'):
            name = target[len('hparams.'):]
            if '.' in name:  # posnet.n_embd
                return 'uint32_t'
            return self.members.get(name, (None, None))[0]
        return self.locals.get(target) or MODEL_MEMBERS.get(target)


# The data members of llama_model and the per-model classes (llama-model.h,
# models/models.h): the target types of get_arr reads into them.
MODEL_MEMBERS = {}


def is_false(toks):
    """A `required` argument that is false: false, 0, 0.0f (converted to bool)."""
    t = ''.join(toks)
    return t == 'false' or re.match(r'0*(\.0*)?[fFuUlL]*$', t) is not None and t != ''


def split_args(toks):
    args, cur, depth = [], [], 0
    for tok in toks:
        if tok in '([{':
            depth += 1
        elif tok in ')]}':
            depth -= 1
        if tok == ',' and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(tok)
    if cur:
        args.append(cur)
    return args


def walk_reads(stmts, kr, cond, out, arch):
    """Collect key reads with whether each is unconditional (for this arch)."""
    for st in stmts:
        kind = st[0]
        if kind == 'block':
            walk_reads(st[1], kr, cond, out, arch)
        elif kind == 'if':
            c = const_arch_cond(st[1], arch)
            if c is True:
                walk_reads([st[2]], kr, cond, out, arch)
            elif c is False:
                if st[3]:
                    walk_reads([st[3]], kr, cond, out, arch)
            else:
                # a read inside `if (ml.get_key(...))` is itself unconditional
                for r in kr.reads_in(st[1]):
                    out.append((r, cond))
                walk_reads([st[2]], kr, True, out, arch)
                if st[3]:
                    walk_reads([st[3]], kr, True, out, arch)
        elif kind == 'for':
            walk_reads([st[2]], kr, cond, out, arch)
        elif kind == 'expr':
            toks = st[1]
            # local declarations give the target's type: `float ropescale = 0.0f;`
            if len(toks) >= 2 and re.match(r'[A-Za-z_]', toks[0]):
                decl = decl_of(toks)
                if decl:
                    kr.locals[decl[1]] = decl[0]
            for r in kr.reads_in(toks):
                out.append((r, cond))


def decl_of(toks):
    """(type, name) when a statement declares a local, else None."""
    eq = None
    depth = 0
    for j, tok in enumerate(toks):
        if tok in '([{':
            depth += 1
        elif tok in ')]}':
            depth -= 1
        elif tok == '=' and depth == 0:
            eq = j
            break
    if eq is None and '(' in toks:
        toks = toks[:toks.index('(')]
    head = toks[:eq] if eq is not None else toks
    head = [t for t in head if t not in ('const', 'static', '&', '*', 'auto')] or head
    if len(head) >= 2 and re.match(r'[A-Za-z_]\w*$', head[-1]) and '.' not in head and '(' not in head:
        return (' '.join(head[:-1]).replace(' :: ', '::').replace(' ::', '::').replace(':: ', '::'), head[-1])
    return None


def const_arch_cond(toks, arch):
    """True/False when a condition only compares `arch` with LLM_ARCH_ names."""
    s = ' '.join(toks)
    if 'arch' not in s:
        return None
    try:
        e = parse_expr(toks)
    except SyntaxError:
        return None

    def ev(e):
        if e[0] == 'bin' and e[1] in ('==', '!=') and e[2] == ('id', 'arch') and e[3][0] == 'id':
            r = e[3][1] == 'LLM_ARCH_' + arch
            return r if e[1] == '==' else not r
        if e[0] == 'bin' and e[1] in ('&&', '||'):
            a, b = ev(e[2]), ev(e[3])
            if a is None or b is None:
                return None
            return (a and b) if e[1] == '&&' else (a or b)
        if e[0] == 'un' and e[1] == '!':
            a = ev(e[2])
            return None if a is None else not a
        return None
    return ev(e)


# --------------------------------------------------------------------------
# Tensors (load_tensors)

class Unknown(Exception):
    pass


FLAG_VALUES = {'TENSOR_NOT_REQUIRED': 1, 'TENSOR_DUPLICATED': 2, 'TENSOR_SKIP': 4,
               'TENSOR_SKIP_IF_VIRTUAL': 8,
               'llama_model_loader::TENSOR_NOT_REQUIRED': 1,
               'llama_model_loader::TENSOR_DUPLICATED': 2, 'llama_model_loader::TENSOR_SKIP': 4}


class Gen:
    def __init__(self, tensor_names, members, syms):
        self.names = dict(tensor_names)
        self.members = members
        self.syms = syms          # symbol table builder
        self.unsupported = []
        self.assigned = {}
        self.bodies = {}          # arch -> (load_tensors statements, prelude env)

    # -- expression normalisation: C AST -> RPN token list (raises Unknown)
    def rpn(self, e, env, arch, layer_var, present):
        out = []
        self._rpn(e, env, arch, layer_var, present, out, 0)
        return out

    def _rpn(self, e, env, arch, lv, present, out, depth):
        if depth > 40:
            raise Unknown('too deep')
        k = e[0]
        if k == 'num':
            if isinstance(e[1], float):
                if e[1] != int(e[1]):
                    raise Unknown('float')
                out.append(str(int(e[1])))
            else:
                out.append(str(e[1]))
            return
        if k == 'id':
            name = e[1]
            if name == lv:
                out.append('i')
                return
            if name in ('true', 'false'):
                out.append('1' if name == 'true' else '0')
                return
            if name in FLAG_VALUES:
                out.append(str(FLAG_VALUES[name]))
                return
            if name in env:
                self._rpn(env[name], env, arch, lv, present, out, depth + 1)
                return
            if name in LOCAL_DEFAULTS and self.assigned:
                # a load_arch_hparams local read from a key, in a member's
                # assigned value (gemma4: n_layer_kv_from_start = n_layer_all - n_kv_shared_layers)
                out.append(self.syms.sym(name))
                return
            if 'this.' + name in self.assigned:   # a class member load_arch_hparams set
                self._rpn(self.assigned['this.' + name], env, arch, lv, present, out, depth + 1)
                return
            if name in present:          # a tensor variable tested for presence
                out.append(present[name])
                return
            if self.absent_null:       # the generic pass: a tensor no one created
                out.append('0')
                return
            raise Unknown('identifier ' + name)
        if k == 'mem':
            if e[1] == ('id', 'hparams'):
                if e[2] == 'n_layer_all':
                    out.append(self.syms.sym('n_layer'))
                    return
                if e[2] in self.assigned:   # set by the arch's load_hparams
                    self._rpn(self.assigned[e[2]], env, arch, lv, present, out, depth + 1)
                    return
                out.append(self.syms.sym(e[2]))
                return
            if e[1][0] == 'mem' and e[1][1] == ('id', 'hparams'):  # hparams.posnet.n_embd
                out.append(self.syms.sym(e[1][2] + '_' + e[2]))
                return
            key = flat(e)
            if key in present:
                out.append(present[key])
                return
            if self.absent_null and (key.startswith('layer.') or '.' not in key):
                out.append('0')
                return
            raise Unknown('member ' + key)
        if k == 'idx':
            if e[1] == ('mem', ('id', 'hparams'), 'n_ff_arr') and e[2] == ('num', 0):
                out.append(self.syms.sym('n_ff'))
                return
            raise Unknown('index')
        if k == 'call':
            f = e[1]
            if f[0] == 'mem' and f[1] == ('id', 'hparams'):
                fn = f[2]
                if fn == 'n_layer' and not e[2]:     # n_layer_all - n_layer_nextn
                    out += [self.syms.sym('n_layer'), self.syms.sym('n_layer_nextn'), '-']
                    return
                if fn in ('n_embd_head_k', 'n_embd_head_v', 'n_rot') and not e[2]:
                    out.append(self.syms.sym(fn))
                    return
                # the header's one-line accessors (METHODS)
                if fn in METHODS and not e[2] and not METHODS[fn][0]:
                    self._rpn(parse_expr(METHODS[fn][1]), env, arch, lv, present, out,
                              depth + 1)
                    return
                if fn == 'is_recr':  # the newer header's name of is_recurrent(il)
                    fn = 'is_recurrent'
                if fn in ('n_embd_head_k', 'n_embd_head_v', 'is_swa') and e[2] and e[2][0] == ('id', lv):
                    # per-layer head sizes (sliding-window layers may differ)
                    out.append(self.syms.layer_sym(fn))
                    return
                if fn in ('n_head', 'n_head_kv', 'n_ff', 'n_embd_k_gqa', 'n_embd_v_gqa', 'is_recurrent'):
                    if not e[2] or e[2][0] == ('num', 0):
                        if fn == 'is_recurrent':
                            raise Unknown('is_recurrent(0)')
                        out.append(self.syms.sym(fn))
                        return
                    if e[2][0] == ('id', lv):
                        out.append(self.syms.layer_sym(fn))
                        return
                if fn in METHODS and len(e[2]) == len(METHODS[fn][0]):
                    # an accessor with parameters (has_kv(il)): the arguments put in
                    sub = dict(zip(METHODS[fn][0], e[2]))
                    self._rpn(subst(parse_expr(METHODS[fn][1]), sub), env, arch, lv, present, out,
                              depth + 1)
                    return
                raise Unknown('hparams.' + fn + '()')
            if f[0] == 'mem' and f[1] == ('id', 'vocab') and f[2] in ('n_tokens', 'n_token_types') and not e[2]:
                out.append(self.syms.sym('n_vocab' if f[2] == 'n_tokens' else 'n_token_types'))
                return
            if f == ('mem', ('id', 'ml'), 'get_weight') and len(e[2]) == 1:
                # ml.get_weight(name): the file's tensor of that name (NULL when
                # absent). A literal name becomes T<name> (1 when present);
                # a computed one is unknown (U).
                out.append('T' + e[2][0][1] if e[2][0][0] == 'str' else 'U')
                return
            if f == ('id', 'std::max') and len(e[2]) == 2:
                self._rpn(e[2][0], env, arch, lv, present, out, depth + 1)
                self._rpn(e[2][1], env, arch, lv, present, out, depth + 1)
                out.append('max')
                return
            raise Unknown('call ' + flat(f))
        if k == 'un':
            if e[1] == '!':
                self._rpn(e[2], env, arch, lv, present, out, depth + 1)
                out.append('!')
                return
            if e[1] == '-':
                out.append('0')
                self._rpn(e[2], env, arch, lv, present, out, depth + 1)
                out.append('-')
                return
            raise Unknown('unary ' + e[1])
        if k == 'bin':
            op = e[1]
            # arch comparisons resolve now
            if op in ('==', '!=') and e[2] == ('id', 'arch') and e[3][0] == 'id':
                r = e[3][1] == 'LLM_ARCH_' + arch
                out.append('1' if r == (op == '==') else '0')
                return
            if op in ('==', '!=') and flat(e[2]) == 'hparams.rope_scaling_type_train':
                if e[3] == ('id', 'LLAMA_ROPE_SCALING_TYPE_LONGROPE'):
                    out.append(self.syms.sym('rope_longrope'))
                    if op == '!=':
                        out.append('!')
                    return
                raise Unknown('rope type')
            # presence: X == NULL / nullptr
            if (op in ('==', '!=') and e[3] in (('id', 'NULL'), ('id', 'nullptr'))
                    and e[2][0] == 'call'):
                self._rpn(e[2], env, arch, lv, present, out, depth + 1)
                if op == '==':
                    out.append('!')
                return
            if op in ('==', '!=') and e[3] in (('id', 'NULL'), ('id', 'nullptr')):
                key = flat(e[2])
                if key in present:
                    out.append(present[key])
                    if op == '==':
                        out.append('!')
                    return
                if self.absent_null:
                    out.append('1' if op == '==' else '0')
                    return
                raise Unknown('null test ' + key)
            if op == '&':
                # flag tests (`flags & TENSOR_SKIP`): constant operands only
                a = const_eval(self.rpn(e[2], env, arch, lv, present))
                b = const_eval(self.rpn(e[3], env, arch, lv, present))
                if a is None or b is None:
                    raise Unknown('op &')
                out.append(str(a & b))
                return
            if op not in ('+', '-', '*', '/', '%', '==', '!=', '<', '<=', '>', '>=', '&&', '||', '|'):
                raise Unknown('op ' + op)
            self._rpn(e[2], env, arch, lv, present, out, depth + 1)
            self._rpn(e[3], env, arch, lv, present, out, depth + 1)
            out.append(op)
            return
        if k == '?':
            self._rpn(e[1], env, arch, lv, present, out, depth + 1)
            self._rpn(e[2], env, arch, lv, present, out, depth + 1)
            self._rpn(e[3], env, arch, lv, present, out, depth + 1)
            out.append('?:')
            return
        raise Unknown('node ' + k)

    # -- interpretation of one architecture's case body
    def run_arch(self, arch, stmts, prelude, assigned=None, post=None):
        """The rows of one architecture's load_arch_tensors; `post` is
        (statements, env) of the generic pass llama_model_base::load_tensors
        runs after it (the optional .scale tensors), walked with the tensors
        the loader created known: a tensor variable no one set is NULL there."""
        self.assigned = assigned or {}
        self.entries = []
        self.lambdas = {}
        self.ok = True
        self.absent_null = False
        env = dict(prelude)
        present = {}
        self.walk(arch, stmts, env, [], None, present, False)
        if post is not None and self.ok:
            self.absent_null = True
            self.walk(arch, post[0], dict(post[1]), [], None, present, False)
            self.absent_null = False
        return self.entries, self.ok

    def walk(self, arch, stmts, env, conds, loop, present, in_try):
        for st in stmts:
            kind = st[0]
            if kind == 'block':
                self.walk(arch, st[1], dict(env), conds, loop, present, in_try)
            elif kind == 'break' or kind == 'case' or kind == 'default':
                continue
            elif kind == 'if':
                ctoks = st[1]
                try:
                    c = simplify(self.rpn(parse_expr(ctoks), env, arch, loop[0] if loop else None, present))
                except (Unknown, SyntaxError):
                    c = None
                if c == ['0']:
                    if st[3]:
                        e2 = dict(env)
                        self.walk(arch, [st[3]], e2, conds, loop, present, in_try)
                        self.merge_locals(env, None, e2, env)
                    continue
                if c == ['1']:
                    e1 = dict(env)
                    self.walk(arch, [st[2]], e1, conds, loop, present, in_try)
                    self.merge_locals(env, None, e1, env)
                    continue
                e1, e2 = dict(env), dict(env)
                self.walk(arch, [st[2]], e1, conds + [c], loop, present, in_try)
                if st[3]:
                    neg = None if c is None else c + ['!']
                    self.walk(arch, [st[3]], e2, conds + [neg], loop, present, in_try)
                try:
                    cast = parse_expr(ctoks)
                except SyntaxError:
                    cast = None
                self.merge_locals(env, cast, e1, e2)
            elif kind in ('for', 'switch') and not creates(st, self.lambdas):
                continue  # no tensor in it (a range check, layers[] copies)
            elif kind == 'for':
                head = st[1]
                parts = split_semis(head)
                m = None
                if len(parts) == 3 and len(parts[1]) >= 3 and parts[1][1] == '<':
                    m = parts[1]
                if not m or loop is not None:
                    self.unsupported.append((arch, 'loop ' + ' '.join(head)))
                    self.ok = False
                    continue
                var = m[0]
                init = parts[0]
                eqi = init.index('=') if '=' in init else -1
                if eqi < 1 or init[eqi - 1] != var:
                    self.unsupported.append((arch, 'loop start ' + ' '.join(init)))
                    self.ok = False
                    continue
                try:
                    count = self.rpn(parse_expr(m[2:]), env, arch, None, present)
                    start = self.rpn(parse_expr(init[eqi + 1:]), env, arch, None, present)
                except (Unknown, SyntaxError) as ex:
                    self.unsupported.append((arch, 'loop bound %s (%s)' % (' '.join(m[2:]), ex)))
                    self.ok = False
                    continue
                lconds = conds if start == ['0'] else conds + [['i'] + start + ['>=']]
                self.walk(arch, [st[2]], dict(env), lconds, (var, count), present, in_try)
            elif kind == 'try':
                self.walk(arch, st[1][1], dict(env), conds + [None], loop, present, True)
                self.walk(arch, st[2][1], dict(env), conds + [None], loop, present, True)
            elif kind == 'switch':
                # switch (i) { case 0: case 1: {...} break; ... default: ... }:
                # each label group is an if on `head == label`
                try:
                    h = self.rpn(parse_expr(st[1]), env, arch, loop[0] if loop else None, present)
                except (Unknown, SyntaxError):
                    h = None
                groups = case_groups(st[2][1])
                labels_all = [lab for labs, _ in groups for lab in labs if lab != 'default']
                if h is None or not all(re.match(r'\d+$', lab) for lab in labels_all):
                    self.unsupported.append((arch, 'switch ' + ' '.join(st[1])))
                    self.ok = False
                    continue
                for labs, body in groups:
                    if 'default' in labs:
                        c = []
                        for lab in labels_all:
                            c = c + h + [lab, '!='] + (['&&'] if c else [])
                    else:
                        c = []
                        for lab in labs:
                            c = c + h + [lab, '=='] + (['||'] if c else [])
                    self.walk(arch, body, dict(env), conds + [simplify(c) if c else ['1']], loop, present, in_try)
            elif kind == 'expr':
                self.expr_stmt(arch, st[1], env, conds, loop, present)

    @staticmethod
    def merge_locals(env, cond, e_then, e_else):
        """After an if statement: a local of the enclosing scope that a branch
        assigned (`flags |= TENSOR_SKIP;`) holds `cond ? then : else`. With
        cond None the branch taken is known (e_else is env itself then) or the
        condition is unreadable (the local becomes unreadable too)."""
        for k in list(env):
            a, b = e_then.get(k), e_else.get(k)
            if a is env[k] and b is env[k]:
                continue
            if cond is None:
                if e_else is env:
                    env[k] = a
                else:
                    env[k] = ('id', '?unreadable')
                continue
            env[k] = ('?', cond, a if a is not None else env[k], b if b is not None else env[k])

    def flag_alts(self, e, env, arch, lv, depth=0):
        """The flag values a create_tensor call can get, each with the
        condition (RPN) under which it does: [(cond, value)], or None when the
        flags are not a constant, a ternary of such, or an | of such."""
        if depth > 20:
            return None
        while e[0] == 'id' and e[1] in env and depth < 20:
            e = env[e[1]]
            depth += 1
        try:
            v = const_eval(self.rpn(e, {}, arch, lv, {}))
        except (Unknown, SyntaxError):
            v = None
        if v is not None:
            return [([], v)]
        if e[0] == '?':
            try:
                c = self.rpn(e[1], env, arch, lv, {})
            except (Unknown, SyntaxError):
                return None
            a = self.flag_alts(e[2], env, arch, lv, depth + 1)
            b = self.flag_alts(e[3], env, arch, lv, depth + 1)
            if a is None or b is None:
                return None
            out = [(c + x + (['&&'] if x else []), va) for x, va in a]
            out += [(c + ['!'] + y + (['&&'] if y else []), vb) for y, vb in b]
            return out
        if e[0] == 'bin' and e[1] == '|':
            a = self.flag_alts(e[2], env, arch, lv, depth + 1)
            b = self.flag_alts(e[3], env, arch, lv, depth + 1)
            if a is None or b is None:
                return None
            out = []
            for x, va in a:
                for y, vb in b:
                    cc = x + y + (['&&'] if x and y else [])
                    out.append((cc, va | vb))
            return out
        return None

    def expand(self, arch, toks, params, body, env, conds, loop, present):
        """A call statement `f(args);` replaced by f's body with the arguments put in."""
        p = Parser(toks)
        p.p = 2
        args = split_args(p.balanced('(', ')'))
        if len(args) != len(params):
            self.unsupported.append((arch, 'call ' + toks[0]))
            self.ok = False
            return
        sub = dict(zip(params, args))
        out = []
        for tok in body:
            if tok in sub:
                a = sub[tok]
                out += a if len(a) == 1 else ['('] + a + [')']
            else:
                out.append(tok)
        stmts = Parser(['{'] + out + ['}']).block()[1]
        self.walk(arch, stmts, dict(env), conds, loop, present, False)

    def expr_stmt(self, arch, toks, env, conds, loop, present):
        if not toks:
            return
        if toks[0] in ('GGML_ASSERT', 'throw', 'LLAMA_LOG_WARN', 'LLAMA_LOG_INFO', 'GGML_ABORT'):
            return
        if toks[0] == 'auto' and len(toks) > 4 and toks[2] == '=' and toks[3] == '[':
            # a local lambda: auto f = [&](int il, int flags) { ... };
            p = Parser(toks)
            j = toks.index(']', 3) + 1
            if toks[j] != '(':
                return
            p.p = j + 1
            params = [a[-1] for a in split_args(p.balanced('(', ')')) if a]
            body = []
            if p.peek() == '{':
                p.next()
                body = p.balanced('{', '}')
            self.lambdas[toks[1]] = (params, body)
            return
        if toks[0] in self.lambdas and len(toks) > 1 and toks[1] == '(':
            params, body = self.lambdas[toks[0]]
            self.expand(arch, toks, params, body, env, conds, loop, present)
            return
        if (toks[0].startswith('llama_model_') and toks[1:3] == ['::', 'load_arch_tensors']):
            parent = toks[0][len('llama_model_'):].upper()
            if parent not in self.bodies:
                self.unsupported.append((arch, 'parent loader ' + toks[0]))
                self.ok = False
                return
            pstmts, pprelude = self.bodies[parent]
            self.walk(arch, pstmts, dict(pprelude), conds, loop, present, False)
            return
        if toks[0] in HELPERS and len(toks) > 1 and toks[1] == '(':
            params, body = HELPERS[toks[0]]
            self.expand(arch, toks, params, body, env, conds, loop, present)
            return
        if 'create_tensor' not in toks:
            # declarations and assignments of locals
            eq = top_eq(toks)
            if eq is None:
                return
            lhs = toks[:eq]
            rhs = toks[eq + 1:]
            if toks[eq] == '|=' and len(toks[:eq]) == 1 and toks[0] in env:
                try:
                    env[toks[0]] = ('bin', '|', env[toks[0]], parse_expr(toks[eq + 1:]))
                except SyntaxError:
                    env[toks[0]] = ('id', '?unreadable')
                return
            if toks[eq] != '=':
                return  # other compound assignments: not tracked
            name = lhs[-1]
            if lhs[:1] == ['auto'] or (len(lhs) >= 2 and lhs[-2] == '&'):
                return  # auto & layer = layers[i];
            if '.' in lhs:
                return
            try:
                env[name] = parse_expr(rhs)
            except SyntaxError:
                env.pop(name, None)
            return
        eq = top_eq(toks)
        target = flat_toks(toks[:eq]) if eq is not None else None
        rhs = toks[eq + 1:] if eq is not None else toks
        try:
            call = parse_expr(rhs)
        except SyntaxError as ex:
            self.unsupported.append((arch, 'tensor statement: %s' % ex))
            self.ok = False
            return
        if call[0] != 'call' or call[1] != ('id', 'create_tensor') or len(call[2]) != 3:
            self.unsupported.append((arch, 'tensor call form'))
            self.ok = False
            return
        tn, dims, flags = call[2]
        if tn[0] == 'id' and tn[1] in env:   # const auto tn_x = tn(...);
            tn = env[tn[1]]
        if tn[0] != 'call' or tn[1] != ('id', 'tn'):
            self.unsupported.append((arch, 'tensor name form'))
            self.ok = False
            return
        args = tn[2]
        enum = args[0][1]
        suffix = None
        rest = args[1:]
        if rest and rest[0][0] == 'str':
            suffix = rest[0][1]
            rest = rest[1:]
        base = self.names.get(enum)
        if base is None:
            self.unsupported.append((arch, 'no name for ' + enum))
            self.ok = False
            return
        name = base + ('.' + suffix if suffix else '')
        layered = '%d' in base
        if layered and (loop is None or not rest or rest[0] != ('id', loop[0])):
            self.unsupported.append((arch, 'layer index of ' + name))
            self.ok = False
            return
        if name.count('%d') > 1:
            self.unsupported.append((arch, 'per-expert name ' + name))
            self.ok = False
            return
        lv = loop[0] if loop else None
        # flags: required unless NOT_REQUIRED is always or conditionally set
        try:
            frpn = self.rpn(flags, env, arch, lv, {})
        except (Unknown, SyntaxError):
            frpn = None
        fval = const_eval(frpn) if frpn is not None else None
        if fval is not None and fval & 2:
            return  # a duplicate reference to a tensor created elsewhere
        required = fval is not None and not (fval & 1)
        variants = None
        if fval is None:
            # e.g. `mtp_only ? TENSOR_NOT_REQUIRED : 0`, or flags a preceding
            # `if (i >= n_layer) flags |= TENSOR_SKIP | TENSOR_NOT_REQUIRED;`
            # made: one row per alternative when they differ in being
            # required and none is a duplicate reference
            alts = self.flag_alts(flags, env, arch, lv)
            if alts and not any(v & 2 for _, v in alts):
                reqs = {not (v & 1) for _, v in alts}
                if len(reqs) == 1:
                    required = reqs.pop()
                else:
                    variants = [(c, not (v & 1)) for c, v in alts]
            elif frpn is not None:
                # e.g. TENSOR_NOT_REQUIRED | (i != 0 ? TENSOR_DUPLICATED : 0)
                required = False
        shape = []
        if dims[0] != 'init':
            self.unsupported.append((arch, 'shape form of ' + name))
            self.ok = False
            return
        for d in dims[1]:
            try:
                shape.append(self.rpn(d, env, arch, lv, present))
            except Unknown:
                shape.append(None)
        cond = []
        known = True
        for c in conds:
            if c is None:
                known = False
                break
            cond = cond + c + (['&&'] if cond else [])
        if not known:
            cond = None
        else:
            cond = simplify(cond)
            if cond == ['0']:
                # never created for this architecture (an arch comparison, a
                # flag test or the generic pass's test of a tensor no one made)
                if target:
                    present[target] = '0'
                return
        for extra, req in variants or [([], required)]:
            c = cond
            if c is not None and extra:
                c = c + extra + (['&&'] if c else [])
            entry = {
                'name': name,
                'base': base,
                'layer': layered,
                'count': loop[1] if (loop and layered) else None,
                'shape': shape,
                'required': req,
                'cond': c,
            }
            self.entries.append(entry)
        if target:
            present[target] = 'P%d' % (len(self.entries) - 1)


def subst(e, sub):
    """An expression AST with identifiers replaced (parameter -> argument)."""
    if isinstance(e, tuple):
        if len(e) == 2 and e[0] == 'id' and e[1] in sub:
            return sub[e[1]]
        return tuple(subst(x, sub) for x in e)
    if isinstance(e, list):
        return [subst(x, sub) for x in e]
    return e


def creates(st, lambdas=()):
    """Whether a statement may create a tensor (a create_tensor call, a
    helper or a local lambda: any call that is not a plain expression)."""
    def toks_of(x):
        if isinstance(x, tuple) or isinstance(x, list):
            for y in x:
                yield from toks_of(y)
        elif isinstance(x, str):
            yield x
    for t in toks_of(st):
        if t == 'create_tensor' or t in HELPERS or t in lambdas or t.startswith('load_arch_tensors'):
            return True
        if t.startswith('create_'):
            return True
    return False


def simplify(rpn):
    """Fold the constant parts of an RPN formula: arithmetic and comparisons
    of numbers, `!` of a number, `&&` / `||` with a known side."""
    if rpn is None:
        return None
    st = []
    for tok in rpn:
        num = lambda x: len(x) == 1 and re.match(r'-?\d+$', x[0])
        if tok == '!' and st:
            a = st.pop()
            st.append([str(int(not int(a[0])))] if num(a) else a + ['!'])
        elif tok in ('&&', '||') and len(st) >= 2:
            b, a = st.pop(), st.pop()
            if tok == '&&':
                if (num(a) and int(a[0]) == 0) or (num(b) and int(b[0]) == 0):
                    st.append(['0'])
                elif num(a):
                    st.append(b)
                elif num(b):
                    st.append(a)
                else:
                    st.append(a + b + [tok])
            else:
                if (num(a) and int(a[0]) != 0) or (num(b) and int(b[0]) != 0):
                    st.append(['1'])
                elif num(a):
                    st.append(b)
                elif num(b):
                    st.append(a)
                else:
                    st.append(a + b + [tok])
        elif tok in ('==', '!=', '<', '<=', '>', '>=', '+', '-', '*', '|') and len(st) >= 2:
            b, a = st.pop(), st.pop()
            if num(a) and num(b):
                x, y = int(a[0]), int(b[0])
                st.append([str({'==': int(x == y), '!=': int(x != y), '<': int(x < y),
                                '<=': int(x <= y), '>': int(x > y), '>=': int(x >= y),
                                '+': x + y, '-': x - y, '*': x * y, '|': x | y}[tok])])
            else:
                st.append(a + b + [tok])
        elif tok == '?:' and len(st) >= 3:
            f, t, c = st.pop(), st.pop(), st.pop()
            if num(c):
                st.append(t if int(c[0]) else f)
            else:
                st.append(c + t + f + [tok])
        elif tok in ('/', '%', 'max') and len(st) >= 2:
            b, a = st.pop(), st.pop()
            st.append(a + b + [tok])
        else:
            st.append([tok])
    if len(st) != 1:
        return rpn
    return st[0]


def split_semis(toks):
    parts, cur = [], []
    for t in toks:
        if t == ';':
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    if parts and parts[0][:1] and parts[0][0] in ('int', 'uint32_t', 'int64_t', 'size_t'):
        parts[0] = parts[0][1:]
    return parts


def top_eq(toks):
    depth = 0
    for j, tok in enumerate(toks):
        if tok in '([{':
            depth += 1
        elif tok in ')]}':
            depth -= 1
        elif depth == 0 and tok in ('=', '|=', '+=', '-=', '&='):
            return j
    return None


def flat(e):
    if e[0] == 'id':
        return e[1]
    if e[0] == 'mem':
        return flat(e[1]) + '.' + e[2]
    return '?'


def flat_toks(toks):
    return ''.join(toks)


def const_eval(rpn):
    st = []
    for tok in rpn:
        if re.match(r'-?\d+$', tok):
            st.append(int(tok))
        elif tok in ('|', '+', '*', '-', '&&', '||', '==', '!=') and len(st) >= 2:
            b, a = st.pop(), st.pop()
            st.append({'|': a | b, '+': a + b, '*': a * b, '-': a - b,
                       '&&': int(bool(a and b)), '||': int(bool(a or b)),
                       '==': int(a == b), '!=': int(a != b)}[tok])
        else:
            return None
    return st[0] if len(st) == 1 else None


# --------------------------------------------------------------------------
# Symbols

class Syms:
    def __init__(self, members):
        self.members = members
        self.order = []
        self.index = {}
        self.key_of = {}       # member -> key suffix (from load_hparams reads)
        self.default = {}      # member -> default expr text (hparams.h or load_hparams)

    def sym(self, name):
        if name not in self.index:
            self.index[name] = len(self.order)
            self.order.append(name)
        return '#%d' % self.index[name]

    def layer_sym(self, name):
        return '@' + self.sym(name)[1:]


# --------------------------------------------------------------------------
# Driver

def arch_id(enum):
    return enum[len('LLM_ARCH_'):]


def case_groups(stmts):
    """[(labels, body statements)] of a switch body."""
    groups = []
    labels = []
    body = None
    for st in stmts:
        if st[0] == 'case' or st[0] == 'default':
            if body is not None:
                groups.append((labels, body))
                labels, body = [], None
            labels.append(st[1] if st[0] == 'case' else 'default')
        else:
            if body is None:
                body = []
            body.append(st)
    if body is not None:
        groups.append((labels, body))
    return groups


def find_switch(stmts):
    for i, st in enumerate(stmts):
        if st[0] == 'switch' and ''.join(st[1]) == 'arch':
            return i, st
        if st[0] == 'block':
            r = find_switch(st[1])
            if r:
                return r
    return None


def prelude_env(stmts):
    """Local declarations of load_tensors that precede the arch switch."""
    env = {}

    def visit(ss):
        for st in ss:
            if st[0] == 'switch':
                return True
            if st[0] == 'block':
                if visit(st[1]):
                    return True
            if st[0] == 'expr':
                eq = top_eq(st[1])
                d = decl_of(st[1])
                if eq is not None and d and st[1][eq] == '=':
                    try:
                        env[d[1]] = parse_expr(st[1][eq + 1:])
                    except SyntaxError:
                        pass
        return False
    visit(stmts)
    return env


def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def rpn_text(r):
    if r is None:
        return '"?"'
    return c_str(' '.join(r))


def manifest_stamp(src):
    """(commit, date, build) of the tree from its MANIFEST.md: the first
    40-hex commit, the first ISO date after it, the `git describe` text."""
    path = os.path.join(src, 'MANIFEST.md')
    if not os.path.exists(path):
        return None
    text = read(path)
    m = re.search(r'\b([0-9a-f]{40})\b', text)
    if not m:
        return None
    d = re.search(r'\b(\d{4}-\d{2}-\d{2})\b', text[m.end():])
    b = re.search(r'`git describe --tags`: `([^`]+)`', text)
    build = b.group(1) if b else ''
    build = re.sub(r'-g[0-9a-f]+$', '', build)
    return m.group(1), d.group(1) if d else '?', build


def func_tokens(toks, qualified):
    """(parameter names, body tokens) of `... A::B(params) { body }`."""
    parts = qualified.split('::')
    for i in range(len(toks) - 3):
        if toks[i] == parts[0] and toks[i + 1] == '::' and toks[i + 2] == parts[1] and toks[i + 3] == '(':
            p = Parser(toks)
            p.p = i + 4
            params = [a[-1] for a in split_args(p.balanced('(', ')')) if a]
            while p.peek() != '{':
                p.next()
            p.next()
            return params, p.balanced('{', '}')
    raise SyntaxError('function %s not found' % qualified)


def read_methods(text, members):
    """llama_hparams accessors whose body is `return expr;` (asserts aside),
    as expression token lists over `hparams.member` / `hparams.method()`."""
    toks = tokenize(text)
    names = set(re.findall(r'llama_hparams::(\w+)\s*\(', text))
    out = {}
    for name in sorted(names):
        try:
            params, body = func_tokens(toks, 'llama_hparams::' + name)
        except SyntaxError:
            continue
        stmts = Parser(['{'] + body + ['}']).block()[1]
        stmts = [st for st in stmts if not (st[0] == 'expr' and st[1][:1] in (['assert'], ['GGML_ASSERT']))]
        expr = return_chain(stmts)
        if expr is None:
            continue
        fixed = []
        for j, t in enumerate(expr):
            prev = expr[j - 1] if j else None
            if t in params:
                fixed.append(t)
            elif prev not in ('.', '->', '::') and (t in members or (t in names and expr[j + 1:j + 2] == ['('])):
                fixed += ['hparams', '.', t]
            else:
                fixed.append(t)
        out[name] = (params, fixed)
    return out


def return_chain(stmts):
    """The tokens of one expression equal to a statement list made of
    `if (c) { ... return a; }` and a final `return b;` (c ? a : b), or None."""
    if not stmts:
        return None
    st = stmts[0]
    if st[0] == 'block':
        return return_chain(list(st[1]) + list(stmts[1:]))
    if st[0] == 'expr' and st[1][:1] == ['return'] and len(st[1]) > 1:
        return st[1][1:]
    if st[0] == 'if':
        then = return_chain(st[2][1] if st[2][0] == 'block' else [st[2]])
        rest = return_chain(stmts[1:]) if st[3] is None else \
            return_chain(st[3][1] if st[3][0] == 'block' else [st[3]])
        if then is None or rest is None:
            return None
        return ['('] + list(st[1]) + [')', '?', '('] + then + [')', ':', '('] + rest + [')']
    return None


def switch_labels(text, func):
    """The LLM_ARCH_ case labels of `bool func(...) { switch (arch) { ...
    return true; ...` (the cases that return true)."""
    m = re.search(r'\bbool ' + func + r'\s*\([^)]*\)\s*\{(.*?)\n\}', text, re.S)
    if not m:
        raise SyntaxError('%s not found' % func)
    body = m.group(1)
    t = body.split('return true;')[0]
    return {arch_id('LLM_ARCH_' + x) for x in re.findall(r'case LLM_ARCH_(\w+):', t)}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    opts = dict(a[2:].split('=', 1) for a in sys.argv[1:] if a.startswith('--') and '=' in a)
    if not args:
        print(__doc__)
        return 2
    src = args[0]
    out_dir = args[1] if len(args) > 1 else os.path.dirname(os.path.abspath(__file__))
    stamp = manifest_stamp(src)
    if 'commit' in opts or 'date' in opts:
        stamp = (opts.get('commit', stamp[0] if stamp else '?'), opts.get('date', stamp[1] if stamp else '?'),
                 opts.get('build', stamp[2] if stamp else ''))
    if stamp is None:
        raise SystemExit('archgen: %s/MANIFEST.md names no commit: pass --commit=SHA --date=YYYY-MM-DD' % src)
    model = read(os.path.join(src, 'src/llama-model.cpp'))
    archtxt = read(os.path.join(src, 'src/llama-arch.cpp'))
    hpt = read(os.path.join(src, 'src/llama-hparams.h'))
    hpc = read(os.path.join(src, 'src/llama-hparams.cpp'))
    mhdr = read(os.path.join(src, 'src/llama-model.h'))
    loader_h = read(os.path.join(src, 'src/llama-model-loader.h'))
    models_h = read(os.path.join(src, 'src/models/models.h'))

    arch_names = [(arch_id(e), n) for e, n in map_entries(archtxt, 'LLM_ARCH_NAMES')
                  if e != 'LLM_ARCH_UNKNOWN']
    kv_names = map_entries(archtxt, 'LLM_KV_NAMES')
    tensor_names = map_entries(archtxt, 'LLM_TENSOR_NAMES')
    kvmap = dict(kv_names)
    members = hparams_members(hpt)
    for text in (mhdr, models_h):
        for ctype, name in re.findall(r'^\s*((?:std::)?(?:vector|array)<[^;=]*>)\s+(\w+)\s*(?:=[^;]*)?;', text, re.M):
            MODEL_MEMBERS.setdefault(name, ctype)
    # scalar members of the per-model classes that load_arch_hparams reads
    # keys into (graniteswitch: ml.get_key(LLM_KV_ADAPTER_COUNT, n_adapters))
    for ctype, name in re.findall(r'^\s*(u?int(?:8|16|32|64)_t|float|double|bool)\s+(\w+)\s*(?:=[^;]*)?;',
                                  models_h, re.M):
        MODEL_MEMBERS.setdefault(name, ctype)

    # facts of the tree beside the per-model files
    RECURRENT.update(switch_labels(archtxt, 'llm_arch_is_recurrent'))
    for name, shift in re.findall(r'static const int (TENSOR_\w+)\s*=\s*1\s*<<\s*(\d+);', loader_h):
        FLAG_VALUES[name] = 1 << int(shift)
        FLAG_VALUES['llama_model_loader::' + name] = 1 << int(shift)
    METHODS.update(read_methods(hpc, members))
    m = re.search(r'#define LLAMA_LOAD_LOCALS \\\n((?:.*\\\n)*.*)', mhdr)
    locals_text = re.sub(r'GGML_UNUSED\(\w+\);', '', m.group(1).replace('\\\n', '\n'))
    lprelude = prelude_env(Parser(['{'] + tokenize(locals_text) + ['}']).block()[1])
    toks = tokenize(model)
    for helper in ('create_tensor_qkv', 'create_tensor_gate_up_exps'):
        HELPERS[helper] = func_tokens(toks, 'llama_model_base::' + helper)
    # arch -> class (llama_model_mapping) and class -> parent (models.h)
    class_of = {a: c for a, c in re.findall(r'case LLM_ARCH_(\w+):\s*return new llama_model_(\w+)\(params\)', model)}
    parent_of = dict(re.findall(r'struct llama_model_(\w+)\s*:\s*public llama_model_(\w+)', models_h))

    # ---- the shared part of load_hparams (llama_model_base::load_hparams)
    hp_common = function_body(toks, 'llama_model_base::load_hparams')
    kr = KeyReads(kv_names, members)
    syms = Syms(members)
    common = []
    walk_reads(hp_common, kr, False, common, 'LLAMA')
    rope_is_head = set()
    for st in hp_common:
        if st[0] == 'if' and 'n_head' in ''.join(st[1]):
            for inner in st[2][1]:
                if inner[0] == 'if':
                    for a in re.findall(r'LLM_ARCH_(\w+)', ' '.join(inner[1])):
                        rope_is_head.add(a)

    # ---- the generic pass of llama_model_base::load_tensors after the
    # per-model loader (optional .scale / .input_scale tensors)
    lt_toks = func_tokens(toks, 'llama_model_base::load_tensors')[1]
    lt_body = Parser(['{'] + lt_toks + ['}']).block()[1]
    post = None

    def find_post(stmts, env):
        for j, st in enumerate(stmts):
            if st[0] == 'expr' and st[1][:2] == ['load_arch_tensors', '(']:
                return stmts[j + 1:], env
            if st[0] == 'expr':
                d = decl_of(st[1])
                eq = top_eq(st[1])
                if d and eq is not None and st[1][eq] == '=':
                    try:
                        env[d[1]] = parse_expr(st[1][eq + 1:])
                    except SyntaxError:
                        pass
            if st[0] == 'block':
                r = find_post(st[1], dict(env))
                if r:
                    return r
        return None
    post = find_post(lt_body, {})
    if post is None:
        raise SystemExit('archgen: no load_arch_tensors call in llama_model_base::load_tensors')

    # ---- the per-model files
    mdir = os.path.join(src, 'src/models')
    defs = {}     # class -> {function: (file, tokens)}
    for fn in sorted(os.listdir(mdir)):
        if not fn.endswith('.cpp'):
            continue
        mtext = read(os.path.join(mdir, fn))
        if 'load_arch_' not in mtext:
            continue
        mt = tokenize(mtext)
        for cls, f in sorted(set(re.findall(r'llama_model_(\w+)::(load_arch_hparams|load_arch_tensors)\s*\(', mtext))):
            defs.setdefault(cls, {})[f] = (fn, mt)

    def find_def(cls, f):
        seen = 0
        while cls and seen < 8:
            if f in defs.get(cls, {}):
                return cls, defs[cls][f]
            cls = parent_of.get(cls)
            seen += 1
        return None, None

    gen = Gen(tensor_names, members, syms)
    keys_of, rec_of, defaults_of, tensors_of, ok_of, source_of = {}, {}, {}, {}, {}, {}
    common_extra = {}
    for a, _name in arch_names:
        cls = class_of.get(a)
        if cls is None:
            continue
        hcls, hdef = find_def(cls, 'load_arch_hparams')
        tcls, tdef = find_def(cls, 'load_arch_tensors')
        if hdef is None:
            continue
        # arch-specific reads of the shared part (wavtokenizer-dec)
        mine = []
        walk_reads(hp_common, kr, False, mine, a)
        base_sfx = {r[0] for r, c in common}
        common_extra[a] = [(r, c) for r, c in mine if r[0] not in base_sfx]
        hp = function_body(hdef[1], 'llama_model_%s::load_arch_hparams' % hcls)
        reads = []
        walk_reads(hp, kr, False, reads, a)
        keys_of[a] = common_extra[a] + reads
        rec_of[a], defaults_of[a] = recurrent_and_defaults(hp, a)
        assigned = plain_assignments(hp, reads)
        source_of[a] = 'src/models/' + (tdef or hdef)[0]
        if tdef is None:
            continue
        body = function_body(tdef[1], 'llama_model_%s::load_arch_tensors' % tcls)
        gen.bodies[a] = (body, lprelude)
        ents, ok = gen.run_arch(a, body, lprelude, assigned, post)
        tensors_of[a] = ents
        ok_of[a] = ok

    def key_rows(reads, a):
        rows = []
        seen = set()
        for (kv, target, method, req), cond in reads:
            name = kvmap.get(kv)
            if name is None or name.startswith(('general.', 'tokenizer.', 'split.', 'adapter.')):
                continue
            # "=key": a key without the architecture prefix (apertus: xielu.*)
            suffix = name[3:] if name.startswith('%s.') else '=' + name
            ctype = kr.ctype_of(target)
            kt = key_type(ctype or '', method)
            if kt is None:
                continue
            if target.startswith('hparams.'):
                member = target[len('hparams.'):]
                syms.key_of.setdefault('n_layer' if member == 'n_layer_all' else member.replace('.', '_'), suffix)
            elif target in LOCAL_DEFAULTS:
                syms.key_of.setdefault(target, suffix)
            if suffix in seen:
                continue
            seen.add(suffix)
            rows.append((suffix, kt, 'REQ' if (req and not cond) else 'OPT'))
        return rows

    common_rows = key_rows(common, None)

    # ---- write
    sources = ['src/llama-arch.cpp', 'src/llama-model.cpp', 'src/llama-model.h', 'src/llama-model-loader.h',
               'src/llama-hparams.h', 'src/llama-hparams.cpp', 'src/models/models.h']
    sources += sorted(set(source_of.values()))
    archs_rows = []
    key_table = []
    tensor_table = []
    key_ranges = {}
    tensor_ranges = {}
    for a, name in arch_names:
        rows = key_rows(keys_of.get(a, []), a) if a in keys_of else []
        kt = tuple(rows)
        if kt in key_ranges:
            kr0 = key_ranges[kt]
        else:
            kr0 = (len(key_table), len(rows))
            key_table.extend(rows)
            key_ranges[kt] = kr0
        ents = tensors_of.get(a, [])
        # presence references are indexes into this arch's list: make them global
        base = len(tensor_table)
        tkey = tuple((e['name'], e['layer'], tuple(map(tup, e['shape'])), e['required'],
                      tup(e['cond']), tup(e['count'])) for e in ents)
        if tkey in tensor_ranges and ents:
            tr0 = tensor_ranges[tkey]
        else:
            tr0 = (base, len(ents))
            for e in ents:
                tensor_table.append(relocate(e, base))
            if ents:
                tensor_ranges[tkey] = tr0
        if ents and ok_of.get(a):
            cov = 'FULL'
        elif a in keys_of:
            cov = 'KEYS'
        else:
            cov = 'NAME'
        flags = []
        if a in rope_is_head:
            flags.append('ROPE_IS_HEAD')
        if ents and ok_of.get(a):
            flags += arch_flags(ents, syms, a in RECURRENT or rec_of.get(a) is not None)
        rec = rec_of.get(a)
        if a in RECURRENT:
            rec = ['1']
        src_i = sources.index(source_of[a]) if a in source_of else -1
        archs_rows.append((name, cov, kr0, tr0, ' | '.join(flags) or '0',
                           rec, defaults_of.get(a, {}), src_i))

    # symbols referenced by recurrent formulas must exist before the sym table is written
    for row in archs_rows:
        pass

    header = ('/* GENERATED by data/arch/archgen.py from llama.cpp sources: do not edit.\n'
              ' *   llama.cpp @ %s (%s%s): src/llama-arch.cpp, src/llama-model.cpp,\n'
              ' *   src/llama-hparams.{h,cpp} and %d per-model files (GEN_SOURCE in gen_archs.def)\n'
              ' * Format: data/arch/README.md. */\n'
              % (stamp[0], stamp[1], ', ' + stamp[2] if stamp[2] else '', len(set(source_of.values()))))
    os.makedirs(out_dir, exist_ok=True)

    with open(os.path.join(out_dir, 'gen_archs.def'), 'w') as f:
        f.write(header)
        f.write('/* GEN_STAMP(commit, date, build): the llama.cpp tree every table here came from */\n')
        f.write('GEN_STAMP(%s, %s, %s)\n' % (c_str(stamp[0]), c_str(stamp[1]), c_str(stamp[2])))
        f.write('/* GEN_SOURCE(file, commit) */\n')
        for k in sources:
            f.write('GEN_SOURCE(%s, %s)\n' % (c_str(k), c_str(stamp[0])))
        f.write('/* GEN_COMMON_KEYS(first, count): keys every loader reads */\n')
        f.write('GEN_COMMON_KEYS(%d, %d)\n' % (len(key_table), len(common_rows)))
        f.write('/* GEN_ARCH(name, coverage, first key, keys, first tensor, tensors, flags,\n'
                ' *          is_recurrent(i) formula, loader source (GEN_SOURCE index, -1 none)) */\n')
        for name, cov, kr0, tr0, flags, rec, _, src_i in archs_rows:
            f.write('GEN_ARCH(%-20s %-4s, %4d, %3d, %5d, %3d, %s, %s, %d)\n' % (
                c_str(name) + ',', cov, kr0[0], kr0[1], tr0[0], tr0[1], flags,
                rpn_text(rec_rpn(rec, syms) if rec else None) if rec else '""', src_i))
    key_table.extend(common_rows)
    with open(os.path.join(out_dir, 'gen_keys.def'), 'w') as f:
        f.write(header)
        f.write('/* GEN_KEY("suffix", TYPE, REQ|OPT): "<arch>.suffix" as the loader reads it */\n')
        for suffix, kt, req in key_table:
            f.write('GEN_KEY(%-45s %-10s %s)\n' % (c_str(suffix) + ',', kt + ',', req))
    with open(os.path.join(out_dir, 'gen_tensors.def'), 'w') as f:
        f.write(header)
        f.write('/* GEN_TENSOR("name" (%d = layer), where %d is (-1: no layer), REQ|OPT, layers,\n'
                ' *            condition, ne0, ne1, ne2, ne3)\n'
                ' * formulas in RPN; "" = always / dimension absent; "?" = not expressible */\n')
        for e in tensor_table:
            shape = list(e['shape']) + [[]] * (4 - len(e['shape']))
            shp = ', '.join(rpn_text(s) if s is not None else '"?"' for s in shape[:4])
            name = e['name']
            at = name.find('%d')
            # the matcher splits a file's name at its first digit: a layer
            # prefix holds no digit, a name at most one layer number
            if (at >= 0 and (re.search(r'\d', name[:at]) or '%d' in name[at + 2:])) or len(name) > 120:
                raise SystemExit('archgen: tensor name %r: layer prefix with a digit, two layers '
                                 'or too long' % name)
            f.write('GEN_TENSOR(%s, %d, %s, %s, %s, %s)\n' % (
                c_str(name), at, 'REQ' if e['required'] else 'OPT',
                rpn_text(e['count']) if e['count'] is not None else '""',
                rpn_text(e['cond']) if e['cond'] is not None else '"?"', shp))
    with open(os.path.join(out_dir, 'gen_syms.def'), 'w') as f:
        f.write(header)
        f.write('/* GEN_SYM(name, "key suffix" or "", has default, default) - #N in a\n'
                ' * formula is the N-th line (from 0), @N the same symbol at the current\n'
                ' * layer. Symbols without a key are derived in src/model/arch_eval.c, which\n'
                ' * names them as SYM_<name>. */\n')
        for name in syms.order:
            key = syms.key_of.get(name, '')
            if name in DERIVED:
                key = ''
            ctype, dflt = members.get(name, ('uint32_t', LOCAL_DEFAULTS.get(name)))
            d = default_text(dflt)
            if name in DERIVED or not re.match(r'-?\d+$', d):
                d = ''
            if not re.match(r'[A-Za-z_]\w*$', name):
                raise SystemExit('archgen: symbol %r is not a C identifier' % name)
            f.write('GEN_SYM(%-28s %-42s %d, %s)\n' % (
                name + ',', c_str(key) + ',', 1 if d else 0, d or '0'))

    # the second input: gguf-py's MODEL_TENSORS (the names converters write)
    gp = os.path.join(src, 'gguf-py/gguf/constants.py')
    pyn = gguf_py_names(read(gp), arch_names)
    with open(os.path.join(out_dir, 'gen_gguf_py.def'), 'w') as f:
        f.write(header)
        f.write('/* gguf-py/gguf/constants.py MODEL_TENSORS: the tensor names converters write for\n'
                ' * each architecture, without .weight/.bias (%d = the layer): a tensor the table\n'
                ' * does not create but gguf-py lists is GG594, not GG552.\n'
                ' * GEN_PY_ARCH("arch", first, count): rows first..first+count-1 of GEN_PY_NAME\n'
                ' * GEN_PY_NAME("name", where %d is or -1) */\n')
        rows, ranges, archrows = [], {}, []
        for a, name in arch_names:
            lst = tuple(pyn.get(name, []))
            if not lst:
                continue
            if lst not in ranges:
                ranges[lst] = (len(rows), len(lst))
                rows.extend(lst)
            archrows.append((name, ranges[lst]))
        for name, (first, count) in archrows:
            f.write('GEN_PY_ARCH(%-20s %4d, %3d)\n' % (c_str(name) + ',', first, count))
        for n in rows:
            f.write('GEN_PY_NAME(%s, %d)\n' % (c_str(n), n.find('%d')))
    if os.path.exists(gp):
        report = gguf_py_report(read(gp), arch_names, tensors_of,
                                {a: cov for (name, cov, *_), (a, _n) in zip(archs_rows, arch_names)})
        with open(os.path.join(out_dir, 'gguf_py_report.txt'), 'w') as f:
            f.write(report)

    # coverage report on stderr for the developer
    n = len(archs_rows)
    full = sum(1 for r in archs_rows if r[1] == 'FULL')
    keys = sum(1 for r in archs_rows if r[1] == 'KEYS')
    sys.stderr.write('archgen: %d architectures: %d full, %d keys only, %d name only\n'
                     % (n, full, keys, n - full - keys))
    for a, why in gen.unsupported:
        sys.stderr.write('archgen: %s: %s\n' % (a, why))
    return 0


def cond3(rpn):
    """A row condition evaluated with every symbol unknown: 1, 0 or None. Rows
    whose condition is 0 whatever the file holds (arch == other arch) are
    not tensors the loader creates for this architecture."""
    if rpn is None:
        return None
    if not rpn:
        return 1
    st = []
    for tok in rpn:
        if re.match(r'-?\d+$', tok):
            st.append(int(tok))
        elif tok == '!':
            if not st:
                return None
            a = st.pop()
            st.append(None if a is None else int(not a))
        elif tok in ('&&', '||'):
            if len(st) < 2:
                return None
            b, a = st.pop(), st.pop()
            if tok == '&&':
                st.append(0 if 0 in (a, b) else (1 if a and b else None))
            else:
                st.append(1 if (a and a != 0 and a is not None) or (b and b is not None) else
                          (0 if a == 0 and b == 0 else None))
        elif tok in ('max', '?:') or (len(tok) <= 2 and not tok[:1].isalnum() and tok[:1] not in '#@'):
            n = 3 if tok == '?:' else 2
            if len(st) < n:
                return None
            del st[-n:]
            st.append(None)
        else:
            st.append(None)
    return st[0] if len(st) == 1 else None


def py_section(text, head):
    """The text of a top-level `HEAD: ... = {` dict of constants.py, up to
    its closing brace at the start of a line."""
    m = re.search(r'^' + head + r'\b[^\n]*=\s*\{\n(.*?)^\}', text, re.S | re.M)
    return m.group(1) if m else ''


def gguf_py_tables(text):
    """(arch enum -> name, tensor enum -> base name with %d, arch enum ->
    [tensor enum]) from gguf-py/gguf/constants.py."""
    q = r"""['"]"""
    names = dict(re.findall(r'MODEL_ARCH\.(\w+):\s*' + q + r'([^\'"]*)' + q,
                            py_section(text, 'MODEL_ARCH_NAMES')))
    tnames = {k: v.replace('{bid}', '%d')
              for k, v in re.findall(r'MODEL_TENSOR\.(\w+):\s*' + q + r'([^\'"]*)' + q,
                                     py_section(text, 'TENSOR_NAMES'))}
    lists = {k: re.findall(r'MODEL_TENSOR\.(\w+)', v)
             for k, v in re.findall(r'MODEL_ARCH\.(\w+):\s*\[([^\]]*)\]', py_section(text, 'MODEL_TENSORS'))}
    return names, tnames, lists


def gguf_py_names(text, arch_names):
    """arch name -> sorted base names (%d for the layer) gguf-py's
    MODEL_TENSORS lists for it; names with another placeholder (an expert
    index) or a digit before the layer are left out (the matcher splits a
    file's name at its first digit)."""
    names, tnames, lists = gguf_py_tables(text)
    by_name = {v: k for k, v in names.items()}
    out = {}
    for a, name in arch_names:
        key = by_name.get(name)
        if key is None or key not in lists:
            continue
        got = set()
        for t in lists[key]:
            n = tnames.get(t)
            if not n or '{' in n or len(n) > 100:
                continue
            at = n.find('%d')
            if (at >= 0 and (re.search(r'\d', n[:at]) or '%d' in n[at + 2:])) or (at < 0 and re.search(r'\d', n)):
                continue
            got.add(n)
        out[name] = sorted(got)
    return out


def gguf_py_report(text, arch_names, tensors_of, cov_of):
    """Compare the tensor names each generated loader table creates with the
    names gguf-py's MODEL_TENSORS lists for the architecture (what
    convert_hf_to_gguf.py can write): per architecture, the names only the
    loader has and the names only gguf-py has. Names are compared without
    their .weight / .bias suffix, the layer number as %d."""
    names, tnames, lists = gguf_py_tables(text)
    by_name = {v: k for k, v in names.items()}
    out = ['# data/arch/gguf_py_report.txt - GENERATED by archgen.py: the tensor names each',
           '# architecture table creates (loader) against gguf-py\'s MODEL_TENSORS for it (the',
           '# names convert_hf_to_gguf.py can write), compared without .weight/.bias.',
           '# "loader only": the loader creates it and gguf-py does not list it for the',
           '# architecture; "gguf-py only": listed by gguf-py, never created by the loader table.',
           '# A name gguf-py lists but the loader never creates is ignored by llama.cpp at best',
           '# ("wrong number of tensors" at worst); a loader-only required name cannot come from',
           '# convert_hf_to_gguf.py. Architectures without a full table are listed as such.', '']
    n_cmp = n_same = 0
    for a, name in arch_names:
        key = by_name.get(name)
        if cov_of.get(a) != 'FULL':
            out.append('%-18s not compared (no full table)' % name)
            continue
        if key is None or key not in lists:
            out.append('%-18s not compared (gguf-py copy has no MODEL_TENSORS entry)' % name)
            continue
        ents = [e for e in tensors_of.get(a, []) if cond3(e['cond']) != 0]
        loader = sorted({e['base'] for e in ents})
        req = {e['base'] for e in ents if e['required'] and cond3(e['cond']) == 1}
        gguf = sorted({tnames.get(t, '?' + t) for t in lists[key]})
        lo = [x + ('(required)' if x in req else '') for x in loader if x not in gguf]
        go = [x for x in gguf if x not in loader]
        n_cmp += 1
        if not lo and not go:
            n_same += 1
            out.append('%-18s same %d names' % (name, len(loader)))
            continue
        out.append('%-18s loader only: %s' % (name, ' '.join(lo) or '-'))
        out.append('%-18s gguf-py only: %s' % ('', ' '.join(go) or '-'))
    out.append('')
    out.append('# %d architectures compared, %d with the same names' % (n_cmp, n_same))
    return '\n'.join(out) + '\n'


HEAD_SYMS = ('n_head', 'n_head_kv', 'n_embd_head_k', 'n_embd_head_v', 'n_embd_k_gqa',
             'n_embd_v_gqa', 'n_rot')


def sym_names_in(rpn, syms):
    out = set()
    for t in rpn or []:
        if t[:1] in '#@' and t[1:].isdigit():
            out.add(syms.order[int(t[1:])])
    return out


def arch_flags(ents, syms, recurrent):
    """HEADS: every layer is attention (head counts are divisors: 0 is an
    error). Q_IS_E: attn_q is [n_embd, n_embd], so the graph's reshape into
    n_head heads of n_embd_head_k needs n_head * n_embd_head_k == n_embd."""
    flags = []
    layer_conds = set()
    uses_heads = False
    for e in ents:
        layer_conds |= sym_names_in(e['cond'], syms)
        presence_only = e['cond'] is not None and all(re.match(r'P\d+$', t) or t in ('!', '&&', '||')
                                                      for t in e['cond'])
        if e['required'] and presence_only and e['layer']:
            for d in e['shape']:
                if sym_names_in(d, syms) & set(HEAD_SYMS):
                    uses_heads = True
    if uses_heads and not recurrent and not (layer_conds & {'n_head', 'n_head_kv'}):
        flags.append('HEADS')
    n_embd = syms.sym('n_embd')
    for e in ents:
        # required always, or whenever the fused attn_qkv is absent (the
        # create_tensor_qkv helper: split q/k/v or one fused tensor)
        presence_only = e['cond'] is not None and all(re.match(r'P\d+$', t) or t in ('!', '&&', '||')
                                                      for t in e['cond'])
        if (e['name'] == 'blk.%d.attn_q.weight' and e['required'] and presence_only
                and e['shape'][1:2] == [[n_embd]]):
            flags.append('Q_IS_E')
            break
    return flags


def default_text(d):
    if d is None:
        return ''
    d = d.rstrip('f')
    if re.match(r'-?\d+$', d):
        return d
    if re.match(r'-?[\d.]+(e[-+]?\d+)?$', d):
        return d
    if d in ('true', 'false'):
        return '1' if d == 'true' else '0'
    return ''


def tup(x):
    if x is None:
        return None
    return tuple(x)


def relocate(e, base):
    def fix(r):
        if r is None:
            return None
        return [('P%d' % (int(t[1:]) + base)) if re.match(r'P\d+$', t) else t for t in r]
    e2 = dict(e)
    e2['shape'] = [fix(s) for s in e['shape']]
    e2['cond'] = fix(e['cond'])
    e2['count'] = fix(e['count'])
    return e2


# Locals of a load_hparams body that hold a key's value with a start value
# (name -> default literal); recurrent formulas use them as symbols.
LOCAL_DEFAULTS = {}


def recurrent_and_defaults(body, arch):
    """The is_recurrent(i) formula an arch's load_hparams case sets, as a C AST
    over hparams (or True for std::fill(..., true)), and member assignments."""
    rec = None
    defaults = {}

    def visit(ss, loopvar):
        nonlocal rec
        for st in ss:
            if st[0] == 'block':
                visit(st[1], loopvar)
            elif st[0] == 'for':
                parts = split_semis(st[1])
                var = parts[1][0] if len(parts) == 3 and parts[1] else None
                visit([st[2]], var)
            elif st[0] == 'if':
                # qwen35: `if (!ml.get_key_or_arr(LLM_KV_ATTENTION_RECURRENT_LAYERS,
                # ...)) { interval fallback }`: the fallback is the formula (the
                # C side makes is_recurrent unknown when the file has the array)
                visit([st[2]], loopvar)
            elif st[0] == 'expr':
                t = st[1]
                s = ''.join(t)
                d = decl_of(t)
                eq = top_eq(t)
                if d and eq is not None and len(t) == eq + 2 and re.match(r'\d+$', t[eq + 1]):
                    # a local with a constant start value, read from a key below
                    # (uint32_t full_attn_interval = 4;)
                    LOCAL_DEFAULTS[d[1]] = t[eq + 1]
                if (s.startswith('std::fill(hparams.recurrent_layer_arr') or s.startswith('std::fill(hparams.is_recr_impl')) and s.endswith(',true)'):
                    rec = ('num', 1)
                elif (t[:3] in (['hparams', '.', 'recurrent_layer_arr'], ['hparams', '.', 'is_recr_impl'])
                      and t[3:5] == ['[', loopvar] and loopvar):
                    eq = top_eq(t)
                    try:
                        rec = (loopvar, parse_expr(t[eq + 1:]))
                    except SyntaxError:
                        rec = None
                elif t[:2] == ['hparams', '.'] and top_eq(t) == 3 and t[3] == '=':
                    try:
                        defaults[t[2]] = parse_expr(t[4:])
                    except SyntaxError:
                        pass
    visit(body, None)
    return rec, defaults


def plain_assignments(body, reads):
    """`hparams.X = expr;` statements of an arch's load_hparams case outside any
    if / for / switch, for members the case reads from no key: such a member
    has this value whatever the file holds (LFM2: n_layer_dense_lead = n_layer)."""
    read = {t[len('hparams.'):] for (kv, t, m, req), c in reads if t.startswith('hparams.')}
    out = {}

    def visit(ss):
        for st in ss:
            if st[0] == 'block':
                visit(st[1])
            elif st[0] == 'expr':
                t = st[1]
                if t[:2] == ['hparams', '.'] and len(t) > 4 and t[3] == '=' and t[2] not in read:
                    try:
                        out[t[2]] = parse_expr(t[4:])
                    except SyntaxError:
                        pass
                elif len(t) > 2 and re.match(r'[A-Za-z_]\w*$', t[0]) and t[1] == '=':
                    # a member of the model class (nanbeige: n_layer_phys = ...)
                    try:
                        out['this.' + t[0]] = parse_expr(t[2:])
                    except SyntaxError:
                        pass
    visit(body)
    return out


def rec_rpn(rec, syms):
    if rec == ['1']:
        return ['1']
    if rec == ('num', 1):
        return ['1']
    var, e = rec
    g = Gen({}, {}, syms)
    env = {k: ('mem', ('id', 'hparams'), k) for k in LOCAL_DEFAULTS}
    try:
        return g.rpn(e, env, '', var, {})
    except Unknown:
        return None


if __name__ == '__main__':
    sys.exit(main())
