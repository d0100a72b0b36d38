/* chain.c - access chains of the template analyser's evaluator (prefix
 * ch_): the path by which a value was reached, as Python would spell it
 * ("lipsum.__globals__['os'].popen", "x.__class__.__base__"), with every
 * name and key as folded (a subscript key built from '__glo' ~ 'bals__'
 * shows as ['__globals__']). Findings quote the chain so a reader sees what
 * was reconstructed, not only the last name.
 *
 * A chain is text in the per-tag arena (aval.ch_off/ch_len), at most
 * TPL_CHAIN_CAP bytes (longer ones keep their tail, after "..."); a tag
 * spends at most TPL_CHAIN_AREA bytes on chains, after which values simply
 * have none (messages fall back to the value's description). A variable
 * keeps the chain of its value (var.chain), so a chain continues across
 * {% set %}. Chains cost no folding budget: they are bounded per tag. */
#include "template/tpl.h"

#include <stdio.h>
#include <string.h>

/* d[0..n) = s[0..n), n <= TPL_CHAIN_CAP, for a d at or below s or apart
 * from it: 8-byte moves, the last one overlapping (chain pieces are short:
 * cheaper than a memcpy call or a byte-counted string move). */
static inline void moves(uint8_t *d, const uint8_t *s, size_t n)
{
    uint64_t x;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8) {
            memcpy(&x, s + i, 8);
            memcpy(d + i, &x, 8);
        }
        memcpy(&x, s + n - 8, 8);
        memcpy(d + n - 8, &x, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        uint8_t a = s[0], b = s[n / 2], c = s[n - 1];
        d[0] = a;
        d[n / 2] = b;
        d[n - 1] = c;
    }
}

/* Append n bytes to the arena for a chain; false when the tag's chain area
 * or the arena is full. s may point into the arena itself: reserving can
 * move the arena, so such a source is found again by its offset (callers
 * that append several pieces copy them out first, see step). */
static bool put(tpl *t, const void *s, size_t n)
{
    if (n == 0)
        return true;
    const uint8_t *p = s;
    uintptr_t a = (uintptr_t)t->fd.ar, q = (uintptr_t)p;
    bool inside = t->fd.ar && q >= a && q - a < t->fd.ar_len;
    size_t off = inside ? (size_t)(q - a) : 0;
    if (!fd_ar_reserve(t, (uint32_t)n))
        return false;
    if (inside)
        p = t->fd.ar + off;
    memcpy(t->fd.ar + t->fd.ar_len, p, n);
    t->fd.ar_len += (uint32_t)n;
    t->ev.ch_used += (uint32_t)n;
    return true;
}

/* The chain of dst becomes base's chain followed by pre[0..lp), s[0..n)
 * (cut to 40 bytes) and post[0..lq); dst keeps no chain when base has none.
 * One reservation, then plain copies. Reserving can move the arena: a step
 * text inside it (a folded name) is found again by its offset, or copied out
 * first when it lies where the new chain goes; the base is found again by
 * its offset (a rolled-back base may lie past the arena's end, hence
 * memmove). */
static inline __attribute__((always_inline)) void step(tpl *t, aval *dst, const aval *base,
                                                       const char *pre, size_t lp, const uint8_t *s,
                                                       size_t n, const char *post, size_t lq)
{
    uint16_t blen = base->ch_len;
    uint32_t boff = base->ch_off;
    dst->ch_len = 0;
    if (blen == 0 || t->ev.ch_used > TPL_CHAIN_AREA)
        return;
    if (n > 40)
        n = 40;
    size_t total = blen + lp + n + lq;
    size_t keep = blen, skip = 0;
    if (total > TPL_CHAIN_CAP) {
        size_t over = total - TPL_CHAIN_CAP + 3; /* room for "..." */
        skip = over < blen ? over : blen;
        keep = blen - skip;
    }
    const size_t dots = skip ? 3 : 0;
    size_t out = dots + keep + lp + n + lq;
    if (out > TPL_CHAIN_CAP)
        return;
    uint32_t at = t->fd.ar_len;
    uint8_t tmp[40];
    uintptr_t q = (uintptr_t)s - (uintptr_t)t->fd.ar;
    bool inside = t->fd.ar && n && q < t->fd.ar_cap;
    if (inside && q + n > at) {
        memcpy(tmp, s, n); /* where the new chain goes */
        s = tmp;
        inside = false;
    }
    if (!fd_ar_reserve(t, (uint32_t)out))
        return;
    if (inside)
        s = t->fd.ar + q;
    uint8_t *w = t->fd.ar + at;
    if ((uint64_t)boff + blen <= at)
        moves(w + dots, t->fd.ar + boff + skip, keep);
    else
        memmove(w + dots, t->fd.ar + boff + skip, keep);
    if (dots)
        memcpy(w, "...", 3);
    w += dots + keep;
    memcpy(w, pre, lp);
    w += lp;
    moves(w, s, n);
    w += n;
    memcpy(w, post, lq);
    t->fd.ar_len += (uint32_t)out;
    t->ev.ch_used += (uint32_t)out;
    dst->ch_off = at;
    dst->ch_len = (uint16_t)out;
}

void ch_step(tpl *t, aval *dst, const aval *base, const char *pre, const uint8_t *s, size_t n,
             const char *post)
{
    step(t, dst, base, pre, strlen(pre), s, n, post, strlen(post));
}

void ch_dot(tpl *t, aval *dst, const aval *base, const uint8_t *s, size_t n)
{
    step(t, dst, base, ".", 1, s, n, "", 0);
}

/* A chain that starts at a name (its text is in the arena already). */
void ch_name(tpl *t, aval *v, uint32_t off, uint32_t len)
{
    (void)t;
    v->ch_off = off;
    v->ch_len = len <= TPL_CHAIN_CAP ? (uint16_t)len : 0;
}

/* The key of a subscript, a call's first argument: "'text'", a number or
 * "..." (the text cut to 40 bytes). */
static size_t arg_text(const tpl *t, const aval *a, char *buf, size_t cap, bool quote)
{
    if (a->kind == AV_STR) {
        size_t n = a->len > 40 ? 40 : a->len;
        if (n + 2 >= cap)
            return 0;
        size_t k = 0;
        if (quote)
            buf[k++] = '\'';
        memcpy(buf + k, fd_bytes(t, a), n);
        k += n;
        if (quote)
            buf[k++] = '\'';
        return k;
    }
    if (a->kind == AV_INT && !(a->flags & F_HUGE)) {
        /* the decimal text, as "%lld" writes it */
        char d[24];
        size_t k = sizeof d;
        uint64_t u = a->ival < 0 ? 0 - (uint64_t)a->ival : (uint64_t)a->ival;
        do {
            d[--k] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (a->ival < 0)
            d[--k] = '-';
        size_t len = sizeof d - k;
        if (len >= cap)
            return 0;
        memcpy(buf, d + k, len);
        return len;
    }
    memcpy(buf, "...", 3);
    return 3;
}

void ch_subscript(tpl *t, aval *dst, const aval *x, const aval *key)
{
    if (key->kind == AV_STR && key->len <= 38) {
        /* "['" key "']" without the copy: arg_text's text, which step would
         * cut to 40 bytes only past 38 bytes of key */
        step(t, dst, x, "['", 2, fd_bytes(t, key), key->len, "']", 2);
        return;
    }
    char k[48];
    size_t n = arg_text(t, key, k, sizeof k, true);
    step(t, dst, x, "[", 1, (const uint8_t *)k, n, "]", 1);
}

void ch_attr(tpl *t, aval *dst, const aval *x, const aval *name)
{
    if (name->kind == AV_STR) {
        step(t, dst, x, ".", 1, fd_bytes(t, name), name->len, "", 0);
        return;
    }
    step(t, dst, x, ".", 1, (const uint8_t *)"(...)", 5, "", 0);
}

void ch_call(tpl *t, aval *dst, const aval *c, const aval *args, uint32_t na)
{
    char k[56];
    size_t n = 0;
    if (na > 0) {
        n = arg_text(t, &args[0], k, sizeof k - 5, true);
        if (na > 1) {
            memcpy(k + n, ", ...", 5);
            n += 5;
        }
    }
    step(t, dst, c, "(", 1, (const uint8_t *)k, n, ")", 1);
}

void ch_filter(tpl *t, aval *dst, const aval *x, unsigned w, uint32_t na)
{
    const char *name = word_text(w);
    if (na)
        step(t, dst, x, "|", 1, (const uint8_t *)name, strlen(name), "(...)", 5);
    else
        step(t, dst, x, "|", 1, (const uint8_t *)name, strlen(name), "", 0);
}

/* Escaped chain text for a message, or NULL when the value has none. */
const char *ch_text(const tpl *t, const aval *v, char *buf, size_t cap)
{
    if (v->ch_len == 0)
        return NULL;
    return tpl_quote(buf, cap, t->fd.ar + v->ch_off, v->ch_len, TPL_CHAIN_CAP);
}

void ch_store(tpl *t, var *x, const aval *v)
{
    x->chain_len = 0;
    if (v->ch_len == 0 || v->ch_len > TPL_CHAIN_CAP)
        return;
    memcpy(x->chain, t->fd.ar + v->ch_off, v->ch_len);
    x->chain_len = (uint8_t)v->ch_len;
}

/* A variable's value is read: its chain is the one it was assigned with,
 * else the variable's name. */
/* (ch_load's chains over 16 bytes, or when the arena must grow) */
__attribute__((noinline)) static void load_put(tpl *t, aval *v, const uint8_t *s, uint32_t len)
{
    uint32_t at = t->fd.ar_len;
    if (!put(t, s, len))
        return;
    v->ch_off = at;
    v->ch_len = (uint16_t)len;
}

void ch_load(tpl *t, aval *v, const var *x, const uint8_t *name, uint32_t n)
{
    v->ch_len = 0;
    const uint8_t *s = x->chain_len ? x->chain : name;
    uint32_t len = x->chain_len ? x->chain_len : n;
    if (len == 0 || len > TPL_CHAIN_CAP || t->ev.ch_used > TPL_CHAIN_AREA)
        return;
    uint32_t at = t->fd.ar_len;
    /* most chains are a short name, outside the arena (a variable's chain
     * or a token's text): word moves (moves), no call */
    uintptr_t q = (uintptr_t)s - (uintptr_t)t->fd.ar;
    if (len > 16 || len > t->fd.ar_cap - at || q < t->fd.ar_cap) {
        load_put(t, v, s, len);
        return;
    }
    moves(t->fd.ar + at, s, len);
    t->fd.ar_len += len;
    t->ev.ch_used += len;
    v->ch_off = at;
    v->ch_len = (uint16_t)len;
}
