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

#include <string.h>

/* "<｜" and "｜>": U+FF5C FULLWIDTH VERTICAL LINE, as DeepSeek writes them */
static const uint8_t FW_BAR[3] = {0xEF, 0xBD, 0x9C};

void tk_template_begin(tpl *t)
{
    t->tk.n = 0;
    t->tk.n_pend = 0;
    t->tk.len = 0;
    t->tk.on = false;
    t->tk.bos_var = t->tk.eos_var = false;
    t->tk.bos_index = t->tk.eos_index = 0;
}

/* The kind of a complete token s[0..n) (brackets included), 0 when it is
 * not a token shape. */
static uint8_t token_kind(const uint8_t *s, size_t n)
{
    if (n >= 5 && s[0] == '<' && s[1] == '|' && s[n - 2] == '|' && s[n - 1] == '>')
        return TKN_BAR;
    if (n >= 9 && s[0] == '<' && memcmp(s + 1, FW_BAR, 3) == 0 &&
        memcmp(s + n - 4, FW_BAR, 3) == 0 && s[n - 1] == '>')
        return TKN_BAR;
    if (n >= 3 && s[0] == '<' && s[n - 1] == '>') {
        for (size_t i = 1; i + 1 < n; i++) {
            uint8_t c = s[i];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '/' || c == '-' || c == '|' || c >= 0x80))
                return 0;
        }
        return TKN_ANGLE;
    }
    if (n >= 4 && s[0] == '[' && s[n - 1] == ']') {
        for (size_t i = 1; i + 1 < n; i++)
            if (!((s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' || s[i] == '/'))
                return 0;
        return TKN_BRACKET;
    }
    return 0;
}

static void add(tpl *t, const uint8_t *s, size_t n, uint64_t index)
{
    uint8_t kind = token_kind(s, n);
    if (!kind)
        return;
    for (uint32_t i = 0; i < t->tk.n; i++)
        if (t->tk.set[i].len == n && memcmp(t->tk.set[i].s, s, n) == 0)
            return;
    if (t->tk.n >= TPL_TOK_MAX)
        return;
    tpl_token *e = &t->tk.set[t->tk.n++];
    memcpy(e->s, s, n);
    e->len = (uint8_t)n;
    e->kind = kind;
    e->index = index;
    if (!tpl_line_col(t, index, &e->line, &e->col))
        e->line = e->col = 0;
}

/* Find the tokens in s[0..n) (no state across calls). */
static void scan(tpl *t, const uint8_t *s, size_t n, uint64_t index, bool same_index,
                 void (*put)(tpl *, const uint8_t *, size_t, uint64_t))
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '<' && s[i] != '[')
            continue;
        uint8_t close = s[i] == '<' ? '>' : ']';
        size_t j = i + 1;
        while (j < n && j - i < TPL_TOK_LEN && s[j] != close && s[j] != '<' && s[j] != '[' &&
               s[j] != ' ' && s[j] != '\n' && s[j] != '\t' && s[j] != '\r')
            j++;
        if (j < n && s[j] == close && j - i + 1 <= TPL_TOK_LEN) {
            put(t, s + i, j - i + 1, same_index ? index : index + i);
            i = j;
        }
    }
}

void tk_run(tpl *t, const uint8_t *p, size_t n, uint32_t seg, uint64_t index, bool same_index)
{
    if (t->tk.seg != seg) { /* a token never spans two segments */
        t->tk.seg = seg;
        t->tk.on = false;
        t->tk.len = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!t->tk.on) { /* outside a token: skip to the next opener in one loop */
            while (i < n && p[i] != '<' && p[i] != '[')
                i++;
            if (i == n)
                break;
        }
        uint8_t c = p[i];
        if (!t->tk.on) {
            t->tk.on = true;
            t->tk.len = 0;
            t->tk.index = same_index ? index : index + i;
        } else if (c == '<' || c == '[') {
            t->tk.len = 0; /* start again here */
            t->tk.index = same_index ? index : index + i;
        } else if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || t->tk.len >= TPL_TOK_LEN) {
            t->tk.on = false;
            continue;
        }
        t->tk.buf[t->tk.len++] = c;
        if ((c == '>' && t->tk.buf[0] == '<') || (c == ']' && t->tk.buf[0] == '[')) {
            add(t, t->tk.buf, t->tk.len, t->tk.index);
            t->tk.on = false;
        }
    }
}

static void put_pending(tpl *t, const uint8_t *s, size_t n, uint64_t index)
{
    if (t->tk.n_pend >= TPL_TOK_PEND || !token_kind(s, n))
        return;
    tpl_token *e = &t->tk.pend[t->tk.n_pend++];
    memcpy(e->s, s, n);
    e->len = (uint8_t)n;
    e->index = index;
}

void tk_literal(tpl *t, const uint8_t *s, size_t n, uint64_t index)
{
    scan(t, s, n, index, true, put_pending);
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
    for (uint32_t i = 0; emitted && i < t->tk.n_pend; i++)
        add(t, t->tk.pend[i].s, t->tk.pend[i].len, t->tk.pend[i].index);
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
