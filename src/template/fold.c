/* fold.c - the constant layer of the template analyser (prefix fd_, state
 * t->fd): the per-tag arena and the builders of folded constants (bounded by
 * TPL_CONST_CAP, the arena cap and the analyser's budget), the checks
 * every constant gets (dunder names and attribute paths, class-hunting names,
 * names assembled by folding), the folding operations themselves (~ and +,
 * *, **, % and |format, str.format, replace, case filters, join, slicing,
 * indexing, lists) and the {% set %} variable store. Every operation costs
 * at most the bytes it copies or checks, charged to the budget. */
#include "template/tpl.h"
#include "common/alloc.h"

#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fd_limit(tpl *t, uint64_t index, const char *what)
{
    tpl_report(t, TH_LIMIT, index,
               "static analysis limit reached: %s; names are still checked "
               "one by one, folded constants may be missed",
               what);
}

bool fd_is_ident(const uint8_t *s, size_t n)
{
    if (n == 0 || n > 64 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!identc(s[i]))
            return false;
    return true;
}

/* __name__ with at least one letter or digit inside */
bool fd_is_dunder_slow(const uint8_t *s, size_t n)
{
    if (n > 256 || s[n - 1] != '_' || s[n - 2] != '_')
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
bool fd_is_mangled_slow(const uint8_t *s, size_t n)
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
    /* (only a '_' can start a match: with from == 0 the walk back finds none) */
    while (from > 0 && i > 0 && first - i < 64 && identc(s[i - 1]))
        i--;
    while (i + 1 < n) {
        if (s[i] != '_') {
            /* on to the next '_' */
            const uint8_t *v = memchr(s + i + 1, '_', n - i - 1);
            if (!v)
                break;
            i = (size_t)(v - s);
            continue;
        }
        if (s[i + 1] != '_' || (i > 0 && identc(s[i - 1]))) {
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && identc(s[j]))
            j++;
        bool pre = i == 0 || memchr(before, s[i - 1], sizeof before - 1);
        bool post = j == n || memchr(after, s[j], sizeof after - 1);
        if (pre && post && (i > 0 || j < n) && fd_is_dunder(s + i, j - i)) {
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
bool fd_has_frag(const uint8_t *s, size_t n)
{
    if ((n == 2 && s[0] == '_' && s[1] == '_') || (n == 1 && s[0] == '_'))
        return true;
    const uint8_t *u = n > 1 ? memchr(s, '_', n - 1) : NULL;
    if (!u)
        return false; /* most pieces have no '_' at all */
    for (size_t i = (size_t)(u - s); i + 1 < n;) {
        if (s[i + 1] == '_' && ((i + 2 < n && identc(s[i + 2]) && s[i + 2] != '_') ||
                                (i > 0 && identc(s[i - 1]) && s[i - 1] != '_')))
            return true;
        /* s[i] is a '_': on to the next one before s[n - 1] */
        if (i + 2 >= n)
            break;
        const uint8_t *v = memchr(s + i + 1, '_', n - i - 2);
        if (!v)
            break;
        i = (size_t)(v - s);
    }
    return false;
}

/* s[0..n) is one of the strings of a data/template/gates.def list. */
static bool in_list(const char *const *list, size_t count, const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < count; i++)
        if (strlen(list[i]) == n && memcmp(list[i], s, n) == 0)
            return true;
    return false;
}

#define GATE_FIELD(x) x,
#define COMMON_ROLE(x)
static const char *const gate_keys[] = {
#include "../../data/template/gates.def"
};
#undef GATE_FIELD
#undef COMMON_ROLE
#define GATE_FIELD(x)
#define COMMON_ROLE(x) x,
static const char *const common_roles[] = {
#include "../../data/template/gates.def"
};
#undef GATE_FIELD
#undef COMMON_ROLE

bool fd_is_gatekey(const uint8_t *s, size_t n)
{
    return in_list(gate_keys, sizeof gate_keys / sizeof gate_keys[0], s, n);
}

bool fd_is_common_role(const uint8_t *s, size_t n)
{
    return in_list(common_roles, sizeof common_roles / sizeof common_roles[0], s, n);
}

/* A literal that reads like a trigger word, not markup or a special token. */
bool fd_wordlike(const uint8_t *s, size_t n)
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

/* Describe a value for a message: its access chain, a name, a quoted
 * constant or "(...)". */
const char *fd_desc(const tpl *t, const aval *v, char *buf, size_t cap)
{
    char e[96];
    if (v->kind != AV_STR && v->kind != AV_INT && ch_text(t, v, buf, cap))
        return buf; /* the chain that reached it */
    switch (v->kind) {
    case AV_NAME:
        if (v->len)
            return tpl_quote(buf, cap, fd_bytes(t, v), v->len, 40);
        snprintf(buf, cap, "%s", v->word ? word_text(v->word) : "(...)");
        return buf;
    case AV_STR:
        snprintf(buf, cap, "'%s'", tpl_quote(e, sizeof e, fd_bytes(t, v), v->len, 30));
        return buf;
    case AV_INT: snprintf(buf, cap, "%lld", (long long)v->ival); return buf;
    default: snprintf(buf, cap, "(...)"); return buf;
    }
}

/* ------------------------------------------------------------ lifetime */

bool fd_init(tpl *t)
{
    t->fd.vars = gl_calloc(TPL_VARS_MAX, sizeof *t->fd.vars);
    /* small first buffers, so no value ever points into NULL */
    t->fd.ar = gl_malloc(1024);
    t->fd.vs = gl_malloc(1024);
    t->fd.ar_cap = t->fd.vs_cap = 1024;
    fd_budget_reset(t);
    return t->fd.vars && t->fd.ar && t->fd.vs;
}

void fd_free(tpl *t)
{
    gl_free(t->fd.vars);
    gl_free(t->fd.ar);
    gl_free(t->fd.vs);
    gl_free(t->fd.cp.buf); /* capture.c's buffer */
    gl_free(t->fd.ur);     /* unroll.c's */
}

void fd_budget_reset(tpl *t)
{
    t->fd.budget = t->fd.budget_given = TPL_BUDGET_BASE;
}

/* The budget is the analyser's: each template adds its share to what is left. */
void fd_template_begin(tpl *t, uint64_t total)
{
    uint64_t room = TPL_BUDGET_MAX - t->fd.budget_given;
    uint64_t add = total < room / TPL_BUDGET_PER_BYTE ? total * TPL_BUDGET_PER_BYTE : room;
    t->fd.budget += add;
    t->fd.budget_given += add;
    for (uint32_t i = 0; i < t->fd.n_vars; i++) /* clear only the slots in use */
        t->fd.vslots[t->fd.vars[i].slot] = 0;
    t->fd.n_vars = 0;
    t->fd.vs_len = 0;
    t->fd.dv_used = t->fd.dv_n = 0;
    t->fd.n_ns = 0;
    t->fd.obj_seq = 0;
}

/* ------------------------------------------------------------ fragments */

static bool items_frag(tpl *t, const uint8_t *p, uint32_t len, const aval *at)
{
    if (!fd_spend(t, len, at))
        return false;
    for (uint32_t pos = 0; pos + 4 <= len;) {
        uint32_t w;
        memcpy(&w, p + pos, 4);
        uint32_t n = w & ~LIST_INT;
        if (n > len - pos - 4)
            return false;
        if (fd_has_frag(p + pos + 4, n))
            return true;
        pos += 4 + n;
    }
    return false;
}

uint16_t fd_frag_of_value(tpl *t, const aval *v)
{
    if (v->flags & F_FRAG)
        return F_FRAG;
    if (v->kind == AV_STR)
        return fd_has_frag(fd_bytes(t, v), v->len) ? F_FRAG : 0;
    if (v->kind == AV_LIST)
        return items_frag(t, fd_bytes(t, v), v->len, v) ? F_FRAG : 0;
    if (v->kind == AV_UNK && (v->flags & F_ITEMS)) {
        /* a loop variable: its items are the constant's code points or items */
        if (v->rword == AV_STR)
            return memchr(fd_bytes(t, v), '_', v->len) ? F_FRAG : 0;
        return items_frag(t, fd_bytes(t, v), v->len, v) ? F_FRAG : 0;
    }
    return 0;
}

void fd_b_begin(tpl *t, bld *b, const aval *at)
{
    b->start = t->fd.ar_len;
    b->checked = 0;
    b->fail = false;
    b->fl = 0;
    b->at = at;
}

/* Room for n more bytes: the 64 KiB constant cap, the budget, the arena. */
bool fd_b_room(tpl *t, bld *b, uint64_t n)
{
    if (b->fail)
        return false;
    if (t->fd.ar_len - b->start + n > TPL_CONST_CAP) {
        fd_limit(t, b->at->index, "a folded string constant would exceed 64 KiB");
    } else if (n > t->fd.budget) {
        fd_limit(t, b->at->index, "the constant-folding budget is spent");
    } else if (!fd_ar_reserve(t, (uint32_t)n)) {
        if (!t->nomem)
            fd_limit(t, b->at->index, "the per-tag arena (256 KiB) is full");
    } else {
        t->fd.budget -= n;
        return true;
    }
    b->fail = true;
    return false;
}

/* Charge work that walks a constant without copying it (a list lookup). */
bool fd_spend(tpl *t, uint32_t n, const aval *at)
{
    if (n > t->fd.budget) {
        fd_limit(t, at->index, "the constant-folding budget is spent");
        return false;
    }
    t->fd.budget -= n;
    return true;
}

/* An empty piece still costs one unit of budget, so no loop that builds a
 * constant can run for free however many times it turns. */
static bool b_empty(tpl *t, bld *b)
{
    if (!b->fail && !fd_spend(t, 1, b->at))
        b->fail = true;
    return true;
}

void fd_b_raw(tpl *t, bld *b, const void *s, size_t n)
{
    if ((n == 0 && b_empty(t, b)) || !fd_b_room(t, b, n))
        return;
    memcpy(t->fd.ar + t->fd.ar_len, s, n);
    t->fd.ar_len += (uint32_t)n;
}

/* Copy n bytes from a value's storage (the arena may move in b_room). */
void fd_b_from(tpl *t, bld *b, bool var_space, uint32_t off, uint32_t n)
{
    if ((n == 0 && b_empty(t, b)) || !fd_b_room(t, b, n))
        return;
    const uint8_t *src = (var_space ? t->fd.vs : t->fd.ar) + off;
    memcpy(t->fd.ar + t->fd.ar_len, src, n);
    t->fd.ar_len += n;
}

void fd_b_int(tpl *t, bld *b, int64_t x)
{
    char s[24];
    int n = snprintf(s, sizeof s, "%lld", (long long)x);
    fd_b_raw(t, b, s, n > 0 ? (size_t)n : 0);
}

static void const_check(tpl *t, const uint8_t *s, size_t n, size_t from, uint32_t flags,
                        uint64_t index, const char *what);

/* Finish a built constant: run the constant checks on the bytes not yet
 * checked (charged to the budget). */
aval fd_b_done(tpl *t, bld *b)
{
    aval v = unk_at(b->at);
    uint32_t len = t->fd.ar_len - b->start;
    uint32_t fresh = (len > b->checked ? len - b->checked : 0) + 64;
    if (!b->fail && fresh > t->fd.budget) {
        fd_limit(t, b->at->index, "the constant-folding budget is spent");
        b->fail = true;
    }
    if (b->fail) {
        t->fd.ar_len = b->start;
        return v;
    }
    t->fd.budget -= fresh;
    v.kind = AV_STR;
    v.flags = (uint32_t)(F_BUILT | b->fl);
    v.off = b->start;
    v.len = len;
    v.count = len;
    const_check(t, t->fd.ar + v.off, len, b->checked, F_BUILT, v.index, "folded string");
    return v;
}

/* A constant's bytes or an integer's decimal text, for building. */
void fd_b_val(tpl *t, bld *b, const aval *v)
{
    b->fl |= v->flags & F_INEXACT;
    if (v->kind == AV_INT && (v->flags & F_HUGE))
        b->fail = true; /* its decimal text is not known (saturated or wrapped) */
    else if (v->kind == AV_INT)
        fd_b_int(t, b, v->ival);
    else
        fd_b_from(t, b, (v->flags & F_VAR) != 0, v->off, v->len);
}

/* ------------------------------------------------------ constant checks */

static void const_check(tpl *t, const uint8_t *s, size_t n, size_t from, uint32_t flags,
                        uint64_t index, const char *what)
{
    char e[160], e2[128];
    bool built = (flags & F_BUILT) != 0;
    if (fd_is_dunder(s, n)) {
        tpl_report(t, TH_GADGET, index, "%s '%s' is a Python dunder attribute name (SSTI gadget)",
                   what, tpl_quote(e, sizeof e, s, n, 60));
        if (built)
            tpl_report(t, TH_OBFUSCATION, index, "%s '%s' assembles a dunder name from pieces",
                       what, tpl_quote(e, sizeof e, s, n, 60));
        return;
    }
    if (fd_is_mangled(s, n)) { /* "_TemplateReference__context" as an |attr name or a key */
        tpl_report(t, TH_GADGET, index,
                   "%s '%s' is a name-mangled private Python attribute (SSTI gadget: "
                   "self._TemplateReference__context reaches the render context)",
                   what, tpl_quote(e, sizeof e, s, n, 60));
        return;
    }
    size_t at, len;
    if (find_dunder_path(s, n, from, &at, &len)) {
        /* quote the whole path around it: 0.__init__.__globals__[os] */
        while (at > 0 && len < 120 &&
               (identc(s[at - 1]) || s[at - 1] == '.' || s[at - 1] == '[' || s[at - 1] == ']')) {
            at--;
            len++;
        }
        while (
            at + len < n && len < 120 &&
            (identc(s[at + len]) || s[at + len] == '.' || s[at + len] == '[' || s[at + len] == ']'))
            len++;
        tpl_report(t, TH_GADGET, index,
                   "%s '%s' holds the attribute path '%s' (reached through str.format fields or "
                   "attribute getters: SSTI gadget)",
                   what, tpl_quote(e, sizeof e, s, n, 60),
                   tpl_quote(e2, sizeof e2, s + at, len, 60));
    }
    if (n > 24 || (!built && !(t->wd.hunt_bits & word_hunt_bit(s, n))))
        return; /* a plain literal only matters below when it names a class hunted for */
    unsigned w = word_of(t, s, n);
    uint16_t c = word_class(w);
    if (c & WC_CLASSHUNT)
        tpl_report(t, TH_GADGET, index,
                   "%s '%s' names a class or attribute that SSTI payloads "
                   "hunt for among __subclasses__() (as catch_warnings in CVE-2024-34359)",
                   what, tpl_quote(e, sizeof e, s, n, 40));
    if (built && ((c & (WC_MODULE | WC_CALLSINK | WC_ATTRSINK | WC_KEYSINK | WC_CLASSHUNT)) ||
                  w == W_SYSTEM))
        tpl_report(t, TH_OBFUSCATION, index,
                   "%s '%s' assembles the name of a Python code-execution sink from pieces", what,
                   tpl_quote(e, sizeof e, s, n, 40));
}

/* A literal (or name) that only becomes a dunder, a Jinja global or a sink
 * once its look-alike letters are folded (GG722 and GG738). */
void fd_homoglyph_check(tpl *t, const uint8_t *s, size_t n, uint64_t index, const char *what)
{
    uint8_t f[256];
    bool folded;
    if (n > 256 || utf8_is_ascii(s, n))
        return;
    size_t m = ts_fold_text(s, n, f, sizeof f, &folded);
    if (!folded)
        return;
    unsigned w = word_of(t, f, m);
    if (!fd_is_dunder(f, m) && !(word_class(w) & (WC_GADGET | WC_MODULE | WC_CALLSINK |
                                                  WC_ATTRSINK | WC_KEYSINK | WC_INTERNAL)))
        return;
    char e[120], g[80];
    tpl_quote(e, sizeof e, s, n, 40);
    tpl_quote(g, sizeof g, f, m, 40);
    tpl_report(t, TH_OBFUSCATION, index,
               "%s '%s' reads as '%s' once its look-alike "
               "letters are folded",
               what, e, g);
    tpl_report(t, TH_HOMOGLYPH, index, "%s '%s' is '%s' written with look-alike letters", what, e,
               g);
}

/* (every check, with the messages' buffers) */
__attribute__((noinline)) static void literal_check(tpl *t, const tok *k)
{
    if (!(k->lflags & LF_ASCII))
        fd_homoglyph_check(t, k->s, k->n, k->index, "string literal");
    char e[160], e2[40];
    size_t n = k->n;
    if (k->lflags & LF_ESC_IDENT)
        tpl_report(t, TH_OBFUSCATION, k->index,
                   "string literal '%s' spells identifier characters with escapes such as '%s'",
                   tpl_quote(e, sizeof e, k->s, n, 60),
                   tpl_quote(e2, sizeof e2, (const uint8_t *)k->esc, strlen(k->esc), 16));
    if (k->lflags & LF_TRUNC)
        fd_limit(t, k->index, "a string literal over 64 KiB is folded from its prefix only");
    if (n)
        const_check(t, k->s, n, 0, (uint8_t)((k->lflags & LF_ESC_IDENT) ? F_BUILT : 0), k->index,
                    "string literal");
}

void fd_literal_check(tpl *t, const tok *k)
{
    /* most literals are plain ASCII without a '_' and of a length no hunted
     * class name has: const_check could report nothing on them */
    size_t n = k->n;
    if ((k->lflags & (LF_ASCII | LF_ESC_IDENT | LF_TRUNC)) == LF_ASCII &&
        (n == 0 ||
         ((n > 24 || !(t->wd.hunt_bits & word_hunt_bit(k->s, n))) && !memchr(k->s, '_', n))))
        return;
    literal_check(t, k);
}

/* ----------------------------------------------------------- variables */

/* Variables and namespace attributes share one table: an attribute is the
 * entry (ns, name) with ns the namespace object's number, a variable has
 * ns 0. */
static uint32_t ns_hash(uint32_t ns, uint32_t h)
{
    return h ^ (ns * 0x9E3779B1u);
}

/* a == b over n <= 16 bytes by overlapping word loads (word_last8); a is a
 * TPL_NAME_CAP buffer, b may end at b[n - 1] */
static inline bool same_short(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    if (n <= 8)
        return n == 0 || word_last8(a, n) == word_last8(b, n);
    return word_first8(a) == word_first8(b) && word_last8(a + 8, n - 8) == word_last8(b + 8, n - 8);
}

/* The probe for names over 16 bytes (memcmp), out of line so that the
 * short names' probe calls nothing and saves no registers; h is ns_hash'ed. */
__attribute__((noinline)) static var *find_long(tpl *t, uint32_t ns, const uint8_t *s, uint32_t n,
                                                uint32_t h)
{
    uint32_t i = h & (TPL_VAR_SLOTS - 1);
    while (t->fd.vslots[i]) {
        var *x = &t->fd.vars[t->fd.vslots[i] - 1];
        if (x->hash == h && x->ns == ns && x->name_len == n && memcmp(x->name, s, n) == 0)
            return x;
        i = (i + 1) & (TPL_VAR_SLOTS - 1);
    }
    return NULL;
}

/* (most names are short: their probe calls nothing) */
var *fd_var_find_ns(tpl *t, uint32_t ns, const uint8_t *s, uint32_t n, uint32_t h)
{
    h = ns_hash(ns, h);
    if (n > 16)
        return find_long(t, ns, s, n, h);
    uint32_t i = h & (TPL_VAR_SLOTS - 1);
    while (t->fd.vslots[i]) {
        var *x = &t->fd.vars[t->fd.vslots[i] - 1];
        if (x->hash == h && x->ns == ns && x->name_len == n && same_short(x->name, s, n))
            return x;
        i = (i + 1) & (TPL_VAR_SLOTS - 1);
    }
    return NULL;
}

var *fd_var_get_ns(tpl *t, uint32_t ns, const uint8_t *s, uint32_t n, uint32_t h, uint64_t index)
{
    var *x = fd_var_find_ns(t, ns, s, n, h);
    if (x)
        return x;
    if (t->fd.n_vars >= TPL_VARS_MAX) {
        fd_limit(t, index, "more than 256 variables are set");
        return NULL;
    }
    if (n > TPL_NAME_CAP)
        n = TPL_NAME_CAP;
    x = &t->fd.vars[t->fd.n_vars++];
    memset(x, 0, sizeof *x);
    memcpy(x->name, s, n);
    x->name_len = n;
    x->hash = ns_hash(ns, h);
    x->ns = ns;
    x->v.kind = AV_UNK;
    x->v.count = -1;
    uint32_t i = x->hash & (TPL_VAR_SLOTS - 1);
    while (t->fd.vslots[i])
        i = (i + 1) & (TPL_VAR_SLOTS - 1);
    t->fd.vslots[i] = (uint16_t)t->fd.n_vars;
    x->slot = i;
    return x;
}

var *fd_var_get(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, uint64_t index)
{
    return fd_var_get_ns(t, 0, s, n, h, index);
}

static bool vs_reserve(tpl *t, uint32_t n)
{
    if (n > TPL_VSTORE_CAP - t->fd.vs_len)
        return false;
    uint32_t need = t->fd.vs_len + n;
    if (need <= t->fd.vs_cap)
        return true;
    uint32_t nc = t->fd.vs_cap ? t->fd.vs_cap : 1024;
    while (nc < need)
        nc *= 2;
    if (nc > TPL_VSTORE_CAP)
        nc = TPL_VSTORE_CAP;
    uint8_t *p = gl_realloc(t->fd.vs, nc);
    if (!p) {
        t->nomem = true;
        return false;
    }
    t->fd.vs = p;
    t->fd.vs_cap = nc;
    return true;
}

void fd_var_assign(tpl *t, var *x, const aval *v)
{
    aval nv = *v;
    nv.flags &= (uint32_t) ~(F_LITERAL | F_VAR | F_RSTR | F_RANGE);
    if (nv.kind == AV_UNK && (nv.flags & F_ITEMS)) /* the items are not copied: one unknown */
        nv.flags = (uint32_t)((nv.flags & ~F_ITEMS) | fd_frag_of(t, v));
    nv.ch_len = 0; /* the chain is kept in the variable (the arena is per tag) */
    nv.vid = 0;
    ch_store(t, x, v);
    /* a list read unchanged from another variable is the same object (a
     * mutator through either changes both); any other value is new */
    if (v->vid && v->vid <= t->fd.n_vars && v->kind == AV_LIST)
        x->obj = t->fd.vars[v->vid - 1].obj;
    else
        x->obj = ++t->fd.obj_seq;
    if (v->kind == AV_STR || v->kind == AV_LIST) {
        uint32_t len = v->len;
        if (len > t->fd.budget) {
            fd_limit(t, v->index, "the constant-folding budget is spent");
            nv = unk_at(v);
        } else {
            t->fd.budget -= len;
            if (len > x->cap_len) {
                uint32_t cap = len < 32 ? 32 : len;
                if (x->cap_len * 2 > cap)
                    cap = x->cap_len * 2 < TPL_CONST_CAP ? x->cap_len * 2 : TPL_CONST_CAP;
                if (!vs_reserve(t, cap)) {
                    if (!t->nomem)
                        fd_limit(t, v->index, "the {% set %} store (1 MiB) is full");
                    nv = unk_at(v);
                    goto store;
                }
                x->cap_off = t->fd.vs_len;
                x->cap_len = cap;
                t->fd.vs_len += cap;
            }
            const uint8_t *src = fd_bytes(t, v);
            if (len)
                memmove(t->fd.vs + x->cap_off, src, len);
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

void fd_var_unknown(tpl *t, const uint8_t *s, uint32_t n, uint32_t h, uint64_t index)
{
    var *x = fd_var_get(t, s, n, h, index);
    if (x) {
        x->v.kind = AV_UNK;
        x->v.flags = 0;
        x->v.count = -1;
        x->v.len = 0;
        x->chain_len = 0;
        x->obj = ++t->fd.obj_seq;
    }
}
