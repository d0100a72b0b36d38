/* gadget.c - the indicators of the template analyser's evaluator (prefix
 * ev_): where an access reaches Python internals or a code-execution sink
 * (attribute access, subscript keys, |attr and getattr names, computed keys
 * on Jinja globals), where message content is tested for a trigger word, and
 * which filters keep content or make strings. */
#include "template/tpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
uint16_t ev_key_check(tpl *t, const aval *key, const aval *recv, int how)
{
    static const char *const hows[] = {"subscript", "|attr()", "getattr()",
                                       "attribute name argument"};
    char e[120], d[96];
    if (key->kind != AV_STR) {
        if (how != K_SUB && key->kind != AV_INT)
            tpl_report(t, TH_OBFUSCATION, key->index,
                       "%s on '%s' with a name that is not a "
                       "constant: the attribute cannot be checked statically",
                       hows[how], fd_desc(t, recv, d, sizeof d));
        if (how == K_SUB && key->kind != AV_INT && computed_key_suspect(recv, key)) {
            tpl_report(
                t, TH_OBFUSCATION, key->index,
                "subscript on '%s' with a key computed "
                "at render time%s: Jinja's getitem falls back to getattr, so the key can name "
                "any attribute (__init__, __globals__) and cannot be checked statically",
                fd_desc(t, recv, d, sizeof d),
                (key->flags & F_FRAG) ? " from pieces holding '__'" : "");
            return F_TAINT;
        }
        return recv->flags & F_TAINT;
    }
    const uint8_t *s = fd_bytes(t, key);
    uint32_t n = key->len;
    if (fd_is_dunder(s, n) || fd_is_mangled(s, n))
        return F_TAINT; /* the constant itself was reported */
    unsigned w = word_of(t, s, n);
    uint16_t c = word_class(w);
    bool tainted = (recv->flags & F_TAINT) != 0;
    if (c & WC_INTERNAL) {
        tpl_report(t, TH_GADGET, key->index,
                   "%s '%s' on '%s' reaches generator / "
                   "frame internals (SSTI gadget)",
                   hows[how], tpl_quote(e, sizeof e, s, n, 40), fd_desc(t, recv, d, sizeof d));
        return F_TAINT;
    }
    if (how != K_SUB && (w == W_FORMAT || w == W_FORMAT_MAP)) {
        tpl_report(t, TH_EXEC, key->index,
                   "%s('%s') returns a bound str.%s, which reads "
                   "any attribute through its format fields: the sandbox escape of CVE-2025-27516",
                   hows[how], word_text(w), word_text(w));
        return F_TAINT;
    }
    if ((c & WC_KEYSINK) ||
        (tainted && (c & (WC_TAINTSINK | WC_MODULE | WC_CALLSINK | WC_ATTRSINK)))) {
        tpl_report(t, TH_EXEC, key->index,
                   "%s '%s' on '%s' reaches the Python "
                   "code-execution sink '%s'",
                   hows[how], tpl_quote(e, sizeof e, s, n, 40), fd_desc(t, recv, d, sizeof d),
                   tpl_quote(e, sizeof e, s, n, 40));
        return F_TAINT;
    }
    /* a subscript name built from pieces ('rol' + 'e') is only suspicious
     * when it names something (checked above): real templates build keys */
    if (how != K_SUB && (key->flags & F_BUILT) && fd_is_ident(s, n) &&
        !(c & (WC_MODULE | WC_CALLSINK | WC_ATTRSINK | WC_CLASSHUNT)))
        tpl_report(t, TH_OBFUSCATION, key->index,
                   "%s name '%s' is built by constant "
                   "folding, which hides it from a plain-text search",
                   hows[how], tpl_quote(e, sizeof e, s, n, 40));
    return recv->flags & F_TAINT;
}

void ev_trigger(tpl *t, const aval *lit, const char *how)
{
    char e[120];
    tpl_report(t, TH_TRIGGER, lit->index,
               "message content is tested %s '%s': a template "
               "that changes its output on a trigger word is a backdoor pattern",
               how, tpl_quote(e, sizeof e, fd_bytes(t, lit), lit->len, 60));
}

bool ev_keeps_content(unsigned w)
{
    switch (w) {
    case W_LOWER:
    case W_UPPER:
    case W_STRIP:
    case W_LSTRIP:
    case W_RSTRIP:
    case W_TITLE:
    case W_CAPITALIZE:
    case W_SWAPCASE:
    case W_REPLACE:
    case W_TRIM:
    case W_STRING:
    case W_TOJSON: /* the same text, quoted */
    case W_STARTSWITH:
    case W_ENDSWITH:
    case W_FIND:
    case W_RFIND:
    case W_COUNT:
    case W_INDEX: return true;
    default: return false;
    }
}

/* What a filter keeps of message content that is not text yet: the
 * contents of the messages (|map(attribute='content')), and a join, an
 * item or a sublist of such a list, are content (a comparison with them
 * is a trigger, GG727 / GG734). */
uint32_t ev_filter_content(const tpl *t, unsigned w, const aval *x, const aval *args, uint32_t na,
                           unsigned attr_kw)
{
    if (w == W_MAP && attr_kw && attr_kw <= na) {
        const aval *a = &args[attr_kw - 1];
        return a->kind == AV_STR && a->len == 7 && memcmp(fd_bytes(t, a), "content", 7) == 0
                   ? F_CONTENT
                   : 0;
    }
    switch (w) {
    case W_JOIN:
    case W_FIRST:
    case W_LAST:
    case W_LIST:
    case W_REVERSE:
    case W_SELECTATTR:
    case W_REJECTATTR: return x->flags & F_CONTENT;
    default: return 0;
    }
}

/* Filters whose result is always a string. */
bool ev_makes_string(unsigned w)
{
    switch (w) {
    case W_JOIN:
    case W_FORMAT:
    case W_REPLACE:
    case W_LOWER:
    case W_UPPER:
    case W_CAPITALIZE:
    case W_TITLE:
    case W_TRIM:
    case W_STRING:
    case W_CENTER:
    case W_INDENT: return true;
    default: return false;
    }
}

/* ns.name on a namespace() object: the attribute's value as set (by
 * namespace(name=...) or {% set ns.name = ... %}), or unknown. True when
 * done (the value replaced the top). */
static bool ns_attr(tpl *t, aval *r, const tok *k)
{
    if (r->ival <= 0 || fd_is_dunder(k->s, k->n) || fd_is_mangled(k->s, k->n))
        return false;
    var *x = fd_var_find_ns(t, (uint32_t)r->ival, k->s, k->n, k->hash);
    aval v;
    if (x) {
        v = x->v;
        v.vid = (uint16_t)(x - t->fd.vars + 1);
    } else {
        v = unk_at(r);
    }
    v.index = k->index;
    if (x && x->chain_len)
        ch_load(t, &v, x, NULL, 0); /* the chain it was set from */
    else
        ch_dot(t, &v, r, k->s, k->n);
    *r = v;
    t->ev.pend_ev = PE_NONE;
    return true;
}

/* .name on the top value. */
void ev_attr_access(tpl *t, const tok *k)
{
    aval *r = &t->ev.V[t->ev.nv - 1];
    char d[96], e[96];
    const uint8_t *s = k->s;
    uint32_t n = k->n;
    unsigned w = k->word;
    uint16_t c = word_class(w);
    uint32_t fl = r->flags & F_TAINT;
    bool rname = r->kind == AV_NAME;
    /* the receiver's description and the quoted name, formatted only for
     * a report (most accesses report nothing) */
    bool de = false;
#define DE()                                                                                       \
    (de ? (void)0                                                                                  \
        : (fd_desc(t, r, d, sizeof d), tpl_quote(e, sizeof e, s, n, 40), (void)(de = true)))
    bool internal = (c & WC_INTERNAL) || (n > 3 && memcmp(s, "co_", 3) == 0 && fd_is_ident(s, n));
    if (fd_is_dunder(s, n) || fd_is_mangled(s, n) || w == W_MRO || w == W_MODULE_ATTR || internal) {
        DE();
        if (rname && (word_class(r->word) & WC_GADGET))
            tpl_report(t, TH_GADGET, k->index,
                       "'%s.%s': Python attribute %s reached from the "
                       "Jinja global '%s' (SSTI gadget)",
                       d, e, e, d);
        else
            tpl_report(t, TH_GADGET, k->index,
                       "'%s.%s': access to the Python attribute %s "
                       "(SSTI gadget)",
                       d, e, e);
        fl |= F_TAINT;
    }
    if (rname && (word_class(r->word) & WC_MODULE)) {
        DE();
        tpl_report(t, TH_EXEC, k->index, "'%s.%s': attribute of the Python module '%s'", d, e, d);
        fl |= F_TAINT;
    } else if ((c & WC_ATTRSINK) ||
               ((r->flags & F_TAINT) && (c & (WC_TAINTSINK | WC_MODULE | WC_CALLSINK)))) {
        DE();
        tpl_report(t, TH_EXEC, k->index, "'%s.%s': %s is a command or code-execution sink", d, e,
                   e);
        fl |= F_TAINT;
    }
    if ((w == W_FORMAT || w == W_FORMAT_MAP) && r->kind == AV_UNK &&
        (r->flags & (F_STRTYPE | F_FRAG)) && (DE(), true))
        tpl_report(t, TH_OBFUSCATION, k->index,
                   "'%s.%s': str.%s on a string built at render time: its replacement fields "
                   "can read any attribute of the arguments ('{0.__class__}') and cannot be "
                   "checked statically",
                   d, e, e);
    if (w == W_FORMAT_MAP && (DE(), true))
        tpl_report(t, TH_EXEC, k->index,
                   "'%s.format_map': str.format_map reads attributes "
                   "through format fields (sandbox escape, CVE-2024-56326 class)",
                   d);
#undef DE
    if (rname && r->word == W_LOOP &&
        (w == W_INDEX || w == W_INDEX0 || w == W_REVINDEX || w == W_REVINDEX0 || w == W_LENGTH))
        fl |= F_TURNS;
    if (w == W_CONTENT || (w == W_TEXT && (r->flags & F_CONTENT)) ||
        ((r->flags & F_CONTENT) && ev_keeps_content(w)))
        fl |= F_CONTENT;
    if (fd_is_gatekey(s, n))
        fl |= F_GATEKEY;
    if (r->kind == AV_NS && !(fl & F_TAINT) && ns_attr(t, r, k))
        return;
    aval a = val_tok(k, AV_ATTR);
    a.word = (uint16_t)w;
    a.rword = rname ? r->word : 0;
    a.flags = fl;
    a.rkind = r->kind;
    a.vid = r->vid;
    ch_dot(t, &a, r, s, n);
    if (r->kind == AV_STR || r->kind == AV_LIST) {
        /* the receiver's bytes: str methods fold, list mutators update it */
        a.flags |= (uint32_t)((r->kind == AV_STR ? F_RSTR : 0) | (r->flags & (F_VAR | F_INEXACT)));
        a.off = r->off;
        a.len = r->len;
        a.ival = r->ival;
    }
    *r = a;
    t->ev.pend_ev = PE_ATTR;
}

/* An attribute not followed by a call becomes a plain value. */
void ev_settle_attr(tpl *t)
{
    if (t->ev.nv == 0)
        return;
    aval *a = &t->ev.V[t->ev.nv - 1];
    if (a->kind != AV_ATTR)
        return;
    if (a->word == W_FORMAT && (a->flags & F_RSTR)) {
        char e[96];
        aval fmt = *a;
        fmt.kind = AV_STR;
        ev_format_fields(t, &fmt, NULL, 0);
        tpl_report(t, TH_EXEC, a->index,
                   "'%s'.format is referenced without a call: a bound "
                   "str.format reads attributes through format fields (sandbox escape, "
                   "CVE-2024-56326)",
                   tpl_quote(e, sizeof e, fd_bytes(t, a), a->len, 30));
    }
    a->kind = AV_UNK;
    a->flags &= F_TAINT | F_CONTENT | F_TURNS | F_DATE | F_GATEKEY;
    a->count = -1;
}

/* A method call on the value `c` (an AV_ATTR); folded when the receiver is
 * a constant string and the arguments are constants. Keyword arguments
 * (kws) are never folded. */
