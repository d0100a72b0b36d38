/* template_fold.c - the constant layer of the template analyser: the per-tag
 * arena and the builders of folded constants (bounded by TPL_CONST_CAP, the
 * arena cap and a budget proportional to the template length), the checks
 * every constant gets (dunder names and attribute paths, class-hunting names,
 * names assembled by folding), the folding operations themselves (~ and +,
 * *, **, % and |format, str.format, replace, case filters, join, slicing,
 * indexing, lists) and the {% set %} variable store. Every operation costs
 * at most the bytes it copies or checks, charged to the budget. */
#include "template/template_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tv_limit(tpl *t, tpl_pos pos, uint64_t index, const char *what)
{
    hit(t, TH_LIMIT, pos, index,
        "static analysis limit reached: %s; names are still checked "
        "one by one, folded constants may be missed",
        what);
}

void tv_go_dead(tpl *t, tpl_pos pos, uint64_t index, const char *what)
{
    t->dead = true;
    tv_limit(t, pos, index, what);
}

bool tv_is_ident(const uint8_t *s, size_t n)
{
    if (n == 0 || n > 64 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!identc(s[i]))
            return false;
    return true;
}

/* __name__ with at least one letter or digit inside */
bool tv_is_dunder(const uint8_t *s, size_t n)
{
    if (n < 5 || n > 256 || s[0] != '_' || s[1] != '_' || s[n - 1] != '_' || s[n - 2] != '_')
        return false;
    bool inner = false;
    for (size_t i = 0; i < n; i++) {
        if (!identc(s[i]))
            return false;
        inner |= s[i] != '_';
    }
    return inner;
}

/* _Class__attr: a name-mangled private attribute (self._TemplateReference__context) */
bool tv_is_mangled(const uint8_t *s, size_t n)
{
    if (n < 5 || n > 256 || s[0] != '_' ||
        !((s[1] >= 'a' && s[1] <= 'z') || (s[1] >= 'A' && s[1] <= 'Z')))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!identc(s[i]))
            return false;
    for (size_t i = 2; i + 2 < n; i++)
        if (s[i] == '_' && s[i + 1] == '_' && s[i - 1] != '_' && identc(s[i + 2]) &&
            s[i + 2] != '_')
            return true;
    return false;
}

/* A dunder inside a longer constant, used as an attribute path:
 * "{0.__class__}", "x.__init__.__globals__", "[__builtins__]". The search
 * starts a little before `from` (bytes before it were searched already). */
static bool find_dunder_path(const uint8_t *s, size_t n, size_t from, size_t *at, size_t *len)
{
    static const char before[] = ".[{'\"", after[] = ".[]}()'\"!:";
    /* a new match needs a '_' among the new bytes; it may start up to 64
     * identifier characters before that '_' */
    if (from >= n)
        return false;
    const uint8_t *u = memchr(s + from, '_', n - from);
    if (!u)
        return false;
    size_t first = (size_t)(u - s), i = first;
    while (i > 0 && first - i < 64 && identc(s[i - 1]))
        i--;
    while (i + 1 < n) {
        if (s[i] != '_' || s[i + 1] != '_' || (i > 0 && identc(s[i - 1]))) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && identc(s[j]))
            j++;
        bool pre = i == 0 || memchr(before, s[i - 1], sizeof before - 1);
        bool post = j == n || memchr(after, s[j], sizeof after - 1);
        if (pre && post && (i > 0 || j < n) && tv_is_dunder(s + i, j - i)) {
            *at = i;
            *len = j - i;
            return true;
        }
        i = j;
    }
    return false;
}

/* A piece of an attribute name being assembled: '__' next to an identifier
 * character ('__glo', 'bals__', 'x__y'), or the piece is exactly "__" / "_". */
bool tv_has_frag(const uint8_t *s, size_t n)
{
    if ((n == 2 && s[0] == '_' && s[1] == '_') || (n == 1 && s[0] == '_'))
        return true;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '_' && s[i + 1] == '_' &&
            ((i + 2 < n && identc(s[i + 2]) && s[i + 2] != '_') ||
             (i > 0 && identc(s[i - 1]) && s[i - 1] != '_')))
            return true;
    return false;
}

/* A literal that reads like a trigger word, not markup or a special token. */
bool tv_wordlike(const uint8_t *s, size_t n)
{
    unsigned letters = 0;
    if (n > 256 || (n > 0 && s[0] == '/'))
        return false; /* a trigger is a word or two; /think-style switches are conventions */
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '<' || c == '>' || c == '[' || c == ']' || c == '{' || c == '}' || c == '|')
            return false;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80)
            letters++;
    }
    return letters >= 2;
}

/* Describe a value for a message: a name, a quoted constant or "(...)". */
const char *tv_desc(const tpl *t, const aval *v, char *buf, size_t cap)
{
    char e[96];
    switch (v->kind) {
    case AV_NAME:
        if (v->len)
            return q(buf, cap, vb(t, v), v->len, 40);
        snprintf(buf, cap, "%s", v->word ? word_text(v->word) : "(...)");
        return buf;
    case AV_STR: snprintf(buf, cap, "'%s'", q(e, sizeof e, vb(t, v), v->len, 30)); return buf;
    case AV_INT: snprintf(buf, cap, "%lld", (long long)v->ival); return buf;
    default: snprintf(buf, cap, "(...)"); return buf;
    }
}

/* --------------------------------------------------------- the arena */

bool tv_ar_reserve(tpl *t, uint32_t n)
{
    if (n > TPL_ARENA_CAP - t->ar_len)
        return false;
    uint32_t need = t->ar_len + n;
    if (need <= t->ar_cap)
        return true;
    uint32_t nc = t->ar_cap ? t->ar_cap : 1024;
    while (nc < need)
        nc *= 2;
    if (nc > TPL_ARENA_CAP)
        nc = TPL_ARENA_CAP;
    uint8_t *p = realloc(t->ar, nc);
    if (!p) {
        t->nomem = true;
        return false;
    }
    t->ar = p;
    t->ar_cap = nc;
    return true;
}

void tv_b_begin(tpl *t, bld *b, const aval *at)
{
    b->start = t->ar_len;
    b->checked = 0;
    b->fail = false;
    b->at = at;
}

/* Room for n more bytes: the 64 KiB constant cap, the budget, the arena. */
static bool b_room(tpl *t, bld *b, uint64_t n)
{
    if (b->fail)
        return false;
    if (t->ar_len - b->start + n > TPL_CONST_CAP) {
        tv_limit(t, b->at->pos, b->at->index, "a folded string constant would exceed 64 KiB");
    } else if (n > t->budget) {
        tv_limit(t, b->at->pos, b->at->index, "the constant-folding budget is spent");
    } else if (!tv_ar_reserve(t, (uint32_t)n)) {
        if (!t->nomem)
            tv_limit(t, b->at->pos, b->at->index, "the per-tag arena (256 KiB) is full");
    } else {
        t->budget -= n;
        return true;
    }
    b->fail = true;
    return false;
}

/* Charge work that walks a constant without copying it (a list lookup). */
static bool spend(tpl *t, uint32_t n, const aval *at)
{
    if (n > t->budget) {
        tv_limit(t, at->pos, at->index, "the constant-folding budget is spent");
        return false;
    }
    t->budget -= n;
    return true;
}

void tv_b_raw(tpl *t, bld *b, const void *s, size_t n)
{
    if (n == 0 || !b_room(t, b, n))
        return;
    memcpy(t->ar + t->ar_len, s, n);
    t->ar_len += (uint32_t)n;
}

/* Copy n bytes from a value's storage (the arena may move in b_room). */
static void b_from(tpl *t, bld *b, bool var_space, uint32_t off, uint32_t n)
{
    if (n == 0 || !b_room(t, b, n))
        return;
    const uint8_t *src = (var_space ? t->vs : t->ar) + off;
    memcpy(t->ar + t->ar_len, src, n);
    t->ar_len += n;
}

void tv_b_int(tpl *t, bld *b, int64_t x)
{
    char s[24];
    int n = snprintf(s, sizeof s, "%lld", (long long)x);
    tv_b_raw(t, b, s, n > 0 ? (size_t)n : 0);
}

static void const_check(tpl *t, const uint8_t *s, size_t n, size_t from, uint16_t flags,
                        tpl_pos pos, uint64_t index, const char *what);

/* Finish a built constant: run the constant checks on the bytes not yet
 * checked (charged to the budget). */
aval tv_b_done(tpl *t, bld *b)
{
    aval v = unk_at(b->at);
    uint32_t len = t->ar_len - b->start;
    uint32_t fresh = (len > b->checked ? len - b->checked : 0) + 64;
    if (!b->fail && fresh > t->budget) {
        tv_limit(t, b->at->pos, b->at->index, "the constant-folding budget is spent");
        b->fail = true;
    }
    if (b->fail) {
        t->ar_len = b->start;
        return v;
    }
    t->budget -= fresh;
    v.kind = AV_STR;
    v.flags = F_BUILT;
    v.off = b->start;
    v.len = len;
    v.count = len;
    const_check(t, t->ar + v.off, len, b->checked, F_BUILT, v.pos, v.index, "folded string");
    return v;
}

/* A constant's bytes or an integer's decimal text, for building. */
static void b_val(tpl *t, bld *b, const aval *v)
{
    if (v->kind == AV_INT && (v->flags & F_HUGE))
        b->fail = true; /* its decimal text is not known (saturated or wrapped) */
    else if (v->kind == AV_INT)
        tv_b_int(t, b, v->ival);
    else
        b_from(t, b, (v->flags & F_VAR) != 0, v->off, v->len);
}

/* ------------------------------------------------------ constant checks */

static void const_check(tpl *t, const uint8_t *s, size_t n, size_t from, uint16_t flags,
                        tpl_pos pos, uint64_t index, const char *what)
{
    char e[160], e2[96];
    bool built = (flags & F_BUILT) != 0;
    if (tv_is_dunder(s, n)) {
        hit(t, TH_GADGET, pos, index, "%s '%s' is a Python dunder attribute name (SSTI gadget)",
            what, q(e, sizeof e, s, n, 60));
        if (built)
            hit(t, TH_OBFUSCATION, pos, index, "%s '%s' assembles a dunder name from pieces", what,
                q(e, sizeof e, s, n, 60));
        return;
    }
    size_t at, len;
    if (find_dunder_path(s, n, from, &at, &len))
        hit(t, TH_GADGET, pos, index,
            "%s '%s' holds the attribute path '%s' (reached through str.format fields or "
            "attribute getters: SSTI gadget)",
            what, q(e, sizeof e, s, n, 60), q(e2, sizeof e2, s + at, len, 40));
    if (n > 24)
        return;
    unsigned w = word_lookup(t, s, n, name_hash(s, n));
    uint16_t c = word_class(w);
    if (c & WC_CLASSHUNT)
        hit(t, TH_GADGET, pos, index,
            "%s '%s' names a class or attribute that SSTI payloads "
            "hunt for among __subclasses__() (as catch_warnings in CVE-2024-34359)",
            what, q(e, sizeof e, s, n, 40));
    if (built && ((c & (WC_MODULE | WC_CALLSINK | WC_ATTRSINK | WC_KEYSINK | WC_CLASSHUNT)) ||
                  w == W_SYSTEM))
        hit(t, TH_OBFUSCATION, pos, index,
            "%s '%s' assembles the name of a Python code-execution sink from pieces", what,
            q(e, sizeof e, s, n, 40));
}

void tv_literal_check(tpl *t, const tok *k)
{
    char e[160], e2[40];
    size_t n = k->n;
    if (k->lflags & LF_ESC_IDENT)
        hit(t, TH_OBFUSCATION, k->pos, k->index,
            "string literal '%s' spells identifier characters with escapes such as '%s'",
            q(e, sizeof e, k->s, n, 60),
            q(e2, sizeof e2, (const uint8_t *)k->esc, strlen(k->esc), 16));
    if (k->lflags & LF_TRUNC)
        tv_limit(t, k->pos, k->index,
                 "a string literal over 64 KiB is folded from its prefix only");
    if (n)
        const_check(t, k->s, n, 0, (uint8_t)((k->lflags & LF_ESC_IDENT) ? F_BUILT : 0), k->pos,
                    k->index, "string literal");
}

/* ----------------------------------------------------------- variables */

var *tv_var_find(tpl *t, const uint8_t *s, uint32_t n, uint32_t h)
{
    uint32_t i = h & (TPL_VAR_SLOTS - 1);
    while (t->vslots[i]) {
        var *x = &t->vars[t->vslots[i] - 1];
        if (x->hash == h && x->name_len == n && memcmp(x->name, s, n) == 0)
            return x;
        i = (i + 1) & (TPL_VAR_SLOTS - 1);
    }
    return NULL;
}

var *tv_var_get(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, tpl_pos pos, uint64_t index)
{
    var *x = tv_var_find(t, s, n, h);
    if (x)
        return x;
    if (t->n_vars >= TPL_VARS_MAX) {
        tv_limit(t, pos, index, "more than 256 variables are set");
        return NULL;
    }
    x = &t->vars[t->n_vars++];
    memset(x, 0, sizeof *x);
    memcpy(x->name, s, n);
    x->name_len = n;
    x->hash = h;
    x->v.kind = AV_UNK;
    x->v.count = -1;
    uint32_t i = h & (TPL_VAR_SLOTS - 1);
    while (t->vslots[i])
        i = (i + 1) & (TPL_VAR_SLOTS - 1);
    t->vslots[i] = (uint16_t)t->n_vars;
    x->slot = i;
    return x;
}

static bool vs_reserve(tpl *t, uint32_t n)
{
    if (n > TPL_VSTORE_CAP - t->vs_len)
        return false;
    uint32_t need = t->vs_len + n;
    if (need <= t->vs_cap)
        return true;
    uint32_t nc = t->vs_cap ? t->vs_cap : 1024;
    while (nc < need)
        nc *= 2;
    if (nc > TPL_VSTORE_CAP)
        nc = TPL_VSTORE_CAP;
    uint8_t *p = realloc(t->vs, nc);
    if (!p) {
        t->nomem = true;
        return false;
    }
    t->vs = p;
    t->vs_cap = nc;
    return true;
}

void tv_var_assign(tpl *t, var *x, const aval *v)
{
    aval nv = *v;
    nv.flags &= (uint16_t) ~(F_LITERAL | F_VAR | F_RSTR);
    if (v->kind == AV_STR || v->kind == AV_LIST) {
        uint32_t len = v->len;
        if (len > t->budget) {
            tv_limit(t, v->pos, v->index, "the constant-folding budget is spent");
            nv = unk_at(v);
        } else {
            t->budget -= len;
            if (len > x->cap_len) {
                uint32_t cap = len < 32 ? 32 : len;
                if (x->cap_len * 2 > cap)
                    cap = x->cap_len * 2 < TPL_CONST_CAP ? x->cap_len * 2 : TPL_CONST_CAP;
                if (!vs_reserve(t, cap)) {
                    if (!t->nomem)
                        tv_limit(t, v->pos, v->index, "the {% set %} store (1 MiB) is full");
                    nv = unk_at(v);
                    goto store;
                }
                x->cap_off = t->vs_len;
                x->cap_len = cap;
                t->vs_len += cap;
            }
            const uint8_t *src = vb(t, v);
            if (len)
                memmove(t->vs + x->cap_off, src, len);
            nv.off = x->cap_off;
            nv.len = len;
            nv.flags |= F_VAR;
        }
    } else {
        if (nv.kind == AV_ATTR)
            nv.kind = AV_UNK;
        nv.off = nv.len = 0;
    }
store:
    x->v = nv;
}

void tv_var_unknown(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, tpl_pos pos, uint64_t index)
{
    var *x = tv_var_get(t, s, n, h, pos, index);
    if (x) {
        x->v.kind = AV_UNK;
        x->v.flags = 0;
        x->v.count = -1;
        x->v.len = 0;
    }
}

/* ------------------------------------------------------ folding helpers */

bool tv_to_cval(const aval *v, cval *c)
{
    if ((v->kind != AV_STR && v->kind != AV_INT) || (v->kind == AV_INT && (v->flags & F_HUGE)))
        return false;
    c->kind = v->kind;
    c->var_space = (v->flags & F_VAR) != 0;
    c->off = v->off;
    c->len = v->len;
    c->ival = v->ival;
    return true;
}

static void b_cval(tpl *t, bld *b, const cval *c)
{
    if (c->kind == AV_INT)
        tv_b_int(t, b, c->ival);
    else
        b_from(t, b, c->var_space, c->off, c->len);
}

/* The items of an AV_LIST as cvals (at most cap); false when there are more. */
static bool list_items(const tpl *t, const aval *l, cval *out, uint32_t cap, uint32_t *n)
{
    const uint8_t *p = vb(t, l);
    uint32_t pos = 0, k = 0;
    while (pos + 4 <= l->len) {
        uint32_t len;
        memcpy(&len, p + pos, 4);
        if (k == cap)
            return false;
        out[k].kind = AV_STR;
        out[k].var_space = (l->flags & F_VAR) != 0;
        out[k].off = l->off + pos + 4;
        out[k].len = len;
        out[k].ival = 0;
        k++;
        pos += 4 + len;
    }
    *n = k;
    return true;
}

/* Arguments of a format operation; with `expand`, one tuple/list argument
 * stands for its items (the right operand of %). */
bool tv_gather_args(const tpl *t, const aval *args, uint32_t na, bool expand, cval *out,
                    uint32_t *n)
{
    *n = 0;
    if (expand && na == 1 && args[0].kind == AV_LIST)
        return list_items(t, &args[0], out, MAX_CARGS, n); /* stops after MAX_CARGS */
    if (na > MAX_CARGS)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!tv_to_cval(&args[i], &out[i]))
            return false;
    *n = na;
    return true;
}

static const uint8_t *cbytes(const tpl *t, const cval *c)
{
    return (c->var_space ? t->vs : t->ar) + c->off;
}

/* printf-style: '%s%s' % ('a', 'b'), |format. %s %d %i %c %%; else unknown. */
aval tv_fold_percent(tpl *t, const aval *fmt, const cval *a, uint32_t na)
{
    bld b;
    tv_b_begin(t, &b, fmt);
    uint32_t used = 0, i = 0, n = fmt->len;
    while (i < n && !b.fail) {
        const uint8_t *f = vb(t, fmt);
        uint32_t j = i;
        while (j < n && f[j] != '%')
            j++;
        b_from(t, &b, (fmt->flags & F_VAR) != 0, fmt->off + i, j - i);
        if (j >= n)
            break;
        if (j + 1 >= n)
            return unk_at(fmt);
        f = vb(t, fmt);
        uint8_t conv = f[j + 1];
        i = j + 2;
        if (conv == '%') {
            tv_b_raw(t, &b, "%", 1);
            continue;
        }
        if (used >= na)
            return unk_at(fmt);
        const cval *c = &a[used++];
        if (conv == 's') {
            b_cval(t, &b, c);
        } else if ((conv == 'd' || conv == 'i') && c->kind == AV_INT) {
            tv_b_int(t, &b, c->ival);
        } else if (conv == 'c') {
            if (c->kind == AV_INT && c->ival >= 0 && c->ival < 0x80) {
                uint8_t ch = (uint8_t)c->ival;
                tv_b_raw(t, &b, &ch, 1);
            } else if (c->kind == AV_STR && c->len == 1) {
                b_cval(t, &b, c);
            } else {
                return unk_at(fmt);
            }
        } else {
            return unk_at(fmt);
        }
    }
    if (b.fail)
        t->ar_len = b.start;
    return tv_b_done(t, &b);
}

/* str.format with {} and {N} fields only. */
aval tv_fold_format(tpl *t, const aval *fmt, const cval *a, uint32_t na)
{
    bld b;
    tv_b_begin(t, &b, fmt);
    uint32_t auto_i = 0, i = 0, n = fmt->len;
    bool var_space = (fmt->flags & F_VAR) != 0;
    while (i < n && !b.fail) {
        const uint8_t *f = vb(t, fmt);
        uint8_t c = f[i];
        if ((c == '{' || c == '}') && i + 1 < n && f[i + 1] == c) {
            tv_b_raw(t, &b, &c, 1);
            i += 2;
            continue;
        }
        if (c == '}')
            return unk_at(fmt);
        if (c != '{') {
            uint32_t j = i;
            while (j < n && f[j] != '{' && f[j] != '}')
                j++;
            b_from(t, &b, var_space, fmt->off + i, j - i);
            i = j;
            continue;
        }
        uint32_t j = i + 1, idx = 0;
        bool digits = false;
        while (j < n && f[j] >= '0' && f[j] <= '9' && idx < 1000) {
            idx = idx * 10 + (uint32_t)(f[j] - '0');
            digits = true;
            j++;
        }
        if (j >= n || f[j] != '}')
            return unk_at(fmt);
        if (!digits)
            idx = auto_i++;
        if (idx >= na)
            return unk_at(fmt);
        b_cval(t, &b, &a[idx]);
        i = j + 1;
    }
    return tv_b_done(t, &b);
}

aval tv_fold_replace(tpl *t, const aval *s, const cval *old, const cval *new_, int64_t count)
{
    bld b;
    tv_b_begin(t, &b, s);
    if (old->kind != AV_STR || new_->kind != AV_STR || old->len == 0 || old->len > 256 ||
        !spend(t, s->len * old->len, s))
        return unk_at(s);
    uint32_t i = 0, n = s->len;
    bool var_space = (s->flags & F_VAR) != 0;
    while (i < n && !b.fail) {
        const uint8_t *p = vb(t, s);
        const uint8_t *o = cbytes(t, old);
        if (count != 0 && n - i >= old->len && memcmp(p + i, o, old->len) == 0) {
            b_cval(t, &b, new_);
            i += old->len;
            if (count > 0)
                count--;
            continue;
        }
        b_from(t, &b, var_space, s->off + i, 1);
        i++;
    }
    return tv_b_done(t, &b);
}

aval tv_fold_case(tpl *t, const aval *s, int how)
{
    bld b;
    tv_b_begin(t, &b, s);
    uint32_t from = 0, to = s->len;
    if (how == CASE_TRIM) {
        const uint8_t *p = vb(t, s);
        while (from < to && (p[from] == ' ' || (p[from] >= 9 && p[from] <= 13)))
            from++;
        while (to > from && (p[to - 1] == ' ' || (p[to - 1] >= 9 && p[to - 1] <= 13)))
            to--;
    }
    if (!b_room(t, &b, to - from))
        return tv_b_done(t, &b);
    const uint8_t *p = vb(t, s);
    uint8_t *d = t->ar + t->ar_len;
    bool word_start = true;
    for (uint32_t i = from; i < to; i++) {
        uint8_t c = how == CASE_REVERSE ? p[to - 1 - (i - from)] : p[i];
        bool up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z';
        switch (how) {
        case CASE_LOWER:
            if (up)
                c = (uint8_t)(c + 32);
            break;
        case CASE_UPPER:
            if (lo)
                c = (uint8_t)(c - 32);
            break;
        case CASE_SWAP: c = up ? (uint8_t)(c + 32) : lo ? (uint8_t)(c - 32) : c; break;
        case CASE_CAP:
            if (i == from && lo)
                c = (uint8_t)(c - 32);
            else if (i != from && up)
                c = (uint8_t)(c + 32);
            break;
        case CASE_TITLE:
            if (word_start && lo)
                c = (uint8_t)(c - 32);
            else if (!word_start && up)
                c = (uint8_t)(c + 32);
            break;
        default: break;
        }
        word_start = !(up || lo || (c >= '0' && c <= '9'));
        *d++ = c;
    }
    t->ar_len += to - from;
    return tv_b_done(t, &b);
}

/* join: items of a list (or the characters of a string) with a separator. */
aval tv_fold_join(tpl *t, const aval *x, const cval *sep, const aval *at)
{
    bld b;
    tv_b_begin(t, &b, at);
    if (x->kind == AV_STR) {
        for (uint32_t i = 0; i < x->len && !b.fail; i++) {
            if (i && sep)
                b_cval(t, &b, sep);
            b_from(t, &b, (x->flags & F_VAR) != 0, x->off + i, 1);
        }
        return tv_b_done(t, &b);
    }
    uint32_t pos = 0;
    bool first = true;
    if (!spend(t, x->len, at))
        return unk_at(at);
    while (pos + 4 <= x->len && !b.fail) {
        uint32_t len;
        memcpy(&len, vb(t, x) + pos, 4);
        if (!first && sep)
            b_cval(t, &b, sep);
        first = false;
        b_from(t, &b, (x->flags & F_VAR) != 0, x->off + pos + 4, len);
        pos += 4 + len;
    }
    return tv_b_done(t, &b);
}

/* Python slicing of a constant string (byte-wise). The bounds are clamped
 * into [-1, L] first and the loop runs over the number of items the slice
 * has, so no index is ever computed past the string: an extreme step
 * ('abc'[1::9223372036854775807]) cannot overflow `i += step`. */
aval tv_fold_slice(tpl *t, const aval *s, const aval *parts, uint32_t np)
{
    int64_t L = s->len, v[3];
    bool none[3];
    for (uint32_t i = 0; i < 3; i++) {
        none[i] = i >= np || parts[i].kind == AV_NONE;
        if (!none[i] && (parts[i].kind != AV_INT || (parts[i].flags & F_HUGE)))
            return unk_at(s);
        v[i] = none[i] ? 0 : parts[i].ival;
    }
    int64_t step = none[2] ? 1 : v[2];
    if (step == 0)
        return unk_at(s); /* ValueError in Python */
    for (int i = 0; i < 2; i++)
        if (!none[i] && v[i] < 0)
            v[i] = v[i] < -L ? -1 : v[i] + L; /* still negative: clamped below */
    int64_t start, stop;
    uint64_t mag, count = 0;
    if (step > 0) {
        start = none[0] ? 0 : v[0] > L ? L : v[0] < 0 ? 0 : v[0];
        stop = none[1] ? L : v[1] > L ? L : v[1] < 0 ? 0 : v[1];
        mag = (uint64_t)step;
        if (stop > start)
            count = ((uint64_t)(stop - start) - 1) / mag + 1;
    } else {
        start = none[0] ? L - 1 : v[0] > L - 1 ? L - 1 : v[0] < -1 ? -1 : v[0];
        stop = none[1] ? -1 : v[1] > L - 1 ? L - 1 : v[1] < -1 ? -1 : v[1];
        mag = (uint64_t)0 - (uint64_t)step; /* INT64_MIN too */
        if (start > stop)
            count = ((uint64_t)(start - stop) - 1) / mag + 1;
    }
    /* count <= L, and every index below lies in [0, L) */
    bld b;
    tv_b_begin(t, &b, s);
    bool var_space = (s->flags & F_VAR) != 0;
    for (uint64_t k = 0; k < count && !b.fail; k++) {
        uint64_t i = step > 0 ? (uint64_t)start + k * mag : (uint64_t)start - k * mag;
        b_from(t, &b, var_space, s->off + (uint32_t)i, 1);
    }
    return tv_b_done(t, &b);
}

aval tv_make_list(tpl *t, const aval *items, uint32_t n, const aval *at)
{
    aval r = unk_at(at);
    r.count = n;
    bool all = true;
    uint16_t fl = 0;
    for (uint32_t i = 0; i < n; i++) {
        all &= items[i].kind == AV_STR || items[i].kind == AV_INT;
        fl |= items[i].flags & F_TAINT;
    }
    r.flags = fl;
    if (!all)
        return r;
    bld b;
    tv_b_begin(t, &b, at);
    for (uint32_t i = 0; i < n && !b.fail; i++) {
        uint32_t mark = t->ar_len;
        tv_b_raw(t, &b, "\0\0\0\0", 4);
        uint32_t s0 = t->ar_len;
        b_val(t, &b, &items[i]);
        if (!b.fail) {
            uint32_t len = t->ar_len - s0;
            memcpy(t->ar + mark, &len, 4);
        }
    }
    if (b.fail) {
        t->ar_len = b.start;
        return r;
    }
    r.kind = AV_LIST;
    r.off = b.start;
    r.len = t->ar_len - b.start;
    r.ival = n;
    return r;
}

/* Item i (Python indexing) of a constant string or list as a string. */
aval tv_fold_index(tpl *t, const aval *x, int64_t i)
{
    aval r = unk_at(x);
    if (x->kind == AV_STR) {
        int64_t L = x->len;
        if (i < 0)
            i += L;
        if (i < 0 || i >= L)
            return r;
        bld b;
        tv_b_begin(t, &b, x);
        b_from(t, &b, (x->flags & F_VAR) != 0, x->off + (uint32_t)i, 1);
        return tv_b_done(t, &b);
    }
    if (x->kind == AV_LIST) {
        int64_t L = x->ival;
        if (i < 0)
            i += L;
        if (i < 0 || i >= L || !spend(t, x->len, x))
            return r;
        uint32_t pos = 0;
        for (int64_t k = 0; pos + 4 <= x->len; k++) {
            uint32_t len;
            memcpy(&len, vb(t, x) + pos, 4);
            if (k == i) {
                bld b;
                tv_b_begin(t, &b, x);
                b_from(t, &b, (x->flags & F_VAR) != 0, x->off + pos + 4, len);
                return tv_b_done(t, &b);
            }
            pos += 4 + len;
        }
    }
    return r;
}

aval tv_concat(tpl *t, const aval *a, const aval *b)
{
    bool ca = a->kind == AV_STR || a->kind == AV_INT, cb = b->kind == AV_STR || b->kind == AV_INT;
    if (!ca || !cb) {
        aval r = unk_at(a);
        r.flags = (uint16_t)(((a->flags | b->flags) & (F_TAINT | F_CONTENT | F_FRAG)) | F_STRTYPE);
        if ((a->kind == AV_STR && tv_has_frag(vb(t, a), a->len)) ||
            (b->kind == AV_STR && tv_has_frag(vb(t, b), b->len)))
            r.flags |= F_FRAG;
        return r;
    }
    /* two neighbours in the arena (the usual 'a' ~ 'b' ~ 'c'): no copy */
    if (a->kind == AV_STR && b->kind == AV_STR && !((a->flags | b->flags) & F_VAR) &&
        a->off + a->len == b->off && (uint64_t)a->len + b->len <= TPL_CONST_CAP) {
        bld bl;
        tv_b_begin(t, &bl, a);
        bl.start = a->off;
        if (b->off + b->len != t->ar_len) { /* something after b: copy instead */
            tv_b_begin(t, &bl, a);
            b_val(t, &bl, a);
            b_val(t, &bl, b);
        }
        bl.checked = a->kind == AV_STR ? a->len : 0;
        return tv_b_done(t, &bl);
    }
    bld bl;
    tv_b_begin(t, &bl, a);
    b_val(t, &bl, a);
    bl.checked = a->kind == AV_STR && !bl.fail ? a->len : 0;
    b_val(t, &bl, b);
    return tv_b_done(t, &bl);
}

aval tv_repeat(tpl *t, const aval *s, const aval *n, const aval *at)
{
    aval r = unk_at(at);
    int64_t cnt = (n->flags & F_HUGE) ? INT64_MAX : n->ival;
    if (s && s->kind == AV_STR) {
        int64_t total = sat_mul(s->len, cnt < 0 ? 0 : cnt);
        if (total > TPL_DOS_BIG) {
            char e[96];
            hit(t, TH_DOS, at->pos, at->index,
                "string repetition '%s' * %lld builds %lld%s "
                "bytes at render time",
                q(e, sizeof e, vb(t, s), s->len, 30), (long long)cnt, (long long)total,
                total == INT64_MAX ? "+" : "");
            r.count = total;
            return r;
        }
        if (total <= 0 || total > TPL_CONST_CAP) {
            r.count = total;
            return r;
        }
        bld b;
        tv_b_begin(t, &b, at);
        for (int64_t i = 0; i < cnt && !b.fail; i++)
            b_val(t, &b, s);
        return tv_b_done(t, &b);
    }
    if (cnt > TPL_DOS_BIG)
        hit(t, TH_DOS, at->pos, at->index,
            "repetition by %lld%s: a string or list repeated "
            "that many times at render time",
            (long long)cnt, cnt == INT64_MAX ? "+" : "");
    r.count = cnt > 0 && s && s->count >= 0 ? sat_mul(s->count, cnt) : -1;
    return r;
}

aval tv_power(tpl *t, const aval *a, const aval *b)
{
    aval r = unk_at(a);
    if (a->kind != AV_INT || b->kind != AV_INT)
        return r;
    bool huge = (a->flags | b->flags) & F_HUGE;
    int64_t x = a->ival, y = b->ival;
    if (!huge && (y < 0 || x == 0 || x == 1))
        return r;
    uint64_t mag = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    if (!huge && mag == 1)
        return r;
    unsigned bits = 0;
    while (mag) {
        bits++;
        mag >>= 1;
    }
    int64_t total = huge ? INT64_MAX : sat_mul(bits ? bits - 1 : 0, y);
    if (total > (int64_t)TPL_POW_BITS) {
        hit(t, TH_DOS, a->pos, a->index,
            "'%lld ** %lld' is an integer of about %lld%s bits: "
            "a Python renderer computes it and hangs",
            (long long)x, (long long)y, (long long)total, total == INT64_MAX ? "+" : "");
        return r;
    }
    r.kind = AV_INT;
    int64_t v = 1;
    for (int64_t i = 0; i < y; i++)
        if (__builtin_mul_overflow(v, x, &v)) {
            r.flags |= F_HUGE;
            v = INT64_MAX;
            break;
        }
    r.ival = v;
    return r;
}
