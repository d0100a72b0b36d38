/* stream.c - the text scanners of the template analyser (prefix ts_, state
 * t->ts): URLs,
 * IPv4 and e-mail addresses, instruction-like phrases and base64 / hex
 * blobs, on two streams of text:
 *  - OUT, the text the template outputs as Jinja would emit it: template
 *    text and raw blocks, and the value of every {{ }} whose value the
 *    folder knows. Tags, comments and unknown values are transparent, so a
 *    phrase or URL split by them ("h{{ '' }}ttps://", "Ignore{# #} previous")
 *    is seen whole;
 *  - LIT, each string literal on its own (a literal's text matters wherever
 *    it goes; literals that are plain {{ }} values are not counted twice).
 * Phrases are matched by an Aho-Corasick automaton over a folded alphabet:
 * case and whitespace runs fold, and look-alike letters (fullwidth forms,
 * Cyrillic and Greek homoglyphs, mathematical alphanumerics, enclosed
 * letters) fold to the ASCII letter they imitate, while zero-width and
 * combining characters are skipped. Each scanner keeps O(1) state per
 * stream and costs O(1) per byte. A piece of text goes through them in
 * separate passes (ts_run): the automaton with URL capture and words of
 * letters, then blob runs, then address words; the passes share no state,
 * and a piece that only holds whitespace, or that cannot hold a blob or an
 * address, is taken in one step. GG725's example is the earliest hit in the
 * template (tpl_report_earliest), so the passes' order is never visible. */
#include "template/tpl.h"
#include "common/alloc.h"

#include "common/keyhash.h"
#include "common/utf8.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every finding of a scanner goes through these, so that a scan knows
 * whether it reported anything (the literal memo below). */
#define REPORT(s, ...) ((s)->hits++, tpl_report(__VA_ARGS__))
#define REPORT_EARLIEST(s, ...) ((s)->hits++, tpl_report_earliest(__VA_ARGS__))

/* ------------------------------------------------------ folded alphabet */

#define SYM_BLOB 0x20u /* base64 / hex alphabet */
#define SYM_WORD 0x40u /* IPv4 / e-mail word */
#define SYM_DIGITDOT 0x80u
#define SYM_ATDIGIT 0x10u /* a digit or '@': a word holding neither is no address */

/* Symbols: 0 other, 1-26 letters (any case), 27 whitespace, then the
 * punctuation phrases and commands need. */
enum {
    Y_OTHER = 0,
    Y_SPACE = 27,
    Y_COLON,
    Y_SLASH,
    Y_QUOTE,
    Y_DOT,
    Y_BAR,
    Y_DASH,
    Y_LPAREN,
    Y_RPAREN,
    Y_LBRACK,
    Y_RBRACK,
    Y_LT,
    Y_GT,
    Y_BANG,
    Y_DIGIT,
    Y_DOLLAR,
    Y_AT,
    Y_QMARK,
    Y_EQ,
    Y_AMP,
    Y_DQUOTE,
    Y_HASH,
    Y__COUNT
};
_Static_assert(Y__COUNT <= AC_SYMS, "the alphabet fits the automaton");

static unsigned ac_sym(uint8_t c)
{
    if (c >= 'a' && c <= 'z')
        return (unsigned)(c - 'a') + 1;
    if (c >= 'A' && c <= 'Z')
        return (unsigned)(c - 'A') + 1;
    if (c >= '0' && c <= '9')
        return Y_DIGIT;
    switch (c) {
    case ' ':
    case '\t':
    case '\n':
    case '\r':
    case '\f':
    case '\v': return Y_SPACE;
    case ':': return Y_COLON;
    case '/': return Y_SLASH;
    case '\'': return Y_QUOTE;
    case '.': return Y_DOT;
    case '|': return Y_BAR;
    case '-': return Y_DASH;
    case '(': return Y_LPAREN;
    case ')': return Y_RPAREN;
    case '[': return Y_LBRACK;
    case ']': return Y_RBRACK;
    case '<': return Y_LT;
    case '>': return Y_GT;
    case '!': return Y_BANG;
    case '$': return Y_DOLLAR;
    case '@': return Y_AT;
    case '?': return Y_QMARK;
    case '=': return Y_EQ;
    case '&': return Y_AMP;
    case '"': return Y_DQUOTE;
    case '#': return Y_HASH;
    default: return Y_OTHER;
    }
}

/* Cyrillic and Greek letters that look like Latin ones (Unicode confusables). */
static const struct {
    uint16_t cp;
    char c;
} homoglyphs[] = {
    {0x0391, 'A'}, {0x0392, 'B'}, {0x0395, 'E'}, {0x0396, 'Z'}, {0x0397, 'H'}, {0x0399, 'I'},
    {0x039A, 'K'}, {0x039C, 'M'}, {0x039D, 'N'}, {0x039F, 'O'}, {0x03A1, 'P'}, {0x03A4, 'T'},
    {0x03A5, 'Y'}, {0x03A7, 'X'}, {0x03B1, 'a'}, {0x03B9, 'i'}, {0x03BA, 'k'}, {0x03BD, 'v'},
    {0x03BF, 'o'}, {0x03C1, 'p'}, {0x03C5, 'u'}, {0x0405, 'S'}, {0x0406, 'I'}, {0x0408, 'J'},
    {0x0410, 'A'}, {0x0412, 'B'}, {0x0415, 'E'}, {0x041A, 'K'}, {0x041C, 'M'}, {0x041D, 'H'},
    {0x041E, 'O'}, {0x0420, 'P'}, {0x0421, 'C'}, {0x0422, 'T'}, {0x0423, 'Y'}, {0x0425, 'X'},
    {0x0430, 'a'}, {0x0435, 'e'}, {0x043E, 'o'}, {0x0440, 'p'}, {0x0441, 'c'}, {0x0443, 'y'},
    {0x0445, 'x'}, {0x0455, 's'}, {0x0456, 'i'}, {0x0458, 'j'}, {0x04BB, 'h'}, {0x04CF, 'l'},
    {0x0501, 'd'}, {0x051B, 'q'}, {0x051D, 'w'},
};

/* The ASCII character a code point imitates (FOLD_SKIP: invisible, skip it;
 * 0: none). *kind gets FK_*: how the fold was made. */
#define FOLD_SKIP 0xFFu
enum { FK_NONE, FK_WIDE, FK_HOMOGLYPH, FK_STYLED, FK_ACCENT };

/* The base letters of Latin-1 Supplement U+00C0..U+00FF and Latin
 * Extended-A U+0100..U+017F (their Unicode canonical decompositions; '.'
 * none): a letter of French, German, Spanish, Turkish or Polish text is read
 * as its base letter by the phrase detectors (FK_ACCENT: the text of that
 * language, not a disguise). */
static const char accent_base[] =
    "AAAAAAACEEEEIIIIDNOOOOO.OUUUUYTsaaaaaaaceeeeiiiidnooooo.ouuuuyty"
    "AaAaAaCcCcCcCcDdDdEeEeEeEeEeGgGgGgGgHhHhIiIiIiIiIiIiJjKkkLlLlLlL"
    "lLlNnNnNnnNnOoOoOoOoRrRrRrSsSsSsSsTtTtTtUuUuUuUuUuUuWwYyYZzZzZzs";
_Static_assert(sizeof accent_base == 0x180 - 0xC0 + 1, "one base letter per code point");

static uint8_t fold_cp(uint32_t cp, uint8_t *kind)
{
    *kind = FK_NONE;
    /* kana, CJK ideographs and Hangul syllables fold to nothing (none of
     * the ranges below meets them): the common case of CJK text first */
    if ((cp >= 0x3040 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF))
        return 0;
    if (cp >= 0xFF01 && cp <= 0xFF5E) { /* fullwidth ASCII */
        *kind = FK_WIDE;
        return (uint8_t)(cp - 0xFEE0);
    }
    if (cp == 0x3000 || cp == 0x00A0 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F ||
        cp == 0x205F)
        return ' ';
    if (cp == 0x00AD || (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 || cp == 0xFEFF ||
        (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0xE0000 && cp <= 0xE007F) ||
        (cp >= 0xFE00 && cp <= 0xFE0F))
        return FOLD_SKIP;
    if (cp >= 0x1D400 && cp <= 0x1D6A3) { /* mathematical alphanumeric letters */
        *kind = FK_STYLED;
        unsigned k = (unsigned)((cp - 0x1D400) % 52);
        return (uint8_t)(k < 26 ? 'A' + k : 'a' + (k - 26));
    }
    if (cp >= 0x1D7CE && cp <= 0x1D7FF) { /* mathematical digits */
        *kind = FK_STYLED;
        return (uint8_t)('0' + (cp - 0x1D7CE) % 10);
    }
    if (cp >= 0x24B6 && cp <= 0x24CF) { /* circled capitals */
        *kind = FK_STYLED;
        return (uint8_t)('A' + (cp - 0x24B6));
    }
    if (cp >= 0x24D0 && cp <= 0x24E9) {
        *kind = FK_STYLED;
        return (uint8_t)('a' + (cp - 0x24D0));
    }
    if (cp == 0x0131 || cp == 0x017F || cp == 0x212A) { /* dotless i, long s, Kelvin */
        *kind = FK_HOMOGLYPH;
        return cp == 0x0131 ? 'i' : cp == 0x017F ? 's' : 'K';
    }
    if (cp >= 0x00C0 && cp <= 0x017F && accent_base[cp - 0xC0] != '.') {
        *kind = FK_ACCENT;
        return (uint8_t)accent_base[cp - 0xC0];
    }
    if (cp >= 0x0391 && cp <= 0x051D) {
        size_t lo = 0, hi = sizeof homoglyphs / sizeof homoglyphs[0];
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (homoglyphs[mid].cp < cp)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < sizeof homoglyphs / sizeof homoglyphs[0] && homoglyphs[lo].cp == cp) {
            *kind = FK_HOMOGLYPH;
            return (uint8_t)homoglyphs[lo].c;
        }
    }
    return 0;
}

/* s[0..n) with its look-alike letters folded to ASCII (NFKC and homoglyph
 * folding; invisible characters dropped) into out (cap bytes): the length,
 * and *folded true when a letter was folded. Other non-ASCII stays as is. */
size_t ts_fold_text(const uint8_t *s, size_t n, uint8_t *out, size_t cap, bool *folded)
{
    size_t o = 0;
    *folded = false;
    for (size_t i = 0; i < n && o < cap;) {
        if (s[i] < 0x80) {
            out[o++] = s[i++];
            continue;
        }
        uint32_t cp;
        unsigned k = utf8_decode(s + i, n - i, &cp);
        if (!k) {
            out[o++] = s[i++];
            continue;
        }
        uint8_t kind, a = fold_cp(cp, &kind);
        if (a == FOLD_SKIP) {
            *folded = true;
        } else if (a && kind != FK_ACCENT) { /* names keep their accents: Python does */
            out[o++] = a;
            *folded |= kind != FK_NONE;
        } else {
            for (unsigned j = 0; j < k && o < cap; j++)
                out[o++] = s[i + j];
        }
        i += k;
    }
    return o;
}

/* ------------------------------------------------------------ patterns */

/* Pattern kinds beyond the hit kinds: contexts of the output stream. */
enum { PK_MDLINK = TH__COUNT, PK_COMMENT_OPEN, PK_COMMENT_CLOSE, PK_TOOLARGS, PK_TOOLARGS_CLOSE };

/* The last character of a pattern that stands for any letter: "pip install
 * <letter>" names a package, "pip install -r requirements.txt" (Devstral's
 * coding prompt) does not. Reports quote the pattern up to it. */
#define PAT_LETTER '\x01'

typedef struct pattern {
    const char *s;
    int kind; /* TH_URL, TH_INSTRUCTION, TH_CONCEAL, TH_SHELL or a PK_ context */
} pattern;

static const pattern patterns[] = {
    {"http://", TH_URL},
    {"https://", TH_URL},
    {"ftp://", TH_URL},
    {"ftps://", TH_URL},
    {"sftp://", TH_URL},
    {"file://", TH_URL},
    {"ws://", TH_URL},
    {"wss://", TH_URL},
    {"gopher://", TH_URL},
    {"www.", TH_URL},
    {"ignore previous", TH_INSTRUCTION},
    {"ignore all previous", TH_INSTRUCTION},
    {"ignore prior", TH_INSTRUCTION},
    {"ignore all prior", TH_INSTRUCTION},
    {"ignore the above", TH_INSTRUCTION},
    {"ignore your instructions", TH_INSTRUCTION},
    {"ignore the instructions", TH_INSTRUCTION},
    {"ignore the system prompt", TH_INSTRUCTION},
    {"disregard previous", TH_INSTRUCTION},
    {"disregard all previous", TH_INSTRUCTION},
    {"disregard the above", TH_INSTRUCTION},
    {"disregard your instructions", TH_INSTRUCTION},
    {"forget previous instructions", TH_INSTRUCTION},
    {"forget all previous", TH_INSTRUCTION},
    {"forget your instructions", TH_INSTRUCTION},
    {"you are now", TH_INSTRUCTION},
    {"new instructions:", TH_INSTRUCTION},
    {"secret instructions", TH_INSTRUCTION},
    {"hidden instructions", TH_INSTRUCTION},
    {"developer mode", TH_INSTRUCTION},
    /* concealment: real tool-calling templates say "do not tell the user about
     * function calls", so these are their own, milder rule (GG739) */
    {"do not tell the user", TH_CONCEAL},
    {"don't tell the user", TH_CONCEAL},
    {"never tell the user", TH_CONCEAL},
    {"do not inform the user", TH_CONCEAL},
    {"without telling the user", TH_CONCEAL},
    {"without informing the user", TH_CONCEAL},
    {"do not reveal", TH_CONCEAL},
    {"never reveal", TH_CONCEAL},
    {"do not disclose", TH_CONCEAL},
    {"never disclose", TH_CONCEAL},
    {"do not mention this", TH_CONCEAL},
    {"never mention this", TH_CONCEAL},
    /* installer and shell commands */
    {"| sh", TH_SHELL},
    {"|sh", TH_SHELL},
    {"| bash", TH_SHELL},
    {"|bash", TH_SHELL},
    {"curl http", TH_SHELL},
    {"curl -", TH_SHELL},
    {"wget http", TH_SHELL},
    {"wget -", TH_SHELL},
    {"pip install \x01", TH_SHELL},
    {"pip install --", TH_SHELL},
    {"pip3 install \x01", TH_SHELL},
    {"pip3 install --", TH_SHELL},
    {"npm install \x01", TH_SHELL},
    {"npm install -g", TH_SHELL},
    {"powershell -", TH_SHELL},
    {"iex(", TH_SHELL},
    {"iex (", TH_SHELL},
    {"invoke-expression", TH_SHELL},
    {"invoke-webrequest", TH_SHELL},
    {"/dev/tcp/", TH_SHELL},
    {"rm -rf", TH_SHELL},
    {"chmod +x", TH_SHELL},
    {"bash -c", TH_SHELL},
    {"base64 -d", TH_SHELL},
    {"certutil -urlcache", TH_SHELL},
    /* output contexts for exfiltration */
    {"](", PK_MDLINK},
    {"<!--", PK_COMMENT_OPEN},
    {"-->", PK_COMMENT_CLOSE},
    /* a tool call the template writes itself: its arguments */
    {"\"arguments\"", PK_TOOLARGS},
    {"\"parameters\"", PK_TOOLARGS},
    {"<tool_call>", PK_TOOLARGS},
    {"</tool_call>", PK_TOOLARGS_CLOSE},
};
#define N_PATTERNS (sizeof patterns / sizeof patterns[0])
_Static_assert(N_PATTERNS < 65535, "pattern index fits");

/* Pattern p of the automaton: the phrases above, then the grammar's ASCII
 * words (grammar.c). */
static const char *pattern_text(size_t p)
{
    return p < N_PATTERNS ? patterns[p].s : gr_ascii_text(p - N_PATTERNS);
}

/* what a word ([A-Za-z0-9._%+-@]) holds: an IPv4 address or an e-mail? */
#define WK_AT 1u    /* holds an '@' */
#define WK_NOTIP 2u /* holds something other than digits and dots */
#define WK_LAZY 4u  /* not known yet: read it from the word's bytes (word_kind_of) */

/* blob classes */
#define BC_DIGIT 1u
#define BC_UPPER 2u
#define BC_LOWER 4u
#define BC_NOTHEX 8u
#define BC_DONE 16u
#define BC_LAZY 32u /* not known yet: read it from blob_head, which holds the run */

#define SYM_ODDSP 0x01u /* '\f' or '\v': whitespace that does not end a special token */

static uint8_t blob_class(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return BC_DIGIT;
    if (c >= 'A' && c <= 'Z')
        return (uint8_t)(BC_UPPER | (c > 'F' ? BC_NOTHEX : 0));
    if (c >= 'a' && c <= 'z')
        return (uint8_t)(BC_LOWER | (c > 'f' ? BC_NOTHEX : 0));
    return BC_NOTHEX;
}

/* The tables depend on the patterns only: built once per process
 * (tables_build, under pthread_once) into `tables`, read-only after. Each
 * analyser copies the byte tables (a few KB, kept in tpl_streams for the
 * hot loops) and points at the automaton. */
static struct ts_process_tables {
    uint32_t *ac_go;
    uint8_t *ac_hit;
    uint16_t *ac_out;
    uint16_t ac_states;
    uint8_t sym[256], symx[256];
    uint16_t symw[256];
    uint8_t symf[256], bcls[256], wkind[256];
} tables; /* what tpl_streams holds of them, by the same names */
static bool tables_ok;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

/* Build the byte tables and the automaton: a trie, then breadth-first
 * failure links folded into a full transition table (so feeding is one
 * lookup per symbol), stored as ac_go. The trie and the links are only
 * needed while building. tables_ok false: out of memory. */
static void tables_build(void)
{
    struct ts_process_tables *tb = &tables;
    for (unsigned c = 0; c < 256; c++) {
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool blob = alnum || (c != 0 && strchr("+/=_-", (int)c));
        bool word = alnum || (c != 0 && strchr("._%+-@", (int)c));
        bool digitdot = (c >= '0' && c <= '9') || c == '.';
        tb->sym[c] = (uint8_t)ac_sym((uint8_t)c);
        tb->symx[c] = (uint8_t)(tb->sym[c] | (c >= 0x80 ? SX_SLOW : 0) |
                                (c == ')' || c == '\n' ? SX_MDEND : 0));
        tb->symf[c] = (uint8_t)((blob ? SYM_BLOB : 0) | (word ? SYM_WORD : 0) |
                                (digitdot ? SYM_DIGITDOT : 0) |
                                ((c >= '0' && c <= '9') || c == '@' ? SYM_ATDIGIT : 0) |
                                (c == '\f' || c == '\v' ? SYM_ODDSP : 0));
        tb->symw[c] = (uint16_t)(tb->symx[c] | tb->symf[c] << 8);
        tb->bcls[c] = blob_class((uint8_t)c);
        tb->wkind[c] = (uint8_t)(c == '@' ? WK_AT : digitdot ? 0 : WK_NOTIP);
    }
    /* states are kept as row offsets (state * AC_SYMS) throughout; rows
     * are zeroed as they are made, so the table is sized by the patterns
     * (a state per byte at most) and only the rows in use are written */
    if (!gr_build()) {
        tables_ok = false;
        return;
    }
    const size_t n_pat = N_PATTERNS + gr_ascii_count();
    size_t rows = 1;
    for (size_t p = 0; p < n_pat; p++) {
        size_t k = strlen(pattern_text(p));
        rows += k + (pattern_text(p)[k - 1] == PAT_LETTER ? 25 : 0); /* 25 more leaves */
    }
    if (rows > AC_MAX_STATES)
        rows = AC_MAX_STATES;
    /* one block: the transitions, then ac_hit (by row offset; only the
     * entries at row starts are ever read, and all of those are written) */
    uint32_t *go = tb->ac_go = gl_process_malloc(rows * AC_SYMS * (sizeof *go + 1));
    /* by state: its failure link, its first trie child and next sibling
     * (0: none; the root is no child), the symbol leading to it */
    uint32_t *link = gl_calloc(rows * 4, sizeof *link);
    uint32_t *kid = link ? link + rows : NULL, *sib = link ? link + 2 * rows : NULL;
    uint32_t *ksym = link ? link + 3 * rows : NULL;
    uint32_t *queue = gl_malloc(rows * sizeof *queue);
    uint16_t *out = tb->ac_out = gl_process_calloc(rows, sizeof *tb->ac_out);
    bool ok = go && link && queue && out;
    if (ok)
        memset(go, 0, AC_SYMS * sizeof *go);
    uint32_t n = 1;
    for (size_t p = 0; ok && p < n_pat; p++) {
        const char *text = pattern_text(p);
        const bool letter = text[strlen(text) - 1] == PAT_LETTER;
        /* a pattern ending in PAT_LETTER is one pattern per letter */
        for (unsigned l = 1; ok && l <= (letter ? 26u : 1u); l++) {
            uint32_t s = 0;
            for (const char *c = text; ok && *c; c++) {
                unsigned y = *c == PAT_LETTER ? l : ac_sym((uint8_t)*c);
                if (!go[s + y] && !(ok = n < rows))
                    break;
                if (!go[s + y]) {
                    memset(go + (size_t)n * AC_SYMS, 0, AC_SYMS * sizeof *go);
                    ksym[n] = y;
                    sib[n] = kid[s / AC_SYMS];
                    kid[s / AC_SYMS] = n;
                    go[s + y] = n++ * AC_SYMS;
                }
                s = go[s + y];
            }
            if (ok)
                out[s / AC_SYMS] = (uint16_t)(p + 1);
        }
    }
    if (ok) {
        tb->ac_states = (uint16_t)n;
        size_t qh = 0, qt = 0;
        for (unsigned y = 0; y < AC_SYMS; y++)
            if (go[y]) {
                link[go[y] / AC_SYMS] = 0;
                queue[qt++] = go[y];
            }
        /* breadth first (a state's link is shallower, so its row is
         * complete): the children's links, then the row is the link's row
         * with the children's edges put back. Every symbol, "other" (0)
         * too: patterns hold it ('_' of "<tool_call>"), and a state
         * reached through it needs its failure edges like any other (the
         * '<' of a "</tool_call>" right after "<tool_call>" starts the
         * next match). */
        while (qh < qt) {
            const uint32_t s = queue[qh++], ls = link[s / AC_SYMS];
            if (!out[s / AC_SYMS])
                out[s / AC_SYMS] = out[ls / AC_SYMS];
            for (uint32_t u = kid[s / AC_SYMS]; u; u = sib[u]) {
                link[u] = go[ls + ksym[u]];
                queue[qt++] = u * AC_SYMS;
            }
            memcpy(go + s, go + ls, AC_SYMS * sizeof *go);
            for (uint32_t u = kid[s / AC_SYMS]; u; u = sib[u])
                go[s + ksym[u]] = u * AC_SYMS;
        }
        tb->ac_hit = (uint8_t *)(go + rows * AC_SYMS);
        for (uint32_t s = 0; s < n; s++)
            tb->ac_hit[s * AC_SYMS] = out[s] != 0;
    }
    gl_free(link);
    gl_free(queue);
    if (!ok) {
        gl_process_free(go);
        gl_process_free(out);
    }
    tables_ok = ok;
}

bool ts_init(tpl *t)
{
    pthread_once(&tables_once, tables_build);
    if (!tables_ok)
        return false;
    tpl_streams *ts = &t->ts;
    ts->ac_go = tables.ac_go;
    ts->ac_hit = tables.ac_hit;
    ts->ac_out = tables.ac_out;
    ts->ac_states = tables.ac_states;
    memcpy(ts->sym, tables.sym, sizeof ts->sym);
    memcpy(ts->symx, tables.symx, sizeof ts->symx);
    memcpy(ts->symw, tables.symw, sizeof ts->symw);
    memcpy(ts->symf, tables.symf, sizeof ts->symf);
    memcpy(ts->bcls, tables.bcls, sizeof ts->bcls);
    memcpy(ts->wkind, tables.wkind, sizeof ts->wkind);
    ts->memo_key = keyhash_ml_process();
    ts->out.owner = ts->lits.owner = t;
    return true;
}

void ts_free(tpl *t)
{
    (void)t; /* the automaton is the process's */
}

/* An entry is empty when its length is 0: only those and the replacement
 * turns are cleared, not the ~170 KiB of entries. */
void ts_memo_clear(tpl *t)
{
    tpl_streams *ts = &t->ts;
    for (unsigned i = 0; i < 1u << TS_MEMO_BITS; i++)
        for (unsigned w = 0; w < TS_MEMO_WAYS; w++)
            ts->memo[i][w].n = 0;
    for (unsigned i = 0; i < 1u << TS_VMEMO_BITS; i++)
        for (unsigned w = 0; w < TS_VMEMO_WAYS; w++)
            ts->vmemo[i][w].n = 0;
    memset(ts->memo_next, 0, sizeof ts->memo_next);
    memset(ts->vmemo_next, 0, sizeof ts->vmemo_next);
}

/* ------------------------------------------------------------ segments */

/* Only the scalars: the ring is read back only over the symbols of a match,
 * which were all fed after the reset (so a literal costs O(1) to start).
 * ts_reset leaves them to the first thing that needs them (reset_now): a
 * literal the memo holds never does. */
static void reset_now(tscan *s)
{
    s->rest = false;
    s->seg = 0;
    s->seg_fl = 0;
    s->ac_state = 0;
    s->ac_space = false;
    s->u_need = 0;
    s->ring_n = 0;
    s->seg_start = 0;
    s->fold_n = s->skip_n = 0;
    s->zw_rn = 0;
    s->wl = 0;
    s->wl_n = 0;
    s->ctx = 0;
    s->gate = 0;
    s->nl_words = 0;
    s->nl_cjk = 0;
    s->nl_done = false;
    gr_reset(&s->gr);
    s->blob_len = 0;
    s->word_len = 0;
    s->url_cap = false;
}

/* fresh: the scalars are due (reset_now) */
void ts_reset(tscan *s, const char *what)
{
    s->fresh = true;
    s->rest = false;
    s->memo = MEMO_NONE;
    s->lit_n = 0;
    s->what = what;
}

/* The stream is used: the held literal scanned, or the scalars of a fresh
 * stream set (ts_segment, stream.h). */
void ts_ready(tscan *s)
{
    if (s->fresh) {
        s->fresh = false;
        reset_now(s);
    }
    if (s->memo >= MEMO_HELD)
        ts_memo_resolve(s);
}

/* How the last `len` symbols (a match ending now) were made: HOW_* bits.
 * Suppressed (HOW_DUP) when they all lie in a segment another scan covers. */
static unsigned match_how(const tscan *s, uint32_t len)
{
    uint32_t start = s->ring_n - len;
    unsigned how = 0;
    bool one_seg = s->ring_n - s->seg_start >= len; /* no segment began inside */
    if (s->fold_n && s->fold_n - 1 - start < len)   /* the last fold lies inside */
        how |= HOW_FOLDED;
    if (s->skip_n && s->skip_n - 1 - start < len - 1)
        how |= HOW_SKIPPED;
    if (!one_seg)
        how |= HOW_ACROSS;
    if (s->seg_fl & SG_ITEMS)
        how |= HOW_ITEMS;
    else if (one_seg && (s->seg_fl & SG_BUILT))
        how |= HOW_BUILT;
    if (one_seg && (s->seg_fl & SG_SCANNED) && !(how & (HOW_FOLDED | HOW_SKIPPED)))
        how |= HOW_DUP;
    return how;
}

/* Same for a run (URL, word, blob) that started in segment `seg`. */
static unsigned run_how(const tscan *s, uint32_t seg)
{
    if (seg != s->seg)
        return HOW_ACROSS;
    if (s->seg_fl & SG_SCANNED)
        return HOW_DUP;
    return (s->seg_fl & SG_ITEMS) ? HOW_ITEMS : (s->seg_fl & SG_BUILT) ? HOW_BUILT : 0;
}

const char *ts_where(const tscan *s, unsigned how, char *buf, size_t cap)
{
    const char *base = (how & HOW_ACROSS)  ? "the template's output, assembled across tags, "
                                             "comments or values"
                       : (how & HOW_ITEMS) ? "text a loop emits one piece at a time"
                       : (how & HOW_BUILT) ? "a folded constant the template outputs"
                       : s->what[0] == 's' ? "a string literal"
                                           : "template text";
    snprintf(buf, cap, "%s%s%s", base,
             (how & HOW_FOLDED) ? ", written with look-alike letters (fullwidth, Cyrillic, "
                                  "Greek or styled)"
                                : "",
             (how & HOW_SKIPPED) ? ", broken up by invisible characters" : "");
    return buf;
}

/* ------------------------------------------------------------- finds */

static bool url_char(uint8_t c)
{
    return c > 0x20 && c < 0x7F && !strchr("\"'<>{}|\\^`", c);
}

static __attribute__((noinline)) void url_finish(tpl *t, tscan *s)
{
    if (!s->url_cap)
        return;
    s->url_cap = false;
    unsigned how = s->url_how;
    if (how & HOW_DUP)
        return;
    char e[200], w[200];
    REPORT_EARLIEST(s, t, TH_URL, s->url_index, "URL '%s' in %s",
                    tpl_quote(e, sizeof e, (const uint8_t *)s->url, s->url_len, 100),
                    ts_where(s, how, w, sizeof w));
}

static const char *const gate_why[] = {"message content", "the turn count", "the date",
                                       "a message's role or a tool's name"};

/* The reason of a gate (GATE_* bits) for a message. */
static const char *gate_text(unsigned gate)
{
    for (unsigned i = 0; i < 4; i++)
        if (gate & (1u << i))
            return gate_why[i];
    return "a condition";
}

bool ts_lit_seen(tpl *t, const tscan *s, const uint8_t *p, size_t n)
{
    uint32_t h = 0x811C9DC5u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x01000193u;
    uint64_t *b = &t->ts.lit_seen[(h >> 6) & 3u], bit = (uint64_t)1 << (h & 63u);
    if (s == &t->ts.lits) {
        *b |= bit;
        return false;
    }
    return (*b & bit) != 0;
}

void ts_phrase(tpl *t, tscan *s, int kind, uint64_t index, uint32_t len, const char *text,
               unsigned not_how)
{
    unsigned how = match_how(s, len) & ~not_how;
    if (how & HOW_DUP)
        return;
    /* a folded constant holding a literal's phrase ('[SYSTEM]' + prompt)
     * assembles nothing new */
    if ((how & (HOW_ACROSS | HOW_BUILT | HOW_FOLDED | HOW_SKIPPED | HOW_ITEMS)) == HOW_BUILT &&
        ts_lit_seen(t, s, (const uint8_t *)text, strlen(text)))
        how &= ~(unsigned)HOW_BUILT;
    else
        (void)ts_lit_seen(t, s, (const uint8_t *)text, strlen(text));
    static const char *const what[] = {[TH_INSTRUCTION] = "instruction-like phrase",
                                       [TH_CONCEAL] = "concealment phrase",
                                       [TH_SHELL] = "shell or installer command"};
    char w[200];
    ts_where(s, how, w, sizeof w);
    REPORT(s, t, kind, index, "%s '%s' in %s", what[kind], text, w);
    if (how & (HOW_ACROSS | HOW_BUILT | HOW_ITEMS | HOW_FOLDED | HOW_SKIPPED))
        REPORT(s, t, TH_ASSEMBLED, index, "%s '%s' exists only as assembled output: %s", what[kind],
               text, w);
    if (s->gate)
        REPORT(s, t, TH_GATED, index, "%s '%s' is output only under a condition on %s", what[kind],
               text, gate_text(s->gate));
}

static void ac_match(tpl *t, tscan *s, const pattern *p)
{
    uint32_t len = (uint32_t)strlen(p->s);
    uint32_t start = s->ring_n - len;
    uint64_t index = s->ring_index[start % TS_RING];
    unsigned how = match_how(s, len);
    char w[200];
    switch (p->kind) {
    case PK_MDLINK: s->ctx |= CTX_MDLINK; return;
    case PK_COMMENT_OPEN: s->ctx |= CTX_COMMENT; return;
    case PK_COMMENT_CLOSE: s->ctx &= (uint8_t)~CTX_COMMENT; return;
    case PK_TOOLARGS: s->ctx |= CTX_TOOLARGS; return;
    case PK_TOOLARGS_CLOSE: s->ctx &= (uint8_t)~CTX_TOOLARGS; return;
    case TH_INSTRUCTION:
    case TH_CONCEAL:
        s->gr.phrase_rn = s->ring_n; /* the grammar need not say it again */
        ts_phrase(t, s, p->kind, index, len, p->s, 0);
        return;
    case TH_SHELL: {
        char text[40];
        size_t k = strcspn(p->s, "\x01");
        snprintf(text, sizeof text, "%.*s", (int)(k && p->s[k - 1] == ' ' ? k - 1 : k), p->s);
        ts_phrase(t, s, p->kind, index, len, text, 0);
        return;
    }
    default: break;
    }
    (void)w;
    url_finish(t, s); /* the first URL is quoted, the others counted */
    s->url_cap = true;
    s->url_how = how;
    s->url_index = index;
    s->url_len = len < sizeof s->url ? len : 0;
    memcpy(s->url, p->s, s->url_len);
}

/* An unknown {{ }} value that holds message content is output here. */
void ts_content(tpl *t, tscan *s, uint64_t index)
{
    if (s->fresh || s->memo >= MEMO_HELD)
        ts_ready(s);
    const char *ctx = s->url_cap                ? "a URL"
                      : (s->ctx & CTX_MDLINK)   ? "the target of a markdown image or link"
                      : (s->ctx & CTX_COMMENT)  ? "an HTML comment"
                      : (s->ctx & CTX_TOOLARGS) ? "the arguments of a tool call the template writes"
                      : s->zw_rn && s->zw_rn == s->ring_n + 1
                          ? "hidden text (right after a zero-width or tag character)"
                          : NULL;
    if (ctx)
        REPORT(s, t, TH_EXFIL, index, "message content is output inside %s: an exfiltration sink",
               ctx);
}

/* The WK_* of the word w[0..n). */
static uint8_t word_kind_of(const tpl *t, const uint8_t *w, size_t n)
{
    uint8_t wk = 0;
    for (size_t i = 0; i < n; i++)
        wk |= t->ts.wkind[w[i]];
    return wk;
}

/* The BC_* of the blob run b[0..n). */
static uint8_t blob_class_of(const tpl *t, const uint8_t *b, size_t n)
{
    uint8_t k = 0;
    for (size_t i = 0; i < n; i++)
        k |= t->ts.bcls[b[i]];
    return k;
}

/* The word run ([A-Za-z0-9._%+-@]) ended: an IPv4 address or an e-mail? */

static void word_finish(tpl *t, tscan *s)
{
    uint32_t n = s->word_len;
    s->word_len = 0;
    if (n == 0 || n > sizeof s->word)
        return;
    if (s->word_kind & WK_LAZY)
        s->word_kind = word_kind_of(t, s->word, n);
    if ((s->word_kind & (WK_AT | WK_NOTIP)) == WK_NOTIP)
        return;
    unsigned how = run_how(s, s->word_seg);
    if (how & HOW_DUP)
        return;
    const uint8_t *w = s->word;
    while (n > 0 && w[n - 1] == '.')
        n--;
    char e[120], where[200];
    /* IPv4: exactly four dot-separated groups of 1-3 digits, each <= 255 */
    unsigned groups = 0, digits = 0, val = 0;
    bool ip = n >= 7;
    for (uint32_t i = 0; i < n && ip; i++) {
        if (w[i] >= '0' && w[i] <= '9') {
            val = val * 10 + (unsigned)(w[i] - '0');
            ip = ++digits <= 3 && val <= 255;
        } else if (w[i] == '.') {
            ip = digits > 0 && ++groups <= 3;
            digits = val = 0;
        } else {
            ip = false;
        }
    }
    if (ip && groups == 3 && digits > 0) {
        REPORT_EARLIEST(s, t, TH_URL, s->word_index, "IPv4 address '%s' in %s",
                        tpl_quote(e, sizeof e, w, n, 40), ts_where(s, how, where, sizeof where));
        return;
    }
    /* e-mail: local@domain.tld, one '@', a dot in the domain, a 2+ letter tld */
    const uint8_t *at = memchr(w, '@', n);
    if (!at || at == w || memchr(at + 1, '@', n - (size_t)(at + 1 - w)))
        return;
    const uint8_t *dom = at + 1, *end = w + n;
    const uint8_t *dot = NULL;
    for (const uint8_t *p = dom; p < end; p++) {
        if (*p == '.')
            dot = p;
        else if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || *p == '-'))
            return;
    }
    if (!dot || dot == dom || end - dot < 3)
        return;
    for (const uint8_t *p = dot + 1; p < end; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            return;
    /* an address written out in a literal or the text is what agent prompts
     * carry (Devstral's git identity); one assembled from pieces, or
     * output only under a gate, is not (the exfiltration grammar and GG736
     * judge what is sent where) */
    bool seen = ts_lit_seen(t, s, w, n);
    if (!s->gate && ((how & (HOW_ACROSS | HOW_ITEMS)) == 0 && (!(how & HOW_BUILT) || seen)))
        return;
    REPORT_EARLIEST(s, t, TH_URL, s->word_index, "e-mail address '%s' in %s",
                    tpl_quote(e, sizeof e, w, n, 60), ts_where(s, how, where, sizeof where));
}

static void blob_hit(tpl *t, tscan *s)
{
    uint8_t k = s->blob_cls;
    bool b64 = (k & BC_DIGIT) && (k & BC_UPPER) && (k & BC_LOWER);
    bool hex = !(k & BC_NOTHEX) && (k & BC_DIGIT) && (k & (BC_UPPER | BC_LOWER));
    if (!b64 && !hex)
        return;
    s->blob_cls |= BC_DONE;
    unsigned how = run_how(s, s->blob_seg);
    if (how & HOW_DUP)
        return;
    char e[120], w[200];
    REPORT(s, t, TH_BLOB, s->blob_index, "%s-like run of %u+ characters in %s: '%s'",
           hex ? "hex" : "base64", TPL_BLOB_MIN, ts_where(s, how, w, sizeof w),
           tpl_quote(e, sizeof e, s->blob_head, sizeof s->blob_head, 40));
}

/* ts_end's work (without the memo). */
static void end_scan(tpl *t, tscan *s)
{
    if (s->url_cap)
        url_finish(t, s);
    /* word_finish, called only for a word that may be an address */
    if (s->word_len && s->word_len <= sizeof s->word &&
        (s->word_kind & (WK_AT | WK_NOTIP | WK_LAZY)) != WK_NOTIP)
        word_finish(t, s);
    s->word_len = 0;
    s->blob_len = 0;
    s->ac_state = 0;
    s->ac_space = false;
    s->u_need = 0;
}

/* --------------------------------------------------------------- words */

/* A run of letters ended (at a symbol y): look-alike letters mixed into a
 * Latin word, or a word of fullwidth or styled letters (GG738); and, under
 * a gate, the count of natural-language words (GG734). */
/* Under a gate: five words of prose in a row are GG734. */
static void nl_check(tpl *t, tscan *s)
{
    if (s->nl_words >= 5 && !s->nl_done) {
        s->nl_done = true;
        REPORT(s, t, TH_GATED, s->wl_index,
               "natural-language text is output only under a condition on %s", gate_text(s->gate));
    }
}

static void letters_end(tpl *t, tscan *s, unsigned y)
{
    uint8_t wl = s->wl;
    s->wl = 0;
    if (!(wl & WL_OTHER) && (((wl & WL_ASCII) && (wl & WL_CONFUSABLE)) ||
                             ((wl & (WL_WIDE | WL_STYLED)) && s->wl_n >= 2))) {
        char w[200];
        REPORT(s, t, TH_HOMOGLYPH, s->wl_index, "a word in %s is written with %s",
               ts_where(s, 0, w, sizeof w),
               (wl & WL_CONFUSABLE) ? "Cyrillic or Greek letters that look Latin"
               : (wl & WL_WIDE)     ? "fullwidth Latin letters"
                                    : "styled (mathematical or circled) letters");
    }
    s->wl_n = 0;
    if (!s->gate)
        return;
    if (wl)
        s->nl_words++;
    if (y == Y_LT || y == Y_GT || y == Y_LBRACK || y == Y_RBRACK || y == Y_BAR || y == Y_EQ)
        s->nl_words = 0; /* markup, not prose */
    nl_check(t, s);
}

/* --------------------------------------------------------------- feed */

/* The instructions the grammar found (grammar.c). */
static void report_grammar(tpl *t, tscan *s, const gr_hit *hit, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        ts_phrase(t, s, hit[i].kind, hit[i].index, hit[i].len, hit[i].text, hit[i].not_how);
}

/* A match ends at the symbol just fed (the state s->ac_state has an output). */
static void matched(tpl *t, tscan *s)
{
    s->matches++;
    size_t p = t->ts.ac_out[s->ac_state / AC_SYMS] - 1u;
    if (p < N_PATTERNS) {
        ac_match(t, s, &patterns[p]);
        return;
    }
    const char *w = gr_ascii_text(p - N_PATTERNS);
    uint32_t len = (uint32_t)strlen(w) - (w[0] == ' '); /* the word, not the space before */
    gr_hit hit[GR_HITS];
    report_grammar(
        t, s, hit,
        gr_ascii_hit(t, s, p - N_PATTERNS, s->ring_index[(s->ring_n - len) % TS_RING], hit));
}

/* Symbol y into the automaton. */
static void ac_step(tpl *t, tscan *s, unsigned y)
{
    s->ac_state = t->ts.ac_go[s->ac_state + y];
    if (t->ts.ac_hit[s->ac_state])
        matched(t, s);
}

/* One folded symbol (the slow path: non-ASCII). */
static void ac_feed(tpl *t, tscan *s, unsigned y, uint64_t idx, bool folded)
{
    if (y == Y_SPACE && s->ac_space)
        return;
    s->ac_space = y == Y_SPACE;
    s->ring_index[s->ring_n % TS_RING] = idx;
    s->ring_n++;
    if (folded)
        s->fold_n = s->ring_n;
    ac_step(t, s, y);
}

static void feed_sym(tpl *t, tscan *s, unsigned y, uint64_t idx, bool folded)
{
    if (y >= 1 && y <= 26) {
        if (!s->wl)
            s->wl_index = idx;
        s->wl |= (uint8_t)(folded ? 0 : WL_ASCII);
        s->wl_n++;
    } else if (s->wl || s->gate) {
        letters_end(t, s, y);
    }
    ac_feed(t, s, y, idx, folded);
}

static void cp_end(tpl *t, tscan *s);

/* A byte >= 0x80: fold the code point when its sequence is complete.
 * Invalid sequences are the raw scanner's business; here they are "other". */
static void feed_u8(tpl *t, tscan *s, uint8_t c, uint64_t idx)
{
    if (c >= 0xC0) {
        if (s->u_need)
            feed_sym(t, s, Y_OTHER, s->u_index, false);
        s->u_index = idx;
        s->u_need = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
        s->u_cp = c & (c >= 0xF0 ? 0x07u : c >= 0xE0 ? 0x0Fu : 0x1Fu);
        return;
    }
    if (s->u_need == 0) { /* a stray continuation byte */
        feed_sym(t, s, Y_OTHER, idx, false);
        return;
    }
    s->u_cp = (s->u_cp << 6) | (c & 0x3Fu);
    if (--s->u_need > 0)
        return;
    cp_end(t, s);
}

/* The code point s->u_cp, whose sequence began at s->u_index, is complete. */
static void cp_end(tpl *t, tscan *s)
{
    uint8_t kind, a = fold_cp(s->u_cp, &kind);
    if (a == FOLD_SKIP) {
        s->skip_n = s->ring_n; /* after the symbol fed last */
        if ((s->u_cp >= 0x200B && s->u_cp <= 0x200D) || s->u_cp == 0x2060 || s->u_cp == 0xFEFF ||
            (s->u_cp >= 0xE0000 && s->u_cp <= 0xE007F))
            s->zw_rn = s->ring_n + 1; /* a carrier of hidden text (GG736) */
        return;
    }
    const uint32_t rn0 = s->ring_n;
    s->gr.space = s->ac_space; /* for gr_letter: "не говори" */
    unsigned y = a ? ac_sym(a) : Y_OTHER;
    bool letter = y >= 1 && y <= 26;
    if (letter) {
        if (!s->wl)
            s->wl_index = s->u_index;
        /* dotless i and accented letters are letters of Turkish, French,
         * German ... words ("kitapları", "règles"): read as their base
         * letter by the phrase detectors, but a word holding one is text
         * of that language, not a disguise */
        s->wl |= (uint8_t)(kind == FK_WIDE                           ? WL_WIDE
                           : kind == FK_STYLED                       ? WL_STYLED
                           : s->u_cp == 0x0131u || kind == FK_ACCENT ? WL_OTHER
                                                                     : WL_CONFUSABLE);
    } else if (!a && !(s->u_cp >= 0x2000 && s->u_cp <= 0x2BFF) &&
               !(s->u_cp >= 0x3000 && s->u_cp <= 0x303F)) {
        /* a letter of another script: a word in it is text, not a disguise */
        if (!s->wl)
            s->wl_index = s->u_index;
        s->wl |= WL_OTHER;
        ac_feed(t, s, Y_OTHER, s->u_index, false);
        if (gr_script(s->u_cp)) {
            gr_hit hit[GR_HITS];
            report_grammar(t, s, hit, gr_letter(t, s, s->u_cp, s->u_index, rn0, hit));
        }
        if (s->gate && gr_unspaced(s->u_cp) && (++s->nl_cjk & 1u) == 0) {
            s->nl_words++; /* no spaces: two ideographs or kana make a word */
            nl_check(t, s);
        }
        return;
    }
    feed_sym(t, s, y, s->u_index, kind != FK_NONE && kind != FK_ACCENT && s->u_cp != 0x0131u);
    if (gr_script(s->u_cp)) { /* a Cyrillic or Greek look-alike */
        gr_hit hit[GR_HITS];
        report_grammar(t, s, hit, gr_letter(t, s, s->u_cp, s->u_index, rn0, hit));
    }
}

static void url_byte(tpl *t, tscan *s, uint8_t c)
{
    if (url_char(c) && s->url_len < sizeof s->url)
        s->url[s->url_len++] = (char)c;
    else
        url_finish(t, s);
}

/* What the automaton pass saw of a piece, for the run passes: where the
 * blob run and the word run that end it start (n: none), whether a run of
 * TPL_BLOB_MIN blob bytes lies in it, and the run classes of its bytes. */
typedef struct seen {
    size_t bst, wst;
    unsigned any; /* symw bits of the bytes (letters only add SYM_BLOB | SYM_WORD) */
    bool lng;
} seen;

/* ---- the scanner step: one for every loop ----
 * The automaton pass's hot state, kept in locals by ac_loop and in the
 * scanner by everything else; letter_step and other_step take an ASCII
 * byte (outside a UTF-8 sequence) for slow_byte and ac_loop alike, so the
 * byte loop and the fast loop run one body. Only ac_loop's run of letters
 * (its tight inner loop) is written apart, and the reference mode, which
 * sends every byte through slow_byte, checks it. */
typedef struct ac_hot {
    uint32_t st, rn, wl_n; /* ac_state, ring_n, wl_n */
    uint8_t wl;
    bool space; /* ac_space */
} ac_hot;

static inline ac_hot hot_load(const tscan *s)
{
    return (ac_hot){s->ac_state, s->ring_n, s->wl_n, s->wl, s->ac_space};
}

static inline void hot_store(tscan *s, const ac_hot *h)
{
    s->ac_state = h->st;
    s->ring_n = h->rn;
    s->wl_n = h->wl_n;
    s->wl = h->wl;
    s->ac_space = h->space;
}

/* Symbol y into the automaton at template index idx (a pattern ending
 * there is reported with the state written back): true when one matched. */
static inline __attribute__((always_inline)) bool hot_feed(tpl *t, tscan *s, ac_hot *h, unsigned y,
                                                           uint64_t idx)
{
    s->ring_index[h->rn % TS_RING] = idx;
    h->rn++;
    h->st = t->ts.ac_go[h->st + y];
    if (!t->ts.ac_hit[h->st])
        return false;
    hot_store(s, h);
    matched(t, s);
    *h = hot_load(s);
    return true;
}

/* An ASCII letter (symbol y, 1..26): the word of letters, the automaton.
 * True when a pattern matched (it may have opened a URL). */
static inline __attribute__((always_inline)) bool letter_step(tpl *t, tscan *s, ac_hot *h,
                                                              unsigned y, uint64_t idx)
{
    if (!h->wl)
        s->wl_index = idx;
    h->wl |= WL_ASCII;
    h->wl_n++;
    h->space = false;
    return hot_feed(t, s, h, y, idx);
}

/* Any other ASCII byte (symbol y, symw w; gate is s->gate): the word of
 * letters ends, a markdown link target may end, whitespace runs fold to
 * one symbol. True when a pattern matched (it may have opened a URL). */
static inline __attribute__((always_inline)) bool
other_step(tpl *t, tscan *s, ac_hot *h, unsigned y, unsigned w, uint64_t idx, uint8_t gate)
{
    if (h->wl || gate) {
        if (h->wl == WL_ASCII && !gate) { /* letters_end's common case: nothing */
            h->wl = 0;
            h->wl_n = 0;
        } else {
            hot_store(s, h);
            letters_end(t, s, y);
            *h = hot_load(s);
        }
    }
    if ((w & SX_MDEND) && (s->ctx & CTX_LINE))
        s->ctx &= (uint8_t) ~(y == Y_SPACE ? CTX_LINE : CTX_MDLINK); /* '\n' ends both */
    if (y == Y_SPACE && h->space)
        return false;
    h->space = y == Y_SPACE;
    return hot_feed(t, s, h, y, idx);
}

/* One byte the slow way, all its state in s: a non-ASCII byte, or any
 * byte while a UTF-8 sequence or a URL is open; and every byte in the
 * reference mode. */
static void slow_byte(tpl *t, tscan *s, uint8_t c, uint64_t idx)
{
    if (s->url_cap)
        url_byte(t, s, c);
    if (c >= 0x80) {
        feed_u8(t, s, c, idx);
        return;
    }
    const unsigned w = t->ts.symw[c], y = w & SX_SYM;
    if (s->u_need) {
        s->u_need = 0; /* a sequence cut short */
        feed_sym(t, s, Y_OTHER, s->u_index, false);
        feed_sym(t, s, y, idx, false);
        return;
    }
    ac_hot h = hot_load(s);
    if (y - 1u < 26u) /* a letter (after a URL opened, the URL byte is taken) */
        letter_step(t, s, &h, y, idx);
    else
        other_step(t, s, &h, y, w, idx, s->gate);
    hot_store(s, &h);
}

/* A run of whole UTF-8 sequences from p[i] (i < n) that cp_end would take
 * as letters of another script with nothing to find: CJK ideographs, kana
 * and Hangul syllables (fold_cp folds them to nothing first) and 4-byte code
 * points past U+1D7FF outside the tag characters (emoji: fold_cp folds them
 * to nothing last), while the automaton's "other" step matches nothing and
 * no word of the grammar can end in the letter (gr_end_filter). What cp_end,
 * ac_feed and gr_letter do to such a letter is done here with the state in
 * locals: the word of letters, one symbol into the automaton and the ring,
 * the grammar's run of script letters. No UTF-8 sequence, URL or gate may be
 * open (a gate counts ideographs as words). The bytes taken (0: none); the
 * reference mode sends them through slow_byte one by one (TPL_FAST). */
static inline __attribute__((always_inline)) size_t
script_run(tpl *t, tscan *s, const uint8_t *p, size_t n, size_t i, uint64_t index, uint64_t step)
{
    const uint32_t *go = t->ts.ac_go;
    const uint8_t *hit = t->ts.ac_hit;
    const uint64_t *filter = gr_end_filter();
    gr_state *g = &s->gr;
    uint64_t *ring = s->ring_index;
    uint32_t st = s->ac_state, rn = s->ring_n, run = g->run, next_rn = g->next_rn, lcp = 0;
    bool before = g->space, space = s->ac_space;
    const uint64_t i0 = i, mask = step ? ~0ull : 0; /* step is 0 or 1 */
    uint64_t idx = index + (i & mask), last = idx;
    /* whole sequences of 4 bytes loaded at once (one at the very end is
     * left to cp_end) */
    while (n - i >= 4) {
        uint32_t w, cp;
        memcpy(&w, p + i, 4);
        unsigned k;
        bool script; /* gr_script(cp), for the ranges taken */
        if ((w & 0xC0C0F0u) == 0x8080E0u) {
            cp = (w & 0x0Fu) << 12 | (w >> 2 & 0xFC0u) | (w >> 16 & 0x3Fu);
            if (cp - 0x3040u <= 0x9FFFu - 0x3040u)
                script = cp < 0x3100u || (cp >= 0x3400u && (cp < 0x4DC0u || cp >= 0x4E00u));
            else if (cp - 0xAC00u <= 0xD7AFu - 0xAC00u)
                script = true;
            else
                break;
            k = 3;
        } else if ((w & 0xC0C0C0F8u) == 0x808080F0u) {
            cp = (w & 0x07u) << 18 | (w << 4 & 0x3F000u) | (w >> 10 & 0xFC0u) | (w >> 24 & 0x3Fu);
            if (cp < 0x1D800u || cp - 0xE0000u <= 0x7Fu)
                break;
            script = false; /* no grammar script past U+FFFF (gr_script) */
            k = 4;
        } else {
            break;
        }
        if (hit[go[st]] || (script && gr_may_end(filter, cp)))
            break; /* cp_end's own way: a match, or a word may end here */
        last = idx;
        lcp = cp;
        before = space; /* cp_end: gr.space is ac_space before the letter */
        const uint32_t rn0 = rn;
        ring[rn % TS_RING] = idx;
        rn++;
        st = go[st]; /* Y_OTHER */
        space = false;
        if (script) { /* gr_letter up to its filter */
            if (rn0 == next_rn + 1 && before && run) {
                g->cp[run % GR_LETTERS] = ' ';
                g->cix[run % GR_LETTERS] = idx;
                run++;
            } else if (rn0 != next_rn) {
                run = 0;
            }
            next_rn = rn;
            g->cp[run % GR_LETTERS] = cp;
            g->cix[run % GR_LETTERS] = idx;
            run++;
        }
        i += k;
        idx += k & mask;
    }
    if (i == i0)
        return 0;
    if (!s->wl)
        s->wl_index = index + (i0 & mask);
    s->wl |= WL_OTHER;
    s->ac_state = st;
    s->ring_n = rn;
    s->ac_space = space;
    g->run = run;
    g->next_rn = next_rn;
    g->space = before;
    s->u_index = last;
    s->u_cp = lcp;
    return i - i0;
}

/* The phrase automaton, URL capture, UTF-8 folding and letter words over n
 * bytes (byte i at index + i * step), noting in *sn what the run passes
 * need to know of the piece. ASCII bytes take the fast loops, their hot
 * state in locals (written back around a match or a word's end); other
 * bytes, and every byte while a sequence or a URL is open, take slow_byte.
 * step is a constant where this is used, so each use is its own loop. */
static inline __attribute__((always_inline)) void
ac_loop(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, const uint64_t step, seen *sn)
{
    ac_hot h = hot_load(s);
    const uint8_t gate = s->gate; /* only ts_gate changes it */
    const uint16_t *symw = t->ts.symw;
    const uint32_t *go = t->ts.ac_go;
    const uint8_t *hit = t->ts.ac_hit;
    uint64_t *ring = s->ring_index;
    size_t bst = 0, wst = 0;
    unsigned any = 0;
    bool lng = false;
    /* the runs: a byte outside one ends it (the letters the inner loop
     * takes after the first are in both, so they change nothing) */
#define TRACK(w, i)                                                                                \
    do {                                                                                           \
        any |= (w);                                                                                \
        if (!((w) & (SYM_BLOB << 8))) {                                                            \
            lng |= (i)-bst >= TPL_BLOB_MIN;                                                        \
            bst = (i) + 1;                                                                         \
        }                                                                                          \
        if (!((w) & (SYM_WORD << 8)))                                                              \
            wst = (i) + 1;                                                                         \
    } while (0)
    size_t i = 0;
    bool slow = s->u_need || s->url_cap; /* a sequence or a URL is open */
    for (;;) {
        if (slow) {
            hot_store(s, &h);
            do {
                const uint8_t c = p[i];
                if (c >= 0xE0 && !s->u_need && !s->url_cap && !gate) {
                    const size_t m = script_run(t, s, p, n, i, index, step);
                    if (m) { /* TRACK of its bytes: none is in a run */
                        any |= symw[c];
                        lng |= i - bst >= TPL_BLOB_MIN;
                        i += m;
                        bst = wst = i;
                        continue;
                    }
                }
                const unsigned k = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
                if (k && i + k < n && !s->u_need && !s->url_cap && (p[i + 1] & 0xC0) == 0x80 &&
                    (k < 2 || (p[i + 2] & 0xC0) == 0x80) && (k < 3 || (p[i + 3] & 0xC0) == 0x80)) {
                    /* a whole sequence at once: what slow_byte makes of
                     * its bytes one by one (the reference mode does that) */
                    uint32_t cp = c & (k == 3 ? 0x07u : k == 2 ? 0x0Fu : 0x1Fu);
                    for (unsigned j = 0; j <= k; j++)
                        TRACK(symw[p[i + j]], i + j);
                    for (unsigned j = 1; j <= k; j++)
                        cp = (cp << 6) | (p[i + j] & 0x3Fu);
                    s->u_index = index + i * step;
                    s->u_cp = cp;
                    cp_end(t, s);
                    i += k + 1;
                    continue;
                }
                const unsigned w = symw[c];
                TRACK(w, i);
                slow_byte(t, s, c, index + i * step);
                i++;
            } while (i < n && (s->u_need || s->url_cap || p[i] >= 0x80));
            h = hot_load(s);
            slow = false;
        }
        while (i < n) {
            const unsigned w = symw[p[i]];
            if (w & SX_SLOW) {
                slow = true;
                break;
            }
            TRACK(w, i);
            const unsigned y = w & SX_SYM;
            const uint64_t idx = index + i * step;
            if (y - 1u < 26u) {
                /* a run of ASCII letters, in one inner loop: the word of
                 * letters (GG738, GG734) and the automaton, as letter_step
                 * takes them a byte at a time; it ends at a byte that is
                 * not an ASCII letter, or when a match opens a URL */
                if (!h.wl)
                    s->wl_index = idx;
                h.wl |= WL_ASCII;
                h.space = false;
                const size_t i0 = i;
                uint64_t id = idx;
                unsigned yy = y;
                uint32_t st = h.st, rn = h.rn;
                for (;;) {
                    unsigned v;
                    for (;;) { /* the tight loop: no call in it */
                        ring[rn % TS_RING] = id;
                        rn++;
                        st = go[st + yy];
                        i++;
                        if ((v = hit[st]) || i == n)
                            break;
                        yy = symw[p[i]] & SX_SYM;
                        if (yy - 1u >= 26u)
                            break;
                        id += step;
                    }
                    if (!v)
                        break;
                    h.st = st;
                    h.rn = rn;
                    hot_store(s, &h);
                    matched(t, s);
                    h = hot_load(s);
                    st = h.st;
                    rn = h.rn;
                    if (s->url_cap || i == n)
                        break;
                    yy = symw[p[i]] & SX_SYM;
                    if (yy - 1u >= 26u)
                        break;
                    id += step;
                }
                h.st = st;
                h.rn = rn;
                h.wl_n += (uint32_t)(i - i0);
                if (s->url_cap) {
                    slow = true;
                    break;
                }
                continue;
            }
            i++;
            if (other_step(t, s, &h, y, w, idx, gate) && s->url_cap) {
                slow = true;
                break;
            }
        }
        if (i >= n)
            break;
    }
    hot_store(s, &h);
#undef TRACK
    sn->bst = bst;
    sn->wst = wst;
    sn->any = any;
    sn->lng = lng || n - bst >= TPL_BLOB_MIN;
}

/* ac_loop for a piece of n > 0 bytes, one loop for text (step 1) and one
 * for a folded value (all its bytes at one index). */
static void ac_pass(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step,
                    seen *sn)
{
    if (step)
        ac_loop(t, s, p, n, index, 1, sn);
    else
        ac_loop(t, s, p, n, index, 0, sn);
}

/* Base64 / hex runs over n bytes: a run is judged when it reaches
 * TPL_BLOB_MIN and again only when its class changes, so the bytes of a
 * long run of one class are skipped in a tight loop. */
static void blob_pass(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step)
{
    const uint8_t *symf = t->ts.symf, *bc = t->ts.bcls;
    uint32_t blen = s->blob_len;
    if (blen && (s->blob_cls & BC_LAZY))
        s->blob_cls = blob_class_of(t, s->blob_head, blen);
    uint8_t bcls = s->blob_cls;
    const bool fast = TPL_FAST(t); /* the shortcuts below; without them a byte a step */
    size_t i = 0;
    while (i < n) {
        if (!(symf[p[i]] & SYM_BLOB)) {
            blen = 0;
            while (++i < n && !(symf[p[i]] & SYM_BLOB))
                ;
            continue;
        }
        if (blen == 0 && fast) { /* a fresh run that ends here short of the minimum: nothing */
            size_t j = i + 1;
            while (j < n && (symf[p[j]] & SYM_BLOB))
                j++;
            if (j < n && j - i < TPL_BLOB_MIN) {
                i = j;
                continue;
            }
        }
        if (blen >= TPL_BLOB_MIN && fast) { /* judged already: skip while the class holds */
            size_t j = i;
            while (j < n && (symf[p[j]] & SYM_BLOB) && !(bc[p[j]] & ~bcls))
                j++;
            uint64_t nl = (uint64_t)blen + (j - i);
            blen = nl < UINT32_MAX ? (uint32_t)nl : UINT32_MAX;
            i = j;
            if (i == n || !(symf[p[i]] & SYM_BLOB))
                continue;
        }
        const uint8_t c = p[i];
        if (blen == 0) {
            bcls = 0;
            s->blob_index = index + i * step;
            s->blob_seg = s->seg;
        }
        if (blen < sizeof s->blob_head)
            s->blob_head[blen] = c;
        if (blen < UINT32_MAX)
            blen++;
        const uint8_t was = bcls;
        bcls |= bc[c];
        if (blen >= TPL_BLOB_MIN && !(bcls & BC_DONE) && (blen == TPL_BLOB_MIN || bcls != was)) {
            s->blob_len = blen;
            s->blob_cls = bcls;
            blob_hit(t, s);
            bcls = s->blob_cls;
        }
        i++;
    }
    s->blob_len = blen;
    s->blob_cls = bcls;
}

/* IPv4 / e-mail words ([A-Za-z0-9._%+-@] runs) over n bytes; a word longer
 * than the buffer can be neither, so the rest of it is skipped. */
static void word_pass(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step)
{
    const uint8_t *symf = t->ts.symf, *wkt = t->ts.wkind;
    uint32_t wlen = s->word_len;
    if (wlen && wlen <= sizeof s->word && (s->word_kind & WK_LAZY))
        s->word_kind = word_kind_of(t, s->word, wlen);
    uint8_t wk = s->word_kind;
    const bool fast = TPL_FAST(t); /* the shortcut below; without it a byte a step */
    size_t i = 0;
    while (i < n) {
        const uint8_t c = p[i];
        const uint8_t f = symf[c];
        if (!(f & SYM_WORD)) {
            if (wlen) {
                s->word_len = wlen;
                s->word_kind = wk;
                word_finish(t, s);
                wlen = 0;
            }
            while (++i < n && !(symf[p[i]] & SYM_WORD))
                ;
            continue;
        }
        if (wlen == 0 &&
            fast) { /* a fresh word that ends here holding a letter and no '@': nothing */
            size_t j = i;
            uint8_t acc = 0;
            while (j < n && (symf[p[j]] & SYM_WORD))
                acc |= wkt[p[j++]];
            if (j < n && (acc & (WK_AT | WK_NOTIP)) == WK_NOTIP) {
                i = j;
                continue;
            }
        }
        if (wlen > sizeof s->word) { /* too long for either: skip the rest */
            while (++i < n && (symf[p[i]] & SYM_WORD))
                ;
            continue;
        }
        if (wlen == 0) {
            s->word_index = index + i * step;
            s->word_seg = s->seg;
            wk = 0;
        }
        if (c == '@')
            wk |= WK_AT;
        else if (!(f & SYM_DIGITDOT))
            wk |= WK_NOTIP;
        if (wlen < sizeof s->word)
            s->word[wlen] = c;
        wlen++;
        i++;
    }
    s->word_len = wlen;
    s->word_kind = wk;
}

/* Whether p[0..n) is all whitespace (the text between trimmed tags): 0
 * no, 1 yes, 3 yes and it holds a '\f' or '\v'. */
static unsigned blank(const tpl *t, const uint8_t *p, size_t n)
{
    unsigned acc = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned w = t->ts.symw[p[i]];
        if ((w & SX_SYM) != Y_SPACE)
            return 0;
        acc |= w;
    }
    return (SW_RUNS(acc) & SYM_ODDSP) ? 3 : 1;
}

/* The three passes over whitespace only, in one step: what the first
 * whitespace byte does (a word of letters ends, one space symbol, runs
 * end) and what a line feed does to a markdown link target; the bytes
 * after it change nothing. */
static void blank_run(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index)
{
    if (s->wl || s->gate)
        letters_end(t, s, Y_SPACE);
    if ((s->ctx & CTX_LINE) && memchr(p, '\n', n))
        s->ctx &= (uint8_t)~CTX_LINE;
    if (!s->ac_space) {
        s->ac_space = true;
        s->ring_index[s->ring_n % TS_RING] = index;
        s->ring_n++;
        ac_step(t, s, Y_SPACE);
    }
    s->blob_len = 0;
    if (s->word_len)
        word_finish(t, s);
}

/* blob_pass when no run in p can reach the minimum (and none was open):
 * only the run at the end, p[i..n), is kept open. Its class is read from
 * blob_head when the run goes on (BC_LAZY), or now when it does not fit. */
static void blob_tail(tpl *t, tscan *s, const uint8_t *p, size_t n, size_t i, uint64_t index,
                      uint64_t step)
{
    const size_t k = n - i;
    s->blob_len = (uint32_t)k;
    if (k == 0)
        return;
    if (k <= sizeof s->blob_head) {
        ts_copy_short(s->blob_head, p + i, k);
        s->blob_cls = BC_LAZY;
    } else {
        ts_copy_short(s->blob_head, p + i, sizeof s->blob_head);
        s->blob_cls = blob_class_of(t, p + i, k);
    }
    s->blob_index = index + i * step;
    s->blob_seg = s->seg;
}

/* word_pass when no word in p can be an address (p holds no digit and no
 * '@', and no word was open): only the word at the end, p[i..n), is kept
 * open. Its last byte is no digit and no '@': it is no IPv4 address unless
 * it is all dots, which word_kind_of tells later. */
static void word_tail(tpl *t, tscan *s, const uint8_t *p, size_t n, size_t i, uint64_t index,
                      uint64_t step)
{
    const size_t k = n - i;
    if (k == 0)
        return;
    ts_copy_short(s->word, p + i, k < sizeof s->word ? k : sizeof s->word);
    s->word_len = k <= sizeof s->word ? (uint32_t)k : (uint32_t)sizeof s->word + 1;
    s->word_kind = p[n - 1] != '.' ? WK_NOTIP : WK_LAZY;
    s->word_index = index + i * step;
    s->word_seg = s->seg;
    (void)t;
}

/* The scanners over n bytes, one pass each: the phrase automaton (with URL
 * capture and words of letters), blobs, IPv4 / e-mail words. The passes
 * share no state; each keeps the order of its own findings. What the
 * automaton pass notes of the piece decides what the run passes must do:
 * with no blob run open and no run of TPL_BLOB_MIN blob bytes in it, the
 * piece holds no blob (only the run at its end may grow into one); with no
 * digit, no '@' and no word open, it holds no IPv4 or e-mail address. */
/* The pieces that are not whitespace only: the automaton pass, then the
 * run passes as it tells (out of line, so that a piece of whitespace does
 * not pay for their registers). */
/* True when only the tails of the runs were kept (blob_tail, word_tail). */
static __attribute__((noinline)) bool scan_text(tpl *t, tscan *s, const uint8_t *p, size_t n,
                                                uint64_t index, bool same_index)
{
    const uint64_t step = same_index ? 0 : 1;
    if (!TPL_FAST(t)) {
        /* the reference: every byte through slow_byte, then both run
         * passes over the whole piece */
        for (size_t i = 0; i < n; i++)
            slow_byte(t, s, p[i], index + i * step);
        blob_pass(t, s, p, n, index, step);
        word_pass(t, s, p, n, index, step);
        return false;
    }
    seen sn;
    ac_pass(t, s, p, n, index, step, &sn);
    if (sn.lng || s->blob_len) {
        blob_pass(t, s, p, n, index, step);
        word_pass(t, s, p, n, index, step);
        return false;
    }
    blob_tail(t, s, p, n, sn.bst, index, step);
    if (s->word_len == 0 && !(SW_RUNS(sn.any) & SYM_ATDIGIT)) {
        word_tail(t, s, p, n, sn.wst, index, step);
        return true;
    }
    word_pass(t, s, p, n, index, step);
    return false;
}

/* ------------------------------------------------------------ value memo */

/* A template outputs the same constants again and again ({{ '<|im_end|>\n' }}
 * in every branch). Such a value is a segment of the OUT stream of its own
 * with one index for all its bytes, and when the stream is quiet as it
 * starts (no word, run, URL, sequence, context or gate open) and the value
 * is ASCII, its scan changes only the automaton's state, the ring, the
 * word of letters and the tails of the runs, as a function of its bytes and
 * the automaton's state before. So a value of at most TS_VMEMO_LEN bytes
 * whose scan matched no pattern and kept only tails is remembered with that
 * effect (a set of TS_VMEMO_WAYS entries picked by a keyed hash, ways
 * replaced in turn), and the same bytes from the same state again get the
 * effect without a scan. A scan that matched anything is never
 * remembered. */

/* Whether a value piece may use the memo: the stream is quiet. */
static inline bool vmemo_quiet(const tscan *s, size_t n)
{
    return n <= TS_VMEMO_LEN && !s->wl && !s->word_len && !s->blob_len && !s->url_cap &&
           !s->u_need && !s->ctx && !s->gate && s->memo == MEMO_NONE && !s->fresh;
}

/* Whether p[0..n) (n <= TS_VMEMO_LEN) is ASCII: a few word loads, the last
 * overlapping the one before it. */
static bool ascii_short(const uint8_t *p, size_t n)
{
    uint64_t w, acc = 0;
    if (n >= 8) {
        for (size_t k = 0; k + 8 < n; k += 8) {
            memcpy(&w, p + k, 8);
            acc |= w;
        }
        memcpy(&w, p + n - 8, 8);
        return !((acc | w) & 0x8080808080808080ull);
    }
    for (size_t k = 0; k < n; k++)
        acc |= p[k];
    return !(acc & 0x80);
}

/* scan_text of a value p[0..n) (all bytes at index) from a quiet stream. */
static __attribute__((noinline)) void value_scan(tpl *t, tscan *s, const uint8_t *p, size_t n,
                                                 uint64_t index)
{
    if (!ascii_short(p, n)) {
        scan_text(t, s, p, n, index, true);
        return;
    }
    uint64_t h;
    if (!ts_lit_hash(&t->ts.lits, index + 1, n, &h))
        h = keyhash_ml_hash(t->ts.memo_key, p, n, p + n);
    const uint32_t set = (uint32_t)(h >> (64 - TS_VMEMO_BITS));
    const uint32_t st0 = s->ac_state, rn0 = s->ring_n;
    const bool sp0 = s->ac_space;
    ts_vmemo_entry *e = t->ts.vmemo[set];
    for (unsigned w = 0; w < TS_VMEMO_WAYS; w++) {
        const ts_vmemo_entry *v = &e[w];
        if (v->h != h || v->n != n || v->st0 != st0 || v->sp0 != sp0 || !ts_same_short(v->b, p, n))
            continue;
        /* the scan's effect */
        s->ac_state = v->st1;
        s->ac_space = v->sp1;
        /* the same index for every symbol: the ring from rn0 on, wrapping */
        const uint32_t k = v->syms < TS_RING ? v->syms : TS_RING, r = rn0 % TS_RING;
        const uint32_t k1 = TS_RING - r < k ? TS_RING - r : k;
        for (uint32_t j = 0; j < k1; j++)
            s->ring_index[r + j] = index;
        for (uint32_t j = 0; j < k - k1; j++)
            s->ring_index[j] = index;
        s->ring_n = rn0 + v->syms;
        s->wl = v->wl_n ? WL_ASCII : 0;
        s->wl_n = v->wl_n;
        if (v->wl_n)
            s->wl_index = index;
        s->blob_len = v->blob_len;
        if (v->blob_len) {
            ts_copy_short(s->blob_head, p + n - v->blob_len,
                          v->blob_len < sizeof s->blob_head ? v->blob_len : sizeof s->blob_head);
            s->blob_cls = v->blob_cls;
            s->blob_index = index;
            s->blob_seg = s->seg;
        }
        s->word_len = v->word_len;
        if (v->word_len) {
            ts_copy_short(s->word, p + n - v->word_len, v->word_len);
            s->word_kind = v->word_kind;
            s->word_index = index;
            s->word_seg = s->seg;
        }
        return;
    }
    const uint32_t hits = s->hits, matches = s->matches, fold_n = s->fold_n, skip_n = s->skip_n;
    if (!scan_text(t, s, p, n, index, true) || s->hits != hits || s->matches != matches ||
        s->fold_n != fold_n || s->skip_n != skip_n || s->url_cap || s->u_need || s->ctx ||
        (s->wl & (uint8_t)~WL_ASCII) || s->ring_n - rn0 > n || s->word_len > n || s->blob_len > n)
        return; /* not the simple effect the memo replays */
    ts_vmemo_entry *v = &e[t->ts.vmemo_next[set]++ % TS_VMEMO_WAYS];
    v->h = h;
    v->n = (uint8_t)n;
    v->st0 = st0;
    v->sp0 = sp0;
    v->st1 = s->ac_state;
    v->sp1 = s->ac_space;
    v->syms = (uint8_t)(s->ring_n - rn0);
    v->wl_n = s->wl ? (uint8_t)s->wl_n : 0;
    v->blob_len = (uint8_t)s->blob_len;
    v->blob_cls = s->blob_cls;
    v->word_len = (uint8_t)s->word_len;
    v->word_kind = s->word_kind;
    ts_copy_short(v->b, p, n);
}

static void scan_piece(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index,
                       bool same_index)
{
    const bool out = s == &t->ts.out;
    if (n == 0) {
        if (out)
            tk_run(t, p, n, s->seg, index, same_index);
        return;
    }
    if (!TPL_FAST(t)) { /* the reference: no whitespace step, no value memo */
        if (out)
            tk_run(t, p, n, s->seg, index, same_index);
        scan_text(t, s, p, n, index, same_index);
        return;
    }
    const unsigned bl = blank(t, p, n);
    if (out) { /* special tokens output */
        if (bl == 1)
            tk_space(t, s->seg);
        else
            tk_run(t, p, n, s->seg, index, same_index);
    }
    if (bl && !s->url_cap && !s->u_need)
        blank_run(t, s, p, n, index);
    else if (out && same_index && vmemo_quiet(s, n))
        value_scan(t, s, p, n, index);
    else
        scan_text(t, s, p, n, index, same_index);
}

/* ------------------------------------------------------------ literal memo */

/* A template repeats its string literals ('role', 'content', '<|im_end|>'),
 * and a literal's scan from a fresh stream (ts_reset) depends on its bytes
 * only. So the short literals whose scan and end reported nothing are
 * remembered (ts_memo, in a set of TS_MEMO_WAYS entries picked by a keyed
 * hash of the bytes, replaced in turn: no probing, so a hostile template
 * can only make it miss); the same bytes again are
 * not scanned but held (s->lit), and scanned after all only if something
 * other than ts_end or ts_reset follows (ts_memo_resolve): then they report
 * nothing again and leave the stream as the scan would have. Findings and
 * state are never cached, only the fact that there were none. */

/* Scan the held literal now, as ts_run would have, and ts_end if it came. */
void ts_memo_resolve(tscan *s)
{
    tpl *t = s->owner;
    const bool ended = s->memo == MEMO_ENDED;
    s->memo = MEMO_NONE;
    s->fresh = false;
    reset_now(s); /* a held literal is the first piece after ts_reset */
    scan_piece(t, s, s->lit, s->lit_n, s->lit_index, false);
    if (ended)
        end_scan(t, s);
    s->rest = false;
}

/* The first piece of a fresh literal, p[0..n) (0 < n <= TS_MEMO_LEN): true
 * when it is known to report nothing and is held, false when it must be
 * scanned (and is then remembered at ts_end if it reports nothing). */
static inline __attribute__((always_inline)) bool memo_first(tpl *t, tscan *s, const uint8_t *p,
                                                             size_t n, uint64_t index)
{
    ts_copy_short(s->lit, p, n);
    /* hashed in s->lit, whose loads may run to the end of the buffer */
    const uint64_t h = keyhash_ml_hash(t->ts.memo_key, s->lit, n, s->lit + sizeof s->lit);
    const uint32_t set = (uint32_t)(h >> (64 - TS_MEMO_BITS));
    ts_memo_entry *e = t->ts.memo[set];
    s->lit_n = (uint8_t)n;
    s->lit_index = index;
    s->lit_h = h;
    s->lit_src = p;
    s->lit_entry = NULL;
    for (unsigned w = 0; w < TS_MEMO_WAYS; w++)
        if (e[w].h == h && e[w].n == n && ts_same_short(e[w].b, p, n)) {
            s->memo = MEMO_HELD; /* known to report nothing */
            s->lit_entry = &e[w];
            return true;
        }
    s->memo = MEMO_PENDING; /* remembered at ts_end if it reports nothing */
    s->memo_slot = set;
    s->memo_hits = s->hits;
    return false;
}

/* ts_run when a memo state is set or the stream is fresh (out of line):
 * true when the piece is held, not scanned. */
static inline __attribute__((always_inline)) bool
memo_piece(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, bool same_index)
{
    if (s->memo != MEMO_NONE) {
        if (s->memo >= MEMO_HELD)
            ts_memo_resolve(s);
        s->memo = MEMO_NONE; /* a second piece: no entry for this literal */
    }
    if (s->fresh) {
        s->fresh = false;
        if (n && n <= sizeof s->lit && !same_index && s == &t->ts.lits && TPL_FAST(t) &&
            memo_first(t, s, p, n, index))
            return true; /* held: the scalars stay due */
        reset_now(s);
    }
    return false;
}

/* Whether the stream rests after a space: a piece of whitespace then
 * changes nothing but the blob run and the token reader. With no word of
 * letters open, letters_end changes nothing (nl_words >= 5 implies
 * nl_done: it reports the moment the count gets there); the space symbol
 * was fed already; no URL, UTF-8 sequence, address word or markdown link
 * target is open (ts_run asks only when no memo or fresh stream needs
 * its first piece). */
static inline bool resting(const tscan *s)
{
    return s->ac_space && !s->wl && !s->word_len && !s->url_cap && !s->u_need &&
           !(s->ctx & CTX_LINE);
}

/* scan_piece out of line: ts_run's fast cases then save no registers. */
static __attribute__((noinline)) void run_piece(tpl *t, tscan *s, const uint8_t *p, size_t n,
                                                uint64_t index, bool same_index)
{
    scan_piece(t, s, p, n, index, same_index);
    s->rest = resting(s);
}

/* ' ', '\t', '\n', '\r': whitespace that ends a special token (not '\f', '\v') */
static const uint8_t ws4[256] = {[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1};

/* ts_run when a memo state is set or the stream is fresh: the piece held,
 * or scanned (ts_run then only dispatches, in tail calls). */
static __attribute__((noinline)) void memo_run(tpl *t, tscan *s, const uint8_t *p, size_t n,
                                               uint64_t index, bool same_index)
{
    if (memo_piece(t, s, p, n, index, same_index))
        return;
    scan_piece(t, s, p, n, index, same_index);
    s->rest = resting(s);
}

void ts_run(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, bool same_index)
{
    /* the text between two tags is most often whitespace after whitespace:
     * what blank_run and tk_space would do to it, in a few steps */
    if (s->rest && TPL_FAST(t)) { /* resting(s), and no memo, not fresh */
        if (n) {
            size_t i = 0;
            while (i < n && ws4[p[i]])
                i++;
            if (i == n) {
                s->blob_len = 0;
                if (s == &t->ts.out)
                    tk_space(t, s->seg);
                return;
            }
        }
    } else if (s->memo != MEMO_NONE || s->fresh) {
        memo_run(t, s, p, n, index, same_index); /* a tail call */
        return;
    }
    run_piece(t, s, p, n, index, same_index);
}

/* ts_run of the whole literal p[0..n) at index, then ts_end, in one call:
 * a literal the memo knows costs its hash and one compare. */
void ts_literal(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index)
{
    if (s->fresh && s->memo == MEMO_NONE && n && n <= sizeof s->lit && s == &t->ts.lits &&
        TPL_FAST(t)) {
        s->fresh = false;
        if (memo_first(t, s, p, n, index)) {
            s->memo = MEMO_ENDED; /* held and ended: the scalars stay due */
            return;
        }
        reset_now(s);
        scan_piece(t, s, p, n, index, false);
        ts_end_scan(t, s);
        return;
    }
    if (n)
        ts_run(t, s, p, n, index, false);
    ts_end(t, s);
}

/* ts_end past its held case (stream.h). */
void ts_end_scan(tpl *t, tscan *s)
{
    if (s->memo == MEMO_ENDED)
        return; /* a second end changes nothing */
    s->rest = false;
    if (s->fresh) {
        s->fresh = false;
        reset_now(s);
    }
    end_scan(t, s);
    if (s->memo == MEMO_PENDING && s->hits == s->memo_hits) {
        /* the ways of a set are replaced in turn */
        const uint32_t set = s->memo_slot;
        ts_memo_entry *e = &t->ts.memo[set][t->ts.memo_next[set]++ % TS_MEMO_WAYS];
        e->h = s->lit_h;
        e->n = s->lit_n;
        e->tk_nt = TS_TK_UNKNOWN;
        memcpy(e->b, s->lit, s->lit_n);
        s->lit_entry = e;
    }
    s->memo = MEMO_NONE;
}
