/* template_conform.c - the chat templates against the vocabulary
 * (GG740-GG743), for people testing writers: special tokens a template
 * emits that the vocabulary lacks, chat-turn tokens in a vocabulary without
 * any template, a BOS emitted while tokenizer.ggml.add_bos_token adds one,
 * and templates that never close a turn. check_template.c gives each
 * analysed template to tc_collect; tc_finish runs the checks once per file.
 *
 * Cost: when the parse pass recorded the vocabulary (parse/tokens.h, the
 * common case), each emitted token and chat-turn text is looked up in its
 * keyed index and each special id is a short walk from a checkpoint: no
 * pass over the vocabulary. Otherwise one walk over tokenizer.ggml.tokens,
 * stepping over the tokens that do not start with '<' or '[' a length
 * field at a time; a candidate is looked up by binary search among at most
 * TPL_TOK_MAX emitted tokens, or among the chat-turn table's entries,
 * whatever the vocabulary holds. */
#include "checks/template_conform.h"

#include "model/model.h"
#include "parse/tokens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tokens only chat formats use (GG741). llama.cpp's templates and the
 * tokenizers of the models they come from. */
static const char *const chat_turn_tokens[] = {
    "<|im_start|>",
    "<|im_end|>",
    "<|start_header_id|>",
    "<|eot_id|>",
    "<start_of_turn>",
    "<end_of_turn>",
    "<|user|>",
    "<|assistant|>",
    "<|system|>",
    "[INST]",
    "[/INST]",
    "<|START_OF_TURN_TOKEN|>",
    "<|END_OF_TURN_TOKEN|>",
    "<|im_user|>",
    "<|im_assistant|>",
    "<|im_system|>",
    "<|start|>",
    "<|message|>",
    "<|channel|>",
    "<\xef\xbd\x9c"
    "User\xef\xbd\x9c>",
    "<\xef\xbd\x9c"
    "Assistant\xef\xbd\x9c>",
};

/* Texts llama.cpp's vocabulary loader treats as end of generation
 * (llama-vocab.cpp: the EOT auto-detection and special_eog_ids), GG743. */
static const char *const eog_texts[] = {
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "[EOT]",
    ("<\xef\xbd\x9c"
     "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>"),
};

static const char *quote(char *buf, size_t cap, const uint8_t *s, size_t n, size_t max_in)
{
    esc_fixed(buf, cap, s, n, max_in);
    return buf;
}

static bool in_table(const char *const *tab, size_t n, const uint8_t *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(tab[i]) == len && memcmp(tab[i], s, len) == 0)
            return true;
    return false;
}

void tc_init(tc_state *st)
{
    memset(st, 0, sizeof *st);
}

void tc_collect(tc_state *st, const tpl *t, const gguflint_kv *kv)
{
    if (!st->first_kv)
        st->first_kv = kv;
    st->templates++;
    if (tpl_emits_var(t, TPL_VAR_BOS) && !st->bos_var_kv)
        st->bos_var_kv = kv;
    if (tpl_emits_var(t, TPL_VAR_EOS))
        st->eos_var = true;
    for (size_t i = 0; i < tpl_token_count(t) && st->n < TPL_TOK_MAX; i++) {
        tc_token *e = &st->tok[st->n];
        size_t len;
        int kind;
        const uint8_t *s = tpl_token_get(t, i, &len, &kind, &e->line, &e->col);
        bool dup = false;
        for (size_t k = 0; k < st->n && !dup; k++)
            dup = st->tok[k].len == len && memcmp(st->tok[k].s, s, len) == 0;
        if (dup)
            continue;
        memcpy(e->s, s, len);
        e->len = (uint8_t)len;
        e->kind = (uint8_t)kind;
        e->kv = kv;
        st->n++;
    }
}

static int tok_cmp(const void *a, const void *b)
{
    const tc_token *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->s, y->s, x->len);
}

static tc_token *find(tc_state *st, const uint8_t *s, size_t n)
{
    if (n == 0 || n > TPL_TOK_LEN)
        return NULL;
    tc_token key;
    key.len = (uint8_t)n;
    memcpy(key.s, s, n);
    /* a plain binary search: glibc's inline bsearch leaves a profile counter
     * in a COMDAT section that the prelinked static library discards
     * (coverage builds failed to link) */
    size_t lo = 0, hi = st->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = tok_cmp(&key, &st->tok[mid]);
        if (c == 0)
            return &st->tok[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* A special id key's value, -1 when absent or not an integer. */
static int64_t special_id(const gguflint_ctx *ctx, const char *key)
{
    int64_t id;
    const gguflint_kv *kv = kv_by_key(ctx, key);
    return kv && kv_int(kv, &id) && id >= 0 ? id : -1;
}

/* The smallest of the 4 special ids above `after` (UINT64_MAX: none). */
static uint64_t next_special(const int64_t ids[4], int64_t after)
{
    uint64_t m = UINT64_MAX;
    for (int k = 0; k < 4; k++)
        if (ids[k] > after && (uint64_t)ids[k] < m)
            m = (uint64_t)ids[k];
    return m;
}

/* arr_next over a string array, but only to the next token that can
 * matter here: one starting with '<' or '[' (all the texts looked up do),
 * or token `want` (a special id). The vocabulary is most of the file, so
 * in the common case (little-endian, 8-byte lengths) the tokens in between
 * are stepped over a length field at a time, with the checks arr_next
 * makes; other arrays go through arr_next. */
static bool next_candidate(arr_iter *it, uint64_t want, gguflint_view *el, uint64_t *el_off)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (it->et == VT_STRING && it->w == 8 && !it->c.big_endian && it->c.len - it->c.off >= 8) {
        const uint8_t *p = cur_ptr(&it->c), *const lim = it->c.base + it->c.len - 8;
        uint64_t index = it->index;
        /* step up to the special id, if it comes first */
        const uint64_t stop = want - index < it->left ? want : index + it->left;
        while (index < stop && p <= lim) {
            const uint64_t n = cur_le64_unchecked(p);
            if (n > (uint64_t)(lim - p))
                break; /* as arr_next: a cut element ends the walk */
            if (n >= 3 && (p[8] == '<' || p[8] == '['))
                break;
            p += 8 + n;
            index++;
        }
        it->c.off = (uint64_t)(p - it->c.base);
        it->left -= index - it->index;
        it->index = index; /* arr_next takes it from here, or ends the walk */
    }
#else
    (void)want;
#endif
    return arr_next(it, el, el_off);
}

/* The vocabulary walked (when the parse pass did not record it): the
 * texts of the special ids, which emitted tokens it holds, and (without
 * templates) its first chat-turn token. */
static bool tc_walk(const gguflint_ctx *ctx, tc_state *st, const gguflint_kv *tokens,
                    const int64_t ids[4], gguflint_view text[4], const char **chat_out,
                    uint64_t *chat_off, uint64_t *chat_id)
{
    const char *chat = NULL;
    arr_iter it;
    gguflint_view el;
    uint64_t off;
    if (!arr_iter_init(ctx, tokens, &it))
        return false;
    uint64_t next_id = next_special(ids, -1);
    while (next_candidate(&it, next_id, &el, &off)) {
        uint64_t i = it.index - 1;
        if (i == next_id) {
            for (int k = 0; k < 4; k++)
                if ((int64_t)i == ids[k])
                    text[k] = el;
            next_id = next_special(ids, (int64_t)i);
        }
        if (el.len < 3 || el.len > TPL_TOK_LEN || (el.ptr[0] != '<' && el.ptr[0] != '['))
            continue;
        tc_token *e = find(st, el.ptr, (size_t)el.len);
        if (e)
            e->in_vocab = true;
        if (!st->templates && !chat) {
            for (size_t k = 0; k < sizeof chat_turn_tokens / sizeof chat_turn_tokens[0]; k++)
                if ((uint8_t)chat_turn_tokens[k][1] == el.ptr[1] &&
                    strlen(chat_turn_tokens[k]) == el.len &&
                    memcmp(chat_turn_tokens[k], el.ptr, el.len) == 0) {
                    chat = chat_turn_tokens[k];
                    *chat_off = off;
                    *chat_id = i;
                }
        }
    }
    *chat_out = chat;
    return true;
}

void tc_finish(gguflint_ctx *ctx, tc_state *st)
{
    const gguflint_kv *tokens = kv_by_key(ctx, "tokenizer.ggml.tokens");
    if (!tokens || tokens->type != VT_ARRAY || tokens->elem_type != VT_STRING)
        return; /* no vocabulary: nothing to hold the templates to */
    /* a few tokens (TPL_TOK_MAX at most): an insertion sort, stable as
     * glibc's qsort is, without its allocation and indirect calls */
    for (size_t i = 1; i < st->n; i++) {
        if (tok_cmp(&st->tok[i - 1], &st->tok[i]) <= 0)
            continue;
        tc_token x = st->tok[i];
        size_t j = i;
        for (; j > 0 && tok_cmp(&st->tok[j - 1], &x) > 0; j--)
            st->tok[j] = st->tok[j - 1];
        st->tok[j] = x;
    }
    int64_t ids[4] = {special_id(ctx, "tokenizer.ggml.bos_token_id"),
                      special_id(ctx, "tokenizer.ggml.eos_token_id"),
                      special_id(ctx, "tokenizer.ggml.eot_token_id"),
                      special_id(ctx, "tokenizer.ggml.eom_token_id")};
    gguflint_view text[4] = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};
    const char *chat = NULL;
    uint64_t chat_off = 0, chat_id = 0;
    const tok_index *ti = ctx->tokens;
    if (ti && ti->complete && ti->slots && ti->kv < ctx->n_kvs && &ctx->kvs[ti->kv] == tokens &&
        ti->n == tokens->count) {
        /* the parse pass's record of the vocabulary: look the few texts up */
        for (int k = 0; k < 4; k++)
            if (ids[k] >= 0 && (uint64_t)ids[k] < ti->n) {
                tok_pos pos = tok_pos_start(ti);
                tok_seek(ti, &pos, (uint64_t)ids[k]);
                uint64_t len;
                memcpy(&len, ti->base + pos.off, 8);
                text[k] = (gguflint_view){ti->base + pos.off + 8, len};
            }
        uint64_t index, at;
        for (size_t i = 0; i < st->n; i++) {
            tc_token *e = &st->tok[i];
            if (e->len >= 3 && (e->s[0] == '<' || e->s[0] == '['))
                e->in_vocab = tok_find(ti, e->s, e->len, &index, &at);
        }
        if (!st->templates)
            for (size_t k = 0; k < sizeof chat_turn_tokens / sizeof chat_turn_tokens[0]; k++)
                if (tok_find(ti, (const uint8_t *)chat_turn_tokens[k], strlen(chat_turn_tokens[k]),
                             &index, &at) &&
                    (!chat || index < chat_id)) {
                    chat = chat_turn_tokens[k];
                    chat_off = tokens->value_offset + at;
                    chat_id = index;
                }
    } else if (!tc_walk(ctx, st, tokens, ids, text, &chat, &chat_off, &chat_id)) {
        return;
    }
    char e[96], path[192];
    if (!st->templates) {
        if (chat)
            emit(ctx, R_TEMPLATE_MISSING, chat_off, 0, "kv[\"tokenizer.ggml.tokens\"]",
                 "the vocabulary has the chat-turn token %s (id %llu) but the file has no "
                 "tokenizer.chat_template: readers fall back to a guessed format",
                 quote(e, sizeof e, (const uint8_t *)chat, strlen(chat), 40),
                 (unsigned long long)chat_id);
        return;
    }
    /* GG740: each <|...|> token emitted that no vocabulary token spells */
    for (size_t i = 0; i < st->n; i++) {
        const tc_token *k = &st->tok[i];
        if (k->kind != TKN_BAR || k->in_vocab)
            continue;
        kv_path(path, sizeof path, k->kv);
        char where[64] = "";
        if (k->line)
            snprintf(where, sizeof where, " (template line %llu, column %llu)",
                     (unsigned long long)k->line, (unsigned long long)k->col);
        if (!emit(ctx, R_TEMPLATE_TOKEN_NOT_IN_VOCAB, k->kv->value_offset, k->kv->value_size, path,
                  "the template emits %s%s but no token of the vocabulary is that text: the "
                  "tokenizer splits it into ordinary pieces",
                  quote(e, sizeof e, k->s, k->len, 64), where))
            break;
    }
    /* GG742: BOS in the template and from the tokenizer */
    const gguflint_kv *ab = kv_by_key(ctx, "tokenizer.ggml.add_bos_token");
    bool add_bos = ab && ab->type == VT_BOOL && ab->u == 1;
    const tc_token *bos_tok = text[0].ptr ? find(st, text[0].ptr, (size_t)text[0].len) : NULL;
    if (add_bos && (st->bos_var_kv || bos_tok)) {
        const gguflint_kv *kv = st->bos_var_kv ? st->bos_var_kv : bos_tok->kv;
        kv_path(path, sizeof path, kv);
        emit(ctx, R_TEMPLATE_DOUBLE_BOS, kv->value_offset, kv->value_size, path,
             "the template emits the BOS token (%s) and tokenizer.ggml.add_bos_token is true: "
             "a reader that tokenizes the rendered prompt with special tokens starts it with "
             "two BOS tokens",
             st->bos_var_kv ? "{{ bos_token }}"
                            : quote(e, sizeof e, text[0].ptr, (size_t)text[0].len, 40));
    }
    /* GG743: no template closes a turn */
    bool closes = st->eos_var;
    for (int k = 1; k < 4 && !closes; k++)
        closes = text[k].ptr && find(st, text[k].ptr, (size_t)text[k].len);
    for (size_t i = 0; i < st->n && !closes; i++)
        closes = in_table(eog_texts, sizeof eog_texts / sizeof eog_texts[0], st->tok[i].s,
                          st->tok[i].len);
    if (!closes) {
        kv_path(path, sizeof path, st->first_kv);
        emit(ctx, R_TEMPLATE_NO_EOS, st->first_kv->value_offset, st->first_kv->value_size, path,
             "no chat template of the file emits eos_token, the EOS, EOT or EOM token%s%s or "
             "any token llama.cpp ends generation on: turns are never closed",
             text[1].ptr ? " " : "",
             text[1].ptr ? quote(e, sizeof e, text[1].ptr, (size_t)text[1].len, 40) : "");
    }
}
