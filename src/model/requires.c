/* requires.c - the oldest llama.cpp a file needs (model/requires.h): its
 * architecture, tensor types, tokenizer model, pre-tokenizer, projector
 * types and the keys its loader reads looked up in the history table
 * (data/llama/history.def). */
#include "model/requires.h"

#include "common/escape.h"
#include "format/types.h"
#include "model/arch_tables.h"
#include "model/model.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* clang-format off */
#define HIST_STAMP(c, d, b)
#define HIST(k, n, c, d, b) {k, n, c, d, b},
static const hist_row hist_rows[] = {
#include "../../data/llama/history.def"
};
#undef HIST
#undef HIST_STAMP
#define HIST(k, n, c, d, b)
#define HIST_STAMP(c, d, b) static const char stamp_commit[] = c, stamp_date[] = d, stamp_build[] = b;
#include "../../data/llama/history.def"
#undef HIST
#undef HIST_STAMP
/* clang-format on */

const char *hist_stamp_commit(void)
{
    return stamp_commit;
}

const char *hist_stamp_date(void)
{
    return stamp_date;
}

const char *hist_stamp_build(void)
{
    return stamp_build;
}

const char *hist_kind_name(hist_kind kind)
{
    static const char *const names[] = {"architecture",   "tensor type",     "pre-tokenizer",
                                        "projector type", "tokenizer model", "key"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const hist_row *hist_find(hist_kind kind, const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < sizeof hist_rows / sizeof hist_rows[0]; i++) {
        const hist_row *r = &hist_rows[i];
        if (r->kind != kind || strnlen(r->name, sizeof r->name) != len)
            continue;
        if (kind == H_TYPE ? strncasecmp(r->name, (const char *)name, len) == 0
                           : memcmp(r->name, name, len) == 0)
            return r;
    }
    return NULL;
}

/* The number of the stamp's build ("b10573-14" -> 10573). */
static uint32_t stamp_build_number(void)
{
    uint32_t v = 0;
    for (const char *p = stamp_build + (stamp_build[0] == 'b'); *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (uint32_t)(*p - '0');
    return v;
}

uint32_t hist_build_key(const hist_row *r)
{
    return r->build ? r->build : stamp_build_number() + 1;
}

static bool row_newer(const hist_row *a, const hist_row *b)
{
    uint32_t ka = hist_build_key(a), kb = hist_build_key(b);
    if (ka != kb)
        return ka > kb;
    return strcmp(a->date, b->date) > 0;
}

/* A need named by a KV's string (kv) or by a tensor's type (t). */
static void add_need(llama_req *q, hist_kind kind, const gguflint_kv *kv, gguflint_view name,
                     const gguflint_tensor *t)
{
    if (q->n >= REQ_MAX_NEEDS)
        return;
    llama_need *n = &q->need[q->n++];
    n->kind = (uint8_t)kind;
    n->kv = kv;
    n->t = t;
    n->name = name;
    n->type = t ? t->type : 0;
    n->offset = t ? t->info_offset : kv->value_offset;
    n->length = t ? 0 : kv->value_size;
    uint32_t type = n->type;
    if (kind == H_TYPE) {
        const ggml_type_info *ti = gt_info(type);
        n->row = ti->status == GT_UNKNOWN
                     ? NULL
                     : hist_find(H_TYPE, (const uint8_t *)ti->name, strlen(ti->name));
    } else {
        n->row = hist_find(kind, name.ptr, (size_t)name.len);
    }
    if (n->row && (!q->newest || row_newer(n->row, q->newest->row)))
        q->newest = n;
}

typedef struct key_alt {
    const char *suffix, *older;
} key_alt;

/* clang-format off */
#define KEY_ALT(suffix, older, where) {suffix, older},
static const key_alt key_alts[] = {
#include "../../data/llama/key_alternatives.def"
};
#undef KEY_ALT
/* clang-format on */

/* Whether the file gives the key's number by an older key
 * (data/llama/key_alternatives.def). */
static bool key_has_older_source(const gguflint_ctx *ctx, const char *suffix)
{
    for (size_t i = 0; i < sizeof key_alts / sizeof key_alts[0]; i++)
        if (strcmp(key_alts[i].suffix, suffix) == 0 && kv_by_key(ctx, key_alts[i].older))
            return true;
    return false;
}

/* The keys of the architecture's loader (its own rows, then those every
 * loader reads) that the file has and that llama.cpp first read after the
 * architecture itself: a build between the two loads the file without
 * them. A key that came with its architecture is no need of its own, nor
 * one whose number the file also gives by an older key. */
static void add_arch_key_needs(const gguflint_ctx *ctx, llama_req *q, gguflint_view arch,
                               const hist_row *arch_row)
{
    const arch_info *ai = arch_find(arch.ptr, (size_t)arch.len);
    if (!ai || !arch_row)
        return;
    size_t added = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t first = pass ? arch_common_first : ai->key_first;
        size_t count = pass ? arch_common_count : ai->key_count;
        for (size_t k = first; k < first + count && k < arch_key_count; k++) {
            const char *suffix = arch_str(arch_keys[k].suffix);
            const hist_row *r = hist_find(H_KEY, (const uint8_t *)suffix, strlen(suffix));
            if (!r || !row_newer(r, arch_row) || key_has_older_source(ctx, suffix))
                continue;
            const gguflint_kv *kv = suffix[0] == '=' ? kv_by_key(ctx, suffix + 1)
                                                     : kv_by_arch_key(ctx, (const char *)arch.ptr,
                                                                      (size_t)arch.len, suffix);
            if (!kv || added >= REQ_MAX_KEYS)
                continue;
            bool dup = false; /* a loader may read one key twice */
            for (size_t i = 0; i < q->n && !dup; i++)
                dup = q->need[i].kv == kv;
            if (dup || q->n >= REQ_MAX_NEEDS)
                continue;
            llama_need *n = &q->need[q->n++];
            *n = (llama_need){.kind = H_KEY,
                              .name = kv->key,
                              .offset = kv->offset,
                              .length = kv->value_offset - kv->offset + kv->value_size,
                              .kv = kv,
                              .row = r};
            added++;
            if (!q->newest || row_newer(r, q->newest->row))
                q->newest = n;
        }
    }
}

static void add_key_need(const gguflint_ctx *ctx, llama_req *q, hist_kind kind, const char *key)
{
    const gguflint_kv *kv = kv_by_key(ctx, key);
    gguflint_view v;
    if (kv && kv_str(kv, &v))
        add_need(q, kind, kv, v, NULL);
}

void llama_requires(const gguflint_ctx *ctx, llama_req *q)
{
    q->n = 0;
    q->newest = NULL;
    if (!ctx->hdr.is_gguf)
        return;
    const gguflint_kv *a = kv_by_key(ctx, "general.architecture");
    gguflint_view arch = {NULL, 0};
    bool clip = false;
    if (a && kv_str(a, &arch)) {
        /* a projector file is read by the multimodal loader: its projector
         * types are its needs, not the text architecture "clip" */
        clip = view_eq(arch, "clip");
        if (!clip)
            add_need(q, H_ARCH, a, arch, NULL);
    }
    const hist_row *arch_row = q->n ? q->need[0].row : NULL;
    /* each tensor type once, at its first tensor; ids past the type table
     * as one need (the first of them) */
    uint64_t seen[(GGML_TYPE_TABLE_COUNT + 64) / 64] = {0};
    bool other = false;
    for (size_t i = 0; i < ctx->n_tensors; i++) {
        uint32_t t = ctx->tensors[i].type;
        if (t < GGML_TYPE_TABLE_COUNT) {
            if (seen[t >> 6] & (1ull << (t & 63)))
                continue;
            seen[t >> 6] |= 1ull << (t & 63);
        } else if (other) {
            continue;
        } else {
            other = true;
        }
        add_need(q, H_TYPE, NULL, (gguflint_view){NULL, 0}, &ctx->tensors[i]);
    }
    add_key_need(ctx, q, H_TOK, "tokenizer.ggml.model");
    add_key_need(ctx, q, H_PRE, "tokenizer.ggml.pre");
    if (!clip && arch.ptr)
        add_arch_key_needs(ctx, q, arch, arch_row);
    if (clip) {
        add_key_need(ctx, q, H_PROJ, "clip.projector_type");
        add_key_need(ctx, q, H_PROJ, "clip.vision.projector_type");
        add_key_need(ctx, q, H_PROJ, "clip.audio.projector_type");
    }
}

const char *llama_need_name(const llama_need *n, char *buf, size_t cap)
{
    if (n->kind == H_TYPE) {
        const ggml_type_info *ti = gt_info(n->type);
        if (ti->status == GT_UNKNOWN)
            snprintf(buf, cap, "type %u", n->type);
        else
            snprintf(buf, cap, "%s", ti->name);
        return buf;
    }
    esc_fixed(buf, cap, n->name.ptr, n->name.len, 64);
    return buf;
}

bool llama_pin(const gguflint_ctx *ctx, uint32_t *build, const char **date)
{
    *build = ctx->opt.llama_build;
    *date = ctx->opt.llama_date;
    return *build || **date;
}

int llama_need_newer(const llama_need *n, uint32_t build, const char *date)
{
    if (!n->row) {
        /* unknown to the reference tree: newer than any pin up to its stamp */
        if (build)
            return build <= stamp_build_number() ? 1 : -1;
        return strcmp(date, stamp_date) <= 0 ? 1 : -1;
    }
    if (build)
        return hist_build_key(n->row) > build;
    return strcmp(n->row->date, date) > 0;
}
