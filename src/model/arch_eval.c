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
    memset(l, 0, sizeof *l);
    l->ok = true;
    l->scalar = known(0);
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
    return kv_by_keyf(env->ctx, "%s.%s", env->arch_name, suffix);
}

/* Index of a named symbol in the generated table, or -1. */
static int sym_of(const char *name)
{
    return arch_sym_index(name);
}

static void set_sym(arch_env *env, const char *name, arch_val v)
{
    int i = sym_of(name);
    if (i >= 0 && i < ARCH_MAX_SYMS)
        env->sym[i] = v;
}

static arch_val get_sym(const arch_env *env, const char *name)
{
    int i = sym_of(name);
    return i >= 0 && i < ARCH_MAX_SYMS ? env->sym[i] : UNKNOWN;
}

void arch_env_init(arch_env *env, gguflint_ctx *ctx, const arch_info *arch, const char *name)
{
    memset(env, 0, sizeof *env);
    env->ctx = ctx;
    env->arch = arch;
    env->arch_name = name;
    _Static_assert(ARCH_MAX_SYMS >= 64, "room for the generated symbols");

    /* keyed symbols: the key's value, else the member's default */
    size_t n = arch_sym_count < ARCH_MAX_SYMS ? arch_sym_count : ARCH_MAX_SYMS;
    for (size_t i = 0; i < n; i++) {
        const arch_sym *s = &arch_syms[i];
        env->sym[i] = UNKNOWN;
        if (s->key[0]) {
            const gguflint_kv *kv = env_key(env, s->key);
            if (kv)
                env->sym[i] = kv_value(kv);
            else if (s->has_default)
                env->sym[i] = known(s->dflt);
        } else if (s->has_default) {
            env->sym[i] = known(s->dflt);
        }
    }
    env->recurrent_array = env_key(env, "attention.recurrent_layers") != NULL;
    /* load_hparams: dec_n_layer defaults to n_layer (T5) */
    if (!env_key(env, "decoder_block_count"))
        set_sym(env, "dec_n_layer", get_sym(env, "n_layer"));

    /* per-layer arrays (load_hparams get_key_or_arr; absent = 0) */
    load_layers(&env->head, ctx, env_key(env, "attention.head_count"));
    load_layers(&env->ff, ctx, env_key(env, "feed_forward_length"));
    const gguflint_kv *hkv = env_key(env, "attention.head_count_kv");
    if (hkv)
        load_layers(&env->head_kv, ctx, hkv);
    else
        env->head_kv = env->head;
    arch_val h0 = arch_layer_value(&env->head, 0), hkv0 = arch_layer_value(&env->head_kv, 0);
    set_sym(env, "n_head", h0);
    set_sym(env, "n_head_kv", hkv0);
    set_sym(env, "n_ff", arch_layer_value(&env->ff, 0));

    /* head sizes and rope dims: only when n_head() > 0, else 0 */
    arch_val e = get_sym(env, "n_embd");
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
    set_sym(env, "n_embd_head_k", env->head_k);
    set_sym(env, "n_embd_head_v", env->head_v);

    /* is_swa(il): only a per-layer array says which layers use the sliding
     * window (a scalar is a period, or a fill value, depending on the loader)
     * - gemma4 writes one bool per layer. The head sizes of those layers are
     * key_length_swa / value_length_swa when the file has them. */
    const gguflint_kv *pat = env_key(env, "attention.sliding_window_pattern");
    if (pat && pat->type == VT_ARRAY)
        load_layers_of(&env->swa, ctx, pat, true);
    else
        env->swa.ok = false;
    const gguflint_kv *ks = env_key(env, "attention.key_length_swa");
    const gguflint_kv *vs = env_key(env, "attention.value_length_swa");
    env->head_k_swa = ks ? kv_value(ks) : env->head_k;
    env->head_v_swa = vs ? kv_value(vs) : env->head_v;
    set_sym(env, "n_rot", rot);
    set_sym(env, "n_embd_k_gqa", mul(env->head_k, hkv0));
    set_sym(env, "n_embd_v_gqa", mul(env->head_v, hkv0));

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
    set_sym(env, "n_vocab", vocab);
    set_sym(env, "n_token_types", kv_value(kv_by_key(ctx, "tokenizer.ggml.token_type_count")));
    const gguflint_kv *labels = env_key(env, "classifier.output_labels");
    set_sym(env, "n_cls_out",
            labels && labels->type == VT_ARRAY && labels->count > 0 && labels->count <= INT64_MAX
                ? known((int64_t)labels->count)
                : known(1));
    const gguflint_kv *scaling = env_key(env, "rope.scaling.type");
    set_sym(env, "rope_longrope",
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

static arch_val layer_sym(const arch_env *env, int idx, uint32_t layer, int depth);

static arch_val eval_depth(const arch_env *env, const char *rpn, uint32_t layer, int64_t empty,
                           int depth)
{
    if (!rpn || !rpn[0])
        return known(empty);
    if (rpn[0] == '?' && rpn[1] == '\0')
        return UNKNOWN;
    stack s = {{{0, false}}, 0, false};
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
        if (c >= '0' && c <= '9') {
            push(&s, known(strtoll(tok, NULL, 10)));
        } else if ((c == '#' || c == '@') && len > 1) {
            long idx = strtol(tok + 1, NULL, 10);
            if (idx < 0 || (size_t)idx >= arch_sym_count || idx >= ARCH_MAX_SYMS) {
                s.bad = true;
                break;
            }
            push(&s, c == '#' ? env->sym[idx] : layer_sym(env, (int)idx, layer, depth));
        } else if (c == 'i' && len == 1) {
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
            long row = strtol(tok + 1, NULL, 10);
            char name[160];
            if (row < 0 || (size_t)row >= arch_tensor_count ||
                !arch_tensor_name(&arch_tensors[row], layer, name, sizeof name)) {
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

static arch_val layer_sym(const arch_env *env, int idx, uint32_t layer, int depth)
{
    const char *name = arch_syms[idx].name;
    if (strcmp(name, "is_swa") == 0)
        return arch_layer_value(&env->swa, layer);
    if (strcmp(name, "n_embd_head_k") == 0)
        return head_at(env, env->head_k, env->head_k_swa, layer);
    if (strcmp(name, "n_embd_head_v") == 0)
        return head_at(env, env->head_v, env->head_v_swa, layer);
    if (strcmp(name, "n_head") == 0)
        return arch_layer_value(&env->head, layer);
    if (strcmp(name, "n_head_kv") == 0)
        return arch_layer_value(&env->head_kv, layer);
    if (strcmp(name, "n_ff") == 0)
        return arch_layer_value(&env->ff, layer);
    if (strcmp(name, "n_embd_k_gqa") == 0)
        return mul(head_at(env, env->head_k, env->head_k_swa, layer),
                   arch_layer_value(&env->head_kv, layer));
    if (strcmp(name, "n_embd_v_gqa") == 0)
        return mul(head_at(env, env->head_v, env->head_v_swa, layer),
                   arch_layer_value(&env->head_kv, layer));
    if (strcmp(name, "is_recurrent") == 0) {
        /* newer loaders read an explicit per-layer array first and use the
         * generated formula only without it (qwen35): not modelled */
        if (depth > 0 || !env->arch || env->recurrent_array)
            return UNKNOWN;
        return eval_depth(env, env->arch->recurrent, layer, 0, depth + 1);
    }
    return env->sym[idx];
}

arch_val arch_eval(const arch_env *env, const char *rpn, uint32_t layer, int64_t empty)
{
    return eval_depth(env, rpn, layer, empty, 0);
}

bool arch_tensor_name(const arch_tensor *t, uint32_t layer, char *buf, size_t cap)
{
    const char *pct = strstr(t->name, "%d");
    int n;
    if (!pct)
        n = snprintf(buf, cap, "%s", t->name);
    else
        n = snprintf(buf, cap, "%.*s%u%s", (int)(pct - t->name), t->name, (unsigned)layer, pct + 2);
    return n >= 0 && (size_t)n < cap;
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
            const char *nm = idx >= 0 && (size_t)idx < arch_sym_count ? arch_syms[idx].name : "?";
            k = snprintf(buf + at, cap - at, "%s%s%s", sep, nm, tok[0] == '@' ? "(i)" : "");
        } else if (tok[0] == 'T' && len > 1) {
            k = snprintf(buf + at, cap - at, "%shas(%.*s)", sep, (int)(len - 1), tok + 1);
        } else if (tok[0] == 'P' && len > 1) {
            long row = strtol(tok + 1, NULL, 10);
            const char *nm =
                row >= 0 && (size_t)row < arch_tensor_count ? arch_tensors[row].name : "?";
            k = snprintf(buf + at, cap - at, "%shas(%s)", sep, nm);
        } else {
            k = snprintf(buf + at, cap - at, "%s%.*s", sep, (int)len, tok);
        }
        if (k < 0 || (size_t)k >= cap - at)
            break;
        at += (size_t)k;
    }
}
