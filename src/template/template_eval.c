/* template_eval.c - the analyser's expression evaluator: an operator-
 * precedence (shunting-yard) pass over each tag's tokens with explicit,
 * bounded value and operator stacks - no recursion - computing abstract
 * values (constants where template_fold.c can fold them, "unknown"
 * elsewhere) with flags that follow message content and objects reached
 * through dunder attributes. On that it checks the indicators of
 * SECURITY-PATTERNS section 3.4 where they act: attribute access, subscripts,
 * |attr, calls, comparisons, loop bounds. It also runs the statements:
 * {% set %} targets, {% for %} bounds, and the block structure
 * (for/if/macro ... and their end tags).
 *
 * Cost: every token is pushed and popped at most once; the per-tag arena
 * is reset at every tag. */
#include "template/template_impl.h"

#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ST_EXPR, ST_SET_TARGET, ST_SET_VALUE, ST_FOR_TARGET, ST_FOR_ITER, ST_IGNORE };
enum { PE_NONE, PE_DOT, PE_PIPE, PE_ATTR, PE_FILTER, PE_NOT, PE_IS, PE_IS_NAME };
enum { K_SUB, K_ATTR, K_GETATTR };

/* ------------------------------------------------------------- helpers */

/* ---------------------------------------------------------------- stacks */

static bool vpush(tpl *t, aval v)
{
    if (t->nv >= TPL_STACK) {
        tv_go_dead(t, v.pos, v.index, "an expression nests more than 128 levels");
        return false;
    }
    t->V[t->nv++] = v;
    return true;
}

static void opush(tpl *t, oframe f)
{
    if (t->no >= TPL_STACK) {
        tv_go_dead(t, f.pos, f.index, "an expression nests more than 128 levels");
        return;
    }
    t->O[t->no++] = f;
}

/* ---------------------------------------------------------------- blocks */

static int64_t outer_product(const tpl *t)
{
    return t->n_blocks ? t->blocks[t->n_blocks - 1].product : 1;
}

static void block_push(tpl *t, uint8_t kind, int64_t bound, tpl_pos pos, uint64_t index)
{
    if (t->n_blocks >= TPL_BLOCKS) {
        if (t->blocks_over == 0)
            tv_limit(t, pos, index, "blocks nest more than 128 levels");
        t->blocks_over++;
        return;
    }
    int64_t outer = outer_product(t);
    block *b = &t->blocks[t->n_blocks++];
    b->kind = kind;
    b->bound = bound;
    b->product = kind == W_FOR ? sat_mul(outer, bound) : outer;
    b->pos = pos;
    b->index = index;
}

static unsigned opener_of(unsigned end)
{
    switch (end) {
    case W_ENDFOR: return W_FOR;
    case W_ENDIF: return W_IF;
    case W_ENDMACRO: return W_MACRO;
    case W_ENDCALL: return W_CALL;
    case W_ENDFILTER: return W_FILTER;
    case W_ENDWITH: return W_WITH;
    case W_ENDBLOCK: return W_BLOCK;
    case W_ENDSET: return W_SET;
    case W_ENDGENERATION: return W_GENERATION;
    case W_ENDAUTOESCAPE: return W_AUTOESCAPE;
    default: return W_NONE;
    }
}

static void block_end(tpl *t, const tok *k)
{
    unsigned open = opener_of(k->word);
    if (t->blocks_over > 0) {
        t->blocks_over--;
        return;
    }
    if (t->n_blocks == 0) {
        hit(t, TH_SYNTAX, k->pos, k->index, "'%s' without an open '%s' (Jinja rejects the "
            "template)", word_text(k->word), word_text(open));
        return;
    }
    block *b = &t->blocks[t->n_blocks - 1];
    if (b->kind != open)
        hit(t, TH_SYNTAX, k->pos, k->index, "'%s' closes the '%s' opened at template byte %llu "
            "(Jinja rejects the template)", word_text(k->word), word_text(b->kind),
            (unsigned long long)b->index);
    t->n_blocks--;
}

static void block_middle(tpl *t, const tok *k)
{
    if (t->blocks_over > 0)
        return;
    unsigned top = t->n_blocks ? t->blocks[t->n_blocks - 1].kind : W_NONE;
    bool ok = k->word == W_ELIF ? top == W_IF : (top == W_IF || top == W_FOR);
    if (!ok)
        hit(t, TH_SYNTAX, k->pos, k->index, "'%s' outside an 'if'%s block (Jinja rejects the "
            "template)", word_text(k->word), k->word == W_ELSE ? " or 'for'" : "");
}

/* ------------------------------------------------------- the indicators */

/* A subscript whose key is not a constant is an attribute access Jinja
 * cannot see (getitem falls back to getattr): suspicious on a Jinja global
 * that exposes __globals__ (cycler, lipsum, self ...), on an object already
 * reached through the object model, with a key assembled from pieces holding
 * '__', and with a string key on a constant (''[k] is ''.__class__ for the
 * right k). messages[i] and tool[key] stay silent. */
static bool computed_key_suspect(const aval *recv, const aval *key)
{
    if (recv->flags & F_TAINT || key->flags & F_FRAG)
        return true;
    if (recv->kind == AV_NAME && (word_class(recv->word) & WC_GADGET))
        return true;
    return (key->flags & F_STRTYPE) && (recv->kind == AV_STR || recv->kind == AV_LIST);
}

/* A subscript key, |attr name or getattr name applied to `recv`. Returns
 * F_TAINT when the access reaches the object model. */
static uint16_t key_check(tpl *t, const aval *key, const aval *recv, int how)
{
    static const char *const hows[] = {"subscript", "|attr()", "getattr()"};
    char e[120], d[96];
    if (key->kind != AV_STR) {
        if (how != K_SUB && key->kind != AV_INT)
            hit(t, TH_OBFUSCATION, key->pos, key->index, "%s on '%s' with a name that is not a "
                "constant: the attribute cannot be checked statically", hows[how],
                tv_desc(t, recv, d, sizeof d));
        if (how == K_SUB && key->kind != AV_INT && computed_key_suspect(recv, key)) {
            hit(t, TH_OBFUSCATION, key->pos, key->index, "subscript on '%s' with a key computed "
                "at render time%s: Jinja's getitem falls back to getattr, so the key can name "
                "any attribute (__init__, __globals__) and cannot be checked statically",
                tv_desc(t, recv, d, sizeof d),
                (key->flags & F_FRAG) ? " from pieces holding '__'" : "");
            return F_TAINT;
        }
        return recv->flags & F_TAINT;
    }
    const uint8_t *s = vb(t, key);
    uint32_t n = key->len;
    if (tv_is_dunder(s, n) || tv_is_mangled(s, n))
        return F_TAINT; /* the constant itself was reported */
    unsigned w = n <= 24 ? word_lookup(t, s, n, name_hash(s, n)) : W_NONE;
    uint16_t c = word_class(w);
    bool tainted = (recv->flags & F_TAINT) != 0;
    if (how != K_SUB && (w == W_FORMAT || w == W_FORMAT_MAP)) {
        hit(t, TH_EXEC, key->pos, key->index, "%s('%s') returns a bound str.%s, which reads "
            "any attribute through its format fields: the sandbox escape of CVE-2025-27516",
            hows[how], word_text(w), word_text(w));
        return F_TAINT;
    }
    if ((c & WC_KEYSINK) || (tainted && (c & (WC_TAINTSINK | WC_MODULE | WC_CALLSINK |
                                              WC_ATTRSINK)))) {
        hit(t, TH_EXEC, key->pos, key->index, "%s '%s' on '%s' reaches the Python "
            "code-execution sink '%s'", hows[how], q(e, sizeof e, s, n, 40),
            tv_desc(t, recv, d, sizeof d), q(e, sizeof e, s, n, 40));
        return F_TAINT;
    }
    if ((key->flags & F_BUILT) && tv_is_ident(s, n) &&
        !(c & (WC_MODULE | WC_CALLSINK | WC_ATTRSINK | WC_CLASSHUNT)))
        hit(t, TH_OBFUSCATION, key->pos, key->index, "%s name '%s' is built by constant "
            "folding, which hides it from a plain-text search", hows[how],
            q(e, sizeof e, s, n, 40));
    return recv->flags & F_TAINT;
}

static void trigger(tpl *t, const aval *lit, const char *how)
{
    char e[120];
    hit(t, TH_TRIGGER, lit->pos, lit->index, "message content is tested %s '%s': a template "
        "that changes its output on a trigger word is a backdoor pattern", how,
        q(e, sizeof e, vb(t, lit), lit->len, 60));
}

static bool keeps_content(unsigned w)
{
    switch (w) {
    case W_LOWER: case W_UPPER: case W_STRIP: case W_LSTRIP: case W_RSTRIP: case W_TITLE:
    case W_CAPITALIZE: case W_SWAPCASE: case W_REPLACE: case W_TRIM: case W_STRING:
    case W_STARTSWITH: case W_ENDSWITH: case W_FIND: case W_RFIND: case W_COUNT:
    case W_INDEX:
        return true;
    default:
        return false;
    }
}

/* Filters whose result is always a string. */
static bool makes_string(unsigned w)
{
    switch (w) {
    case W_JOIN: case W_FORMAT: case W_REPLACE: case W_LOWER: case W_UPPER: case W_CAPITALIZE:
    case W_TITLE: case W_TRIM: case W_STRING: case W_CENTER: case W_INDENT:
        return true;
    default:
        return false;
    }
}

/* .name on the top value. */
static void attr_access(tpl *t, const tok *k)
{
    aval *r = &t->V[t->nv - 1];
    char d[96], e[96];
    const uint8_t *s = k->s;
    uint32_t n = k->n;
    unsigned w = k->word;
    uint16_t c = word_class(w);
    uint16_t fl = r->flags & F_TAINT;
    bool rname = r->kind == AV_NAME;
    tv_desc(t, r, d, sizeof d);
    q(e, sizeof e, s, n, 40);
    if (tv_is_dunder(s, n) || tv_is_mangled(s, n) || w == W_MRO || w == W_MODULE_ATTR) {
        if (rname && (word_class(r->word) & WC_GADGET))
            hit(t, TH_GADGET, k->pos, k->index, "'%s.%s': Python attribute %s reached from the "
                "Jinja global '%s' (SSTI gadget)", d, e, e, d);
        else
            hit(t, TH_GADGET, k->pos, k->index, "'%s.%s': access to the Python attribute %s "
                "(SSTI gadget)", d, e, e);
        fl |= F_TAINT;
    }
    if (rname && (word_class(r->word) & WC_MODULE)) {
        hit(t, TH_EXEC, k->pos, k->index, "'%s.%s': attribute of the Python module '%s'", d, e,
            d);
        fl |= F_TAINT;
    } else if ((c & WC_ATTRSINK) ||
               ((r->flags & F_TAINT) && (c & (WC_TAINTSINK | WC_MODULE | WC_CALLSINK)))) {
        hit(t, TH_EXEC, k->pos, k->index, "'%s.%s': %s is a command or code-execution sink",
            d, e, e);
        fl |= F_TAINT;
    }
    if (w == W_FORMAT_MAP)
        hit(t, TH_EXEC, k->pos, k->index, "'%s.format_map': str.format_map reads attributes "
            "through format fields (sandbox escape, CVE-2024-56326 class)", d);
    if (w == W_CONTENT || (w == W_TEXT && (r->flags & F_CONTENT)) ||
        ((r->flags & F_CONTENT) && keeps_content(w)))
        fl |= F_CONTENT;
    aval a = val_tok(k, AV_ATTR);
    a.word = (uint16_t)w;
    a.rword = rname ? r->word : 0;
    a.flags = fl;
    if (r->kind == AV_STR) {
        a.flags |= (uint16_t)(F_RSTR | (r->flags & (F_VAR | F_INEXACT)));
        a.off = r->off;
        a.len = r->len;
    }
    *r = a;
    t->pend_ev = PE_ATTR;
}

/* An attribute not followed by a call becomes a plain value. */
static void settle_attr(tpl *t)
{
    if (t->nv == 0)
        return;
    aval *a = &t->V[t->nv - 1];
    if (a->kind != AV_ATTR)
        return;
    if (a->word == W_FORMAT && (a->flags & F_RSTR)) {
        char e[96];
        hit(t, TH_EXEC, a->pos, a->index, "'%s'.format is referenced without a call: a bound "
            "str.format reads attributes through format fields (sandbox escape, "
            "CVE-2024-56326)", q(e, sizeof e, vb(t, a), a->len, 30));
    }
    a->kind = AV_UNK;
    a->flags &= F_TAINT | F_CONTENT;
    a->count = -1;
}

/* A method call on the value `c` (an AV_ATTR); folded when the receiver is
 * a constant string and the arguments are constants. Keyword arguments
 * (kws) are never folded. */
static aval method_call(tpl *t, const aval *c, const aval *args, uint32_t na, uint32_t kws)
{
    unsigned m = c->word;
    aval r = unk_at(c);
    r.flags = c->flags & F_TAINT;
    if ((c->flags & F_CONTENT) && na >= 1 && args[0].kind == AV_STR &&
        (m == W_STARTSWITH || m == W_ENDSWITH || m == W_FIND || m == W_RFIND ||
         m == W_COUNT || m == W_INDEX) &&
        tv_wordlike(vb(t, &args[0]), args[0].len)) {
        char how[32];
        snprintf(how, sizeof how, "with .%s()", word_text(m));
        trigger(t, &args[0], how);
    }
    if ((c->flags & F_CONTENT) && keeps_content(m) && m != W_FIND && m != W_COUNT &&
        m != W_INDEX && m != W_RFIND && m != W_STARTSWITH && m != W_ENDSWITH)
        r.flags |= F_CONTENT;
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
        if (tv_gather_args(t, args, na, false, a, &n))
            return tv_fold_format(t, &recv, a, n);
        return r;
    case W_REPLACE:
        if ((na == 2 || (na == 3 && args[2].kind == AV_INT && !(args[2].flags & F_HUGE))) &&
            tv_to_cval(&args[0], &a[0]) && tv_to_cval(&args[1], &a[1]))
            return tv_fold_replace(t, &recv, &a[0], &a[1], na == 3 ? args[2].ival : -1);
        return r;
    case W_JOIN:
        if (na == 1 && (args[0].kind == AV_LIST || args[0].kind == AV_STR) &&
            tv_to_cval(&recv, &sep))
            return tv_fold_join(t, &args[0], &sep, c, true);
        return r;
    case W_LOWER: return na ? r : tv_fold_case(t, &recv, CASE_LOWER);
    case W_UPPER: return na ? r : tv_fold_case(t, &recv, CASE_UPPER);
    case W_CAPITALIZE: return na ? r : tv_fold_case(t, &recv, CASE_CAP);
    case W_TITLE: return na ? r : tv_fold_case(t, &recv, CASE_TITLE);
    case W_SWAPCASE: return na ? r : tv_fold_case(t, &recv, CASE_SWAP);
    case W_STRIP: case W_LSTRIP: case W_RSTRIP: {
        int side = m == W_STRIP ? 0 : m == W_LSTRIP ? -1 : 1;
        if (na == 0)
            return tv_fold_strip(t, &recv, NULL, side);
        if (na == 1 && tv_to_cval(&args[0], &a[0]))
            return tv_fold_strip(t, &recv, &a[0], side);
        return r;
    }
    case W_CENTER:
        if (na == 1 && args[0].kind == AV_INT && !(args[0].flags & F_HUGE))
            return tv_fold_center(t, &recv, args[0].ival);
        return r;
    default: return r;
    }
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

static aval global_call(tpl *t, const aval *c, const aval *args, uint32_t na)
{
    unsigned w = c->word;
    aval r = unk_at(c);
    char e[96], d[96];
    const char *a0 = na && args[0].kind == AV_STR ? q(e, sizeof e, vb(t, &args[0]),
                                                      args[0].len, 40) : NULL;
    if (w == W_RANGE) {
        bool known;
        int64_t n = range_count(args, na, &known);
        if (known) {
            r.count = n;
            if (n > TPL_DOS_BIG)
                hit(t, TH_DOS, c->pos, c->index, "range() of %lld%s items: rendering iterates "
                    "or allocates that many (Jinja's sandbox refuses ranges over 100000)",
                    (long long)n, n == INT64_MAX ? "+" : "");
        }
        return r;
    }
    if (w == W_CHR) {
        hit(t, TH_OBFUSCATION, c->pos, c->index, "chr() builds characters from numbers "
            "(not a Jinja global: an obfuscation helper)");
        if (na == 1 && args[0].kind == AV_INT && args[0].ival >= 0 && args[0].ival < 0x80) {
            bld b;
            tv_b_begin(t, &b, c);
            uint8_t ch = (uint8_t)args[0].ival;
            tv_b_raw(t, &b, &ch, 1);
            return tv_b_done(t, &b);
        }
        return r;
    }
    if (w == W_GETATTR) {
        hit(t, TH_OBFUSCATION, c->pos, c->index, "getattr() call (not a Jinja global: an "
            "attribute-access helper)");
        if (na >= 2)
            r.flags |= key_check(t, &args[1], &args[0], K_GETATTR);
        return r;
    }
    if (word_class(w) & WC_CALLSINK) {
        if (a0)
            hit(t, TH_EXEC, c->pos, c->index, "call %s('%s') to a Python builtin that runs "
                "code, imports modules or opens files", tv_desc(t, c, d, sizeof d), a0);
        else
            hit(t, TH_EXEC, c->pos, c->index, "call %s() to a Python builtin that runs code, "
                "imports modules or opens files", tv_desc(t, c, d, sizeof d));
        r.flags |= F_TAINT;
        return r;
    }
    r.flags |= c->flags & F_TAINT;
    return r;
}

/* ----------------------------------------------------------- filters */

static aval apply_filter(tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                         uint32_t kws, const aval *at)
{
    aval r = unk_at(x);
    r.flags = x->flags & F_TAINT;
    cval a[3];
    bool str = x->kind == AV_STR && !kws;
    switch (w) {
    case W_ATTR:
        if (na >= 1)
            r.flags |= key_check(t, &args[0], x, K_ATTR);
        return r;
    case W_JOIN: {
        cval sep;
        bool has_sep = na >= 1 && tv_to_cval(&args[0], &sep);
        if ((x->kind == AV_LIST || x->kind == AV_STR) && !kws && na <= 1 && (na == 0 || has_sep))
            return tv_fold_join(t, x, has_sep ? &sep : NULL, x, false);
        break;
    }
    case W_FORMAT: {
        cval ca[MAX_CARGS];
        uint32_t n = 0;
        if (str && tv_gather_args(t, args, na, false, ca, &n))
            return tv_fold_percent(t, x, ca, n);
        break;
    }
    case W_REPLACE:
        if (str && (na == 2 || (na == 3 && args[2].kind == AV_INT && !(args[2].flags & F_HUGE))) &&
            tv_to_cval(&args[0], &a[0]) && tv_to_cval(&args[1], &a[1]))
            return tv_fold_replace(t, x, &a[0], &a[1], na == 3 ? args[2].ival : -1);
        break;
    case W_LOWER: if (str && !na) return tv_fold_case(t, x, CASE_LOWER); break;
    case W_UPPER: if (str && !na) return tv_fold_case(t, x, CASE_UPPER); break;
    case W_CAPITALIZE: if (str && !na) return tv_fold_case(t, x, CASE_CAP); break;
    case W_TITLE: if (str && !na) return tv_fold_case(t, x, CASE_JTITLE); break;
    case W_TRIM:
        if (str && na == 0)
            return tv_fold_strip(t, x, NULL, 0);
        if (str && na == 1 && tv_to_cval(&args[0], &a[0]))
            return tv_fold_strip(t, x, &a[0], 0);
        break;
    case W_STRING:
        if (str && !na) {
            aval v = *x;
            v.flags &= (uint16_t) ~F_LITERAL;
            return v;
        }
        if (x->kind == AV_INT && !(x->flags & F_HUGE) && !na) {
            bld b;
            tv_b_begin(t, &b, x);
            b.fl |= x->flags & F_INEXACT;
            tv_b_int(t, &b, x->ival);
            return tv_b_done(t, &b);
        }
        break;
    case W_REVERSE:
        if (str && !na)
            return tv_fold_reverse(t, x);
        r.count = x->count;
        return r;
    case W_FIRST: if (!na && !kws) return tv_fold_index(t, x, 0); break;
    case W_LAST: if (!na && !kws) return tv_fold_index(t, x, -1); break;
    case W_LIST:
        if (x->kind == AV_LIST && !na) {
            aval v = *x;
            v.flags &= (uint16_t) ~F_TUPLE;
            return v;
        }
        r.count = str ? x->len : x->count;
        return r;
    case W_CENTER: case W_INDENT:
        if (na >= 1 && args[0].kind == AV_INT &&
            ((args[0].flags & F_HUGE) || args[0].ival > TPL_DOS_BIG))
            hit(t, TH_DOS, at->pos, at->index, "|%s(%lld) pads to a width that builds a "
                "huge string at render time", word_text(w), (long long)args[0].ival);
        else if (w == W_CENTER && str && na <= 1 &&
                 (na == 0 || (args[0].kind == AV_INT && !(args[0].flags & F_HUGE))))
            return tv_fold_center(t, x, na ? args[0].ival : 80);
        break;
    default:
        return r;
    }
    if (keeps_content(w))
        r.flags |= x->flags & F_CONTENT;
    if (makes_string(w))
        r.flags |= (uint16_t)(F_STRTYPE | (x->flags & F_FRAG));
    return r;
}

/* ---------------------------------------------------------- operators */

static uint8_t prec_of(uint8_t op)
{
    switch (op) {
    case OP_IF: case OP_ELSE: return 1;
    case OP_OR: return 2;
    case OP_AND: return 3;
    case OP_NOT: return 4;
    case OP_IN: case OP_NOTIN: case OP_EQ: case OP_NE: case OP_CMP: return 5;
    case OP_ADD: case OP_SUB: return 6;
    case OP_CONCAT: return 7;
    case OP_MUL: case OP_DIV: case OP_FDIV: case OP_MOD: return 8;
    case OP_POW: return 9;
    default: return 10; /* OP_NEG, OP_POS: bind tighter than ** in Jinja */
    }
}

/* Integer arithmetic as Python does it on int64; past int64 the result is
 * F_HUGE (never printed). */
static aval int_op(uint8_t op, const aval *a, const aval *b, aval r)
{
    int64_t x = a->ival, y = b->ival, v = 0;
    bool huge = ((a->flags | b->flags) & F_HUGE) != 0;
    r.kind = AV_INT;
    r.flags = (a->flags | b->flags) & F_INEXACT;
    switch (op) {
    case OP_ADD: huge |= __builtin_add_overflow(x, y, &v); break;
    case OP_SUB: huge |= __builtin_sub_overflow(x, y, &v); break;
    case OP_MUL: huge |= __builtin_mul_overflow(x, y, &v); break;
    case OP_MOD: case OP_FDIV:
        if (huge || y == 0 || (x == INT64_MIN && y == -1))
            return unk_at(a); /* ZeroDivisionError, or past int64 */
        if (op == OP_MOD) {
            v = x % y;
            if (v != 0 && ((v < 0) != (y < 0)))
                v += y; /* the sign of the divisor */
        } else {
            v = x / y;
            if ((x % y != 0) && ((x < 0) != (y < 0)))
                v--; /* towards minus infinity */
        }
        break;
    default:
        return unk_at(a);
    }
    if (huge) {
        r.flags |= F_HUGE;
        v = INT64_MAX;
    }
    r.ival = v;
    return r;
}

static aval binop(tpl *t, uint8_t op, const aval *a, const aval *b, const oframe *f)
{
    aval r = unk_at(a);
    bool ia = a->kind == AV_INT, ib = b->kind == AV_INT;
    (void)f;
    switch (op) {
    case OP_CONCAT:
        return tv_concat(t, a, b);
    case OP_ADD:
        if (a->kind == AV_STR && b->kind == AV_STR)
            return tv_concat(t, a, b);
        if (ia && ib)
            return int_op(op, a, b, r);
        r.flags = (a->flags | b->flags) & (F_TAINT | F_CONTENT);
        return r;
    case OP_SUB: case OP_FDIV:
        return ia && ib ? int_op(op, a, b, r) : r;
    case OP_MUL:
        if (ia && ib)
            return int_op(op, a, b, r);
        if (ib)
            return tv_repeat(t, a, b, a);
        if (ia)
            return tv_repeat(t, b, a, a);
        return r;
    case OP_POW:
        return tv_power(t, a, b);
    case OP_MOD:
        if (a->kind == AV_STR) {
            /* a tuple gives the arguments, one string or number is one */
            cval ca[MAX_CARGS];
            uint32_t n = 0;
            if (b->kind == AV_LIST ? tv_gather_args(t, b, 1, true, ca, &n)
                                   : tv_gather_args(t, b, 1, false, ca, &n))
                return tv_fold_percent(t, a, ca, n);
            r.flags |= F_STRTYPE;
            return r;
        }
        return ia && ib ? int_op(op, a, b, r) : r;
    case OP_DIV:
        return r;
    case OP_IN: case OP_NOTIN:
        if (a->kind == AV_STR && (b->flags & F_CONTENT) && tv_wordlike(vb(t, a), a->len))
            trigger(t, a, op == OP_IN ? "with 'in' against" : "with 'not in' against");
        return r;
    case OP_EQ: case OP_NE:
        if (a->kind == AV_STR && (b->flags & F_CONTENT) && tv_wordlike(vb(t, a), a->len))
            trigger(t, a, "for equality with");
        else if (b->kind == AV_STR && (a->flags & F_CONTENT) && tv_wordlike(vb(t, b), b->len))
            trigger(t, b, "for equality with");
        return r;
    default:
        return r;
    }
}

static void reduce_op(tpl *t)
{
    oframe f = t->O[--t->no];
    if (f.kind == O_UNARY) {
        if (t->nv > f.vh) {
            aval *v = &t->V[t->nv - 1];
            if (f.op == OP_NEG && v->kind == AV_INT) {
                if (v->ival == INT64_MIN)
                    v->flags |= F_HUGE;
                else
                    v->ival = -v->ival;
                v->flags &= (uint16_t) ~F_LITERAL;
            } else if (f.op == OP_POS && v->kind == AV_INT) {
                v->flags &= (uint16_t) ~F_LITERAL;
            } else {
                *v = unk_at(v); /* not, or -'a' (a TypeError) */
            }
        }
        return;
    }
    if (f.vh == 0 || t->nv <= f.vh)
        return; /* no right operand: dropped */
    aval a = t->V[f.vh - 1], b = t->V[t->nv - 1];
    t->nv = f.vh - 1;
    t->V[t->nv++] = binop(t, f.op, &a, &b, &f);
}

static int reduce_to_marker(tpl *t)
{
    while (t->no > 0 && t->O[t->no - 1].kind <= O_UNARY)
        reduce_op(t);
    return t->no > 0 ? (int)t->no - 1 : -1;
}

static void push_unary(tpl *t, uint8_t op, const tok *k)
{
    oframe f = {.kind = O_UNARY, .op = op, .prec = prec_of(op), .vh = t->nv, .pos = k->pos,
                .index = k->index};
    opush(t, f);
    t->expect = true;
}

static void push_bin(tpl *t, uint8_t op, const tok *k)
{
    if (t->expect) {
        if (op == OP_SUB)
            push_unary(t, OP_NEG, k);
        else if (op == OP_ADD)
            push_unary(t, OP_POS, k);
        return;
    }
    uint8_t p = prec_of(op);
    while (t->no > 0) {
        const oframe *top = &t->O[t->no - 1];
        if (top->kind > O_UNARY)
            break;
        if (top->prec >= p) /* all left-associative in Jinja, ** too */
            reduce_op(t);
        else
            break;
    }
    oframe f = {.kind = O_BIN, .op = op, .prec = p, .vh = t->nv, .pos = k->pos,
                .index = k->index};
    opush(t, f);
    t->expect = true;
}

/* An operand where an operator was expected ({{ a b }}, {% include 'x' %}):
 * close what is open down to the nearest bracket and keep going. */
static void juxtapose(tpl *t)
{
    reduce_to_marker(t);
}

static void operand(tpl *t, aval v)
{
    if (!t->expect)
        juxtapose(t);
    vpush(t, v);
    t->expect = false;
}

static void open_marker(tpl *t, uint8_t kind, const tok *k, uint16_t word)
{
    oframe f = {.kind = kind, .word = word, .vh = t->nv, .pos = k->pos, .index = k->index};
    opush(t, f);
    t->expect = true;
}

static void apply_pending_filter(tpl *t)
{
    if (t->nv == 0)
        return;
    aval at = t->V[t->nv - 1];
    at.pos = t->pend_pos;
    at.index = t->pend_index;
    aval x = t->V[t->nv - 1];
    t->V[t->nv - 1] = apply_filter(t, t->pend_word, &x, NULL, 0, 0, &at);
}

static void close_marker(tpl *t, const tok *k)
{
    if (reduce_to_marker(t) < 0)
        return; /* a stray closer */
    oframe f = t->O[--t->no];
    if (f.kind == M_SUB && f.colons > 0 && t->expect) {
        aval none = val_tok(k, AV_NONE);
        if (!vpush(t, none))
            return;
    }
    if (f.vh == 0 && (f.kind == M_CALL || f.kind == M_SUB || f.kind == M_FILTER))
        f.kind = M_GROUP;
    uint32_t base = f.vh, n = t->nv - base;
    aval *items = &t->V[base];
    aval r;
    aval at;
    memset(&at, 0, sizeof at);
    at.pos = f.pos;
    at.index = f.index;
    switch (f.kind) {
    case M_GROUP:
        if (n == 1 && f.commas == 0) {
            t->expect = false;
            return;
        }
        r = tv_make_list(t, items, n, &at);
        if (r.kind == AV_LIST)
            r.flags |= F_TUPLE;
        break;
    case M_LIST:
        r = tv_make_list(t, items, n, &at);
        break;
    case M_CALL: {
        aval c = t->V[base - 1];
        if (c.kind == AV_ATTR)
            r = method_call(t, &c, items, n, f.kws);
        else if (c.kind == AV_NAME)
            r = global_call(t, &c, items, n);
        else {
            r = unk_at(&c);
            r.flags = c.flags & F_TAINT;
        }
        base--;
        break;
    }
    case M_SUB: {
        aval x = t->V[base - 1];
        r = unk_at(&x);
        r.flags = x.flags & F_TAINT;
        if (f.colons == 0 && n >= 1) {
            const aval *key = &items[n - 1];
            r.flags |= key_check(t, key, &x, K_SUB);
            if (key->kind == AV_STR) {
                const uint8_t *s = vb(t, key);
                if ((key->len == 7 && memcmp(s, "content", 7) == 0) ||
                    (key->len == 4 && memcmp(s, "text", 4) == 0 && (x.flags & F_CONTENT)))
                    r.flags |= F_CONTENT;
            } else if (key->kind == AV_INT && !(key->flags & F_HUGE) &&
                       (x.kind == AV_STR || x.kind == AV_LIST)) {
                uint16_t keep = r.flags;
                r = tv_fold_index(t, &x, key->ival);
                r.flags |= keep;
            }
        } else if (f.colons > 0 && x.kind == AV_STR) {
            r = tv_fold_slice(t, &x, items, n);
        }
        base--;
        break;
    }
    case M_FILTER: {
        aval x = t->V[base - 1];
        r = apply_filter(t, f.word, &x, items, n, f.kws, &at);
        base--;
        break;
    }
    case M_TEST: /* the tested value (already unknown) stays; drop the arguments */
        t->nv = base;
        t->expect = false;
        return;
    case M_DICT:
    default:
        r = unk_at(&at);
        break;
    }
    t->nv = base;
    vpush(t, r);
    t->expect = false;
}

/* ---------------------------------------------------------- tokens */

static bool is_op_keyword(unsigned w)
{
    return w == W_AND || w == W_OR || w == W_NOT || w == W_IN || w == W_IS || w == W_IF ||
           w == W_ELSE;
}

static void name_tok(tpl *t, const tok *k)
{
    switch (k->word) {
    case W_AND: push_bin(t, OP_AND, k); return;
    case W_OR: push_bin(t, OP_OR, k); return;
    case W_NOT:
        if (t->expect)
            push_unary(t, OP_NOT, k);
        else
            t->pend_ev = PE_NOT;
        return;
    case W_IN: push_bin(t, OP_IN, k); return;
    case W_IS:
        if (!t->expect && t->nv > 0) {
            t->V[t->nv - 1] = unk_at(&t->V[t->nv - 1]);
            t->pend_ev = PE_IS;
        }
        return;
    case W_IF: push_bin(t, OP_IF, k); return;
    case W_ELSE: push_bin(t, OP_ELSE, k); return;
    case W_TRUE: case W_FALSE: case W_NONE_LIT: case W_TRUE_U: case W_FALSE_U: case W_NONE_U:
        operand(t, val_tok(k, AV_UNK));
        return;
    default:
        break;
    }
    char e[96];
    if (tv_is_dunder(k->s, k->n))
        hit(t, TH_GADGET, k->pos, k->index, "name '%s' is a Python dunder (SSTI gadget)",
            q(e, sizeof e, k->s, k->n, 40));
    aval v;
    var *x = tv_var_find(t, k->s, k->n, k->hash);
    if (x) {
        v = x->v;
        v.pos = k->pos;
        v.index = k->index;
    } else {
        v = val_tok(k, AV_NAME);
        v.word = k->word;
        if (k->n && tv_ar_reserve(t, k->n)) {
            memcpy(t->ar + t->ar_len, k->s, k->n);
            v.off = t->ar_len;
            v.len = k->n;
            t->ar_len += k->n;
        }
    }
    operand(t, v);
}

static void str_tok(tpl *t, const tok *k, bool after_str)
{
    aval v = val_tok(k, AV_STR);
    if (k->lflags & LF_TRUNC) {
        v.kind = AV_UNK;
        v.count = (int64_t)k->full;
    } else if (k->n && !tv_ar_reserve(t, k->n)) {
        if (!t->nomem)
            tv_limit(t, k->pos, k->index, "the per-tag arena (256 KiB) is full");
        v.kind = AV_UNK;
        v.count = k->n;
    } else {
        if (k->n)
            memcpy(t->ar + t->ar_len, k->s, k->n);
        v.off = t->ar_len;
        v.len = k->n;
        v.count = k->n;
        v.flags = F_LITERAL | F_SCANNED;
        if ((k->lflags & LF_INEXACT) || !utf8_valid(k->s, k->n))
            v.flags |= F_INEXACT;
        t->ar_len += k->n;
    }
    if (!t->expect && after_str && t->nv > 0 && t->V[t->nv - 1].kind == AV_STR &&
        (t->V[t->nv - 1].flags & F_LITERAL) && v.kind == AV_STR) {
        /* 'a' 'b': Jinja joins adjacent literals */
        aval a = t->V[t->nv - 1];
        aval r = tv_concat(t, &a, &v);
        r.flags |= F_LITERAL;
        t->V[t->nv - 1] = r;
        return;
    }
    operand(t, v);
}

static void op_tok(tpl *t, const tok *k)
{
    switch (k->op) {
    case '.':
        if (!t->expect && t->nv > 0)
            t->pend_ev = PE_DOT;
        return;
    case '|':
        if (!t->expect && t->nv > 0) {
            /* Jinja filters the whole unary expression: -2|string is '-2' */
            while (t->no > 0 && t->O[t->no - 1].kind == O_UNARY &&
                   t->O[t->no - 1].op != OP_NOT)
                reduce_op(t);
            t->pend_ev = PE_PIPE;
        }
        return;
    case '(':
        if (!t->expect && t->nv > 0)
            open_marker(t, M_CALL, k, 0);
        else
            open_marker(t, M_GROUP, k, 0);
        return;
    case '[':
        if (!t->expect && t->nv > 0) {
            open_marker(t, M_SUB, k, 0);
        } else {
            open_marker(t, M_LIST, k, 0);
        }
        return;
    case '{':
        if (!t->expect)
            juxtapose(t);
        open_marker(t, M_DICT, k, 0);
        return;
    case ')': case ']': case '}':
        close_marker(t, k);
        return;
    case ',': {
        int m = reduce_to_marker(t);
        if (m >= 0) {
            if (t->O[m].commas < 255)
                t->O[m].commas++;
        } else {
            t->tuple = true;
        }
        t->expect = true;
        return;
    }
    case ':': {
        int m = reduce_to_marker(t);
        if (m >= 0 && t->O[m].kind == M_SUB) {
            if (t->expect && !vpush(t, val_tok(k, AV_NONE)))
                return;
            if (t->O[m].colons < 255)
                t->O[m].colons++;
        }
        t->expect = true;
        return;
    }
    case '=': {
        int m = reduce_to_marker(t);
        uint32_t base = m >= 0 ? t->O[m].vh : 0;
        if (m >= 0 && t->O[m].kws < 255)
            t->O[m].kws++;
        if (t->nv > base)
            t->nv--; /* a keyword argument's name */
        t->expect = true;
        return;
    }
    case '~': push_bin(t, OP_CONCAT, k); return;
    case '+': push_bin(t, OP_ADD, k); return;
    case '-': push_bin(t, OP_SUB, k); return;
    case '*': push_bin(t, OP_MUL, k); return;
    case '/': push_bin(t, OP_DIV, k); return;
    case OPC_FDIV: push_bin(t, OP_FDIV, k); return;
    case '%': push_bin(t, OP_MOD, k); return;
    case OPC_POW: push_bin(t, OP_POW, k); return;
    case OPC_EQ: push_bin(t, OP_EQ, k); return;
    case OPC_NE: push_bin(t, OP_NE, k); return;
    case '<': case '>': case OPC_LE: case OPC_GE: push_bin(t, OP_CMP, k); return;
    default: return;
    }
}

static void expr_tok(tpl *t, const tok *k)
{
    bool paren = k->kind == TK_OP && k->op == '(';
    switch (t->pend_ev) {
    case PE_DOT:
        t->pend_ev = PE_NONE;
        if (k->kind == TK_NAME) {
            attr_access(t, k);
            t->last_str = false;
            return;
        }
        if (k->kind == TK_INT && t->nv > 0) { /* foo.0 */
            aval *r = &t->V[t->nv - 1];
            uint16_t fl = r->flags & F_TAINT;
            *r = unk_at(r);
            r->flags = fl;
            return;
        }
        break;
    case PE_PIPE:
        t->pend_ev = PE_NONE;
        if (k->kind == TK_NAME) {
            t->pend_ev = PE_FILTER;
            t->pend_word = k->word;
            t->pend_pos = k->pos;
            t->pend_index = k->index;
            return;
        }
        break;
    case PE_ATTR:
        t->pend_ev = PE_NONE;
        if (paren) {
            open_marker(t, M_CALL, k, 0);
            return;
        }
        settle_attr(t);
        break;
    case PE_FILTER:
        t->pend_ev = PE_NONE;
        if (paren) {
            open_marker(t, M_FILTER, k, t->pend_word);
            return;
        }
        apply_pending_filter(t);
        break;
    case PE_NOT:
        t->pend_ev = PE_NONE;
        if (k->kind == TK_NAME && k->word == W_IN) {
            push_bin(t, OP_NOTIN, k);
            return;
        }
        break;
    case PE_IS:
        if (k->kind == TK_NAME && k->word == W_NOT)
            return;
        t->pend_ev = PE_NONE;
        if (k->kind == TK_NAME) {
            t->pend_ev = PE_IS_NAME;
            return;
        }
        break;
    case PE_IS_NAME:
        t->pend_ev = PE_NONE;
        if (paren) {
            open_marker(t, M_TEST, k, 0);
            return;
        }
        if (k->kind == TK_STR || k->kind == TK_INT || k->kind == TK_FLOAT ||
            (k->kind == TK_NAME && !is_op_keyword(k->word)))
            return; /* the test's single argument */
        break;
    default:
        break;
    }
    bool after_str = t->last_str;
    t->last_str = false;
    switch (k->kind) {
    case TK_STR:
        str_tok(t, k, after_str);
        t->last_str = true;
        return;
    case TK_INT: {
        aval v = val_tok(k, AV_INT);
        v.ival = k->ival;
        if (k->huge) {
            v.flags |= F_HUGE;
            v.ival = INT64_MAX;
        }
        operand(t, v);
        return;
    }
    case TK_FLOAT:
        operand(t, val_tok(k, AV_UNK));
        return;
    case TK_NAME:
        name_tok(t, k);
        return;
    case TK_OP:
        op_tok(t, k);
        return;
    default:
        return;
    }
}

/* Resolve what a tag's last token left pending and reduce everything. */
static void flush(tpl *t)
{
    if (t->dead) {
        t->nv = t->no = 0;
        return;
    }
    if (t->pend_ev == PE_ATTR)
        settle_attr(t);
    else if (t->pend_ev == PE_FILTER)
        apply_pending_filter(t);
    t->pend_ev = PE_NONE;
    while (t->no > 0 && !t->dead) {
        if (t->O[t->no - 1].kind <= O_UNARY) {
            reduce_op(t);
        } else {
            t->nv = t->O[t->no - 1].vh; /* an unclosed bracket: drop its contents */
            t->no--;
        }
    }
    if (t->dead)
        t->nv = t->no = 0;
}

/* ------------------------------------------------------------ statements */

static void finish_for(tpl *t)
{
    flush(t);
    int64_t b = -1;
    if (t->nv == 1) {
        const aval *v = &t->V[0];
        b = v->kind == AV_LIST ? v->ival : v->kind == AV_STR ? (int64_t)v->len : v->count;
    }
    if (b < 1)
        b = 1;
    int64_t outer = outer_product(t);
    int64_t prod = sat_mul(outer, b);
    if (prod > TPL_DOS_NEST && outer > 1 && b <= TPL_DOS_NEST)
        hit(t, TH_DOS, t->tag_pos, t->tag_index, "nested loops with constant bounds run "
            "%lld%s iterations (this loop %lld times, inside loops of %lld)", (long long)prod,
            prod == INT64_MAX ? "+" : "", (long long)b, (long long)outer);
    block_push(t, W_FOR, b, t->tag_pos, t->tag_index);
    t->nv = t->no = 0;
    t->expect = true;
    t->pend_ev = PE_NONE;
}

/* The first token of a {% %} tag. True when it was a statement keyword. */
static bool statement(tpl *t, const tok *k)
{
    switch (k->word) {
    case W_SET:
        t->stmt = ST_SET_TARGET;
        return true;
    case W_FOR:
        t->stmt = ST_FOR_TARGET;
        return true;
    case W_IF: case W_MACRO: case W_CALL: case W_FILTER: case W_WITH: case W_BLOCK:
    case W_GENERATION: case W_AUTOESCAPE:
        block_push(t, (uint8_t)k->word, 1, k->pos, k->index);
        t->stmt = ST_EXPR;
        return true;
    case W_ELIF:
        block_middle(t, k);
        t->stmt = ST_EXPR;
        return true;
    case W_ELSE:
        block_middle(t, k);
        t->stmt = ST_IGNORE;
        return true;
    case W_ENDFOR: case W_ENDIF: case W_ENDMACRO: case W_ENDCALL: case W_ENDFILTER:
    case W_ENDWITH: case W_ENDBLOCK: case W_ENDSET: case W_ENDGENERATION:
    case W_ENDAUTOESCAPE:
        block_end(t, k);
        t->stmt = ST_IGNORE;
        return true;
    case W_RAW:
        t->raw_next = true;
        t->stmt = ST_IGNORE;
        return true;
    default:
        return false;
    }
}

static void set_target(tpl *t, const tok *k)
{
    if (k->kind == TK_NAME) {
        if (t->set_attr && t->last_dot) {
            t->last_dot = false;
            return;
        }
        if (t->set_len == 0 && !t->set_multi) {
            memcpy(t->set_name, k->s, k->n);
            t->set_len = k->n;
            t->set_hash = k->hash;
            return;
        }
        if (t->set_multi)
            tv_var_unknown(t, k->s, k->n, k->hash, k->pos, k->index);
        return;
    }
    if (k->kind != TK_OP)
        return;
    switch (k->op) {
    case '.':
        t->set_attr = true;
        t->last_dot = true;
        return;
    case ',': case '(':
        t->set_multi = true;
        return;
    case '=':
        t->set_eq = true;
        t->stmt = ST_SET_VALUE;
        t->expect = true;
        return;
    default:
        return;
    }
}

static void for_target(tpl *t, const tok *k)
{
    if (k->kind != TK_NAME)
        return;
    if (k->word == W_IN) {
        t->stmt = ST_FOR_ITER;
        t->expect = true;
        return;
    }
    tv_var_unknown(t, k->s, k->n, k->hash, k->pos, k->index);
}

static bool marker_open(const tpl *t)
{
    for (uint32_t i = 0; i < t->no; i++)
        if (t->O[i].kind > O_UNARY)
            return true;
    return false;
}

/* Name by name, when the evaluator gave up on this tag. */
static void lexical(tpl *t, const tok *k)
{
    if (k->kind == TK_NAME) {
        char e[96];
        if (t->last_dot && (tv_is_dunder(k->s, k->n) || tv_is_mangled(k->s, k->n)))
            hit(t, TH_GADGET, k->pos, k->index, "attribute '.%s': access to a Python "
                "attribute (SSTI gadget)", q(e, sizeof e, k->s, k->n, 40));
        else if (t->last_dot && (word_class(k->word) & WC_ATTRSINK))
            hit(t, TH_EXEC, k->pos, k->index, "attribute '.%s' is a command or code-execution "
                "sink", q(e, sizeof e, k->s, k->n, 40));
        else if (!t->last_dot && tv_is_dunder(k->s, k->n))
            hit(t, TH_GADGET, k->pos, k->index, "name '%s' is a Python dunder (SSTI gadget)",
                q(e, sizeof e, k->s, k->n, 40));
    }
    t->last_dot = k->kind == TK_OP && k->op == '.';
}

/* ------------------------------------------------------------- interface */

void ev_template_begin(tpl *t)
{
    /* the budget is the analyser's: this template adds to what is left */
    uint64_t room = TPL_BUDGET_MAX - t->budget_given;
    uint64_t add = t->total < room / TPL_BUDGET_PER_BYTE ? t->total * TPL_BUDGET_PER_BYTE : room;
    t->budget += add;
    t->budget_given += add;
    for (uint32_t i = 0; i < t->n_vars; i++) /* clear only the slots in use */
        t->vslots[t->vars[i].slot] = 0;
    t->n_vars = 0;
    t->vs_len = 0;
    t->n_blocks = 0;
    t->blocks_over = 0;
    t->raw_next = false;
}

void ev_begin(tpl *t, uint8_t tagkind)
{
    t->tagkind = tagkind;
    t->ar_len = 0;
    t->nv = t->no = 0;
    t->stmt = ST_EXPR;
    t->pend_ev = PE_NONE;
    t->expect = true;
    t->dead = false;
    t->last_str = false;
    t->last_dot = false;
    t->first = true;
    t->tuple = false;
    t->set_len = 0;
    t->set_multi = t->set_attr = t->set_eq = false;
    t->raw_next = false;
}

void ev_tok(tpl *t, const tok *k)
{
    if (t->nomem)
        return;
    if (k->kind == TK_STR)
        tv_literal_check(t, k);
    if (t->first) {
        t->first = false;
        if (t->tagkind == TAG_BLOCK && k->kind == TK_NAME && statement(t, k))
            return;
    }
    switch (t->stmt) {
    case ST_IGNORE:
        return;
    case ST_SET_TARGET:
        set_target(t, k);
        return;
    case ST_FOR_TARGET:
        for_target(t, k);
        return;
    case ST_FOR_ITER:
        if (k->kind == TK_NAME && (k->word == W_IF || k->word == W_RECURSIVE) &&
            !t->dead && !marker_open(t)) {
            finish_for(t);
            t->stmt = ST_EXPR;
            return;
        }
        break;
    default:
        break;
    }
    if (t->dead) {
        lexical(t, k);
        return;
    }
    expr_tok(t, k);
    if (t->dead)
        t->last_dot = false;
}

/* A {{ }} tag ends: its value, when known, is what Jinja emits here, so it
 * goes into the output stream (unknown values are transparent). */
/* tpl_probe: remember the value of this {{ }} when it is exactly known. */
static void probe_value(tpl *t, const aval *v)
{
    t->probe_known = false;
    if (!v || (v->flags & (F_INEXACT | F_HUGE)))
        return;
    char d[24];
    const uint8_t *b;
    size_t n;
    if (v->kind == AV_STR) {
        b = vb(t, v);
        n = v->len;
    } else if (v->kind == AV_INT) {
        int k = snprintf(d, sizeof d, "%lld", (long long)v->ival);
        b = (const uint8_t *)d;
        n = k > 0 ? (size_t)k : 0;
    } else {
        return;
    }
    if (n > t->probe_cap)
        return;
    if (n)
        memcpy(t->probe_buf, b, n);
    t->probe_len = n;
    t->probe_known = true;
}

static void emit_value(tpl *t)
{
    bool one = !t->dead && t->nv == 1 && !t->tuple;
    if (t->probe_buf)
        probe_value(t, one ? &t->V[0] : NULL);
    if (!one)
        return;
    const aval *v = &t->V[0];
    uint16_t fl = (uint16_t)(SG_VALUE | ((v->flags & F_SCANNED) ? SG_SCANNED : 0) |
                             ((v->flags & F_BUILT) ? SG_BUILT : 0));
    if (v->kind == AV_STR && v->len) {
        ts_segment(&t->out, fl);
        ts_run(t, &t->out, vb(t, v), v->len, v->index, true);
    } else if (v->kind == AV_INT && !(v->flags & F_HUGE)) {
        char d[24];
        int n = snprintf(d, sizeof d, "%lld", (long long)v->ival);
        ts_segment(&t->out, fl);
        ts_run(t, &t->out, (const uint8_t *)d, n > 0 ? (size_t)n : 0, v->index, true);
    }
}

void ev_end(tpl *t)
{
    if (t->nomem)
        return;
    switch (t->stmt) {
    case ST_SET_TARGET: /* {% set x %}...{% endset %} */
        if (t->set_len)
            tv_var_unknown(t, t->set_name, t->set_len, t->set_hash, t->tag_pos, t->tag_index);
        if (!t->set_attr && !t->set_multi)
            block_push(t, W_SET, 1, t->tag_pos, t->tag_index);
        break;
    case ST_SET_VALUE:
        flush(t);
        if (t->set_len && !t->set_attr) {
            var *x = tv_var_get(t, t->set_name, t->set_len, t->set_hash, t->tag_pos, t->tag_index);
            if (x) {
                if (!t->set_multi && !t->tuple && t->nv == 1) {
                    tv_var_assign(t, x, &t->V[0]);
                } else {
                    aval u = unk_at(&t->V[0]);
                    tv_var_assign(t, x, &u);
                }
            }
        }
        break;
    case ST_FOR_TARGET: /* no 'in': keep the block structure */
        block_push(t, W_FOR, 1, t->tag_pos, t->tag_index);
        break;
    case ST_FOR_ITER:
        finish_for(t);
        break;
    default:
        flush(t);
        if (t->tagkind == TAG_VAR)
            emit_value(t);
        break;
    }
    t->nv = t->no = 0;
    t->ar_len = 0;
}

bool ev_wants_raw(const tpl *t)
{
    return t->raw_next;
}

void ev_template_end(tpl *t)
{
    if (t->nomem)
        return;
    for (uint32_t i = t->n_blocks; i-- > 0;) {
        const block *b = &t->blocks[i];
        hit(t, TH_SYNTAX, b->pos, b->index, "'%s' is never closed by 'end%s' (Jinja rejects the "
            "template)", word_text(b->kind), word_text(b->kind));
    }
    t->n_blocks = 0;
}
