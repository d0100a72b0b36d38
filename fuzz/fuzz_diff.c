/* fuzz_diff.c - `gguflint diff` (src/cli/diff.c, linediff.c and the
 * writers) on two hostile files cut from one input: A is the bytes before
 * the second "GGUF" magic and B the rest (the seeds in corpus/diffs/ are
 * two files end to end); an input with one magic is compared with itself
 * with one byte changed (at a position its last byte picks), so every GGUF
 * seed makes a pair that differs somewhere. Every tensor gets a made-up
 * digest (its offset), so the data comparison runs too. Then the line diff
 * runs on the two inputs' raw bytes as texts. Asserts: the comparison
 * succeeds (memory aside), "same" holds exactly when nothing is listed,
 * a file compared with itself is the same, the text output has no raw
 * control byte, and the line diff's edits are within the texts. */
#include "fuzz_common.h"

#include "diff.h"
#include "linediff.h"

#include <stdlib.h>
#include <string.h>

typedef struct one {
    gguflint_ctx *ctx;
    char *sha; /* 65 bytes per tensor */
    const char *path;
} one;

static bool open_one(one *o, const uint8_t *p, size_t n, const char *path)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->ctx = gguflint_new(NULL);
    if (!o->ctx)
        return false;
    if (gguflint_set_buffer(o->ctx, p, n) != GGUFLINT_OK)
        return false;
    int st = gguflint_run(o->ctx);
    FUZZ_ASSERT(st != GGUFLINT_E_INTERNAL);
    if (st != GGUFLINT_OK)
        return false;
    size_t t = gguflint_tensor_count(o->ctx);
    o->sha = malloc((t ? t : 1) * 65);
    if (!o->sha)
        return false;
    for (size_t i = 0; i < t; i++)
        snprintf(o->sha + 65 * i, 65, "%064llx",
                 (unsigned long long)gguflint_tensor_get(o->ctx, i)->offset);
    return true;
}

static void close_one(one *o)
{
    gguflint_free(o->ctx);
    free(o->sha);
}

static void compare(one *a, one *b, bool self)
{
    const char *sa = a->sha, *sb = b->sha;
    diff_side x = {&a->ctx, &a->path, 1, &sa};
    diff_side y = {&b->ctx, &b->path, 1, &sb};
    diff_result r;
    if (diff_run(&x, &y, &r)) {
        FUZZ_ASSERT(diff_any(&r) == (r.n_header || r.n_keys || r.n_tensors));
        FUZZ_ASSERT(r.keys_added + r.keys_removed + r.keys_changed == r.n_keys);
        FUZZ_ASSERT(r.tensors_added + r.tensors_removed + r.tensors_changed == r.n_tensors);
        FUZZ_ASSERT(!self || !diff_any(&r));
        fuzz_sink text = {0, 1}, json = {0, 0};
        diff_write_text(&x, &y, &r, fuzz_write, &text);
        diff_write_json(&x, &y, &r, fuzz_write, &json);
        FUZZ_ASSERT(text.bytes > 0 && json.bytes > 0);
    } else {
        FUZZ_ASSERT(r.nomem || !self);
    }
    diff_free(&r);
}

static const uint8_t *second_magic(const uint8_t *p, size_t n)
{
    for (size_t i = 4; i + 4 <= n; i++)
        if (memcmp(p + i, "GGUF", 4) == 0)
            return p + i;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *cut = second_magic(data, size);
    size_t na = cut ? (size_t)(cut - data) : size, nb = size - (cut ? na : 0);
    uint8_t *b = malloc(nb ? nb : 1);
    if (!b)
        return 0;
    if (cut) {
        memcpy(b, cut, nb);
    } else if (size) {
        memcpy(b, data, size);
        b[data[size - 1] * (size - 1) / 255] ^= 0x01;
    }
    one x, y;
    if (open_one(&x, data, na, "a.gguf")) {
        compare(&x, &x, true);
        if (open_one(&y, b, nb, "b.gguf"))
            compare(&x, &y, false);
        close_one(&y);
    }
    close_one(&x); /* open_one always sets both members, even when it fails */
    line_diff d;
    if (line_diff_run(data, na, b, nb, &d)) {
        FUZZ_ASSERT(d.removed + d.added == d.n);
        for (size_t i = 0; i < d.n; i++) {
            const uint8_t *base = d.ops[i].op == '-' ? data : b;
            size_t len = d.ops[i].op == '-' ? na : nb;
            FUZZ_ASSERT(d.ops[i].text >= base && d.ops[i].text + d.ops[i].len <= base + len);
            FUZZ_ASSERT(d.ops[i].line >= 1 && d.ops[i].line <= len + 1);
        }
        line_diff_free(&d);
    }
    free(b);
    return 0;
}
