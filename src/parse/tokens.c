/* tokens.c - see tokens.h: the record of the tokens array the parse pass
 * fills, and its duplicate index (open addressing, at most two thirds full,
 * keyed multilinear hash: any two different tokens share a slot with
 * probability about 1/capacity, whatever bytes an attacker chose). */
#include "parse/tokens.h"

#include "core/limits.h"

#include <stdlib.h>
#include <string.h>

bool tok_begin(gguflint_ctx *ctx, size_t kv, const uint8_t *base, uint64_t count, bool dups)
{
    tok_free(ctx);
    if (count > DUP_MAX_TOKENS)
        return true; /* not recorded: check_vocab walks the array itself */
    tok_index *t = calloc(1, sizeof *t);
    if (!t)
        return false;
    t->kv = kv;
    t->base = base;
    /* one offset per token the file declares: array_header checked that the
     * bytes present can hold that many, so this is a few bytes per input
     * byte at most */
    t->offs = malloc((count ? count : 1) * sizeof *t->offs);
    if (!t->offs) {
        free(t);
        return false;
    }
    if (dups && count >= 2) {
        size_t cap = 16;
        unsigned shift = 60;
        while (cap < count + count / 2) {
            cap *= 2;
            shift--;
        }
        t->slots = calloc(cap, sizeof *t->slots);
        if (!t->slots) {
            free(t->offs);
            free(t);
            return false;
        }
        t->mask = cap - 1;
        t->shift = shift;
        keyhash_ml_init(&t->ml);
        t->dup_checked = true;
    }
    ctx->tokens = t;
    return true;
}

void tok_end(gguflint_ctx *ctx, bool complete)
{
    tok_index *t = ctx->tokens;
    if (!t)
        return;
    ctx->probes += t->probes;
    free(t->slots);
    t->slots = NULL;
    t->complete = complete && !t->nomem;
    if (!t->complete)
        tok_free(ctx);
}

void tok_free(gguflint_ctx *ctx)
{
    tok_index *t = ctx->tokens;
    if (!t)
        return;
    free(t->slots);
    free(t->offs);
    free(t->dups);
    free(t->odd);
    free(t);
    ctx->tokens = NULL;
}

static bool tok_note_odd(tok_index *t, uint64_t i)
{
    if (t->n_odd == t->cap_odd && !grow((void **)&t->odd, &t->cap_odd, t->n_odd, sizeof *t->odd)) {
        t->nomem = true;
        return false;
    }
    t->odd[t->n_odd++] = (uint32_t)i;
    return true;
}

static bool tok_note_dup(tok_index *t, uint64_t i, uint32_t prev)
{
    if (t->n_dups == t->cap_dups &&
        !grow((void **)&t->dups, &t->cap_dups, t->n_dups, sizeof *t->dups)) {
        t->nomem = true;
        return false;
    }
    t->dups[t->n_dups++] = (tok_dup){(uint32_t)i, prev};
    return true;
}

bool tok_flush(tok_index *t, uint64_t n, const uint8_t *end)
{
    const uint8_t *const base = t->base;
    const uint32_t *const offs = t->offs;
    tok_slot *const slots = t->slots;
    const size_t mask = t->mask;
    const unsigned shift = t->shift;
    const keyhash_ml *const ml = &t->ml;
    uint64_t probes = 0;
    for (uint64_t i = t->n; i < n; i++) {
        const uint8_t *el = base + offs[i];
        uint64_t len;
        memcpy(&len, el, 8); /* a length the parse loop has bounded */
        if (len - 1 >= TOKEN_MAX_WARN && !tok_note_odd(t, i))
            return false;
        if (!slots || len == 0)
            continue;
        const uint8_t *s = el + 8;
        const uint64_t h = (uint64_t)(end - s) >= len + 8
                               ? tok_hash(ml, s, len)
                               : keyhash_ml_hash(ml, s, (size_t)len, end);
        const uint32_t tag = (uint32_t)(h >> 32) | 1u;
        const size_t k0 = (size_t)(h >> shift);
        size_t k = k0;
        for (; slots[k].tag; k = (k + 1) & mask) {
            if (slots[k].tag != tag)
                continue;
            const uint8_t *q = base + offs[slots[k].idx];
            uint64_t qn;
            memcpy(&qn, q, 8);
            if (qn == len && memcmp(q + 8, s, (size_t)len) == 0)
                break;
        }
        /* the occupied slots visited (the complexity tests bound their sum) */
        probes += ((k - k0) & mask) + (slots[k].tag != 0);
        if (slots[k].tag) {
            if (!tok_note_dup(t, i, slots[k].idx))
                return false;
        } else {
            slots[k] = (tok_slot){tag, (uint32_t)i};
        }
    }
    t->n = n;
    t->probes += probes;
    return true;
}
