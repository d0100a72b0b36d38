/* calls.c - calls and filters in the template analyser's evaluator (prefix
 * ev_): method calls on constants (folded through strops.c), calls of Jinja
 * globals and Python builtins (range bounds, chr, getattr, the code-execution
 * builtins), and the filters, folded where their input is constant. Keyword
 * arguments are never folded. */
#include "template/tpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A method called on a list held by a variable (or a namespace attribute):
 * append, extend and insert are folded into the variable and every alias
 * of the same list; any other method but the readers (index, count, copy)
 * may change the list, so it becomes unknown. In a loop or a branch the
 * result is F_INEXACT: still checked, never claimed as Jinja's value. */
static void list_method(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t kws)
{
    unsigned m = c->word;
    if (c->vid == 0 || c->vid > t->fd.n_vars || m == W_INDEX || m == W_COUNT || m == W_COPY)
        return;
    var *x = &t->fd.vars[c->vid - 1];
    bool mutator = m == W_APPEND || m == W_EXTEND || m == W_INSERT;
    if (mutator)
        ev_cap_mutation(t); /* the list lasts across a loop's turns */
    if (c->rkind != AV_LIST && !(c->rkind == AV_UNK && mutator))
        return;
    aval nv = unk_at(c);
    uint16_t frag = (uint16_t)(fd_frag_of(t, &x->v) | (x->v.flags & F_FRAG));
    for (uint32_t i = 0; i < na; i++)
        frag |= fd_frag_of(t, &args[i]);
    if (c->rkind == AV_LIST && mutator && !kws) {
        aval l = x->v;
        const block *in = t->ev.n_blocks ? &t->ev.blocks[t->ev.n_blocks - 1] : NULL;
        if (m == W_APPEND && na == 1 && (args[0].flags & F_ITEMS) && in && in->kind == W_FOR &&
            in->items_vid && in->items_vid == (args[0].vid ? args[0].vid : args[0].word)) {
            /* {% for c in CONST %}{% do l.append(c) %}: every item, in turn */
            aval items = args[0]; /* the loop's constant: a list or a string */
            items.kind = (uint8_t)items.rword;
            items.flags &= (uint32_t)(F_VAR | F_INEXACT);
            nv = fd_list_mutate(t, &l, W_EXTEND, &items, 1, c);
        } else {
            nv = fd_list_mutate(t, &l, m, args, na, c);
        }
    }
    if (nv.kind == AV_LIST && ev_in_branch(t))
        nv.flags |= F_INEXACT;
    if (nv.kind != AV_LIST)
        nv.flags |= frag;
    uint32_t obj = x->obj;
    if (!fd_spend(t, t->fd.n_vars, c))
        nv = unk_at(c);
    for (uint32_t i = 0; i < t->fd.n_vars; i++) {
        var *y = &t->fd.vars[i];
        if (y->obj != obj)
            continue;
        uint8_t cl = y->chain_len;
        uint8_t ch[TPL_CHAIN_CAP];
        memcpy(ch, y->chain, cl);
        fd_var_assign(t, y, &nv);
        y->obj = obj;
        memcpy(y->chain, ch, cl); /* the same list, reached the same way */
        y->chain_len = cl;
    }
}

aval ev_method_call(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t kws)
{
    unsigned m = c->word;
    aval r = unk_at(c);
    r.flags = c->flags & F_TAINT;
    list_method(t, c, args, na, kws);
    if (m == W_ITEMS && !na && !kws && c->rkind == AV_LIST)
        return fd_dict_items(t, c, c); /* d.items() of a dict of constants */
    if ((m == W_FORMAT || m == W_FORMAT_MAP) && (c->flags & F_RSTR)) {
        aval fmt = *c; /* the fields read attributes of the arguments */
        fmt.kind = AV_STR;
        r.flags |= ev_format_fields(t, &fmt, args, na);
    }
    if ((c->flags & F_CONTENT) && (m == W_STARTSWITH || m == W_ENDSWITH || m == W_FIND ||
                                   m == W_RFIND || m == W_COUNT || m == W_INDEX))
        t->ev.cond |= GATE_CONTENT;
    if ((c->flags & F_CONTENT) && na >= 1 && args[0].kind == AV_STR &&
        (m == W_STARTSWITH || m == W_ENDSWITH || m == W_FIND || m == W_RFIND || m == W_COUNT ||
         m == W_INDEX) &&
        fd_wordlike(fd_bytes(t, &args[0]), args[0].len)) {
        char how[32];
        snprintf(how, sizeof how, "with .%s()", word_text(m));
        ev_trigger(t, &args[0], how);
    }
    if ((c->flags & F_CONTENT) && ev_keeps_content(m) && m != W_FIND && m != W_COUNT &&
        m != W_INDEX && m != W_RFIND && m != W_STARTSWITH && m != W_ENDSWITH)
        r.flags |= F_CONTENT;
    /* .get('eval') / .pop / .setdefault on a builtins or globals dict */
    if ((c->flags & F_TAINT) && (m == W_GET || m == W_POP || m == W_SETDEFAULT) && na >= 1 &&
        args[0].kind == AV_STR) {
        const uint8_t *s = fd_bytes(t, &args[0]);
        unsigned w = word_of(t, s, args[0].len);
        if (word_class(w) & (WC_CALLSINK | WC_KEYSINK | WC_MODULE | WC_TAINTSINK)) {
            char e[64];
            tpl_report(t, TH_EXEC, args[0].index,
                       ".%s('%s') on a dictionary "
                       "reached through the object model fetches the Python sink '%s'",
                       word_text(m), tpl_quote(e, sizeof e, s, args[0].len, 30), e);
            r.flags |= F_TAINT;
        }
    }
    if (!(c->flags & F_RSTR) || kws)
        return r;
    r.flags |= F_STRTYPE;
    aval recv = *c;
    recv.kind = AV_STR;
    recv.flags = c->flags & (F_VAR | F_INEXACT);
    cval a[MAX_CARGS], sep;
    uint32_t n = 0;
    switch (m) {
    case W_FORMAT:
        if (fd_gather_args(t, args, na, false, a, &n))
            return fd_fold_format(t, &recv, a, n);
        r.flags |= fd_fmt_wild(t, &recv, args, na, false);
        return r;
    case W_REPLACE:
        if ((na == 2 || (na == 3 && args[2].kind == AV_INT && !(args[2].flags & F_HUGE))) &&
            fd_to_cval(&args[0], &a[0]) && fd_to_cval(&args[1], &a[1]))
            return fd_fold_replace(t, &recv, &a[0], &a[1], na == 3 ? args[2].ival : -1);
        return r;
    case W_JOIN:
        if (na == 1 && (args[0].kind == AV_LIST || args[0].kind == AV_STR) &&
            fd_to_cval(&recv, &sep))
            return fd_fold_join(t, &args[0], &sep, c, true);
        return r;
    case W_LOWER: return na ? r : fd_fold_case(t, &recv, CASE_LOWER);
    case W_UPPER: return na ? r : fd_fold_case(t, &recv, CASE_UPPER);
    case W_CAPITALIZE: return na ? r : fd_fold_case(t, &recv, CASE_CAP);
    case W_TITLE: return na ? r : fd_fold_case(t, &recv, CASE_TITLE);
    case W_SWAPCASE: return na ? r : fd_fold_case(t, &recv, CASE_SWAP);
    case W_FIND:
    case W_RFIND:
    case W_INDEX:
    case W_COUNT:
        if (na == 1 && fd_to_cval(&args[0], &a[0]))
            return fd_fold_find(t, &recv, &a[0],
                                m == W_FIND    ? 0
                                : m == W_RFIND ? 1
                                : m == W_INDEX ? 2
                                               : 4);
        return r;
    case W_STRIP:
    case W_LSTRIP:
    case W_RSTRIP: {
        int side = m == W_STRIP ? 0 : m == W_LSTRIP ? -1 : 1;
        if (na == 0)
            return fd_fold_strip(t, &recv, NULL, side);
        if (na == 1 && fd_to_cval(&args[0], &a[0]))
            return fd_fold_strip(t, &recv, &a[0], side);
        return r;
    }
    case W_CENTER:
        if (na == 1 && args[0].kind == AV_INT && !(args[0].flags & F_HUGE))
            return fd_fold_center(t, &recv, args[0].ival);
        return r;
    default: return r;
    }
}

uint16_t ev_attr_args(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                      unsigned attr_kw)
{
    uint16_t fl = 0;
    if (attr_kw && attr_kw <= na)
        fl |= ev_key_check(t, &args[attr_kw - 1], x, K_ATTRARG);
    if (na >= 2 && w == W_MAP && args[0].kind == AV_STR && args[0].len == 4 &&
        memcmp(fd_bytes(t, &args[0]), "attr", 4) == 0)
        fl |= ev_key_check(t, &args[1], x, K_ATTR); /* map('attr', k) is |attr(k) */
    if (na >= 1 && attr_kw != 1 && (w == W_SELECTATTR || w == W_REJECTATTR || w == W_GROUPBY))
        fl |= ev_key_check(t, &args[0], x, K_ATTRARG);
    return fl;
}

static int64_t range_count(const aval *args, uint32_t na, bool *known)
{
    *known = false;
    if (na == 0 || na > 3)
        return -1;
    int64_t v[3] = {0, 0, 1};
    for (uint32_t i = 0; i < na; i++) {
        if (args[i].kind != AV_INT)
            return -1;
        if (args[i].flags & F_HUGE) {
            *known = true;
            return INT64_MAX;
        }
    }
    *known = true;
    if (na == 1)
        return args[0].ival > 0 ? args[0].ival : 0;
    v[0] = args[0].ival;
    v[1] = args[1].ival;
    if (na == 3)
        v[2] = args[2].ival;
    if (v[2] == 0)
        return 0;
    int64_t span;
    if (v[2] > 0 ? __builtin_sub_overflow(v[1], v[0], &span)
                 : __builtin_sub_overflow(v[0], v[1], &span))
        return INT64_MAX;
    if (span <= 0)
        return 0;
    int64_t st = v[2] > 0 ? v[2] : (v[2] == INT64_MIN ? INT64_MAX : -v[2]);
    return span / st + (span % st != 0);
}

aval ev_global_call(tpl *t, const aval *c, const aval *args, uint32_t na)
{
    unsigned w = c->word;
    aval r = unk_at(c);
    char e[96], d[96];
    const char *a0 = na && args[0].kind == AV_STR
                         ? tpl_quote(e, sizeof e, fd_bytes(t, &args[0]), args[0].len, 40)
                         : NULL;
    if (w == W_RANGE) {
        bool known;
        int64_t n = range_count(args, na, &known);
        if (known) {
            r.count = n;
            /* its integers, for a loop over it (a step of 0 is Jinja's ValueError) */
            if (n <= (int64_t)TPL_UNROLL_MAX && !(na == 3 && args[2].ival == 0))
                fd_int_range(t, na == 1 ? 0 : args[0].ival, na == 3 ? args[2].ival : 1, n, &r);
            ev_dos_work(t, n);
            if (n > TPL_DOS_BIG)
                tpl_report(t, TH_DOS, c->index,
                           "range() of %lld%s items: rendering iterates "
                           "or allocates that many (Jinja's sandbox refuses ranges over 100000)",
                           (long long)n, n == INT64_MAX ? "+" : "");
        }
        return r;
    }
    if (w == W_STRFTIME_NOW) {
        r.flags |= F_DATE;
        return r;
    }
    if (w == W_CHR) {
        tpl_report(t, TH_OBFUSCATION, c->index,
                   "chr() builds characters from numbers "
                   "(not a Jinja global: an obfuscation helper)");
        if (na == 1 && args[0].kind == AV_INT && args[0].ival >= 0 && args[0].ival < 0x80) {
            bld b;
            fd_b_begin(t, &b, c);
            uint8_t ch = (uint8_t)args[0].ival;
            fd_b_raw(t, &b, &ch, 1);
            return fd_b_done(t, &b);
        }
        r.flags |= F_STRTYPE | F_FRAG; /* any character */
        return r;
    }
    if (w == W_GETATTR) {
        tpl_report(t, TH_OBFUSCATION, c->index,
                   "getattr() call (not a Jinja global: an "
                   "attribute-access helper)");
        if (na >= 2) {
            r.flags |= ev_key_check(t, &args[1], &args[0], K_GETATTR);
            ch_attr(t, &r, &args[0], &args[1]);
        }
        return r;
    }
    if (word_class(w) & WC_CALLSINK) {
        if (a0)
            tpl_report(t, TH_EXEC, c->index,
                       "call %s('%s') to a Python builtin that runs "
                       "code, imports modules or opens files",
                       fd_desc(t, c, d, sizeof d), a0);
        else
            tpl_report(t, TH_EXEC, c->index,
                       "call %s() to a Python builtin that runs code, "
                       "imports modules or opens files",
                       fd_desc(t, c, d, sizeof d));
        r.flags |= F_TAINT;
        return r;
    }
    r.flags |= c->flags & F_TAINT;
    return r;
}

/* ----------------------------------------------------------- filters */

aval ev_apply_filter(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na, uint32_t kws,
                     const aval *at)
{
    aval r = unk_at(x);
    r.flags = x->flags & F_TAINT;
    cval a[3];
    bool str = x->kind == AV_STR && !kws;
    switch (w) {
    case W_ATTR:
        if (na >= 1)
            r.flags |= ev_key_check(t, &args[0], x, K_ATTR);
        return r;
    case W_JOIN: {
        cval sep;
        bool has_sep = na >= 1 && fd_to_cval(&args[0], &sep);
        if ((x->kind == AV_LIST || x->kind == AV_STR) && !kws && na <= 1 && (na == 0 || has_sep))
            return fd_fold_join(t, x, has_sep ? &sep : NULL, x, false);
        break;
    }
    case W_FORMAT: {
        cval ca[MAX_CARGS];
        uint32_t n = 0;
        if (str && fd_gather_args(t, args, na, false, ca, &n))
            return fd_fold_percent(t, x, ca, n);
        r.flags |= fd_fmt_wild(t, x, args, na, true);
        break;
    }
    case W_REPLACE:
        if (str && (na == 2 || (na == 3 && args[2].kind == AV_INT && !(args[2].flags & F_HUGE))) &&
            fd_to_cval(&args[0], &a[0]) && fd_to_cval(&args[1], &a[1]))
            return fd_fold_replace(t, x, &a[0], &a[1], na == 3 ? args[2].ival : -1);
        if ((x->kind == AV_UNK || x->kind == AV_STR) && x->count > 0 && na >= 2 &&
            args[0].kind == AV_STR && args[0].len > 0 &&
            (args[1].kind == AV_STR || (args[1].kind == AV_UNK && args[1].count >= 0))) {
            /* sizes known, not the bytes: at most count / len(old) matches,
             * each replaced by at most the new value's size */
            int64_t nl = args[1].kind == AV_STR ? (int64_t)args[1].len : args[1].count;
            int64_t out = sat_mul(x->count / args[0].len, nl);
            out = out > INT64_MAX - x->count ? INT64_MAX : out + x->count;
            if (out > TPL_DOS_BIG)
                tpl_report(t, TH_DOS, at->index,
                           "|replace on a value of up to %lld bytes builds up to %lld bytes at "
                           "render time",
                           (long long)x->count, (long long)out);
            r.count = out;
            ev_dos_work(t, out);
        }
        break;
    case W_LOWER:
        if (str && !na)
            return fd_fold_case(t, x, CASE_LOWER);
        break;
    case W_UPPER:
        if (str && !na)
            return fd_fold_case(t, x, CASE_UPPER);
        break;
    case W_CAPITALIZE:
        if (str && !na)
            return fd_fold_case(t, x, CASE_CAP);
        break;
    case W_TITLE:
        if (str && !na)
            return fd_fold_case(t, x, CASE_JTITLE);
        break;
    case W_TRIM:
        if (str && na == 0)
            return fd_fold_strip(t, x, NULL, 0);
        if (str && na == 1 && fd_to_cval(&args[0], &a[0]))
            return fd_fold_strip(t, x, &a[0], 0);
        break;
    case W_STRING:
        if (str && !na) {
            aval v = *x;
            v.flags &= (uint32_t)~F_LITERAL;
            v.vid = 0;
            return v;
        }
        if (x->kind == AV_INT && !(x->flags & F_HUGE) && !na) {
            bld b;
            fd_b_begin(t, &b, x);
            b.fl |= x->flags & F_INEXACT;
            fd_b_int(t, &b, x->ival);
            return fd_b_done(t, &b);
        }
        break;
    case W_REVERSE:
        if (str && !na)
            return fd_fold_reverse(t, x);
        r.count = x->count;
        return r;
    case W_FIRST:
        if (!na && !kws)
            return fd_fold_index(t, x, 0);
        break;
    case W_LAST:
        if (!na && !kws)
            return fd_fold_index(t, x, -1);
        break;
    case W_LIST:
        if (x->kind == AV_LIST && !na) {
            aval v = *x; /* a new list with the same items (a dict's keys) */
            v.flags &= (uint32_t) ~(F_TUPLE | F_DICT);
            v.vid = 0;
            return v;
        }
        if (str && !na && !kws)
            return fd_str_list(t, x);
        r.count = str ? x->len : x->count;
        return r;
    case W_LENGTH:
    case W_COUNT:
        if (x->kind == AV_NAME && x->len == 8 && memcmp(fd_bytes(t, x), "messages", 8) == 0)
            r.flags |= F_TURNS;
        return r;
    case W_URLENCODE:
    case W_TOJSON: r.flags |= x->flags & F_CONTENT; return r;
    case W_ITEMS:
        if (!na && !kws)
            return fd_dict_items(t, x, at); /* a dict of constants: its pairs */
        break;
    case W_CENTER:
    case W_INDENT:
        if (na >= 1 && args[0].kind == AV_INT &&
            ((args[0].flags & F_HUGE) || args[0].ival > TPL_DOS_BIG))
            tpl_report(t, TH_DOS, at->index,
                       "|%s(%lld) pads to a width that builds a "
                       "huge string at render time",
                       word_text(w), (long long)args[0].ival);
        else if (w == W_CENTER && str && na <= 1 &&
                 (na == 0 || (args[0].kind == AV_INT && !(args[0].flags & F_HUGE))))
            return fd_fold_center(t, x, na ? args[0].ival : 80);
        else if (w == W_INDENT && na >= 1 && args[0].kind == AV_INT && args[0].ival > 0 &&
                 (str || (x->kind == AV_UNK && x->count > 0 && !(x->flags & F_ITEMS)))) {
            /* every line after the first gains the width: the lines of a
             * constant are counted (out of the folding budget; past it
             * every byte may be one), an unknown one of known size may be
             * all newlines */
            int64_t size = str ? (int64_t)x->len : x->count, lines = size;
            if (str && x->len <= t->fd.budget) { /* counting is folding work */
                t->fd.budget -= x->len;
                const uint8_t *p = fd_bytes(t, x);
                lines = 0;
                for (uint32_t i = 0; i < x->len; i++)
                    lines += p[i] == '\n';
            }
            int64_t out = sat_mul(lines, args[0].ival);
            out = out > INT64_MAX - size ? INT64_MAX : out + size;
            if (out > TPL_DOS_BIG)
                tpl_report(t, TH_DOS, at->index,
                           "|indent(%lld) of a value of %s%lld bytes with up to %lld line breaks "
                           "builds up to %lld%s bytes at render time",
                           (long long)args[0].ival, str ? "" : "up to ", (long long)size,
                           (long long)lines, (long long)out, out == INT64_MAX ? "+" : "");
            ev_dos_work(t, out);
            r.count = out;
        }
        break;
    default: return r;
    }
    if (ev_keeps_content(w))
        r.flags |= x->flags & F_CONTENT;
    if (ev_makes_string(w))
        r.flags |= (uint32_t)(F_STRTYPE | (x->flags & F_FRAG));
    return r;
}

aval ev_namespace(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t base)
{
    aval r = unk_at(c);
    if (t->fd.n_ns >= TPL_NS_MAX)
        return r; /* past the cap: an unknown object, its attributes unknown */
    uint32_t id = ++t->fd.n_ns;
    r.kind = AV_NS;
    r.ival = id;
    bool branch = ev_in_branch(t);
    for (uint32_t i = 0; i < t->ev.n_kw; i++) {
        uint32_t p = t->ev.kw[i].pos;
        if (t->ev.kw[i].frame != t->ev.no || p < base || p >= base + na)
            continue; /* another call's (this one's frame was just popped: index no) */
        var *x = fd_var_get_ns(t, id, t->fd.ar + t->ev.kw[i].off, t->ev.kw[i].len, t->ev.kw[i].hash,
                               c->index);
        if (!x)
            break;
        aval v = args[p - base];
        if (branch)
            v.flags |= F_INEXACT;
        fd_var_assign(t, x, &v);
    }
    return r;
}
