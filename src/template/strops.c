/* strops.c - the folding operations of the template analyser (part of the
 * folder, prefix fd_): % and |format, str.format, replace, the case filters
 * and methods, strip/trim, center, reverse, join, slicing, indexing, lists,
 * concatenation, repetition and powers, each as Python and Jinja compute it
 * (ci/template-oracle.py holds them to Jinja2). Strings are sequences of
 * code points. Every operation builds through the folder's builders, so it
 * costs at most the bytes it copies, charged to the budget. */
#include "template/tpl.h"

#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ folding helpers */

/* Folded values follow Python's and Jinja's semantics exactly where they
 * are claimed (ci/template-oracle.py checks that against Jinja2): strings
 * are sequences of code points, lists know which items are integers, and
 * whatever is only approximated (non-ASCII case mapping, a U+FFFD put for
 * an escape Python rejects) is marked F_INEXACT: still checked, never
 * claimed as Jinja's value. */

bool fd_to_cval(const aval *v, cval *c)
{
    if ((v->kind != AV_STR && v->kind != AV_INT) || (v->kind == AV_INT && (v->flags & F_HUGE)))
        return false;
    c->kind = v->kind;
    c->var_space = (v->flags & F_VAR) != 0;
    c->inexact = (v->flags & F_INEXACT) != 0;
    c->off = v->off;
    c->len = v->len;
    c->ival = v->ival;
    return true;
}

static void b_cval(tpl *t, bld *b, const cval *c)
{
    if (c->inexact)
        b->fl |= F_INEXACT;
    if (c->kind == AV_INT)
        fd_b_int(t, b, c->ival);
    else
        fd_b_from(t, b, c->var_space, c->off, c->len);
}

static const uint8_t *cbytes(const tpl *t, const cval *c)
{
    return (c->var_space ? t->fd.vs : t->fd.ar) + c->off;
}

/* The integer a list keeps as its decimal text (written by fd_b_int). */
static int64_t dec_value(const uint8_t *s, uint32_t n)
{
    bool neg = n && s[0] == '-';
    uint64_t v = 0;
    for (uint32_t i = neg; i < n; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    return neg ? (int64_t)(0 - v) : (int64_t)v;
}

/* The items of an AV_LIST as cvals (at most cap); false when there are more. */
static bool list_items(const tpl *t, const aval *l, cval *out, uint32_t cap, uint32_t *n)
{
    const uint8_t *p = fd_bytes(t, l);
    uint32_t pos = 0, k = 0;
    while (pos + 4 <= l->len) {
        uint32_t w, len;
        memcpy(&w, p + pos, 4);
        len = w & ~LIST_INT;
        if (k == cap)
            return false;
        out[k].kind = (w & LIST_INT) ? AV_INT : AV_STR;
        out[k].var_space = (l->flags & F_VAR) != 0;
        out[k].inexact = (l->flags & F_INEXACT) != 0;
        out[k].off = l->off + pos + 4;
        out[k].len = len;
        out[k].ival = (w & LIST_INT) ? dec_value(p + pos + 4, len) : 0;
        k++;
        pos += 4 + len;
    }
    *n = k;
    return true;
}

/* Arguments of a format operation; with `expand`, one tuple argument
 * stands for its items (the right operand of %). */
bool fd_gather_args(const tpl *t, const aval *args, uint32_t na, bool expand, cval *out,
                    uint32_t *n)
{
    *n = 0;
    if (expand && na == 1 && args[0].kind == AV_LIST) {
        if (!(args[0].flags & F_TUPLE))
            return false; /* '%s' % [x] prints the list */
        return list_items(t, &args[0], out, MAX_CARGS, n);
    }
    if (na > MAX_CARGS)
        return false;
    for (uint32_t i = 0; i < na; i++)
        if (!fd_to_cval(&args[i], &out[i]))
            return false;
    *n = na;
    return true;
}

/* ------------------------------------------------------ code points */

/* Bytes of the code point at s[i] (1 for a byte that starts no valid one). */
static uint32_t cp_at(const uint8_t *s, uint32_t n, uint32_t i, uint32_t *cp)
{
    if (s[i] < 0x80) {
        *cp = s[i];
        return 1;
    }
    unsigned k = utf8_decode(s + i, n - i, cp);
    if (!k) {
        *cp = 0xFFFD;
        return 1;
    }
    return k;
}

/* Start of the code point that ends just before s[i] (i > 0). */
static uint32_t cp_before(const uint8_t *s, uint32_t i)
{
    uint32_t j = i - 1, lim = i >= 4 ? i - 4 : 0;
    while (j > lim && (s[j] & 0xC0) == 0x80)
        j--;
    uint32_t cp;
    return cp_at(s, i, j, &cp) == i - j ? j : i - 1;
}

static uint32_t cp_count(const uint8_t *s, uint32_t n)
{
    uint32_t k = 0, cp;
    for (uint32_t i = 0; i < n; k++)
        i += cp_at(s, n, i, &cp);
    return k;
}

static bool memchr_u32(const uint32_t *v, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* Python's str.isspace() */
static bool py_space(uint32_t cp)
{
    return (cp >= 9 && cp <= 13) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
           cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* Append code point cp as UTF-8. */
static void b_cp(tpl *t, bld *b, uint32_t cp)
{
    uint8_t u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (uint8_t)(0xC0 | (cp >> 6));
        u[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (uint8_t)(0xE0 | (cp >> 12));
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (uint8_t)(0xF0 | (cp >> 18));
        u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 4;
    }
    fd_b_raw(t, b, u, n);
}

/* ------------------------------------------------------ % and format */

/* A conversion of one argument, as printf-style % and str.format's format
 * spec describe it (Python's rules; what they reject is left unknown). */
#define CONV_CAP 512u /* bytes of a !r / !a / %r text (or a padded piece) folded */
typedef struct fspec {
    uint32_t fill;  /* code point */
    uint8_t align;  /* '<' '>' '^' '=' or 0 (the type's default) */
    uint8_t sign;   /* '+' ' ' or 0 */
    bool alt, zero; /* '#', '0' */
    uint8_t group;  /* ',' '_' or 0 */
    int64_t width;  /* -1 none */
    int64_t prec;   /* -1 none */
    uint8_t type;   /* 's' 'd' 'x' 'X' 'o' 'b' 'c' or 0 */
} fspec;

/* A width past which the render itself is the attack (GG729); a width
 * that does not fold is unknown. */
static bool spec_width_ok(tpl *t, const fspec *f, const aval *at)
{
    if (f->width > TPL_DOS_BIG)
        tpl_report(t, TH_DOS, at->index,
                   "a format width of %lld pads one value to that many characters at render time",
                   (long long)f->width);
    return f->width <= (int64_t)TPL_CONST_CAP;
}

static void b_fill(tpl *t, bld *b, uint32_t cp, int64_t n)
{
    for (int64_t i = 0; i < n && !b->fail; i++)
        b_cp(t, b, cp);
}

/* digits of |v| in base (2, 8, 10, 16), precision zeros in front, with
 * '_' or ',' every `every` digits; into d (cap 160), returns the length */
static uint32_t int_digits(uint64_t v, unsigned base, bool upper, int64_t prec, uint8_t group,
                           unsigned every, char *d)
{
    char tmp[80];
    uint32_t n = 0;
    do {
        unsigned x = (unsigned)(v % base);
        tmp[n++] = (char)(x < 10 ? '0' + x : (upper ? 'A' : 'a') + x - 10);
        v /= base;
    } while (v);
    while (prec > 0 && (int64_t)n < prec && n < sizeof tmp)
        tmp[n++] = '0';
    uint32_t k = 0;
    for (uint32_t i = n; i-- > 0;) {
        d[k++] = tmp[i];
        if (group && i > 0 && i % every == 0)
            d[k++] = (char)group;
    }
    return k;
}

/* The text s[0..n) under spec f as a string (precision, width, fill and
 * alignment) into b; its bytes are copied from c's storage when c is given
 * (s is then only read before the arena grows), else from s. */
static bool b_text(tpl *t, bld *b, const uint8_t *s, uint32_t n, const cval *c, const fspec *f,
                   bool pct)
{
    if (f->type && f->type != 's')
        return false;
    if (!pct && (f->sign || f->alt || f->group || f->zero || f->align == '='))
        return false;
    uint32_t cps = cp_count(s, n), keep = n;
    if (f->prec >= 0 && (int64_t)cps > f->prec) {
        uint32_t i = 0, cp;
        for (int64_t k = 0; k < f->prec; k++)
            i += cp_at(s, n, i, &cp);
        keep = i;
        cps = (uint32_t)f->prec;
    }
    int64_t pad = f->width > (int64_t)cps ? f->width - cps : 0;
    uint8_t al = f->align ? f->align : pct ? '>' : '<';
    int64_t left = al == '<' ? 0 : al == '^' ? pad / 2 : pad;
    uint32_t fill = pct ? ' ' : f->fill;
    uint8_t head[CONV_CAP];
    if (!c && keep) { /* s may lie in the arena the fill grows */
        if (keep > sizeof head)
            return false;
        memcpy(head, s, keep);
    }
    b_fill(t, b, fill, left);
    if (keep) {
        if (c)
            fd_b_from(t, b, c->var_space, c->off, keep);
        else
            fd_b_raw(t, b, head, keep);
    }
    b_fill(t, b, fill, pad - left);
    return !b->fail;
}

/* str(x) (conv 's'), repr(x) ('r') or ascii(x) ('a') of a constant into
 * out (cap bytes) as Python writes it; false when it does not fit, or when
 * repr would keep a non-ASCII character (whether Python prints it or
 * escapes it depends on its Unicode category: not folded). */
static bool conv_text(const tpl *t, const cval *c, uint8_t conv, uint8_t *out, uint32_t cap,
                      uint32_t *len)
{
    if (c->kind == AV_INT) { /* str, repr and ascii of an integer agree */
        int k = snprintf((char *)out, cap, "%lld", (long long)c->ival);
        *len = k > 0 ? (uint32_t)k : 0;
        return k > 0 && (uint32_t)k < cap;
    }
    const uint8_t *s = cbytes(t, c);
    uint32_t n = c->len, k = 0;
    if (conv == 's') {
        if (n > cap)
            return false;
        memcpy(out, s, n);
        *len = n;
        return true;
    }
    /* Python quotes with ' unless the text holds a ' and no " */
    uint8_t q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    if (cap < 2)
        return false;
    out[k++] = q;
    for (uint32_t i = 0; i < n;) {
        uint32_t cp, m = cp_at(s, n, i, &cp);
        if (m == 1 && s[i] >= 0x80)
            return false; /* not UTF-8 */
        i += m;
        char e[12];
        int en;
        if (cp == q || cp == '\\')
            en = snprintf(e, sizeof e, "\\%c", (char)cp);
        else if (cp == '\t' || cp == '\n' || cp == '\r')
            en = snprintf(e, sizeof e, "\\%c", cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r');
        else if (cp < 0x20 || cp == 0x7F)
            en = snprintf(e, sizeof e, "\\x%02x", (unsigned)cp);
        else if (cp < 0x80)
            en = snprintf(e, sizeof e, "%c", (char)cp);
        else if (conv != 'a')
            return false;
        else
            en = snprintf(e, sizeof e,
                          cp < 0x100     ? "\\x%02x"
                          : cp < 0x10000 ? "\\u%04x"
                                         : "\\U%08x",
                          (unsigned)cp);
        if (en <= 0 || (uint32_t)en > cap - 1 - k)
            return false;
        memcpy(out + k, e, (size_t)en);
        k += (uint32_t)en;
    }
    out[k++] = q;
    *len = k;
    return true;
}

/* One argument converted under spec f into b; false when it does not fold
 * (or Python raises). pct: printf-style rules, else str.format's. */
static bool b_spec(tpl *t, bld *b, const cval *c, const fspec *f, bool pct, const aval *at)
{
    if (f->width >= 0 && !spec_width_ok(t, f, at))
        return false;
    uint8_t ty = f->type;
    if (c->inexact)
        b->fl |= F_INEXACT;
    if (ty == 'c') {
        uint32_t cp;
        if (c->kind == AV_INT) {
            if (c->ival < 0 || c->ival > 0x10FFFF || (c->ival >= 0xD800 && c->ival <= 0xDFFF))
                return false;
            cp = (uint32_t)c->ival;
        } else {
            if (!pct || c->len == 0 || cp_at(cbytes(t, c), c->len, 0, &cp) != c->len)
                return false; /* %c takes one character; {:c} an integer */
        }
        if (!pct && (f->sign || f->alt || f->group || f->zero || f->prec >= 0 || f->align == '='))
            return false;
        int64_t pad = f->width > 1 ? f->width - 1 : 0;
        uint8_t al = f->align ? f->align : '>';
        int64_t left = al == '<' ? 0 : al == '^' ? pad / 2 : pad;
        b_fill(t, b, f->fill, left);
        b_cp(t, b, cp);
        b_fill(t, b, f->fill, pad - left);
        return !b->fail;
    }
    if (c->kind == AV_STR || ty == 's') {
        /* a string, or an integer through %s / {!s:s} */
        if (c->kind == AV_INT && !pct)
            return false; /* '{:s}'.format(5): Unknown format code 's' for int */
        if (c->kind == AV_STR)
            return b_text(t, b, cbytes(t, c), c->len, c, f, pct);
        char d[24];
        int k = snprintf(d, sizeof d, "%lld", (long long)c->ival);
        return b_text(t, b, (const uint8_t *)d, k > 0 ? (uint32_t)k : 0, NULL, f, pct);
    }
    /* an integer */
    unsigned base = 10;
    bool upper = false;
    switch (ty) {
    case 0:
    case 'd': break;
    case 'x': base = 16; break;
    case 'X':
        base = 16;
        upper = true;
        break;
    case 'o': base = 8; break;
    case 'b':
        if (pct)
            return false;
        base = 2;
        break;
    default: return false;
    }
    if (!pct && f->prec >= 0)
        return false; /* Precision not allowed in integer format specifier */
    if (f->group && (pct || (f->group == ',' && base != 10) || f->zero))
        return false;
    int64_t v = c->ival;
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char d[160];
    uint32_t nd =
        int_digits(mag, base, upper, pct ? f->prec : -1, f->group, base == 10 ? 3u : 4u, d);
    char head[4];
    uint32_t nh = 0;
    if (v < 0)
        head[nh++] = '-';
    else if (f->sign == '+' || f->sign == ' ')
        head[nh++] = (char)f->sign;
    if (f->alt && base != 10) {
        head[nh++] = '0';
        head[nh++] = (char)(base == 16 ? (upper ? 'X' : 'x') : base == 8 ? 'o' : 'b');
    }
    int64_t body = (int64_t)(nh + nd);
    int64_t pad = f->width > body ? f->width - body : 0;
    uint8_t al;
    uint32_t fill = f->fill;
    if (pct) {
        al = f->align == '<' ? '<' : f->zero ? '=' : '>';
        fill = al == '=' ? '0' : ' ';
    } else {
        if (f->zero && f->align)
            return false; /* '0' with an explicit alignment: left to Python */
        al = f->align ? f->align : f->zero ? '=' : '>';
        if (f->zero)
            fill = '0';
    }
    int64_t left = al == '<' || al == '=' ? 0 : al == '^' ? pad / 2 : pad;
    b_fill(t, b, fill, left);
    fd_b_raw(t, b, head, nh);
    if (al == '=')
        b_fill(t, b, fill, pad);
    fd_b_raw(t, b, d, nd);
    if (al != '=')
        b_fill(t, b, fill, pad - left);
    return !b->fail;
}

/* a decimal run at f[*i] (at most 10 digits: a bigger width is saturated) */
static int64_t spec_num(const uint8_t *f, uint32_t n, uint32_t *i)
{
    int64_t v = 0;
    while (*i < n && f[*i] >= '0' && f[*i] <= '9') {
        if (v < 100000000000LL)
            v = v * 10 + (f[*i] - '0');
        (*i)++;
    }
    return v;
}

/* The alphabet of a format whose arguments are not known: F_FRAG when a
 * conversion can write any character (%c, {:c}) or an argument holds a
 * dunder piece, so the result can spell '__class__' (a key built that way
 * is judged by it: GG722). */
uint16_t fd_fmt_wild(tpl *t, const aval *fmt, const aval *args, uint32_t na, bool pct)
{
    uint16_t fl = 0;
    for (uint32_t i = 0; i < na; i++)
        fl |= (uint16_t)((args[i].flags & F_FRAG) | fd_frag_of(t, &args[i]));
    if (fmt->kind != AV_STR)
        return (uint16_t)(fl | (fmt->flags & F_FRAG));
    const uint8_t *f = fd_bytes(t, fmt);
    for (uint32_t i = 0; i + 1 < fmt->len; i++) {
        if (pct ? f[i] != '%' : f[i] != ':')
            continue;
        uint32_t j = i + 1;
        while (
            j < fmt->len && j - i < 24 &&
            (pct ? f[j] != 'c' && strchr("-0+ #.0123456789hlL", f[j]) : f[j] != 'c' && f[j] != '}'))
            j++;
        if (j < fmt->len && f[j] == 'c')
            return (uint16_t)(fl | F_FRAG);
    }
    return (uint16_t)(fl | fd_frag_of(t, fmt));
}

/* printf-style: fmt % args. Python's rules: a tuple must be consumed
 * exactly, a single value is one argument; flags (- 0 + space #), width,
 * precision, the length modifiers h l L and the conversions s d i u x X o c
 * fold; %% is a percent; '*', a (mapping key) and the others are unknown. */
aval fd_fold_percent(tpl *t, const aval *fmt, const cval *a, uint32_t na)
{
    bld b;
    fd_b_begin(t, &b, fmt);
    b.fl |= fmt->flags & F_INEXACT;
    uint32_t used = 0, i = 0, n = fmt->len;
    bool var_space = (fmt->flags & F_VAR) != 0;
    while (i < n && !b.fail) {
        const uint8_t *f = fd_bytes(t, fmt);
        uint32_t j = i;
        while (j < n && f[j] != '%')
            j++;
        fd_b_from(t, &b, var_space, fmt->off + i, j - i);
        if (j >= n)
            break;
        f = fd_bytes(t, fmt);
        i = j + 1;
        fspec sp = {.fill = ' ', .width = -1, .prec = -1};
        for (; i < n; i++) {
            if (f[i] == '-')
                sp.align = '<';
            else if (f[i] == '0')
                sp.zero = true;
            else if (f[i] == '+')
                sp.sign = '+';
            else if (f[i] == ' ' && sp.sign != '+')
                sp.sign = ' ';
            else if (f[i] == '#')
                sp.alt = true;
            else if (f[i] != ' ')
                break;
        }
        if (i < n && f[i] >= '0' && f[i] <= '9')
            sp.width = spec_num(f, n, &i);
        if (i < n && f[i] == '.') {
            i++;
            sp.prec = spec_num(f, n, &i);
        }
        while (i < n && (f[i] == 'h' || f[i] == 'l' || f[i] == 'L'))
            i++;
        if (i >= n)
            goto unknown; /* "incomplete format" */
        uint8_t conv = f[i++];
        if (conv == '%' && j + 2 == i) {
            fd_b_raw(t, &b, "%", 1);
            continue;
        }
        if (used >= na)
            goto unknown; /* "not enough arguments" */
        const cval *c = &a[used++];
        if (conv == 'i' || conv == 'u')
            conv = 'd';
        if ((conv == 'd' || conv == 'x' || conv == 'X' || conv == 'o') && c->kind != AV_INT)
            goto unknown;
        if (conv == 'r' || conv == 'a') { /* repr() / ascii(), then as %s */
            uint8_t tx[CONV_CAP];
            uint32_t tn;
            sp.type = 's';
            if (c->inexact)
                b.fl |= F_INEXACT;
            if (!conv_text(t, c, conv, tx, sizeof tx, &tn) ||
                (sp.width >= 0 && !spec_width_ok(t, &sp, fmt)) ||
                !b_text(t, &b, tx, tn, NULL, &sp, true))
                goto unknown;
            continue;
        }
        if (conv != 's' && conv != 'd' && conv != 'x' && conv != 'X' && conv != 'o' && conv != 'c')
            goto unknown;
        sp.type = conv;
        if (conv == 'd' && sp.alt)
            sp.alt = false; /* '#' changes nothing for d */
        if (!b_spec(t, &b, c, &sp, true, fmt))
            goto unknown;
    }
    if (used != na)
        goto unknown; /* "not all arguments converted" */
    return fd_b_done(t, &b);
unknown:
    t->fd.ar_len = b.start;
    return unk_at(fmt);
}

/* A str.format spec ([[fill]align][sign][#][0][width][grouping][.prec][type])
 * in f[i..e); false for what Python rejects or what is not folded. */
static bool parse_format_spec(const uint8_t *f, uint32_t i, uint32_t e, fspec *sp)
{
    *sp = (fspec){.fill = ' ', .width = -1, .prec = -1};
    uint32_t cp, k = i < e ? cp_at(f, e, i, &cp) : 0;
    if (k && i + k < e && strchr("<>^=", f[i + k])) {
        sp->fill = cp;
        sp->align = f[i + k];
        i += k + 1;
    } else if (i < e && strchr("<>^=", f[i])) {
        sp->align = f[i++];
    }
    if (i < e && (f[i] == '+' || f[i] == '-' || f[i] == ' '))
        sp->sign = f[i] == '-' ? 0 : f[i], i++;
    if (i < e && f[i] == '#')
        sp->alt = true, i++;
    if (i < e && f[i] == '0')
        sp->zero = true, i++;
    if (i < e && f[i] >= '0' && f[i] <= '9')
        sp->width = spec_num(f, e, &i);
    if (i < e && (f[i] == ',' || f[i] == '_'))
        sp->group = f[i++];
    if (i < e && f[i] == '.') {
        i++;
        if (i >= e || f[i] < '0' || f[i] > '9')
            return false;
        sp->prec = spec_num(f, e, &i);
    }
    if (i < e) {
        uint8_t ty = f[i++];
        if (!strchr("sdxXobc", ty))
            return false;
        sp->type = ty;
    }
    return i == e;
}

/* str.format with {} and {N} fields (never both: Python refuses to switch
 * between automatic and manual numbering), each with an optional !s / !r
 * conversion and a format spec. */
aval fd_fold_format(tpl *t, const aval *fmt, const cval *a, uint32_t na)
{
    bld b;
    fd_b_begin(t, &b, fmt);
    b.fl |= fmt->flags & F_INEXACT;
    uint32_t auto_i = 0, i = 0, n = fmt->len;
    bool var_space = (fmt->flags & F_VAR) != 0, manual = false;
    while (i < n && !b.fail) {
        const uint8_t *f = fd_bytes(t, fmt);
        uint8_t c = f[i];
        if ((c == '{' || c == '}') && i + 1 < n && f[i + 1] == c) {
            fd_b_raw(t, &b, &c, 1);
            i += 2;
            continue;
        }
        if (c == '}')
            goto unknown; /* "single '}' encountered" */
        if (c != '{') {
            uint32_t j = i;
            while (j < n && f[j] != '{' && f[j] != '}')
                j++;
            fd_b_from(t, &b, var_space, fmt->off + i, j - i);
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
        uint8_t conv = 0;
        if (j + 1 < n && f[j] == '!') {
            conv = f[j + 1];
            j += 2;
            if (conv != 's' && conv != 'r' && conv != 'a')
                goto unknown;
        }
        uint32_t spec = j, e = j;
        if (j < n && f[j] == ':') {
            spec = e = j + 1;
            while (e < n && f[e] != '}' && f[e] != '{')
                e++;
        }
        if (e >= n || f[e] != '}')
            goto unknown; /* a nested field, or no closing brace */
        if (digits ? auto_i > 0 : manual)
            goto unknown; /* numbering switched */
        manual |= digits;
        if (!digits)
            idx = auto_i++;
        if (idx >= na)
            goto unknown;
        cval arg = a[idx];
        fspec sp;
        if (!parse_format_spec(f, spec, e, &sp))
            goto unknown;
        if (conv && !(conv == 's' && arg.kind == AV_STR)) {
            /* str() / repr() / ascii() first, then the spec applies to a string */
            uint8_t tx[CONV_CAP];
            uint32_t tn;
            if (arg.inexact)
                b.fl |= F_INEXACT;
            if (!conv_text(t, &arg, conv, tx, sizeof tx, &tn) ||
                (sp.width >= 0 && !spec_width_ok(t, &sp, fmt)) ||
                !b_text(t, &b, tx, tn, NULL, &sp, false))
                goto unknown;
        } else if (!b_spec(t, &b, &arg, &sp, false, fmt)) {
            goto unknown;
        }
        i = e + 1;
    }
    return fd_b_done(t, &b);
unknown:
    t->fd.ar_len = b.start;
    return unk_at(fmt);
}

/* The next match of o (m bytes) in p[i..n), or n. */
static uint32_t next_match(const uint8_t *p, uint32_t i, uint32_t n, const uint8_t *o, uint32_t m)
{
    while (n - i >= m) {
        const uint8_t *q = memchr(p + i, o[0], n - i - m + 1);
        if (!q)
            return n;
        i = (uint32_t)(q - p);
        if (memcmp(q, o, m) == 0)
            return i;
        i++;
    }
    return n;
}

/* str.find / rfind / index / rindex / count with one argument (how: 0 1
 * 2 3 4): the code-point index (or count) Python returns; index and
 * rindex of a missing piece raise (unknown). Bytes of valid UTF-8 match
 * where the code points do. */
aval fd_fold_find(tpl *t, const aval *s, const cval *o, int how)
{
    aval r = unk_at(s);
    if (o->kind != AV_STR || !fd_spend(t, s->len, s))
        return r;
    const uint8_t *p = fd_bytes(t, s), *q = cbytes(t, o);
    uint32_t n = s->len, m = o->len;
    int64_t v = -1;
    if (how == 4) {
        v = 0;
        if (m == 0) {
            v = (int64_t)cp_count(p, n) + 1;
        } else {
            for (uint32_t i = next_match(p, 0, n, q, m); i < n; i = next_match(p, i + m, n, q, m))
                v++;
        }
    } else {
        uint32_t at = n + 1;
        if (how == 0 || how == 2) {
            at = m == 0 ? 0 : next_match(p, 0, n, q, m);
            if (m && at >= n)
                at = n + 1;
        } else if (m <= n) {
            for (uint32_t i = n - m + 1; i-- > 0;)
                if (memcmp(p + i, q, m) == 0) {
                    at = i;
                    break;
                }
        }
        if (at <= n)
            v = (int64_t)cp_count(p, at);
        else if (how == 2 || how == 3)
            return r; /* ValueError: substring not found */
    }
    r.kind = AV_INT;
    r.ival = v;
    r.flags = (uint32_t)((s->flags | (o->inexact ? F_INEXACT : 0)) & F_INEXACT);
    return r;
}

/* str.replace: one pass counts the matches (memchr for the first byte),
 * the result is reserved once, a second pass writes it. Both passes are
 * linear; the check is charged to the budget as s->len * old->len, the
 * copy by the result's length plus one unit per match when new is empty. */
aval fd_fold_replace(tpl *t, const aval *s, const cval *old, const cval *new_, int64_t count)
{
    bld b;
    fd_b_begin(t, &b, s);
    if (old->kind != AV_STR || new_->kind != AV_STR || old->len == 0 || old->len > 256 ||
        !fd_spend(t, s->len * old->len, s))
        return unk_at(s);
    b.fl |= (uint16_t)((s->flags & F_INEXACT) | (old->inexact ? F_INEXACT : 0));
    const uint32_t n = s->len, m = old->len, r = new_->len;
    uint64_t hits = 0;
    {
        const uint8_t *p = fd_bytes(t, s), *o = cbytes(t, old);
        if (m == 1) { /* a byte: count it in one plain loop (matches may be dense) */
            for (uint32_t i = 0; i < n; i++)
                hits += p[i] == o[0];
            if (count >= 0 && hits > (uint64_t)count)
                hits = (uint64_t)count;
        } else {
            for (uint32_t i = next_match(p, 0, n, o, m);
                 i < n && (count < 0 || hits < (uint64_t)count); i = next_match(p, i + m, n, o, m))
                hits++;
        }
    }
    if (hits && new_->inexact)
        b.fl |= F_INEXACT;
    uint64_t out = (uint64_t)n - hits * m + hits * r;
    if (hits && r == 0 && !fd_spend(t, (uint32_t)(hits < UINT32_MAX ? hits : UINT32_MAX), s))
        return unk_at(s);
    if (out == 0) /* an empty result still costs one unit, as an empty piece does */
        return fd_spend(t, 1, s) ? fd_b_done(t, &b) : unk_at(s);
    if (out > TPL_DOS_BIG) {
        char e[96];
        tpl_report(t, TH_DOS, s->index,
                   "|replace of '%s' (%llu matches) builds %llu bytes at render time",
                   tpl_quote(e, sizeof e, cbytes(t, old), m, 30), (unsigned long long)hits,
                   (unsigned long long)out);
    }
    if (out > TPL_CONST_CAP || !fd_b_room(t, &b, out)) {
        /* too big to hold: unknown bytes of a known size. (Without the
         * fail, fd_b_done took the empty builder for the result, and
         * ('a' * 60000)|replace('a', 'aaaa') folded to ''.) */
        b.fail = true;
        aval u = fd_b_done(t, &b);
        u.count = (int64_t)out;
        u.flags |= F_STRTYPE | (s->flags & (F_CONTENT | F_TAINT));
        return u;
    }
    /* the arena is reserved: the pointers stay valid, and the result lies
     * past every source in the arena */
    const uint8_t *p = fd_bytes(t, s), *o = cbytes(t, old), *w = cbytes(t, new_);
    uint8_t *d = t->fd.ar + t->fd.ar_len;
    if (m == 1 && r == 1 && (uint64_t)count >= n) { /* every match (count < 0 is all) */
        const uint8_t a = o[0], z = w[0];
        for (uint32_t i = 0; i < n; i++)
            d[i] = p[i] == a ? z : p[i];
    } else if (m == 1) {
        uint32_t i = 0;
        for (uint64_t k = 0; k < hits; i++) {
            if (p[i] == o[0]) {
                memcpy(d, w, r);
                d += r;
                k++;
            } else {
                *d++ = p[i];
            }
        }
        memcpy(d, p + i, n - i);
    } else {
        uint32_t i = 0;
        for (uint64_t k = 0; k < hits; k++) {
            uint32_t j = next_match(p, i, n, o, m);
            memcpy(d, p + i, j - i);
            d += j - i;
            memcpy(d, w, r);
            d += r;
            i = j + m;
        }
        memcpy(d, p + i, n - i);
    }
    t->fd.ar_len += (uint32_t)out;
    return fd_b_done(t, &b);
}

/* ------------------------------------------------------ case and strip */

static bool ascii_sep(uint8_t c) /* Jinja's |title word break: [-\s({[<] */
{
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' || c == ' ' ||
           (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x1F);
}

/* Case mappings are exact on ASCII; other letters are copied unchanged and
 * the result is F_INEXACT (Python maps them, sometimes to ASCII). */
aval fd_fold_case(tpl *t, const aval *s, int how)
{
    bld b;
    fd_b_begin(t, &b, s);
    uint32_t n = s->len;
    if (!fd_b_room(t, &b, n))
        return fd_b_done(t, &b);
    const uint8_t *p = fd_bytes(t, s);
    if (!utf8_is_ascii(p, n))
        b.fl |= F_INEXACT;
    b.fl |= s->flags & F_INEXACT;
    uint8_t *d = t->fd.ar + t->fd.ar_len;
    bool start = true;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t c = p[i];
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
        case CASE_CAP: /* str.capitalize: the first character upper, the rest lower */
            c = i == 0 ? (lo ? (uint8_t)(c - 32) : c) : (up ? (uint8_t)(c + 32) : c);
            break;
        case CASE_TITLE: /* str.title: upper after an uncased character */
            c = start ? (lo ? (uint8_t)(c - 32) : c) : (up ? (uint8_t)(c + 32) : c);
            start = !(up || lo);
            break;
        case CASE_JTITLE: /* Jinja's |title: upper after [-\s({[<] only */
            if (ascii_sep(c)) {
                start = true;
            } else {
                c = start ? (lo ? (uint8_t)(c - 32) : c) : (up ? (uint8_t)(c + 32) : c);
                start = false;
            }
            break;
        default: break;
        }
        *d++ = c;
    }
    t->fd.ar_len += n;
    return fd_b_done(t, &b);
}

/* str.strip / lstrip / rstrip and |trim: whitespace as Python sees it, or
 * the code points of `chars`. */
aval fd_fold_strip(tpl *t, const aval *s, const cval *chars, int side)
{
    const uint8_t *p = fd_bytes(t, s);
    uint32_t n = s->len, from = 0, to = n, cp;
    uint32_t set[64], nset = 0;
    if (chars) {
        if (chars->kind != AV_STR || chars->len > 256)
            return unk_at(s);
        const uint8_t *c = cbytes(t, chars);
        for (uint32_t i = 0; i < chars->len;) {
            if (nset == 64)
                return unk_at(s);
            i += cp_at(c, chars->len, i, &set[nset++]);
        }
    }
    if (!fd_spend(t, n, s))
        return unk_at(s);
#define STRIPS(cp_) (chars ? memchr_u32(set, nset, (cp_)) : py_space(cp_))
    if (side <= 0)
        while (from < to) {
            uint32_t k = cp_at(p, to, from, &cp);
            if (!STRIPS(cp))
                break;
            from += k;
        }
    if (side >= 0)
        while (to > from) {
            uint32_t j = cp_before(p, to);
            cp_at(p, to, j, &cp);
            if (!STRIPS(cp))
                break;
            to = j;
        }
#undef STRIPS
    bld b;
    fd_b_begin(t, &b, s);
    b.fl |= (uint16_t)((s->flags & F_INEXACT) | (chars && chars->inexact ? F_INEXACT : 0));
    fd_b_from(t, &b, (s->flags & F_VAR) != 0, s->off + from, to - from);
    return fd_b_done(t, &b);
}

/* str.center(width) (|center): padded with spaces, the extra one on the
 * left when the margin and the width are both odd. */
aval fd_fold_center(tpl *t, const aval *s, int64_t width)
{
    uint32_t len = cp_count(fd_bytes(t, s), s->len);
    if (width <= (int64_t)len)
        return *s;
    if (width - len > TPL_CONST_CAP)
        return unk_at(s);
    uint32_t marg = (uint32_t)(width - len);
    uint32_t left = marg / 2 + (marg & (uint32_t)width & 1u);
    bld b;
    fd_b_begin(t, &b, s);
    b.fl |= s->flags & F_INEXACT;
    for (uint32_t i = 0; i < left && !b.fail; i++)
        fd_b_raw(t, &b, " ", 1);
    fd_b_from(t, &b, (s->flags & F_VAR) != 0, s->off, s->len);
    for (uint32_t i = left; i < marg && !b.fail; i++)
        fd_b_raw(t, &b, " ", 1);
    return fd_b_done(t, &b);
}

/* ------------------------------------------------------ sequences */

/* The code points of a string in reverse order (|reverse, [::-1]). */
aval fd_fold_reverse(tpl *t, const aval *s)
{
    bld b;
    fd_b_begin(t, &b, s);
    b.fl |= s->flags & F_INEXACT;
    bool var_space = (s->flags & F_VAR) != 0;
    for (uint32_t i = s->len; i > 0 && !b.fail;) {
        uint32_t j = cp_before(fd_bytes(t, s), i);
        fd_b_from(t, &b, var_space, s->off + j, i - j);
        i = j;
    }
    return fd_b_done(t, &b);
}

/* join: the items of a list (or the code points of a string) with a
 * separator. `strict` is str.join, which refuses integer items; |join
 * prints them. */
aval fd_fold_join(tpl *t, const aval *x, const cval *sep, const aval *at, bool strict)
{
    bld b;
    fd_b_begin(t, &b, at);
    b.fl |= (uint16_t)((x->flags & F_INEXACT) | (sep && sep->inexact ? F_INEXACT : 0));
    bool var_space = (x->flags & F_VAR) != 0;
    if (x->kind == AV_STR) {
        uint32_t cp;
        for (uint32_t i = 0; i < x->len && !b.fail;) {
            uint32_t k = cp_at(fd_bytes(t, x), x->len, i, &cp);
            if (i && sep)
                b_cval(t, &b, sep);
            fd_b_from(t, &b, var_space, x->off + i, k);
            i += k;
        }
        return fd_b_done(t, &b);
    }
    uint32_t pos = 0;
    bool first = true;
    if (!fd_spend(t, x->len, at))
        return unk_at(at);
    while (pos + 4 <= x->len && !b.fail) {
        uint32_t w;
        memcpy(&w, fd_bytes(t, x) + pos, 4);
        if (strict && (w & LIST_INT)) {
            t->fd.ar_len = b.start;
            return unk_at(at);
        }
        if (!first && sep)
            b_cval(t, &b, sep);
        first = false;
        fd_b_from(t, &b, var_space, x->off + pos + 4, w & ~LIST_INT);
        pos += 4 + (w & ~LIST_INT);
    }
    return fd_b_done(t, &b);
}

/* Python slicing of a constant string, by code points. The bounds are
 * clamped into [-1, L] first and the loop runs over the number of items
 * the slice has, so no index is ever computed past the string: an extreme
 * step ('abc'[1::9223372036854775807]) cannot overflow. */
aval fd_fold_slice(tpl *t, const aval *s, const aval *parts, uint32_t np)
{
    const uint8_t *p = fd_bytes(t, s);
    bool ascii = utf8_is_ascii(p, s->len);
    int64_t L = ascii ? s->len : cp_count(p, s->len), v[3];
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
    /* count <= L, and every index taken lies in [0, L) */
    bld b;
    fd_b_begin(t, &b, s);
    b.fl |= s->flags & F_INEXACT;
    bool var_space = (s->flags & F_VAR) != 0;
    if (ascii) {
        for (uint64_t k = 0; k < count && !b.fail; k++) {
            uint64_t i = step > 0 ? (uint64_t)start + k * mag : (uint64_t)start - k * mag;
            fd_b_from(t, &b, var_space, s->off + (uint32_t)i, 1);
        }
        return fd_b_done(t, &b);
    }
    if (count && !fd_spend(t, s->len, s))
        return unk_at(s);
    /* walk the code points, taking indexes start, start +- mag, ... */
    uint64_t taken = 0, want = (uint64_t)start;
    uint32_t cp;
    if (step > 0) {
        for (uint32_t i = 0, k = 0; i < s->len && taken < count && !b.fail; k++) {
            uint32_t len = cp_at(fd_bytes(t, s), s->len, i, &cp);
            if (k == want) {
                fd_b_from(t, &b, var_space, s->off + i, len);
                if (++taken < count)
                    want += mag;
            }
            i += len;
        }
    } else {
        uint64_t k = (uint64_t)L;
        for (uint32_t i = s->len; i > 0 && taken < count && !b.fail;) {
            uint32_t j = cp_before(fd_bytes(t, s), i);
            k--;
            if (k == want) {
                fd_b_from(t, &b, var_space, s->off + j, i - j);
                if (++taken < count)
                    want -= mag;
            }
            i = j;
        }
    }
    return fd_b_done(t, &b);
}

aval fd_make_list(tpl *t, const aval *items, uint32_t n, const aval *at)
{
    aval r = unk_at(at);
    r.count = n;
    bool all = true;
    uint16_t fl = 0;
    for (uint32_t i = 0; i < n; i++) {
        all &= items[i].kind == AV_STR || (items[i].kind == AV_INT && !(items[i].flags & F_HUGE));
        fl |= items[i].flags & (F_TAINT | F_INEXACT);
    }
    r.flags = fl & F_TAINT;
    if (!all) {
        for (uint32_t i = 0; i < n; i++) /* '__' among the items of an unknown list */
            r.flags |= fd_frag_of(t, &items[i]);
        return r;
    }
    bld b;
    fd_b_begin(t, &b, at);
    for (uint32_t i = 0; i < n && !b.fail; i++) {
        uint32_t mark = t->fd.ar_len;
        fd_b_raw(t, &b, "\0\0\0\0", 4);
        uint32_t s0 = t->fd.ar_len;
        fd_b_val(t, &b, &items[i]);
        if (!b.fail) {
            uint32_t w = (t->fd.ar_len - s0) | (items[i].kind == AV_INT ? LIST_INT : 0);
            memcpy(t->fd.ar + mark, &w, 4);
        }
    }
    if (b.fail) {
        t->fd.ar_len = b.start;
        return r;
    }
    r.kind = AV_LIST;
    r.flags = fl;
    r.off = b.start;
    r.len = t->fd.ar_len - b.start;
    r.ival = n;
    return r;
}

/* Item i (Python indexing) of a constant string (a code point) or list. */
aval fd_fold_index(tpl *t, const aval *x, int64_t i)
{
    aval r = unk_at(x);
    if (x->kind == AV_STR) {
        const uint8_t *p = fd_bytes(t, x);
        bool ascii = utf8_is_ascii(p, x->len);
        int64_t L = ascii ? x->len : cp_count(p, x->len);
        if (i < 0)
            i += L;
        if (i < 0 || i >= L)
            return r;
        uint32_t off = (uint32_t)i, len = 1, cp;
        if (!ascii) {
            if (!fd_spend(t, x->len, x))
                return r;
            off = 0;
            for (int64_t k = 0; k < i; k++)
                off += cp_at(p, x->len, off, &cp);
            len = cp_at(p, x->len, off, &cp);
        }
        bld b;
        fd_b_begin(t, &b, x);
        b.fl |= x->flags & F_INEXACT;
        fd_b_from(t, &b, (x->flags & F_VAR) != 0, x->off + off, len);
        return fd_b_done(t, &b);
    }
    if (x->kind == AV_LIST) {
        int64_t L = x->ival;
        if (i < 0)
            i += L;
        if (i < 0 || i >= L || !fd_spend(t, x->len, x))
            return r;
        uint32_t pos = 0;
        for (int64_t k = 0; pos + 4 <= x->len; k++) {
            uint32_t w;
            memcpy(&w, fd_bytes(t, x) + pos, 4);
            uint32_t len = w & ~LIST_INT;
            if (k == i && (w & LIST_INT)) {
                r.kind = AV_INT;
                r.ival = dec_value(fd_bytes(t, x) + pos + 4, len);
                r.flags = x->flags & F_INEXACT;
                return r;
            }
            if (k == i) {
                bld b;
                fd_b_begin(t, &b, x);
                b.fl |= x->flags & F_INEXACT;
                fd_b_from(t, &b, (x->flags & F_VAR) != 0, x->off + pos + 4, len);
                return fd_b_done(t, &b);
            }
            pos += 4 + len;
        }
    }
    return r;
}

/* A constant that opens a URL, a markdown image or link target, or an HTML
 * comment: content appended to it is sent or hidden. */
static bool sink_text(const uint8_t *s, uint32_t n)
{
    static const char *const needles[] = {"://", "](", "<!--", "?q=", "&q="};
    for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++) {
        size_t k = strlen(needles[i]);
        for (uint32_t j = 0; j + k <= n; j++)
            if (memcmp(s + j, needles[i], k) == 0)
                return true;
    }
    return false;
}

aval fd_concat(tpl *t, const aval *a, const aval *b)
{
    bool ca = (a->kind == AV_STR || a->kind == AV_INT) && !(a->flags & F_HUGE);
    bool cb = (b->kind == AV_STR || b->kind == AV_INT) && !(b->flags & F_HUGE);
    if (!ca || !cb) {
        aval r = unk_at(a);
        r.flags = (uint32_t)(((a->flags | b->flags) & (F_TAINT | F_CONTENT | F_FRAG)) | F_STRTYPE);
        r.flags |= (uint32_t)(fd_frag_of(t, a) | fd_frag_of(t, b));
        const aval *k = a->kind == AV_STR ? a : b->kind == AV_STR ? b : NULL;
        const aval *o = k == a ? b : a;
        if (k && (o->flags & F_CONTENT) && sink_text(fd_bytes(t, k), k->len)) {
            char e[120];
            tpl_report(t, TH_EXFIL, a->index,
                       "message content is concatenated to "
                       "'%s' (a URL, markdown link or HTML comment): an exfiltration sink",
                       tpl_quote(e, sizeof e, fd_bytes(t, k), k->len, 60));
        }
        return r;
    }
    /* two neighbours in the arena (the usual 'a' ~ 'b' ~ 'c'): no copy */
    if (a->kind == AV_STR && b->kind == AV_STR && !((a->flags | b->flags) & F_VAR) &&
        a->off + a->len == b->off && b->off + b->len == t->fd.ar_len &&
        (uint64_t)a->len + b->len <= TPL_CONST_CAP) {
        bld bl;
        fd_b_begin(t, &bl, a);
        bl.start = a->off;
        bl.checked = a->len;
        bl.fl = (a->flags | b->flags) & F_INEXACT;
        return fd_b_done(t, &bl);
    }
    bld bl;
    fd_b_begin(t, &bl, a);
    fd_b_val(t, &bl, a);
    bl.checked = a->kind == AV_STR && !bl.fail ? a->len : 0;
    fd_b_val(t, &bl, b);
    return fd_b_done(t, &bl);
}

aval fd_repeat(tpl *t, const aval *s, const aval *n, const aval *at)
{
    aval r = unk_at(at);
    int64_t cnt = (n->flags & F_HUGE) ? INT64_MAX : n->ival;
    if (s && s->kind == AV_STR) {
        int64_t total = sat_mul(s->len, cnt < 0 ? 0 : cnt);
        if (total > TPL_DOS_BIG) {
            char e[96];
            tpl_report(t, TH_DOS, at->index,
                       "string repetition '%s' * %lld builds %lld%s "
                       "bytes at render time",
                       tpl_quote(e, sizeof e, fd_bytes(t, s), s->len, 30), (long long)cnt,
                       (long long)total, total == INT64_MAX ? "+" : "");
            r.count = total;
            return r;
        }
        if (total > TPL_CONST_CAP) {
            r.count = total;
            return r;
        }
        bld b; /* n <= 0 gives '' */
        fd_b_begin(t, &b, at);
        /* One copy of s, then the text built so far copied again and again
         * (doubling): at most 17 copies for 64 KiB, each charged to the
         * budget by its bytes as before. A copy per turn made 'x' * 65000
         * take 65 000 turns of the builder, about 150 instructions per budget
         * byte (issue 9's adversarial benchmark). An empty string gives ''
         * at once, however large n is. */
        if (cnt > 0 && s->len) {
            fd_b_val(t, &b, s);
            for (int64_t done = 1; done < cnt && !b.fail;) {
                int64_t k = done < cnt - done ? done : cnt - done;
                fd_b_from(t, &b, false, b.start, (uint32_t)(k * (int64_t)s->len));
                done += k;
            }
        }
        if (cnt <= 0)
            b.fl |= s->flags & F_INEXACT;
        return fd_b_done(t, &b);
    }
    r.count = cnt > 0 && s && s->count >= 0 ? sat_mul(s->count, cnt) : -1;
    if (cnt > TPL_DOS_BIG)
        tpl_report(t, TH_DOS, at->index,
                   "repetition by %lld%s: a string or list repeated "
                   "that many times at render time",
                   (long long)cnt, cnt == INT64_MAX ? "+" : "");
    else if (r.count > TPL_DOS_BIG) /* composed: a value whose size is already known */
        tpl_report(t, TH_DOS, at->index,
                   "repetition of a value of up to %lld bytes or items by %lld builds %lld%s "
                   "at render time",
                   (long long)s->count, (long long)cnt, (long long)r.count,
                   r.count == INT64_MAX ? "+" : "");
    return r;
}

aval fd_power(tpl *t, const aval *a, const aval *b)
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
        tpl_report(t, TH_DOS, a->index,
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
