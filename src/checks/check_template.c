/* check_template.c - chat-template injection (GG72x-GG73x). Every KV named
 * tokenizer.chat_template or tokenizer.chat_template.* is analysed whatever
 * its listing in tokenizer.chat_templates: a string value, or an array of
 * strings whose elements are concatenated (as a scanner that skips arrays
 * would be bypassed). The analysis (src/template/) lexes the Jinja text and
 * folds constants without ever rendering it; each kind of indicator becomes
 * one finding per KV, at the value (for arrays: the element where the first
 * occurrence starts), naming the indicator and quoting the matched text.
 * Any other string value holding "{{" or "{%" gets one note (GG732) that
 * names what the same analysis finds in it. */
#include "checks/checks.h"
#include "common/alloc.h"
#include "checks/template_conform.h"

#include "model/model.h"
#include "template/template.h"
#include "format/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int rule_of[TH__COUNT] = {
    [TH_GADGET] = R_TEMPLATE_SSTI_GADGET,
    [TH_EXEC] = R_TEMPLATE_CODE_EXEC,
    [TH_OBFUSCATION] = R_TEMPLATE_OBFUSCATION,
    [TH_BLOB] = R_TEMPLATE_ENCODED_BLOB,
    [TH_OVERSIZE] = R_TEMPLATE_OVERSIZE,
    [TH_URL] = R_TEMPLATE_URL_OR_IP,
    [TH_INSTRUCTION] = R_TEMPLATE_HIDDEN_INSTRUCTION,
    [TH_TRIGGER] = R_TEMPLATE_CONTENT_TRIGGER,
    [TH_INVISIBLE] = R_TEMPLATE_INVISIBLE_CHARS,
    [TH_DOS] = R_TEMPLATE_RENDER_DOS,
    [TH_UTF8] = R_TEMPLATE_NOT_UTF8,
    [TH_SYNTAX] = R_TEMPLATE_SYNTAX,
    [TH_LIMIT] = R_TEMPLATE_ANALYSIS_LIMIT,
    [TH_GATED] = R_TEMPLATE_GATED_INSTRUCTION,
    [TH_ASSEMBLED] = R_TEMPLATE_ASSEMBLED_INSTRUCTION,
    [TH_EXFIL] = R_TEMPLATE_EXFILTRATION,
    [TH_SHELL] = R_TEMPLATE_SHELL_COMMAND,
    [TH_HOMOGLYPH] = R_TEMPLATE_HOMOGLYPHS,
    [TH_CONCEAL] = R_TEMPLATE_CONCEALMENT,
};

static bool is_template_key(gguflint_view k)
{
    return view_eq(k, "tokenizer.chat_template") || view_starts(k, "tokenizer.chat_template.");
}

/* Analyse a string KV or a string-array KV; false for other types. */
static bool analyse(const gguflint_ctx *ctx, tpl *t, const gguflint_kv *kv)
{
    if (kv->type == VT_STRING) {
        tpl_whole(t, kv->str.ptr, kv->str.len);
        return true;
    }
    if (kv->type != VT_ARRAY || kv->elem_type != VT_STRING)
        return false;
    arr_iter it;
    gguflint_view el;
    uint64_t off, total = 0;
    if (!arr_iter_init(ctx, kv, &it))
        return false;
    while (arr_next(&it, &el, &off))
        total += el.len;
    if (!arr_iter_init(ctx, kv, &it))
        return false;
    tpl_begin(t, total);
    while (arr_next(&it, &el, &off))
        tpl_feed(t, el.ptr, el.len);
    tpl_end(t);
    return true;
}

/* Where a hit is reported: the value, or for an array the element that
 * holds the hit's byte (the last one starting at or before it: an empty
 * element fed last at that byte counts). */
typedef struct place {
    int kind;
    uint64_t loc, off, len, elem;
} place;

static int place_cmp(const void *a, const void *b)
{
    const place *x = a, *y = b;
    return x->loc < y->loc ? -1 : x->loc > y->loc;
}

/* One pass over the elements for all the hits (sorted by byte). */
static void place_hits(const gguflint_ctx *ctx, const gguflint_kv *kv, place *pl, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pl[i].off = kv->value_offset;
        pl[i].len = kv->value_size;
        pl[i].elem = 0;
    }
    arr_iter it;
    if (kv->type != VT_ARRAY || n == 0 || !arr_iter_init(ctx, kv, &it))
        return;
    qsort(pl, n, sizeof *pl, place_cmp);
    gguflint_view el;
    uint64_t off, start = 0;
    size_t first = 0; /* hits before it have their element */
    while (first < n && arr_next(&it, &el, &off)) {
        while (first < n && pl[first].loc < start)
            first++;
        for (size_t i = first; i < n; i++) { /* every hit at or after this start, for now */
            pl[i].off = off;
            pl[i].len = it.w + el.len;
            pl[i].elem = it.index - 1;
        }
        start += el.len;
    }
}

static void report(gguflint_ctx *ctx, const tpl *t, const gguflint_kv *kv)
{
    char path[192];
    kv_path(path, sizeof path, kv);
    bool array = kv->type == VT_ARRAY;
    place pl[TH__COUNT];
    size_t n = 0;
    for (int k = 0; k < TH__COUNT; k++)
        if (tpl_hit_get(t, k)->have)
            pl[n++] = (place){.kind = k, .loc = tpl_hit_get(t, k)->loc};
    place_hits(ctx, kv, pl, n);
    /* in the order of the kinds, as always */
    for (int k = 0; k < TH__COUNT; k++) {
        const tpl_hit *h = tpl_hit_get(t, k);
        if (!h->have)
            continue;
        const place *p = NULL;
        for (size_t i = 0; i < n && !p; i++)
            if (pl[i].kind == k)
                p = &pl[i];
        char more[48] = "", elem[48] = "";
        if (h->more)
            snprintf(more, sizeof more, " (and %llu more)", (unsigned long long)h->more);
        if (array)
            snprintf(elem, sizeof elem, " [array element %llu]", (unsigned long long)p->elem);
        if (!emit(ctx, rule_of[k], p->off, p->len, path, "%s%s%s", h->msg, more, elem))
            return;
    }
}

/* Byte index of the first "{{" or "{%" in s, or -1. */
static int64_t find_tag(gguflint_view s)
{
    const uint8_t *p = s.ptr, *end = s.ptr + s.len;
    while (p < end) {
        const uint8_t *b = memchr(p, '{', (size_t)(end - p));
        if (!b || b + 1 >= end)
            return -1;
        if (b[1] == '{' || b[1] == '%')
            return (int64_t)(b - s.ptr);
        p = b + 1;
    }
    return -1;
}

static void sweep(gguflint_ctx *ctx, tpl *t, const gguflint_kv *kv)
{
    int64_t at = find_tag(kv->str);
    if (at < 0)
        return;
    analyse(ctx, t, kv);
    if (tpl_nomem(t))
        return;
    char path[192];
    kv_path(path, sizeof path, kv);
    static const int worst[] = {TH_GADGET, TH_EXEC, TH_OBFUSCATION};
    const tpl_hit *found = NULL;
    for (size_t i = 0; i < sizeof worst / sizeof worst[0] && !found; i++)
        if (tpl_hit_get(t, worst[i])->have)
            found = tpl_hit_get(t, worst[i]);
    emit(ctx, R_TEMPLATE_IN_OTHER_KEY, kv->value_offset, kv->value_size, path,
         "the value holds Jinja template syntax ('%c%c' at byte %lld) outside the "
         "tokenizer.chat_template keys%s%s",
         '{', kv->str.ptr[at + 1], (long long)at, found ? "; the template analysis finds: " : "",
         found ? found->msg : "");
}

void check_template(gguflint_ctx *ctx)
{
    tpl *t = NULL;
    tc_state *tc = gl_malloc(sizeof *tc);
    if (!tc) {
        ctx->status = GGUFLINT_E_NOMEM;
        return;
    }
    tc_init(tc);
    for (size_t i = 0; i < ctx->n_kvs && ctx->status == GGUFLINT_OK; i++) {
        const gguflint_kv *kv = &ctx->kvs[i];
        bool tk = is_template_key(kv->key);
        if (!tk && kv->type != VT_STRING)
            continue;
        if (!tk && find_tag(kv->str) < 0)
            continue;
        if (!t && !(t = tpl_acquire())) {
            ctx->status = GGUFLINT_E_NOMEM;
            gl_free(tc);
            return;
        }
        if (tk) {
            if (analyse(ctx, t, kv) && !tpl_nomem(t)) {
                report(ctx, t, kv);
                tc_collect(tc, t, kv);
            }
        } else {
            sweep(ctx, t, kv);
        }
        if (tpl_nomem(t))
            ctx->status = GGUFLINT_E_NOMEM;
    }
    tpl_release(t);
    if (ctx->status == GGUFLINT_OK)
        tc_finish(ctx, tc);
    gl_free(tc);
}
