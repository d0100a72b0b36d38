/* tokens.c - the special tokens a template emits (prefix tk_, state t->tk),
 * for the conformance checks against the vocabulary (check_template_vocab.c):
 * "<|im_start|>", "<｜User｜>", "<start_of_turn>", "</s>", "[INST]" ... in the
 * text the template outputs (its text and known {{ }} values, a token never
 * spanning two of them), and in the string literals that a {{ }} tag or a
 * {% set %} value puts together with ~ or + (not those given to a call, a
 * filter or a subscript, nor those compared with ==, != or in: '</think>' in
 * content.split('</think>') is not emitted). Also whether a {{ }} tag
 * outputs the bos_token or eos_token variable.
 *
 * Tokens are kept once each (TPL_TOK_MAX of them, at most TPL_TOK_LEN bytes
 * each); the cost is one pass over the output text and the literals. */
#include "template/tpl.h"

#include "common/keyhash.h"

#include <string.h>

/* "<｜" and "｜>": U+FF5C FULLWIDTH VERTICAL LINE, as DeepSeek writes them */
static const uint8_t FW_BAR[3] = {0xEF, 0xBD, 0x9C};

void tk_template_begin(tpl *t)
{
    t->tk.n = 0;
    t->tk.n_pend = 0;
    t->tk.len = 0;
    t->tk.on = false;
    t->tk.seg = UINT32_MAX; /* no segment yet: the first one is fresh */
    t->tk.bos_var = t->tk.eos_var = false;
    t->tk.bos_index = t->tk.eos_index = 0;
}

void tk_memo_clear(tpl *t)
{
    for (unsigned i = 0; i < 1u << TK_MEMO_BITS; i++)
        for (unsigned w = 0; w < TK_MEMO_WAYS; w++)
            t->tk.memo[i][w].n = 0;
    memset(t->tk.memo_next, 0, sizeof t->tk.memo_next);
}

/* Byte classes of the token scanners (one table lookup per byte). */
#define TC_OPEN 0x01u  /* '<' or '[': a token may start */
#define TC_END_A 0x02u /* ends the scan of a '<' token: whitespace, '<', '[', '>' */
#define TC_END_B 0x04u /* ends the scan of a '[' token: whitespace, '<', '[', ']' */
#define TC_ANGLE 0x08u /* may be inside "<...>": [A-Za-z0-9_/|-] and non-ASCII */
#define TC_BRACK 0x10u /* may be inside "[...]": [A-Z_/] */
#define TC_WS (TC_END_A | TC_END_B)
#define TC_UP (TC_ANGLE | TC_BRACK)
#define TC_LO TC_ANGLE
#define TC_HI TC_ANGLE
#define TC_HI16                                                                                    \
    TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI, TC_HI,     \
        TC_HI, TC_HI, TC_HI
#define TC_OPEN_BOTH (TC_OPEN | TC_END_A | TC_END_B)
static const uint8_t tclass[256] = {
    ['\t'] = TC_WS,       ['\n'] = TC_WS,       ['\r'] = TC_WS,   [' '] = TC_WS,
    ['<'] = TC_OPEN_BOTH, ['['] = TC_OPEN_BOTH, ['>'] = TC_END_A, [']'] = TC_END_B,
    ['_'] = TC_UP,        ['/'] = TC_UP,        ['-'] = TC_ANGLE, ['|'] = TC_ANGLE,
    ['0'] = TC_ANGLE,     ['1'] = TC_ANGLE,     ['2'] = TC_ANGLE, ['3'] = TC_ANGLE,
    ['4'] = TC_ANGLE,     ['5'] = TC_ANGLE,     ['6'] = TC_ANGLE, ['7'] = TC_ANGLE,
    ['8'] = TC_ANGLE,     ['9'] = TC_ANGLE,     ['A'] = TC_UP,    ['B'] = TC_UP,
    ['C'] = TC_UP,        ['D'] = TC_UP,        ['E'] = TC_UP,    ['F'] = TC_UP,
    ['G'] = TC_UP,        ['H'] = TC_UP,        ['I'] = TC_UP,    ['J'] = TC_UP,
    ['K'] = TC_UP,        ['L'] = TC_UP,        ['M'] = TC_UP,    ['N'] = TC_UP,
    ['O'] = TC_UP,        ['P'] = TC_UP,        ['Q'] = TC_UP,    ['R'] = TC_UP,
    ['S'] = TC_UP,        ['T'] = TC_UP,        ['U'] = TC_UP,    ['V'] = TC_UP,
    ['W'] = TC_UP,        ['X'] = TC_UP,        ['Y'] = TC_UP,    ['Z'] = TC_UP,
    ['a'] = TC_LO,        ['b'] = TC_LO,        ['c'] = TC_LO,    ['d'] = TC_LO,
    ['e'] = TC_LO,        ['f'] = TC_LO,        ['g'] = TC_LO,    ['h'] = TC_LO,
    ['i'] = TC_LO,        ['j'] = TC_LO,        ['k'] = TC_LO,    ['l'] = TC_LO,
    ['m'] = TC_LO,        ['n'] = TC_LO,        ['o'] = TC_LO,    ['p'] = TC_LO,
    ['q'] = TC_LO,        ['r'] = TC_LO,        ['s'] = TC_LO,    ['t'] = TC_LO,
    ['u'] = TC_LO,        ['v'] = TC_LO,        ['w'] = TC_LO,    ['x'] = TC_LO,
    ['y'] = TC_LO,        ['z'] = TC_LO,        [0x80] = TC_HI16, [0x90] = TC_HI16,
    [0xA0] = TC_HI16,     [0xB0] = TC_HI16,     [0xC0] = TC_HI16, [0xD0] = TC_HI16,
    [0xE0] = TC_HI16,     [0xF0] = TC_HI16,
};

/* The kind of a complete token s[0..n) (brackets included), 0 when it is
 * not a token shape. */
static uint8_t token_kind(const uint8_t *s, size_t n)
{
    if (n < 3)
        return 0;
    if (s[0] == '<' && s[n - 1] == '>') {
        if (n >= 5 && s[1] == '|' && s[n - 2] == '|')
            return TKN_BAR;
        if (n >= 9 && memcmp(s + 1, FW_BAR, 3) == 0 && memcmp(s + n - 4, FW_BAR, 3) == 0)
            return TKN_BAR;
        for (size_t i = 1; i + 1 < n; i++)
            if (!(tclass[s[i]] & TC_ANGLE))
                return 0;
        return TKN_ANGLE;
    }
    if (n >= 4 && s[0] == '[' && s[n - 1] == ']') {
        for (size_t i = 1; i + 1 < n; i++)
            if (!(tclass[s[i]] & TC_BRACK))
                return 0;
        return TKN_BRACKET;
    }
    return 0;
}

/* token_kind of s[0..n), a '<' or '[' and its closing bracket, given the
 * classes all the bytes between them have. */
static uint8_t inner_kind(const uint8_t *s, size_t n, unsigned inner)
{
    if (n < 3)
        return 0;
    if (s[0] == '<') {
        if (n >= 5 && s[1] == '|' && s[n - 2] == '|')
            return TKN_BAR;
        if (n >= 9 && memcmp(s + 1, FW_BAR, 3) == 0 && memcmp(s + n - 4, FW_BAR, 3) == 0)
            return TKN_BAR;
        return (inner & TC_ANGLE) ? TKN_ANGLE : 0;
    }
    return n >= 4 && (inner & TC_BRACK) ? TKN_BRACKET : 0;
}

/* What add_keyed compares first: the length and three of the bytes (n >= 3). */
static uint32_t token_key(const uint8_t *s, size_t n)
{
    return (uint32_t)n | (uint32_t)s[1] << 8 | (uint32_t)s[n / 2] << 16 | (uint32_t)s[n - 2] << 24;
}

/* add_keyed's search and insertion, when the hint does not hold the token (every time in the reference mode). */
static __attribute__((noinline)) void add_slow(tpl *t, const uint8_t *s, size_t n, uint64_t index,
                                               uint8_t kind, uint32_t key, uint32_t slot)
{
    for (uint32_t i = 0; i < t->tk.n; i++)
        if (t->tk.key[i] == key && ts_same_short(t->tk.set[i].s, s, n)) {
            t->tk.hint[slot] = (uint8_t)(i + 1);
            return;
        }
    if (t->tk.n >= TPL_TOK_MAX)
        return;
    t->tk.hint[slot] = (uint8_t)(t->tk.n + 1);
    t->tk.key[t->tk.n] = key;
    tpl_token *e = &t->tk.set[t->tk.n++];
    memcpy(e->s, s, n);
    e->len = (uint8_t)n;
    e->kind = kind;
    e->index = index;
    if (!tpl_line_col(t, index, &e->line, &e->col))
        e->line = e->col = 0;
}

/* Keep token s[0..n) of kind `kind` (not 0), first seen at index, once.
 * A hint first: the entry last found or added under this key's slot (a
 * wrong or stale hint only costs add_slow's scan of the at most
 * TPL_TOK_MAX entries, so no keyed hash is needed). key is token_key's. */
static inline void add_keyed(tpl *t, const uint8_t *s, size_t n, uint64_t index, uint8_t kind,
                             uint32_t key)
{
    const uint32_t slot = (key * 0x9E3779B1u) >> (32 - TK_HINT_BITS);
    const uint32_t h = t->tk.hint[slot];
    if (h && h <= t->tk.n && t->tk.key[h - 1] == key && ts_same_short(t->tk.set[h - 1].s, s, n) &&
        TPL_FAST(t))
        return;
    add_slow(t, s, n, index, kind, key, slot);
}

/* Note in memo entry e (when not NULL) a token at off, len bytes, of kind
 * `kind`; e->nt counts them, TK_MEMO_TOKS + 1 when they do not fit. */
static void memo_note(tk_memo_entry *e, size_t off, size_t len, uint8_t kind, uint32_t key)
{
    if (!e)
        return;
    if (e->nt < TK_MEMO_TOKS) {
        e->off[e->nt] = (uint8_t)off;
        e->len[e->nt] = (uint8_t)len;
        e->kind[e->nt] = kind;
        e->key[e->nt] = key;
    }
    if (e->nt <= TK_MEMO_TOKS)
        e->nt++;
}

/* tk_run's scan; with e (a fresh segment) the tokens kept are noted in it. */
static void run_scan(tpl *t, const uint8_t *p, size_t n, uint32_t seg, uint64_t index,
                     bool same_index, tk_memo_entry *e)
{
    if (t->tk.seg != seg) { /* a token never spans two segments */
        t->tk.seg = seg;
        t->tk.on = false;
        t->tk.len = 0;
    }
    size_t at = 0; /* where the token being read started in p (when it did) */
    for (size_t i = 0; i < n; i++) {
        if (!t->tk.on) { /* outside a token: skip to the next opener in one loop */
            while (i < n && !(tclass[p[i]] & TC_OPEN))
                i++;
            if (i == n)
                break;
        } else { /* inside one: take the bytes that change nothing in one loop */
            uint32_t len = t->tk.len;
            while (i < n && len < TPL_TOK_LEN && !(tclass[p[i]] & (TC_END_A | TC_END_B)))
                t->tk.buf[len++] = p[i++];
            t->tk.len = len;
            if (i == n)
                break;
        }
        uint8_t c = p[i];
        if (!t->tk.on) {
            t->tk.on = true;
            t->tk.len = 0;
            t->tk.index = same_index ? index : index + i;
            at = i;
        } else if (c == '<' || c == '[') {
            t->tk.len = 0; /* start again here */
            t->tk.index = same_index ? index : index + i;
            at = i;
        } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || t->tk.len >= TPL_TOK_LEN) {
            t->tk.on = false;
            continue;
        }
        t->tk.buf[t->tk.len++] = c;
        if ((c == '>' && t->tk.buf[0] == '<') || (c == ']' && t->tk.buf[0] == '[')) {
            uint8_t kind = token_kind(t->tk.buf, t->tk.len);
            if (kind) {
                const uint32_t key = token_key(t->tk.buf, t->tk.len);
                add_keyed(t, t->tk.buf, t->tk.len, t->tk.index, kind, key);
                memo_note(e, at, t->tk.len, kind, key);
            }
            t->tk.on = false;
        }
    }
}

/* The keyed hash of s[0..n) (0 < n <= TK_MEMO_LEN), a literal at `index`
 * or a value built from one: the LIT stream's when it has just hashed
 * these bytes (its first piece is the literal, from the byte after the
 * quote), else made here. */
static inline uint64_t memo_hash(const tpl *t, const uint8_t *s, size_t n, uint64_t index)
{
    uint64_t h;
    if (ts_lit_hash(&t->ts.lits, index + 1, n, &h))
        return h;
    return keyhash_ml_hash(t->ts.memo_key, s, n, s + n);
}

/* The memo entry for s[0..n) (hash h) scanned as `how` (0 literal, 1
 * output text), or NULL. */
static const tk_memo_entry *memo_find(tpl *t, const uint8_t *s, size_t n, uint64_t h, uint8_t how)
{
    const tk_memo_entry *e = t->tk.memo[h >> (64 - TK_MEMO_BITS)];
    for (unsigned w = 0; w < TK_MEMO_WAYS; w++)
        if (e[w].h == h && e[w].n == n && e[w].how == how && ts_same_short(e[w].b, s, n))
            return &e[w];
    return NULL;
}

/* A fresh entry of the set of h, replacing its ways in turn; empty until
 * memo_keep. */
static tk_memo_entry *memo_new(tpl *t, uint64_t h)
{
    const uint32_t set = (uint32_t)(h >> (64 - TK_MEMO_BITS));
    tk_memo_entry *f = &t->tk.memo[set][t->tk.memo_next[set]++ % TK_MEMO_WAYS];
    f->n = 0;
    f->nt = 0;
    return f;
}

/* Fill entry f (from memo_new) with s[0..n) when its tokens fit. */
static void memo_keep(tk_memo_entry *f, const uint8_t *s, size_t n, uint64_t h, uint8_t how)
{
    if (f->nt > TK_MEMO_TOKS)
        return;
    f->h = h;
    f->n = (uint8_t)n;
    f->how = how;
    ts_copy_short(f->b, s, n);
}

/* Output text: a value segment ({{ }} output, one index for all its
 * bytes) taken in one run depends on its bytes only; when it ends outside
 * a token (a token never spans two segments) its tokens are remembered
 * as a literal's are (tk_literal). */
void tk_run(tpl *t, const uint8_t *p, size_t n, uint32_t seg, uint64_t index, bool same_index)
{
    if (t->tk.seg == seg || !same_index || !n || n > TK_MEMO_LEN || !t->ts.memo_key ||
        !TPL_FAST(t)) {
        run_scan(t, p, n, seg, index, same_index, NULL);
        return;
    }
    const uint64_t h = memo_hash(t, p, n, index);
    const tk_memo_entry *e = memo_find(t, p, n, h, 1);
    if (e) {
        t->tk.seg = seg;
        t->tk.on = false;
        t->tk.len = 0;
        for (unsigned k = 0; k < e->nt; k++)
            add_keyed(t, p + e->off[k], e->len[k], index, e->kind[k], e->key[k]);
        return;
    }
    tk_memo_entry *f = memo_new(t, h);
    run_scan(t, p, n, seg, index, same_index, f);
    if (!t->tk.on)
        memo_keep(f, p, n, h, 1);
}

void tk_space(tpl *t, uint32_t seg)
{
    if (t->tk.seg != seg) {
        t->tk.seg = seg;
        t->tk.len = 0;
    }
    t->tk.on = false;
}

/* The tokens of literal s[0..n) wait for the tag's end (all at `index`,
 * the literal's); each one found is also noted in e when e is not NULL
 * (e->nt counts them, TK_MEMO_TOKS + 1 when they do not fit). */
static void lit_scan(tpl *t, const uint8_t *s, size_t n, uint64_t index, tk_memo_entry *e)
{
    for (size_t i = 0; i < n; i++) {
        while (i < n && !(tclass[s[i]] & TC_OPEN))
            i++;
        if (i == n)
            return;
        const uint8_t close = s[i] == '<' ? '>' : ']';
        const unsigned end = s[i] == '<' ? TC_END_A : TC_END_B;
        const size_t lim = n - i > TPL_TOK_LEN ? i + TPL_TOK_LEN : n;
        size_t j = i + 1;
        unsigned inner = 0xFFu; /* the classes all the bytes inside have */
        while (j < lim && !(tclass[s[j]] & end))
            inner &= tclass[s[j++]];
        if (j < lim && s[j] == close) {
            const size_t len = j - i + 1;
            const uint8_t kind = inner_kind(s + i, len, inner);
            const uint32_t key = kind ? token_key(s + i, len) : 0;
            if (kind)
                memo_note(e, i, len, kind, key);
            if (kind && t->tk.n_pend < TPL_TOK_PEND) {
                tpl_token *p = &t->tk.pend[t->tk.n_pend++];
                ts_copy_short(p->s, s + i, len);
                p->len = (uint8_t)len;
                p->kind = kind;
                p->key = key;
                p->index = index;
            }
            i = j;
        }
    }
}

/* A template repeats its literals ('<|im_end|>\n' in every branch), and
 * the tokens of a literal depend on its bytes only: the literals of at
 * most TK_MEMO_LEN bytes with at most TK_MEMO_TOKS tokens are remembered
 * with where their tokens lie (a set of TK_MEMO_WAYS entries picked by a
 * keyed hash, ways replaced in turn: no probing, so a hostile template can
 * only make it miss), and the same bytes again give the same tokens
 * without a scan. */
void tk_literal(tpl *t, const uint8_t *s, size_t n, uint64_t index)
{
    if (n == 0)
        return;
    if (n > TK_MEMO_LEN || !t->ts.memo_key || !TPL_FAST(t)) {
        lit_scan(t, s, n, index, NULL);
        return;
    }
    /* most often the LIT stream has just taken these bytes and its memo
     * entry for them notes their tokens, or can */
    ts_memo_entry *le = ts_lit_entry(&t->ts.lits, s, n, index + 1);
    if (le && le->tk_nt != TS_TK_UNKNOWN) {
        const unsigned nt = le->tk_nt, room = TPL_TOK_PEND - t->tk.n_pend;
        const unsigned m = nt < room ? nt : room;
        tpl_token *p = &t->tk.pend[t->tk.n_pend];
        t->tk.n_pend += m;
        for (unsigned k = 0; k < m; k++, p++) {
            const uint8_t len = le->tk_len[k];
            ts_copy_short(p->s, s + le->tk_off[k], len);
            p->len = len;
            p->kind = le->tk_kind[k];
            p->key = le->tk_key[k];
            p->index = index;
        }
        return;
    }
    const uint64_t h = memo_hash(t, s, n, index);
    const tk_memo_entry *e = memo_find(t, s, n, h, 0);
    if (e) {
        for (unsigned k = 0; k < e->nt && t->tk.n_pend < TPL_TOK_PEND; k++) {
            tpl_token *p = &t->tk.pend[t->tk.n_pend++];
            ts_copy_short(p->s, s + e->off[k], e->len[k]);
            p->len = e->len[k];
            p->kind = e->kind[k];
            p->key = e->key[k];
            p->index = index;
        }
        return;
    }
    tk_memo_entry *f = memo_new(t, h);
    lit_scan(t, s, n, index, f);
    memo_keep(f, s, n, h, 0);
    if (le && f->nt <= TS_TK_TOKS) { /* the LIT entry notes them too */
        _Static_assert(TS_TK_TOKS == TK_MEMO_TOKS, "the two memos note as many tokens");
        le->tk_nt = f->nt;
        memcpy(le->tk_off, f->off, sizeof le->tk_off);
        memcpy(le->tk_len, f->len, sizeof le->tk_len);
        memcpy(le->tk_kind, f->kind, sizeof le->tk_kind);
        memcpy(le->tk_key, f->key, sizeof le->tk_key);
    }
}

void tk_drop(tpl *t, uint64_t index)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < t->tk.n_pend; i++)
        if (t->tk.pend[i].index != index)
            t->tk.pend[k++] = t->tk.pend[i];
    t->tk.n_pend = k;
}

void tk_tag_end(tpl *t, bool emitted)
{
    if (!t->tk.n_pend)
        return;
    for (uint32_t i = 0; emitted && i < t->tk.n_pend; i++)
        add_keyed(t, t->tk.pend[i].s, t->tk.pend[i].len, t->tk.pend[i].index, t->tk.pend[i].kind,
                  t->tk.pend[i].key);
    t->tk.n_pend = 0;
}

void tk_name(tpl *t, const uint8_t *s, size_t n, uint64_t index)
{
    if (n == 9 && memcmp(s, "bos_token", 9) == 0 && !t->tk.bos_var) {
        t->tk.bos_var = true;
        t->tk.bos_index = index;
    } else if (n == 9 && memcmp(s, "eos_token", 9) == 0 && !t->tk.eos_var) {
        t->tk.eos_var = true;
        t->tk.eos_index = index;
    }
}

/* ------------------------------------------------------------- interface */

size_t tpl_token_count(const tpl *t)
{
    return t->tk.n;
}

const uint8_t *tpl_token_get(const tpl *t, size_t i, size_t *len, int *kind, uint64_t *line,
                             uint64_t *col)
{
    if (i >= t->tk.n)
        return NULL;
    *len = t->tk.set[i].len;
    if (kind)
        *kind = t->tk.set[i].kind;
    if (line)
        *line = t->tk.set[i].line;
    if (col)
        *col = t->tk.set[i].col;
    return t->tk.set[i].s;
}

bool tpl_emits_var(const tpl *t, int which)
{
    return which == TPL_VAR_BOS ? t->tk.bos_var : t->tk.eos_var;
}
