/* fuzz_lora.c - a LoRA adapter against its base model (gguflint_set_base).
 * The input plays both parts: it is linted as an adapter against a fixed
 * tiny llama base, and, when gguflint_base_problem accepts it, serves as the
 * base of a fixed adapter that adapts that base's tensors (and of itself).
 * Every text report is rendered and checked for raw control bytes. Both
 * fixed files are written here, once, as convert_lora_to_gguf.py lays an
 * adapter out. */
#include "fuzz_common.h"

/* A little-endian GGUF v3 writer for the two fixed files. */
typedef struct wbuf {
    uint8_t b[1024];
    size_t n;
} wbuf;

static void put(wbuf *w, const void *p, size_t n)
{
    if (w->n + n <= sizeof w->b) {
        memcpy(w->b + w->n, p, n);
        w->n += n;
    }
}

static void u32(wbuf *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(w, b, 4);
}

static void u64(wbuf *w, uint64_t v)
{
    u32(w, (uint32_t)v);
    u32(w, (uint32_t)(v >> 32));
}

static void str(wbuf *w, const char *s)
{
    u64(w, strlen(s));
    put(w, s, strlen(s));
}

static void kv_str(wbuf *w, const char *k, const char *v)
{
    str(w, k);
    u32(w, 8);
    str(w, v);
}

static void tensor(wbuf *w, const char *name, uint64_t ne0, uint64_t ne1, uint64_t off)
{
    str(w, name);
    u32(w, 2);
    u64(w, ne0);
    u64(w, ne1);
    u32(w, 0); /* f32 */
    u64(w, off);
}

/* The base: blk.0.attn_q.weight [32, 32] and token_embd.weight [32, 16]
 * (metadata only: a base is never read past its tensor infos). The
 * adapter: both adapted, rank 8. */
static void build(wbuf *base, wbuf *ad)
{
    put(base, "GGUF", 4);
    u32(base, 3);
    u64(base, 2);
    u64(base, 1);
    kv_str(base, "general.architecture", "llama");
    tensor(base, "blk.0.attn_q.weight", 32, 32, 0);
    tensor(base, "token_embd.weight", 32, 16, 4096);

    put(ad, "GGUF", 4);
    u32(ad, 3);
    u64(ad, 4);
    u64(ad, 4);
    kv_str(ad, "general.architecture", "llama");
    kv_str(ad, "general.type", "adapter");
    kv_str(ad, "adapter.type", "lora");
    str(ad, "adapter.lora.alpha");
    u32(ad, 6);
    u32(ad, 0x41800000u); /* 16.0f */
    tensor(ad, "blk.0.attn_q.weight.lora_a", 32, 8, 0);
    tensor(ad, "blk.0.attn_q.weight.lora_b", 8, 32, 1024);
    tensor(ad, "token_embd.weight.lora_a", 8, 16, 2048);
    tensor(ad, "token_embd.weight.lora_b", 8, 32, 2560);
    while (ad->n % 32)
        put(ad, "", 1);
    static const uint8_t zeros[256];
    for (int i = 0; i < 14; i++)
        put(ad, zeros, sizeof zeros); /* 3584 bytes of data, in bounds */
}

static gguflint_ctx *run_base(const uint8_t *data, size_t size)
{
    gguflint_options *opt = gguflint_options_new();
    if (!opt)
        return NULL;
    gguflint_options_clear(opt);
    gguflint_ctx *ctx = gguflint_new(opt);
    gguflint_options_free(opt);
    if (!ctx)
        return NULL;
    fuzz_check_status(gguflint_set_buffer(ctx, data, size));
    fuzz_check_status(gguflint_run(ctx));
    return ctx;
}

static void run_on(const gguflint_ctx *base, const uint8_t *data, size_t size)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        return;
    FUZZ_ASSERT(gguflint_set_base(ctx, base) == GGUFLINT_OK);
    fuzz_check_status(gguflint_set_buffer(ctx, data, size));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    fuzz_sink sink = {0, 1};
    gguflint_report *r = gguflint_report_new(GGUFLINT_FORMAT_TEXT, fuzz_write, &sink);
    if (r) {
        gguflint_report_file(r, "adapter.gguf", ctx, st);
        gguflint_report_end(r, true);
        gguflint_report_free(r);
    }
    gguflint_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static wbuf base_file, adapter_file;
    if (!base_file.n)
        build(&base_file, &adapter_file);
    gguflint_ctx *base = run_base(base_file.b, base_file.n);
    if (!base)
        return 0;
    FUZZ_ASSERT(gguflint_base_problem(base) == NULL);
    run_on(base, data, size); /* the input as an adapter */
    gguflint_free(base);

    gguflint_ctx *in = run_base(data, size); /* the input as a base */
    if (!in)
        return 0;
    if (gguflint_base_problem(in) == NULL) {
        run_on(in, adapter_file.b, adapter_file.n);
        run_on(in, data, size);
    }
    gguflint_free(in);
    return 0;
}
