/* report_estimate.c - gguflint_estimate: the memory estimate of
 * model/estimate.h as text or JSON. */
#include "common/alloc.h"
#include "gguflint_llama.h"
#include "model/estimate.h"
#include "report/out.h"

#include <inttypes.h>
#include <stdlib.h>

static const char *const note_text[] = {
    "architecture unknown to the tables: weights only",
    "sliding window present but its layer layout is not modelled: full cache on every layer",
    "a layer's head counts or sizes are unknown: counted as 0",
    "block_count above the layers that can be present: layers capped",
    "a cache row is not a whole number of the cache type's blocks (llama.cpp refuses it)",
    ("a recurrent state row exceeds 2^32 - 1 values: llama.cpp's 32-bit size wraps, its "
     "allocation differs"),
    "attention.recurrent_layers is not read: recurrent layers from the architecture's formula",
};

static const char *kind_name(uint8_t k)
{
    static const char *const n[] = {"none", "attention", "swa", "recurrent", "attention+recurrent"};
    return k < 5 ? n[k] : "?";
}

/* A label and a size in bytes, with the size in MiB. */
static void mib(const out *o, const char *label, uint64_t b)
{
    out_putf(o, "%s%" PRIu64 " bytes (%.2f MiB)", label, b, (double)b / 1048576.0);
}

static void put_text(const out *o, const estimate *e)
{
    out_putf(o,
             "context %" PRIu64 " cells (asked %" PRIu64 "), batch %" PRIu64 ", ubatch %" PRIu64
             ", cache K %s, V %s, memory %s%s\n",
             e->n_ctx, e->n_ctx_req, e->n_batch, e->n_ubatch, gt_info(e->type_k)->name,
             gt_info(e->type_v)->name, e->memory, e->mla ? " (MLA: no V cache)" : "");
    mib(o, "weights (CPU): ", e->weights);
    out_putf(o, " in %" PRIu64 " tensors\n", e->tensors);
    for (uint32_t t = 0; t <= GGML_TYPE_TABLE_COUNT; t++)
        if (e->count_by_type[t]) {
            out_putf(o, "  %-8s %6" PRIu64 " tensors  ",
                     t < GGML_TYPE_TABLE_COUNT ? gt_info(t)->name : "unknown", e->count_by_type[t]);
            mib(o, "", e->by_type[t]);
            out_put(o, "\n");
        }
    uint32_t n_attn = 0, n_swa = 0, n_rs = 0;
    for (uint32_t il = 0; il < e->n_layer; il++) {
        n_attn += e->layer[il].kind == EST_ATTN;
        n_swa += e->layer[il].kind == EST_SWA;
        n_attn += e->layer[il].kind == EST_BOTH;
        n_rs += e->layer[il].kind == EST_RS || e->layer[il].kind == EST_BOTH;
    }
    mib(o, "KV cache: K ", e->kv_k);
    mib(o, ", V ", e->kv_v);
    out_putf(o, "; %u full layer%s, %u sliding-window layer%s", n_attn, n_attn == 1 ? "" : "s",
             n_swa, n_swa == 1 ? "" : "s");
    if (n_swa)
        out_putf(o, " (window %" PRIu64 ")", e->n_swa);
    out_put(o, "\n");
    if (n_rs) {
        mib(o, "recurrent state: R ", e->rs_r);
        mib(o, ", S ", e->rs_s);
        out_putf(o, "; %u layer%s\n", n_rs, n_rs == 1 ? "" : "s");
    }
    mib(o, "output buffer: ", e->output);
    mib(o, "\ncompute buffer (rough): ", e->compute);
    mib(o, "\ntotal: ", e->total);
    out_put(o, "\n");
    for (size_t i = 0; i < sizeof note_text / sizeof note_text[0]; i++)
        if (e->notes & (1u << i))
            out_putf(o, "note: %s\n", note_text[i]);
    if (e->saturated)
        out_put(o, "note: a size overflowed 64 bits and was saturated\n");
}

static void put_json(const out *o, const estimate *e)
{
    out_putf(o,
             "{\"n_ctx\":%" PRIu64 ",\"n_ctx_requested\":%" PRIu64 ",\"n_batch\":%" PRIu64
             ",\"n_ubatch\":%" PRIu64 ",\"cache_type_k\":\"%s\",\"cache_type_v\":\"%s\","
             "\"memory\":\"%s\",\"mla\":%s,\"n_swa\":%" PRIu64,
             e->n_ctx, e->n_ctx_req, e->n_batch, e->n_ubatch, gt_info(e->type_k)->name,
             gt_info(e->type_v)->name, e->memory, e->mla ? "true" : "false", e->n_swa);
    out_putf(o,
             ",\"weights\":{\"bytes\":%" PRIu64 ",\"tensors\":%" PRIu64
             ",\"by_buffer\":{\"CPU\":%" PRIu64 "},\"by_type\":{",
             e->weights, e->tensors, e->weights);
    bool first = true;
    for (uint32_t t = 0; t <= GGML_TYPE_TABLE_COUNT; t++)
        if (e->count_by_type[t]) {
            out_putf(o, "%s\"%s\":{\"tensors\":%" PRIu64 ",\"bytes\":%" PRIu64 "}",
                     first ? "" : ",", t < GGML_TYPE_TABLE_COUNT ? gt_info(t)->name : "unknown",
                     e->count_by_type[t], e->by_type[t]);
            first = false;
        }
    out_putf(o,
             "}},\"kv_cache\":{\"k_bytes\":%" PRIu64 ",\"v_bytes\":%" PRIu64 ",\"bytes\":%" PRIu64
             "},\"recurrent\":{\"r_bytes\":%" PRIu64 ",\"s_bytes\":%" PRIu64 ",\"bytes\":%" PRIu64
             "},\"output_bytes\":%" PRIu64 ",\"compute_bytes\":%" PRIu64 ",\"total_bytes\":%" PRIu64
             ",\"layers\":[",
             e->kv_k, e->kv_v, e->kv_k + e->kv_v < e->kv_k ? UINT64_MAX : e->kv_k + e->kv_v,
             e->rs_r, e->rs_s, e->rs_r + e->rs_s < e->rs_r ? UINT64_MAX : e->rs_r + e->rs_s,
             e->output, e->compute, e->total);
    for (uint32_t il = 0; il < e->n_layer; il++) {
        const est_layer *L = &e->layer[il];
        out_putf(o,
                 "%s{\"kind\":\"%s\",\"cells\":%" PRIu64 ",\"k_bytes\":%" PRIu64
                 ",\"v_bytes\":%" PRIu64 ",\"r_bytes\":%" PRIu64 ",\"s_bytes\":%" PRIu64 "}",
                 il ? "," : "", kind_name(L->kind), L->cells, L->k, L->v, L->r, L->s);
    }
    out_put(o, "],\"notes\":[");
    first = true;
    for (size_t i = 0; i < sizeof note_text / sizeof note_text[0]; i++)
        if (e->notes & (1u << i)) {
            out_putf(o, "%s\"%s\"", first ? "" : ",", note_text[i]);
            first = false;
        }
    out_putf(o, "],\"saturated\":%s}", e->saturated ? "true" : "false");
}

int gguflint_estimate(gguflint_ctx *ctx, uint64_t n_ctx, uint64_t n_batch, uint64_t n_ubatch,
                      uint32_t type_k, uint32_t type_v, gguflint_format fmt, gguflint_write_fn w,
                      void *user)
{
    if (!ctx || !w || n_ctx == 0 || (fmt != GGUFLINT_FORMAT_TEXT && fmt != GGUFLINT_FORMAT_JSON))
        return GGUFLINT_E_ARG;
    if (gt_info(type_k)->status != GT_VALID || gt_info(type_v)->status != GT_VALID)
        return GGUFLINT_E_ARG;
    const gguflint_header *h = gguflint_get_header(ctx);
    if (!h || !h->is_gguf)
        return GGUFLINT_E_ARG;
    arch_env *env = gl_malloc(sizeof *env);
    estimate *e = gl_malloc(sizeof *e);
    if (!env || !e) {
        gl_free(env);
        gl_free(e);
        return GGUFLINT_E_NOMEM;
    }
    estimate_run(ctx, env, e, n_ctx, n_batch, n_ubatch, type_k, type_v);
    out o = {w, user};
    if (fmt == GGUFLINT_FORMAT_JSON)
        put_json(&o, e);
    else
        put_text(&o, e);
    gl_free(env);
    gl_free(e);
    return GGUFLINT_OK;
}
