/* fuzz_template.c - the chat-template analysis (src/template/, check_template.c)
 * on raw template text. The input is wrapped in a minimal GGUF written here
 * by hand (magic, version 3, no tensors, one KV tokenizer.chat_template of
 * type string) and linted; then the same bytes are linted again as an
 * array-typed template split into chunks of 1..16 bytes. Each form is
 * linted twice: with the analyser's fast paths on the analyser this thread
 * keeps between files (tpl_acquire: whatever the inputs before left in it),
 * and in its reference mode on a fresh analyser (tpl_force_reference: the
 * plain byte loops; tpl_force_fresh: tpl_new's state). Checks: a clean status,
 * findings inside the file with real rules and escaped messages, the same
 * findings (rule, offset, length, message) from both modes of each form,
 * and the same template rules (GG72x/GG73x) reported for both forms - the
 * analysis must not depend on where array elements split the text. */
#include "fuzz_common.h"

#include "template/template.h"

#define KEY "tokenizer.chat_template"
#define KEY_LEN (sizeof KEY - 1)

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

/* The GGUF header and the key; *p points past them. */
static uint8_t *header(uint8_t *p, uint32_t type)
{
    memcpy(p, "GGUF", 4);
    p = put_u32(p + 4, 3);
    p = put_u64(p, 0); /* tensors */
    p = put_u64(p, 1); /* KVs */
    p = put_u64(p, KEY_LEN);
    memcpy(p, KEY, KEY_LEN);
    return put_u32(p + KEY_LEN, type);
}

/* What a lint found, for the comparison of the two modes: the template
 * rules reported (a bitmap over rule indexes) and a digest of every
 * finding (rule, offset, length, message) in order. */
typedef struct outcome {
    uint8_t *rules;
    uint64_t digest;
    size_t count;
} outcome;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001B3ull; /* FNV-1a */
    return h;
}

/* Lint a buffer with the template analyser's fast paths or in its
 * reference mode; fills *o and checks the per-finding invariants. */
static void lint(const uint8_t *buf, size_t len, int reference, outcome *o)
{
    memset(o->rules, 0, gguflint_rule_count());
    o->digest = 0xCBF29CE484222325ull;
    o->count = 0;
    tpl_force_reference(reference);
    tpl_force_fresh(reference);
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx) {
        tpl_force_reference(0);
        tpl_force_fresh(0);
        return;
    }
    fuzz_check_status(gguflint_set_buffer(ctx, buf, len));
    int st = gguflint_run(ctx);
    fuzz_check_status(st);
    o->digest = mix(o->digest, &st, sizeof st);
    if (st == GGUFLINT_OK) {
        o->count = gguflint_finding_count(ctx);
        for (size_t i = 0; i < gguflint_finding_count(ctx); i++) {
            const gguflint_finding *f = gguflint_finding_get(ctx, i);
            const gguflint_rule_info *r = gguflint_rule((size_t)f->rule);
            FUZZ_ASSERT(r != NULL);
            FUZZ_ASSERT(f->offset <= len && f->length <= len - f->offset);
            FUZZ_ASSERT(f->message && f->path);
            for (const char *m = f->message; *m; m++)
                FUZZ_ASSERT((unsigned char)*m >= 0x20 && (unsigned char)*m != 0x7f);
            if (strncmp(r->id, "GG72", 4) == 0 || strncmp(r->id, "GG73", 4) == 0)
                o->rules[f->rule] = 1;
            uint64_t fields[3] = {(uint64_t)f->rule, f->offset, f->length};
            o->digest = mix(o->digest, fields, sizeof fields);
            o->digest = mix(o->digest, f->message, strlen(f->message) + 1);
        }
    }
    gguflint_free(ctx);
    tpl_force_reference(0);
    tpl_force_fresh(0);
}

/* Both modes on one buffer: the same findings and messages (an abort
 * otherwise, so that the fuzzer reports the input); the fast mode's
 * outcome is left in *fast. */
static void lint_both(const uint8_t *buf, size_t len, outcome *fast, outcome *ref)
{
    lint(buf, len, 0, fast);
    lint(buf, len, 1, ref);
    FUZZ_ASSERT(fast->count == ref->count);
    FUZZ_ASSERT(fast->digest == ref->digest);
    FUZZ_ASSERT(memcmp(fast->rules, ref->rules, gguflint_rule_count()) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    /* as a string */
    size_t len = 24 + 8 + KEY_LEN + 4 + 8 + size;
    uint8_t *buf = malloc(len);
    /* one byte per rule index: the rule count is not a compile-time constant */
    outcome as_string = {calloc(gguflint_rule_count(), 1), 0, 0};
    outcome as_array = {calloc(gguflint_rule_count(), 1), 0, 0};
    outcome ref = {calloc(gguflint_rule_count(), 1), 0, 0};
    if (!buf || !as_string.rules || !as_array.rules || !ref.rules)
        goto done;
    uint8_t *p = header(buf, 8);
    p = put_u64(p, size);
    if (size)
        memcpy(p, data, size);
    lint_both(buf, len, &as_string, &ref);
    free(buf);

    /* as an array of strings, split every `chunk` bytes */
    size_t chunk = 1 + size % 16, count = (size + chunk - 1) / chunk;
    len = 24 + 8 + KEY_LEN + 4 + 4 + 8 + count * 8 + size;
    buf = malloc(len);
    if (!buf)
        goto done;
    p = header(buf, 9);
    p = put_u32(p, 8);
    p = put_u64(p, count);
    for (size_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        p = put_u64(p, n);
        memcpy(p, data + off, n);
        p += n;
    }
    FUZZ_ASSERT((size_t)(p - buf) == len);
    lint_both(buf, len, &as_array, &ref);
    FUZZ_ASSERT(memcmp(as_string.rules, as_array.rules, gguflint_rule_count()) == 0);
done:
    free(buf);
    free(as_string.rules);
    free(as_array.rules);
    free(ref.rules);
    return 0;
}
