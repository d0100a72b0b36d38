/* fields.c - str.format replacement fields in the template analyser's
 * evaluator (prefix ev_): a format string given to .format() or
 * .format_map() (or a bound '...'.format) reads attributes and items of its
 * arguments through the field names - '{0.__init__.__globals__[os]}' is
 * args[0].__init__.__globals__['os'] - so each field's path is walked as an
 * access chain: dunder and mangled names and generator/frame internals are
 * gadgets (GG720), command attributes and sink keys are sinks (GG721), and
 * the finding quotes the chain rebuilt from the argument
 * ("x.__init__.__globals__['os'].environ"). Nested fields of a format spec
 * ('{0:{1.__class__}}') are walked too.
 *
 * Jinja's |format filter is printf-style (%): it has no fields, so it
 * reads no attributes and is not walked. Cost: one pass over the format
 * string. */
#include "template/tpl.h"

#include <stdio.h>
#include <string.h>

/* One step of a field path: .name or [key]. Returns what it reaches, and
 * reports the first gadget or sink. `tainted` says an object-model step
 * came before. */
static bool field_step(tpl *t, const uint8_t *s, size_t n, bool item, bool *tainted,
                       const char *chain, const char *field, const aval *at)
{
    char e[64];
    if (n == 0 || n > 64)
        return false;
    if (item) {
        bool digits = true;
        for (size_t i = 0; i < n; i++)
            digits &= s[i] >= '0' && s[i] <= '9';
        if (digits)
            return false; /* [0]: an index */
    }
    tpl_quote(e, sizeof e, s, n, 40);
    unsigned w = word_of(t, s, n);
    uint16_t c = word_class(w);
    if (fd_is_dunder(s, n) || fd_is_mangled(s, n) || (c & WC_INTERNAL) ||
        (!item && (w == W_MRO || w == W_MODULE_ATTR || (n > 3 && memcmp(s, "co_", 3) == 0)))) {
        tpl_report(t, TH_GADGET, at->index,
                   "str.format field '%s' reads the Python %s %s through the object model "
                   "(SSTI gadget): %s",
                   field, item ? "item" : "attribute", e, chain);
        *tainted = true;
        return true;
    }
    if ((c & (WC_ATTRSINK | WC_KEYSINK)) ||
        (*tainted && (c & (WC_TAINTSINK | WC_MODULE | WC_CALLSINK)))) {
        tpl_report(t, TH_EXEC, at->index, "str.format field '%s' reaches the Python sink '%s': %s",
                   field, e, chain);
        *tainted = true;
        return true;
    }
    return false;
}

/* Walk the field name at s[0..n) (up to '!', ':' or the end). */
static uint16_t walk_field(tpl *t, const uint8_t *s, size_t n, const aval *args, uint32_t na,
                           uint32_t *auto_i, const aval *at)
{
    size_t i = 0;
    while (i < n && s[i] != '.' && s[i] != '[')
        i++;
    if (i == n)
        return 0; /* a plain argument: nothing traversed */
    /* the argument: a number, a keyword name, or the next automatic one */
    char base[TPL_CHAIN_CAP + 8], chain[2 * TPL_CHAIN_CAP], field[112];
    int64_t idx = -1;
    if (i == 0) {
        idx = (*auto_i)++;
    } else if (s[0] >= '0' && s[0] <= '9') {
        idx = 0;
        for (size_t k = 0; k < i && idx < 1000; k++)
            idx = s[k] >= '0' && s[k] <= '9' ? idx * 10 + (s[k] - '0') : 1000;
    }
    if (idx >= 0 && idx < (int64_t)na && args[idx].kind != AV_STR && args[idx].kind != AV_INT)
        fd_desc(t, &args[idx], base, sizeof base);
    else if (idx >= 0)
        snprintf(base, sizeof base, "argument %lld", (long long)idx);
    else
        tpl_quote(base, sizeof base, s, i, 40);
    tpl_quote(field, sizeof field, s, n, 60);
    size_t cl = (size_t)snprintf(chain, sizeof chain, "%s", base);
    bool tainted = false;
    uint16_t fl = 0;
    while (i < n) {
        bool item = s[i] == '[';
        size_t j = ++i;
        while (j < n && (item ? s[j] != ']' : (s[j] != '.' && s[j] != '[')))
            j++;
        char e[64];
        tpl_quote(e, sizeof e, s + i, j - i, 40);
        if (cl < sizeof chain)
            cl += (size_t)snprintf(chain + cl, sizeof chain - cl, item ? "['%s']" : ".%s", e);
        if (field_step(t, s + i, j - i, item, &tainted, chain, field, at))
            fl |= F_TAINT;
        i = item && j < n ? j + 1 : j;
    }
    return fl;
}

uint16_t ev_format_fields(tpl *t, const aval *fmt, const aval *args, uint32_t na)
{
    const uint8_t *s = fd_bytes(t, fmt);
    uint32_t n = fmt->len, auto_i = 0;
    uint16_t fl = 0;
    /* a field starts at '{' (not '{{') and its name ends at '!', ':' or
     * '}'; the spec after ':' may hold one level of nested fields */
    for (uint32_t i = 0; i < n; i++) {
        if (s[i] != '{')
            continue;
        if (i + 1 < n && s[i + 1] == '{') {
            i++;
            continue;
        }
        uint32_t j = i + 1;
        while (j < n && s[j] != '}' && s[j] != '!' && s[j] != ':' && s[j] != '{')
            j++;
        fl |= walk_field(t, s + i + 1, j - i - 1, args, na, &auto_i, fmt);
        if (j < n && s[j] == ':') { /* nested fields of the spec */
            uint32_t k = j + 1;
            while (k < n && s[k] != '}') {
                if (s[k] == '{') {
                    uint32_t m = k + 1;
                    while (m < n && s[m] != '}' && s[m] != '!' && s[m] != ':')
                        m++;
                    fl |= walk_field(t, s + k + 1, m - k - 1, args, na, &auto_i, fmt);
                    while (m < n && s[m] != '}')
                        m++;
                    k = m + 1;
                    continue;
                }
                k++;
            }
            j = k;
        }
        i = j < n ? j : n;
    }
    return fl;
}
