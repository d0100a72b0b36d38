/* lists.c - list values of the template folder (part of the folder, prefix
 * fd_): list + list, list * n, and the list mutators a template can call on
 * a variable or a namespace() attribute (append, extend, insert), folded as
 * Python computes them, so a name accumulated piece by piece
 * ({% set _ = ns.k.append('__') %} ... ns.k|join) is checked like any
 * folded constant. Also fd_frag_of: whether a value holds a piece of a
 * dunder name, for values that stay unknown; and the dicts of constants a
 * template builds, remembered for their |items (fd_dict_*).
 *
 * Lists are AV_LIST constants (fold.h: items end to end, each a length word
 * and its bytes). Every operation builds through the folder's builders, so
 * it costs at most the bytes it copies, charged to the budget, and stays
 * under TPL_CONST_CAP. ci/template-oracle.py holds the results to Jinja2. */
#include "template/tpl.h"

#include "common/utf8.h"

#include <string.h>

/* A new AV_LIST of `items` items from the bytes built since b->start. */
static aval list_done(tpl *t, bld *b, const aval *at, int64_t items, uint16_t flags)
{
    aval r = unk_at(at);
    if (b->fail) {
        t->fd.ar_len = b->start;
        return r;
    }
    r.kind = AV_LIST;
    r.flags = flags;
    r.off = b->start;
    r.len = t->fd.ar_len - b->start;
    r.ival = items;
    r.count = items;
    return r;
}

/* One item: its length word, then its bytes (from a value's storage). */
static void put_item(tpl *t, bld *b, bool var_space, uint32_t off, uint32_t len, bool is_int)
{
    uint32_t w = len | (is_int ? LIST_INT : 0);
    fd_b_raw(t, b, &w, 4);
    if (len)
        fd_b_from(t, b, var_space, off, len);
}

/* An item from a constant value: a string or an integer's decimal text. */
static bool put_value(tpl *t, bld *b, const aval *v)
{
    if (v->kind == AV_STR) {
        put_item(t, b, (v->flags & F_VAR) != 0, v->off, v->len, false);
        return true;
    }
    if (v->kind == AV_INT && !(v->flags & F_HUGE)) {
        uint32_t mark = t->fd.ar_len;
        fd_b_raw(t, b, "\0\0\0\0", 4);
        uint32_t s0 = t->fd.ar_len;
        fd_b_int(t, b, v->ival);
        if (!b->fail) {
            uint32_t w = (t->fd.ar_len - s0) | LIST_INT;
            memcpy(t->fd.ar + mark, &w, 4);
        }
        return true;
    }
    return false;
}

aval fd_list_concat(tpl *t, const aval *a, const aval *b)
{
    aval r = unk_at(a);
    r.flags = (uint32_t)(((a->flags | b->flags) & F_TAINT) | fd_frag_of(t, a) | fd_frag_of(t, b));
    if (a->kind != AV_LIST || b->kind != AV_LIST || ((a->flags ^ b->flags) & F_TUPLE) ||
        ((a->flags | b->flags) & F_DICT))
        return r; /* a list and a tuple do not add (TypeError) */
    bld bl;
    fd_b_begin(t, &bl, a);
    if (a->len)
        fd_b_from(t, &bl, (a->flags & F_VAR) != 0, a->off, a->len);
    if (b->len)
        fd_b_from(t, &bl, (b->flags & F_VAR) != 0, b->off, b->len);
    return list_done(
        t, &bl, a, a->ival + b->ival,
        (uint16_t)(((a->flags | b->flags) & (F_INEXACT | F_TAINT)) | (a->flags & F_TUPLE)));
}

aval fd_list_repeat(tpl *t, const aval *l, const aval *n, const aval *at)
{
    int64_t cnt = (n->flags & F_HUGE) ? INT64_MAX : n->ival;
    if (cnt < 0)
        cnt = 0;
    int64_t total = sat_mul(l->len, cnt);
    if (l->kind != AV_LIST || (l->flags & F_DICT) || total > TPL_CONST_CAP)
        return fd_repeat(t, l, n, at); /* unknown, and GG729 when it is huge */
    bld b;
    fd_b_begin(t, &b, at);
    for (int64_t i = 0; i < cnt && l->len && !b.fail; i++)
        fd_b_from(t, &b, (l->flags & F_VAR) != 0, l->off, l->len);
    if (!fd_spend(t, 1, at))
        b.fail = true; /* an empty list repeated still costs a unit */
    return list_done(t, &b, at, sat_mul(l->ival, cnt), l->flags & (F_INEXACT | F_TUPLE | F_TAINT));
}

/* Byte offset of item i of the list l (i in 0..items). */
static uint32_t item_offset(const tpl *t, const aval *l, int64_t i)
{
    const uint8_t *p = fd_bytes(t, l);
    uint32_t pos = 0;
    for (int64_t k = 0; k < i && pos + 4 <= l->len; k++) {
        uint32_t w;
        memcpy(&w, p + pos, 4);
        pos += 4 + (w & ~LIST_INT);
    }
    return pos;
}

/* extend(s) with a string: one item per code point. */
static void put_chars(tpl *t, bld *b, const aval *s, int64_t *items, uint16_t *fl)
{
    for (uint32_t i = 0; i < s->len && !b->fail;) {
        uint32_t cp;
        unsigned k = s->len - i >= 1 && fd_bytes(t, s)[i] < 0x80
                         ? 1
                         : utf8_decode(fd_bytes(t, s) + i, s->len - i, &cp);
        if (k == 0) {
            k = 1; /* not UTF-8: Python would not have this string */
            *fl |= F_INEXACT;
        }
        put_item(t, b, (s->flags & F_VAR) != 0, s->off + i, k, false);
        (*items)++;
        i += k;
    }
}

aval fd_list_mutate(tpl *t, const aval *l, unsigned m, const aval *args, uint32_t na,
                    const aval *at)
{
    aval r = unk_at(at);
    if (l->kind != AV_LIST || (l->flags & (F_TUPLE | F_DICT)))
        return r;
    bool var_space = (l->flags & F_VAR) != 0;
    uint16_t fl = l->flags & (F_INEXACT | F_TAINT);
    int64_t items = l->ival;
    bld b;
    fd_b_begin(t, &b, at);
    if (m == W_APPEND && na == 1) {
        if (l->len)
            fd_b_from(t, &b, var_space, l->off, l->len);
        if (!put_value(t, &b, &args[0]))
            b.fail = true;
        fl |= args[0].flags & F_INEXACT;
        items++;
    } else if (m == W_EXTEND && na == 1 && args[0].kind == AV_LIST) {
        if (l->len)
            fd_b_from(t, &b, var_space, l->off, l->len);
        if (args[0].len)
            fd_b_from(t, &b, (args[0].flags & F_VAR) != 0, args[0].off, args[0].len);
        fl |= args[0].flags & F_INEXACT;
        items += args[0].ival;
    } else if (m == W_EXTEND && na == 1 && args[0].kind == AV_STR) {
        if (l->len)
            fd_b_from(t, &b, var_space, l->off, l->len);
        fl |= args[0].flags & F_INEXACT;
        if (fd_spend(t, args[0].len, at))
            put_chars(t, &b, &args[0], &items, &fl);
        else
            b.fail = true;
    } else if (m == W_INSERT && na == 2 && args[0].kind == AV_INT && !(args[0].flags & F_HUGE)) {
        /* Python's list.insert: a negative index counts from the end, and
         * the index is clamped into 0..len */
        int64_t i = args[0].ival;
        if (i < 0)
            i = i + items < 0 ? 0 : i + items;
        if (i > items)
            i = items;
        if (!fd_spend(t, l->len, at))
            return r;
        uint32_t cut = item_offset(t, l, i);
        if (cut)
            fd_b_from(t, &b, var_space, l->off, cut);
        if (!put_value(t, &b, &args[1]))
            b.fail = true;
        if (l->len > cut)
            fd_b_from(t, &b, var_space, l->off + cut, l->len - cut);
        fl |= args[1].flags & F_INEXACT;
        items++;
    } else {
        return r;
    }
    return list_done(t, &b, at, items, fl);
}

/* ------------------------------------------------ dicts of constants
 * A dict literal of constants is remembered for the template (its keys
 * and values as one list k0 v0 k1 v1 ... in fd.dv_buf), so its |items or
 * .items() is known: an F_PAIRS value that unroll.c's
 * {% for k, v in ... %} takes apart. */

static bool is_const(const aval *v)
{
    return v->kind == AV_STR || (v->kind == AV_INT && !(v->flags & F_HUGE));
}

void fd_dict_remember(tpl *t, const aval *kv, uint32_t m, const aval *at)
{
    if (m == 0 || m > TPL_UNROLL_MAX || t->fd.dv_n == TPL_DICTS)
        return;
    for (uint32_t i = 0; i < 2 * m; i++)
        if (!is_const(&kv[i]))
            return;
    const uint32_t mark = t->fd.ar_len;
    aval l = fd_make_list(t, kv, 2 * m, at);
    if (l.kind == AV_LIST && l.len <= TPL_DICT_BYTES - t->fd.dv_used) {
        memcpy(t->fd.dv_buf + t->fd.dv_used, fd_bytes(t, &l), l.len);
        t->fd.dv_off[t->fd.dv_n] = t->fd.dv_used;
        t->fd.dv_len[t->fd.dv_n] = l.len;
        t->fd.dv_m[t->fd.dv_n++] = m;
        t->fd.dv_used += l.len;
    }
    t->fd.ar_len = mark; /* the list was only copied */
}

/* The item at *pos of a list blob p[0..n): its bytes with the length word. */
static bool blob_item(const uint8_t *p, uint32_t n, uint32_t *pos, const uint8_t **s, uint32_t *len)
{
    uint32_t w;
    if (*pos > n || n - *pos < 4)
        return false;
    memcpy(&w, p + *pos, 4);
    uint32_t k = w & ~LIST_INT;
    if (k > n - *pos - 4)
        return false;
    *s = p + *pos;
    *len = 4 + k;
    *pos += 4 + k;
    return true;
}

/* Whether the keys of remembered dict e are the items of the list blob
 * p[0..n), in order. */
static bool same_keys(const tpl *t, uint32_t e, const uint8_t *p, uint32_t n, int64_t items)
{
    if (items != (int64_t)t->fd.dv_m[e])
        return false;
    const uint8_t *d = t->fd.dv_buf + t->fd.dv_off[e], *a, *b;
    uint32_t dn = t->fd.dv_len[e], dp = 0, xp = 0, al, bl;
    for (uint32_t i = 0; i < t->fd.dv_m[e]; i++) {
        if (!blob_item(p, n, &xp, &a, &al) || !blob_item(d, dn, &dp, &b, &bl) || al != bl ||
            memcmp(a, b, al) != 0 || !blob_item(d, dn, &dp, &b, &bl))
            return false;
    }
    return xp == n;
}

aval fd_dict_items(tpl *t, const aval *x, const aval *at)
{
    aval r = unk_at(at);
    r.flags = x->flags & F_TAINT;
    bool dict = x->kind == AV_LIST ? (x->flags & F_DICT) != 0 : x->kind == AV_ATTR;
    if (!dict || (x->flags & F_INEXACT))
        return r;
    const uint8_t *p = fd_bytes(t, x);
    int found = -1;
    for (uint32_t e = 0; e < t->fd.dv_n; e++) {
        if (!same_keys(t, e, p, x->len, x->ival))
            continue;
        if (found >= 0 && (t->fd.dv_len[e] != t->fd.dv_len[found] ||
                           memcmp(t->fd.dv_buf + t->fd.dv_off[e],
                                  t->fd.dv_buf + t->fd.dv_off[found], t->fd.dv_len[e]) != 0))
            return r; /* two dicts with these keys and other values: not known which */
        found = (int)e;
    }
    if (found < 0)
        return r;
    r.flags |= F_PAIRS;
    r.ival = found;
    r.count = t->fd.dv_m[found];
    return r;
}

aval fd_str_list(tpl *t, const aval *s)
{
    aval r = unk_at(s);
    r.count = s->len;
    bld b;
    fd_b_begin(t, &b, s);
    bool vs = (s->flags & F_VAR) != 0;
    uint32_t n = s->len, i = 0, items = 0;
    while (i < n && !b.fail) {
        const uint8_t *p = fd_bytes(t, s); /* again: the arena may have moved */
        uint32_t cp, k = p[i] < 0x80 ? 1 : utf8_decode(p + i, n - i, &cp);
        if (!k) {
            b.fail = true;
            break;
        }
        fd_b_raw(t, &b, &k, 4);
        fd_b_from(t, &b, vs, s->off + i, k);
        i += k;
        items++;
    }
    if (b.fail) {
        t->fd.ar_len = b.start;
        return r;
    }
    r.kind = AV_LIST;
    r.flags = s->flags & (F_TAINT | F_INEXACT);
    r.off = b.start;
    r.len = t->fd.ar_len - b.start;
    r.ival = items;
    r.count = items;
    return r;
}

void fd_int_range(tpl *t, int64_t start, int64_t step, int64_t n, aval *r)
{
    if (n < 0 || n > (int64_t)TPL_UNROLL_MAX)
        return;
    bld b;
    fd_b_begin(t, &b, r);
    for (int64_t i = 0; i < n && !b.fail; i++) { /* start + i * step stays between start and stop */
        uint32_t mark = t->fd.ar_len;
        fd_b_raw(t, &b, "\0\0\0\0", 4);
        uint32_t s0 = t->fd.ar_len;
        fd_b_int(t, &b, start + i * step);
        if (!b.fail) {
            uint32_t w = (t->fd.ar_len - s0) | LIST_INT;
            memcpy(t->fd.ar + mark, &w, 4);
        }
    }
    if (b.fail) {
        t->fd.ar_len = b.start;
        return;
    }
    r->off = b.start;
    r->len = t->fd.ar_len - b.start;
    r->flags |= F_RANGE;
}
