/* core.c - the template analyser's driver: its entry points (template.h),
 * which hand the template to the parts in order. The state every part
 * shares (struct tpl in tpl.h) is the template being fed (its length, the
 * index of the next byte, the chunks it came in) and the hit table, one hit
 * kept per kind with a count of the others, which sink.c fills (the leaf
 * every part reports to, with the line and column helpers). Each part owns the rest of the
 * state under its own prefix: lx_ the lexer (lex.c), raw_ the UTF-8 and
 * invisible-character scanner (rawscan.c), ts_ the text streams (stream.c),
 * fd_ the folder and its stores (fold.c, operations in strops.c), ev_ the
 * evaluator (eval.c, with gadget.c, calls.c and stmt.c), word_ the word
 * table (words.c). Limits are in caps.h. */
#include "template/tpl.h"
#include "common/alloc.h"

#include <pthread.h>
#include <stdlib.h>

tpl *tpl_new(void)
{
    tpl *t = gl_calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (!lx_init(t) || !fd_init(t) || !ts_init(t)) {
        tpl_free(t);
        return NULL;
    }
    word_init(t);
    return t;
}

void tpl_free(tpl *t)
{
    if (!t)
        return;
    gl_free(t->again_b);
    ts_free(t);
    fd_free(t);
    lx_free(t);
    gl_free(t);
}

/* ---- one analyser kept per thread between files (template.h) ----
 * The key's value is the thread's kept analyser, or NULL while it is lent
 * out (a lint inside a lint then makes its own); the key's destructor
 * frees it when the thread exits. */
static pthread_key_t keep_key;
static pthread_once_t keep_once = PTHREAD_ONCE_INIT;
static bool keep_ok;
static int force_fresh; /* tpl_force_fresh (a benign race, as force_reference) */

static void keep_drop(void *p)
{
    tpl_free(p);
}

static void keep_setup(void)
{
    keep_ok = pthread_key_create(&keep_key, keep_drop) == 0;
    const char *v = getenv("GGUFLINT_TPL_FRESH");
    if (v && *v && strcmp(v, "0") != 0)
        __atomic_store_n(&force_fresh, 1, __ATOMIC_RELAXED);
}

void tpl_force_fresh(int on)
{
    pthread_once(&keep_once, keep_setup);
    __atomic_store_n(&force_fresh, on != 0, __ATOMIC_RELAXED);
}

/* What a file may leave behind that tpl_new would not: the folding budget
 * (the analyser's, shared by the file's templates) and the memos (content
 * caches, emptied so that no file's findings depend on the files before
 * it). Everything else is reset by tpl_begin for each template. */
static void file_reset(tpl *t)
{
    fd_budget_reset(t);
    ts_memo_clear(t);
    tk_memo_clear(t);
}

/* The bytes of the buffers an analyser grows on demand. */
static uint64_t grown_bytes(const tpl *t)
{
    return (uint64_t)t->lx.lit_cap + t->fd.ar_cap + t->fd.vs_cap + t->fd.cp.cap + t->again_cap;
}

tpl *tpl_acquire(void)
{
    pthread_once(&keep_once, keep_setup);
    tpl *t = keep_ok ? pthread_getspecific(keep_key) : NULL;
    if (t)
        pthread_setspecific(keep_key, NULL); /* lent out (cannot fail: the slot exists) */
    if (t && __atomic_load_n(&force_fresh, __ATOMIC_RELAXED)) {
        tpl_free(t); /* kept before the twin was forced */
        t = NULL;
    }
    if (!t)
        return tpl_new(); /* fresh: no reset owed, nothing to compare */
    t->file_templates = 0;
    t->reset_owed = true; /* unless tpl_whole finds the same first template */
    return t;
}

void tpl_release(tpl *t)
{
    if (!t)
        return;
    if (!keep_ok || t->nomem || __atomic_load_n(&force_fresh, __ATOMIC_RELAXED) ||
        grown_bytes(t) > TPL_KEEP_HEAP || pthread_getspecific(keep_key) ||
        pthread_setspecific(keep_key, t) != 0)
        tpl_free(t);
}

bool tpl_nomem(const tpl *t)
{
    return t->nomem;
}

const tpl_hit *tpl_hit_get(const tpl *t, int kind)
{
    return &t->hits[kind];
}

int64_t tpl_first_tag(const tpl *t)
{
    return t->first_tag;
}

/* tpl_force_reference's setting, read by tpl_begin (a benign race: a
 * test sets it between templates) */
static int force_reference;

void tpl_force_reference(int on)
{
    __atomic_store_n(&force_reference, on != 0, __ATOMIC_RELAXED);
}

/* Whether tpl_whole may skip or remember a template: never in the
 * reference mode (nor in a reference build) or with fresh analysers. */
static bool again_allowed(void)
{
#ifdef GGUFLINT_TPL_REFERENCE
    return false;
#else
    return !__atomic_load_n(&force_reference, __ATOMIC_RELAXED) &&
           !__atomic_load_n(&force_fresh, __ATOMIC_RELAXED);
#endif
}

void tpl_whole(tpl *t, const uint8_t *p, uint64_t n)
{
    const bool first = t->file_templates == 0, allowed = again_allowed();
    if (first && allowed && t->reset_owed && t->again && n == t->again_n &&
        (n == 0 || memcmp(t->again_b, p, (size_t)n) == 0)) {
        t->reset_owed = false; /* the state is the analysis's already */
        t->file_templates = 1;
        return;
    }
    tpl_begin(t, n);
    tpl_feed(t, p, n);
    tpl_end(t);
    if (!first || !allowed || t->nomem || n > TPL_AGAIN_MAX)
        return;
    if (n > t->again_cap) { /* n <= TPL_AGAIN_MAX: the size fits */
        uint8_t *b = gl_realloc(t->again_b, (size_t)n);
        if (!b)
            return; /* not remembered: only the shortcut is lost */
        t->again_b = b;
        t->again_cap = (uint32_t)n;
    }
    if (n)
        memcpy(t->again_b, p, (size_t)n);
    t->again_n = (uint32_t)n;
    t->again = true;
}

void tpl_begin(tpl *t, uint64_t total_len)
{
    if (t->reset_owed) {
        t->reset_owed = false;
        file_reset(t);
    }
    t->again = false; /* the state is no longer the first template's alone */
    t->file_templates++;
    t->ref = __atomic_load_n(&force_reference, __ATOMIC_RELAXED) != 0;
    for (int k = 0; k < TH__COUNT; k++)
        if (t->hit_mask & (1u << k))
            t->hits[k].have = false;
    t->hit_mask = 0;
    t->total = total_len;
    t->index = 0;
    t->first_tag = -1;
    t->nl_scan = t->nl_count = 0;
    t->chunk_p = NULL;
    t->chunk_index = t->chunk_n = 0;
    raw_begin(t);
    memset(t->ts.lit_seen, 0, sizeof t->ts.lit_seen);
    ts_reset(&t->ts.out, "text");
    ts_segment(&t->ts.out, SG_TEXT);
    ts_reset(&t->ts.lits, "string literal");
    lx_begin(t);
    fd_template_begin(t, total_len);
    ev_template_begin(t);
    tk_template_begin(t);
}

void tpl_feed(tpl *t, const uint8_t *p, uint64_t n)
{
    t->chunk_p = p;
    t->chunk_index = t->index;
    t->chunk_n = n;
    lx_feed(t, p, n);
    tpl_lc_settle(t, t->chunk_index + n); /* this chunk's newlines, before it is gone */
    t->chunk_p = NULL;
}

void tpl_end(tpl *t)
{
    if (t->nomem)
        return;
    lx_end(t);
    ts_end(t, &t->ts.out);
    ts_end(t, &t->ts.lits);
    raw_end(t);
    ev_template_end(t);
    if (t->total > TPL_OVERSIZE)
        tpl_report_loc(t, TH_OVERSIZE, 0,
                       "the template is %llu bytes, over the 256 KiB no real chat template needs",
                       (unsigned long long)t->total);
}

int tpl_probe(tpl *t, const uint8_t *p, size_t n, uint8_t *buf, size_t cap, size_t *len)
{
    fd_budget_reset(t);
    ev_probe_begin(t, buf, cap);
    tpl_begin(t, n);
    tpl_feed(t, p, n);
    tpl_end(t);
    bool known = ev_probe_end(t, len);
    return known && !t->nomem;
}
