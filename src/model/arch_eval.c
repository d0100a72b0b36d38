/* arch_eval.c - see arch_eval.h. The formulas are short RPN strings written
 * by data/arch/archgen.py; evaluation uses a fixed 16-entry stack, no
 * recursion except one level for is_recurrent(i), and checked 64-bit
 * arithmetic: hostile hyper-parameters give "unknown", never a wrong value or
 * undefined behaviour. */
#include "model/arch_eval.h"

#include "common/ckd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const arch_val UNKNOWN = {0, false};

static arch_val known(int64_t v)
{
    arch_val r = {v, true};
    return r;
}

/* Integer value of a scalar KV of an integer or bool type. */
static arch_val kv_value(const gguflint_kv *kv)
{
    int64_t v;
    if (!kv)
        return UNKNOWN;
    if (kv->type == VT_BOOL)
        return known(kv->u != 0);
    if (kv->type == VT_FLOAT32 || kv->type == VT_FLOAT64) {
        if (kv->f >= 0 && kv->f < 9e15 && (double)(int64_t)kv->f == kv->f)
            return known((int64_t)kv->f);
        return UNKNOWN;
    }
    if (kv->type == VT_ARRAY || kv->type == VT_STRING || !kv_int(kv, &v))
        return UNKNOWN;
    return known(v);
}

/* llama.cpp get_key_or_arr into a per-layer array: a scalar for every layer,
 * or an i32/u32 array (its length is checked elsewhere). Absent: all 0. */
static void load_layers_of(arch_layers *l, gguflint_ctx *ctx, const gguflint_kv *kv, bool bools)
{
    l->is_array = false;
    l->ok = true;
    l->scalar = known(0);
    l->n = 0;
    if (!kv)
        return;
    if (kv->type != VT_ARRAY) {
        l->scalar = kv_value(kv);
        return;
    }
    l->is_array = true;
    if (kv->elem_type != VT_INT32 && kv->elem_type != VT_UINT32 &&
        !(bools && kv->elem_type == VT_BOOL)) {
        l->ok = false;
        return;
    }
    arr_iter it;
    gguflint_view el;
    if (!arr_iter_init(ctx, kv, &it)) {
        l->ok = false;
        return;
    }
    while (l->n < ARCH_MAX_LAYERS && arr_next(&it, &el, NULL)) {
        int64_t v = el_int(&it, el);
        if (kv->elem_type == VT_UINT32)
            v = (int64_t)(uint32_t)v;
        if (kv->elem_type == VT_BOOL)
            v = v != 0;
        l->v[l->n++] = v;
    }
}

static void load_layers(arch_layers *l, gguflint_ctx *ctx, const gguflint_kv *kv)
{
    load_layers_of(l, ctx, kv, false);
}

/* *to = *from, copying only the decoded elements. */
static void copy_layers(arch_layers *to, const arch_layers *from)
{
    to->is_array = from->is_array;
    to->ok = from->ok;
    to->scalar = from->scalar;
    to->n = from->n;
    memcpy(to->v, from->v, from->n * sizeof from->v[0]);
}

arch_val arch_layer_value(const arch_layers *l, uint32_t layer)
{
    if (!l->ok)
        return UNKNOWN;
    if (!l->is_array)
        return l->scalar;
    if (layer >= l->n)
        return UNKNOWN;
    return l->v[layer] < 0 ? UNKNOWN : known(l->v[layer]);
}

static arch_val mul(arch_val a, arch_val b)
{
    int64_t r;
    if (!a.known || !b.known || __builtin_mul_overflow(a.v, b.v, &r))
        return UNKNOWN;
    return known(r);
}

static const gguflint_kv *env_key(const arch_env *env, const char *suffix)
{
    if (suffix[0] == '=') /* a key without the architecture prefix */
        return kv_by_key(env->ctx, suffix + 1);
    return kv_by_arch_key(env->ctx, env->arch_name, env->arch_len, suffix);
}

static void set_sym(arch_env *env, int i, arch_val v)
{
    if (i < 0 || i >= ARCH_MAX_SYMS)
        return;
    env->sym[i] = v;
    env->sym_done[i / 64] |= 1ull << (i % 64);
}

arch_val arch_sym_value(arch_env *env, int i)
{
    if (i < 0 || i >= ARCH_MAX_SYMS || (size_t)i >= arch_sym_count)
        return UNKNOWN;
    if (env->sym_done[i / 64] & (1ull << (i % 64)))
        return env->sym[i];
    /* a keyed symbol: the key's value, else the member's default */
    const arch_sym *s = &arch_syms[i];
    const char *key = arch_str(s->key);
    arch_val v = UNKNOWN;
    const gguflint_kv *kv = key[0] ? env_key(env, key) : NULL;
    if (kv)
        v = kv_value(kv);
    else if (s->has_default)
        v = known(s->dflt);
    set_sym(env, i, v);
    return v;
}

void arch_env_init(arch_env *env, gguflint_ctx *ctx, const arch_info *arch, const char *name)
{
    /* no memset of the whole struct: its arrays are large and only the
     * elements marked done / decoded are ever read */
    env->ctx = ctx;
    env->arch = arch;
    env->arch_name = name;
    env->arch_len = strlen(name);
    env->vocab_from_tokens = false;
    memset(env->sym_done, 0, sizeof env->sym_done);
    memset(env->row_done, 0, sizeof env->row_done);
    _Static_assert(ARCH_MAX_SYMS >= SYM_COUNT, "room for the generated symbols");
    _Static_assert(ARCH_F_N <= 8, "row_done has a bit per formula");

    env->recurrent_array = env_key(env, "attention.recurrent_layers") != NULL;
    /* load_hparams: dec_n_layer defaults to n_layer (T5) */
    if (!env_key(env, "decoder_block_count"))
        set_sym(env, SYM_dec_n_layer, arch_sym_value(env, SYM_n_layer));

    /* per-layer arrays (load_hparams get_key_or_arr; absent = 0) */
    load_layers(&env->head, ctx, env_key(env, "attention.head_count"));
    load_layers(&env->ff, ctx, env_key(env, "feed_forward_length"));
    const gguflint_kv *hkv = env_key(env, "attention.head_count_kv");
    if (hkv)
        load_layers(&env->head_kv, ctx, hkv);
    else
        copy_layers(&env->head_kv, &env->head);
    arch_val h0 = arch_layer_value(&env->head, 0), hkv0 = arch_layer_value(&env->head_kv, 0);
    set_sym(env, SYM_n_head, h0);
    set_sym(env, SYM_n_head_kv, hkv0);
    set_sym(env, SYM_n_ff, arch_layer_value(&env->ff, 0));

    /* head sizes and rope dims: only when n_head() > 0, else 0 */
    arch_val e = arch_sym_value(env, SYM_n_embd);
    env->head_k = env->head_v = known(0);
    arch_val rot = known(0);
    if (h0.known && h0.v > 0) {
        env->head_k = env->head_v = e.known ? known(e.v / h0.v) : UNKNOWN;
        const gguflint_kv *k;
        if ((k = env_key(env, "attention.key_length")))
            env->head_k = kv_value(k);
        if ((k = env_key(env, "attention.value_length")))
            env->head_v = kv_value(k);
        rot = env->head_k;
        if ((k = env_key(env, "rope.dimension_count")))
            rot = kv_value(k);
    } else if (!h0.known) {
        env->head_k = env->head_v = rot = UNKNOWN;
    }
    set_sym(env, SYM_n_embd_head_k, env->head_k);
    set_sym(env, SYM_n_embd_head_v, env->head_v);

    /* is_swa(il): only a per-layer array says which layers use the sliding
     * window (a scalar is a period, or a fill value, depending on the loader)
     * - gemma4 writes one bool per layer. The head sizes of those layers are
     * key_length_swa / value_length_swa when the file has them. */
    const gguflint_kv *pat = env_key(env, "attention.sliding_window_pattern");
    if (pat && pat->type == VT_ARRAY) {
        load_layers_of(&env->swa, ctx, pat, true);
    } else {
        load_layers_of(&env->swa, ctx, NULL, true);
        env->swa.ok = false;
    }
    const gguflint_kv *ks = env_key(env, "attention.key_length_swa");
    const gguflint_kv *vs = env_key(env, "attention.value_length_swa");
    env->head_k_swa = ks ? kv_value(ks) : env->head_k;
    env->head_v_swa = vs ? kv_value(vs) : env->head_v;
    set_sym(env, SYM_n_rot, rot);
    set_sym(env, SYM_n_embd_k_gqa, mul(env->head_k, hkv0));
    set_sym(env, SYM_n_embd_v_gqa, mul(env->head_v, hkv0));

    /* n_vocab: the tokens, else token_embd.weight's rows */
    arch_val vocab = UNKNOWN;
    const gguflint_kv *tok = kv_by_key(ctx, "tokenizer.ggml.tokens");
    if (tok && tok->type == VT_ARRAY && tok->count <= INT64_MAX) {
        vocab = known((int64_t)tok->count);
        env->vocab_from_tokens = true;
    } else {
        const gguflint_tensor *te = tensor_by_name(ctx, "token_embd.weight");
        if (te && te->n_dims >= 2 && te->n_dims <= 4 && te->ne[1] <= INT64_MAX)
            vocab = known((int64_t)te->ne[1]);
    }
    set_sym(env, SYM_n_vocab, vocab);
    set_sym(env, SYM_n_token_types, kv_value(kv_by_key(ctx, "tokenizer.ggml.token_type_count")));
    const gguflint_kv *labels = env_key(env, "classifier.output_labels");
    set_sym(env, SYM_n_cls_out,
            labels && labels->type == VT_ARRAY && labels->count > 0 && labels->count <= INT64_MAX
                ? known((int64_t)labels->count)
                : known(1));
    const gguflint_kv *scaling = env_key(env, "rope.scaling.type");
    set_sym(env, SYM_rope_longrope,
            known(scaling && scaling->type == VT_STRING && view_eq(scaling->str, "longrope")));
}

/* ------------------------------------------------------------------ eval */

typedef struct stack {
    arch_val v[16];
    int n;
    bool bad; /* malformed formula or overflow of the stack */
} stack;

static void push(stack *s, arch_val v)
{
    if (s->n >= 16) {
        s->bad = true;
        return;
    }
    s->v[s->n++] = v;
}

static arch_val pop(stack *s)
{
    if (s->n <= 0) {
        s->bad = true;
        return UNKNOWN;
    }
    return s->v[--s->n];
}

/* The decimal number of tok[0..len), all digits; false otherwise (or when
 * it does not fit 62 bits - the generator writes small numbers). */
static bool dec(const char *tok, size_t len, int64_t *out)
{
    int64_t v = 0;
    if (len == 0 || len > 18)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (tok[i] < '0' || tok[i] > '9')
            return false;
        v = v * 10 + (tok[i] - '0');
    }
    *out = v;
    return true;
}

static arch_val layer_sym(arch_env *env, int idx, uint32_t layer, int depth, bool *layered);

/* Evaluate rpn; *layered is set when the value may depend on `layer`. */
static arch_val eval_depth(arch_env *env, const char *rpn, uint32_t layer, int64_t empty, int depth,
                           bool *layered)
{
    if (!rpn || !rpn[0])
        return known(empty);
    if (rpn[0] == '?' && rpn[1] == '\0')
        return UNKNOWN;
    stack s;
    s.n = 0;
    s.bad = false;
    const char *p = rpn;
    while (*p && !s.bad) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *tok = p;
        size_t len = 0;
        while (p[len] && p[len] != ' ')
            len++;
        p += len;
        char c = tok[0];
        int64_t num;
        if (c >= '0' && c <= '9') {
            if (!dec(tok, len, &num)) {
                s.bad = true;
                break;
            }
            push(&s, known(num));
        } else if ((c == '#' || c == '@') && len > 1) {
            if (!dec(tok + 1, len - 1, &num) || (size_t)num >= arch_sym_count ||
                num >= ARCH_MAX_SYMS) {
                s.bad = true;
                break;
            }
            if (c == '@')
                *layered = true;
            push(&s, c == '#' ? arch_sym_value(env, (int)num)
                              : layer_sym(env, (int)num, layer, depth, layered));
        } else if (c == 'i' && len == 1) {
            *layered = true;
            push(&s, known(layer));
        } else if (c == 'U' && len == 1) {
            push(&s, UNKNOWN); /* a value the generator cannot name (a computed tensor name) */
        } else if (c == 'T' && len > 1) {
            /* Tname: 1 when the file has a tensor of that name (ml.get_weight) */
            char name[160];
            if (len - 1 >= sizeof name) {
                push(&s, UNKNOWN);
                continue;
            }
            memcpy(name, tok + 1, len - 1);
            name[len - 1] = '\0';
            push(&s, known(tensor_by_name(env->ctx, name) != NULL));
        } else if (c == 'P' && len > 1) {
            char name[160];
            *layered = true;
            if (!dec(tok + 1, len - 1, &num) || (size_t)num >= arch_tensor_count ||
                !arch_tensor_name(&arch_tensors[num], layer, name, sizeof name, NULL)) {
                push(&s, UNKNOWN);
                continue;
            }
            push(&s, known(tensor_by_name(env->ctx, name) != NULL));
        } else if (len == 1 && c == '!') {
            arch_val a = pop(&s);
            push(&s, a.known ? known(!a.v) : UNKNOWN);
        } else if (len == 2 && tok[0] == '?' && tok[1] == ':') {
            arch_val f = pop(&s), t = pop(&s), cnd = pop(&s);
            push(&s, !cnd.known ? UNKNOWN : cnd.v ? t : f);
        } else {
            arch_val b = pop(&s), a = pop(&s);
            arch_val r = UNKNOWN;
            int64_t v;
            /* && and || are decided by one known side */
            if (len == 2 && tok[0] == '&' && tok[1] == '&') {
                if ((a.known && !a.v) || (b.known && !b.v))
                    r = known(0);
                else if (a.known && b.known)
                    r = known(1);
                push(&s, r);
                continue;
            }
            if (len == 2 && tok[0] == '|' && tok[1] == '|') {
                if ((a.known && a.v) || (b.known && b.v))
                    r = known(1);
                else if (a.known && b.known)
                    r = known(0);
                push(&s, r);
                continue;
            }
            if (!a.known || !b.known) {
                push(&s, UNKNOWN);
                continue;
            }
            if (len == 1) {
                switch (c) {
                case '+': r = __builtin_add_overflow(a.v, b.v, &v) ? UNKNOWN : known(v); break;
                case '-': r = __builtin_sub_overflow(a.v, b.v, &v) ? UNKNOWN : known(v); break;
                case '*': r = __builtin_mul_overflow(a.v, b.v, &v) ? UNKNOWN : known(v); break;
                case '/':
                    r = (b.v == 0 || (a.v == INT64_MIN && b.v == -1)) ? UNKNOWN : known(a.v / b.v);
                    break;
                case '%':
                    r = (b.v == 0 || (a.v == INT64_MIN && b.v == -1)) ? UNKNOWN : known(a.v % b.v);
                    break;
                case '<': r = known(a.v < b.v); break;
                case '>': r = known(a.v > b.v); break;
                case '|': r = known(a.v | b.v); break;
                default: s.bad = true; break;
                }
            } else if (len == 2 && tok[1] == '=') {
                switch (c) {
                case '=': r = known(a.v == b.v); break;
                case '!': r = known(a.v != b.v); break;
                case '<': r = known(a.v <= b.v); break;
                case '>': r = known(a.v >= b.v); break;
                default: s.bad = true; break;
                }
            } else if (len == 3 && memcmp(tok, "max", 3) == 0) {
                r = known(a.v > b.v ? a.v : b.v);
            } else {
                s.bad = true;
            }
            push(&s, r);
        }
    }
    if (s.bad || s.n != 1)
        return UNKNOWN;
    return s.v[0];
}

/* A layer's head size: the sliding-window one on a sliding-window layer
 * (llama.cpp's n_embd_head_k(il)); unknown when the two differ and the file
 * does not say which layers slide. */
static arch_val head_at(const arch_env *env, arch_val full, arch_val swa, uint32_t layer)
{
    if (full.known && swa.known && full.v == swa.v)
        return full;
    arch_val w = arch_layer_value(&env->swa, layer);
    if (!w.known)
        return UNKNOWN;
    return w.v ? swa : full;
}

static arch_val layer_sym(arch_env *env, int idx, uint32_t layer, int depth, bool *layered)
{
    switch (idx) {
    case SYM_is_swa: return arch_layer_value(&env->swa, layer);
    case SYM_n_embd_head_k: return head_at(env, env->head_k, env->head_k_swa, layer);
    case SYM_n_embd_head_v: return head_at(env, env->head_v, env->head_v_swa, layer);
    case SYM_n_head: return arch_layer_value(&env->head, layer);
    case SYM_n_head_kv: return arch_layer_value(&env->head_kv, layer);
    case SYM_n_ff: return arch_layer_value(&env->ff, layer);
    case SYM_n_embd_k_gqa:
        return mul(head_at(env, env->head_k, env->head_k_swa, layer),
                   arch_layer_value(&env->head_kv, layer));
    case SYM_n_embd_v_gqa:
        return mul(head_at(env, env->head_v, env->head_v_swa, layer),
                   arch_layer_value(&env->head_kv, layer));
    case SYM_is_recurrent:
        /* newer loaders read an explicit per-layer array first and use the
         * generated formula only without it (qwen35): not modelled */
        if (depth > 0 || !env->arch || env->recurrent_array)
            return UNKNOWN;
        return eval_depth(env, arch_str(env->arch->recurrent), layer, 0, depth + 1, layered);
    default: return arch_sym_value(env, idx);
    }
}

arch_val arch_eval(arch_env *env, const char *rpn, uint32_t layer, int64_t empty)
{
    bool layered = false;
    return eval_depth(env, rpn, layer, empty, 0, &layered);
}

/* arch_row_eval when the value is not cached yet (or cannot be). */
arch_val arch_row_eval_miss(arch_env *env, const arch_tensor *r, int which, uint32_t layer)
{
    arch_str_t f = which == ARCH_F_COUNT  ? r->count
                   : which == ARCH_F_COND ? r->cond
                                          : r->ne[(which - ARCH_F_NE0) & 3];
    int64_t empty = which == ARCH_F_COUNT ? 0 : 1;
    size_t k = ARCH_MAX_ROWS;
    const arch_info *a = env->arch;
    size_t row = (size_t)(r - arch_tensors);
    if (a && row >= a->tensor_first && row < (size_t)a->tensor_first + a->tensor_count)
        k = row - a->tensor_first;
    uint8_t bit = (uint8_t)(1u << which);
    bool layered = false;
    arch_val v = eval_depth(env, arch_str(f), layer, empty, 0, &layered);
    if (k < ARCH_MAX_ROWS && !layered) {
        env->row_val[k][which] = v;
        env->row_done[k] |= bit;
    }
    return v;
}

bool arch_tensor_name(const arch_tensor *t, uint32_t layer, char *buf, size_t cap, size_t *len)
{
    const char *s = arch_str(t->name);
    size_t n = t->name_len;
    if (t->layer_at < 0) {
        if (n >= cap)
            return false;
        memcpy(buf, s, n + 1);
        if (len)
            *len = n;
        return true;
    }
    char digits[10];
    size_t nd = 0;
    do {
        digits[nd++] = (char)('0' + layer % 10);
        layer /= 10;
    } while (layer && nd < sizeof digits);
    size_t at = (size_t)t->layer_at, suf = n - at - 2, total = at + nd + suf;
    if (total >= cap)
        return false;
    memcpy(buf, s, at);
    for (size_t i = 0; i < nd; i++)
        buf[at + i] = digits[nd - 1 - i];
    memcpy(buf + at + nd, s + at + 2, suf);
    buf[total] = '\0';
    if (len)
        *len = total;
    return true;
}

/* Formula text for messages: RPN tokens with symbols named, e.g.
 * "n_embd_head_k n_head *". Kept in RPN: exact and short. */
void arch_formula_text(const char *rpn, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    if (!rpn || !rpn[0]) {
        snprintf(buf, cap, "1");
        return;
    }
    const char *p = rpn;
    while (*p && at + 1 < cap) {
        while (*p == ' ')
            p++;
        const char *tok = p;
        size_t len = 0;
        while (p[len] && p[len] != ' ')
            len++;
        p += len;
        if (!len)
            break;
        int k;
        const char *sep = at ? " " : "";
        if ((tok[0] == '#' || tok[0] == '@') && len > 1) {
            long idx = strtol(tok + 1, NULL, 10);
            const char *nm =
                idx >= 0 && (size_t)idx < arch_sym_count ? arch_str(arch_syms[idx].name) : "?";
            k = snprintf(buf + at, cap - at, "%s%s%s", sep, nm, tok[0] == '@' ? "(i)" : "");
        } else if (tok[0] == 'T' && len > 1) {
            k = snprintf(buf + at, cap - at, "%shas(%.*s)", sep, (int)(len - 1), tok + 1);
        } else if (tok[0] == 'P' && len > 1) {
            long row = strtol(tok + 1, NULL, 10);
            const char *nm = row >= 0 && (size_t)row < arch_tensor_count
                                 ? arch_str(arch_tensors[row].name)
                                 : "?";
            k = snprintf(buf + at, cap - at, "%shas(%s)", sep, nm);
        } else {
            k = snprintf(buf + at, cap - at, "%s%.*s", sep, (int)len, tok);
        }
        if (k < 0 || (size_t)k >= cap - at)
            break;
        at += (size_t)k;
    }
}
