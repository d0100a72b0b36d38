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

#include "common/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
enum { FK_NONE, FK_WIDE, FK_HOMOGLYPH, FK_STYLED };

static uint8_t fold_cp(uint32_t cp, uint8_t *kind)
{
    *kind = FK_NONE;
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
        } else if (a) {
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
enum { PK_MDLINK = TH__COUNT, PK_COMMENT_OPEN, PK_COMMENT_CLOSE };

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
    {"pip install", TH_SHELL},
    {"pip3 install", TH_SHELL},
    {"npm install", TH_SHELL},
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
};
#define N_PATTERNS (sizeof patterns / sizeof patterns[0])
_Static_assert(N_PATTERNS < 65535, "pattern index fits");

/* what a word ([A-Za-z0-9._%+-@]) holds: an IPv4 address or an e-mail? */
#define WK_AT 1u    /* holds an '@' */
#define WK_NOTIP 2u /* holds something other than digits and dots */

/* blob classes */
#define BC_DIGIT 1u
#define BC_UPPER 2u
#define BC_LOWER 4u
#define BC_NOTHEX 8u
#define BC_DONE 16u

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

/* Build the automaton: a trie, then breadth-first failure links folded into
 * a full transition table (so feeding is one lookup per symbol). */
bool ts_init(tpl *t)
{
    for (unsigned c = 0; c < 256; c++) {
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool blob = alnum || (c != 0 && strchr("+/=_-", (int)c));
        bool word = alnum || (c != 0 && strchr("._%+-@", (int)c));
        bool digitdot = (c >= '0' && c <= '9') || c == '.';
        t->ts.sym[c] = (uint8_t)ac_sym((uint8_t)c);
        t->ts.symx[c] = (uint8_t)(t->ts.sym[c] | (c >= 0x80 ? SX_SLOW : 0) |
                                  (c == ')' || c == '\n' ? SX_MDEND : 0));
        t->ts.symf[c] = (uint8_t)((blob ? SYM_BLOB : 0) | (word ? SYM_WORD : 0) |
                                  (digitdot ? SYM_DIGITDOT : 0) |
                                  ((c >= '0' && c <= '9') || c == '@' ? SYM_ATDIGIT : 0));
        t->ts.bcls[c] = blob_class((uint8_t)c);
        t->ts.wkind[c] = (uint8_t)(c == '@' ? WK_AT : digitdot ? 0 : WK_NOTIP);
    }
    t->ts.ac_next = calloc(AC_MAX_STATES, sizeof *t->ts.ac_next);
    t->ts.ac_out = calloc(AC_MAX_STATES, sizeof *t->ts.ac_out);
    t->ts.ac_link = calloc(AC_MAX_STATES, sizeof *t->ts.ac_link);
    if (!t->ts.ac_next || !t->ts.ac_out || !t->ts.ac_link)
        return false;
    uint16_t(*next)[AC_SYMS] = t->ts.ac_next;
    uint16_t n = 1;
    for (size_t p = 0; p < N_PATTERNS; p++) {
        uint16_t s = 0;
        for (const char *c = patterns[p].s; *c; c++) {
            unsigned y = ac_sym((uint8_t)*c);
            if (!next[s][y]) {
                if (n >= AC_MAX_STATES)
                    return false;
                next[s][y] = n++;
            }
            s = next[s][y];
        }
        t->ts.ac_out[s] = (uint16_t)(p + 1);
    }
    t->ts.ac_states = n;
    uint16_t *queue = malloc(AC_MAX_STATES * sizeof *queue);
    if (!queue)
        return false;
    size_t qh = 0, qt = 0;
    for (unsigned y = 1; y < AC_SYMS; y++)
        if (next[0][y]) {
            t->ts.ac_link[next[0][y]] = 0;
            queue[qt++] = next[0][y];
        }
    while (qh < qt) {
        uint16_t s = queue[qh++];
        if (!t->ts.ac_out[s])
            t->ts.ac_out[s] = t->ts.ac_out[t->ts.ac_link[s]];
        for (unsigned y = 1; y < AC_SYMS; y++) {
            uint16_t u = next[s][y];
            if (u) {
                t->ts.ac_link[u] = next[t->ts.ac_link[s]][y];
                queue[qt++] = u;
            } else {
                next[s][y] = next[t->ts.ac_link[s]][y];
            }
        }
    }
    free(queue);
    return true;
}

void ts_free(tpl *t)
{
    free(t->ts.ac_next);
    free(t->ts.ac_out);
    free(t->ts.ac_link);
}

/* ------------------------------------------------------------ segments */

/* Only the scalars: the ring is read back only over the symbols of a match,
 * which were all fed after the reset (so a literal costs O(1) to start). */
void ts_reset(tscan *s, const char *what)
{
    s->what = what;
    s->seg = 0;
    s->seg_fl = 0;
    s->ac_state = 0;
    s->ac_space = false;
    s->u_need = 0;
    s->ring_n = 0;
    s->seg_start = 0;
    s->fold_n = s->skip_n = 0;
    s->wl = 0;
    s->wl_n = 0;
    s->ctx = 0;
    s->gate = 0;
    s->nl_words = 0;
    s->nl_done = false;
    s->blob_len = 0;
    s->word_len = 0;
    s->url_cap = false;
}

void ts_segment(tscan *s, uint16_t fl)
{
    s->seg++;
    s->seg_fl = fl;
    s->seg_start = s->ring_n;
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

static void url_finish(tpl *t, tscan *s)
{
    if (!s->url_cap)
        return;
    s->url_cap = false;
    unsigned how = s->url_how;
    if (how & HOW_DUP)
        return;
    char e[200], w[200];
    tpl_report_earliest(t, TH_URL, s->url_index, "URL '%s' in %s",
                        tpl_quote(e, sizeof e, (const uint8_t *)s->url, s->url_len, 100),
                        ts_where(s, how, w, sizeof w));
}

static const char *const gate_why[] = {"message content", "the turn count", "the date"};

/* The reason of a gate (GATE_* bits) for a message. */
static const char *gate_text(unsigned gate)
{
    for (unsigned i = 0; i < 3; i++)
        if (gate & (1u << i))
            return gate_why[i];
    return "a condition";
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
    case TH_INSTRUCTION:
    case TH_CONCEAL:
    case TH_SHELL: {
        if (how & HOW_DUP)
            return;
        static const char *const what[] = {[TH_INSTRUCTION] = "instruction-like phrase",
                                           [TH_CONCEAL] = "concealment phrase",
                                           [TH_SHELL] = "shell or installer command"};
        ts_where(s, how, w, sizeof w);
        tpl_report(t, p->kind, index, "%s '%s' in %s", what[p->kind], p->s, w);
        if (how & (HOW_ACROSS | HOW_BUILT | HOW_ITEMS | HOW_FOLDED | HOW_SKIPPED))
            tpl_report(t, TH_ASSEMBLED, index, "%s '%s' exists only as assembled output: %s",
                       what[p->kind], p->s, w);
        if (s->gate)
            tpl_report(t, TH_GATED, index, "%s '%s' is output only under a condition on %s",
                       what[p->kind], p->s, gate_text(s->gate));
        return;
    }
    default: break;
    }
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
    const char *ctx = s->url_cap               ? "a URL"
                      : (s->ctx & CTX_MDLINK)  ? "the target of a markdown image or link"
                      : (s->ctx & CTX_COMMENT) ? "an HTML comment"
                                               : NULL;
    if (ctx)
        tpl_report(t, TH_EXFIL, index, "message content is output inside %s: an exfiltration sink",
                   ctx);
}

void ts_gate(tscan *s, unsigned gate)
{
    if (gate != s->gate)
        s->nl_done = false;
    s->gate = (uint8_t)gate;
    s->nl_words = 0;
}

/* The word run ([A-Za-z0-9._%+-@]) ended: an IPv4 address or an e-mail? */

static void word_finish(tpl *t, tscan *s)
{
    uint32_t n = s->word_len;
    s->word_len = 0;
    if (n == 0 || n > sizeof s->word || (s->word_kind & (WK_AT | WK_NOTIP)) == WK_NOTIP)
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
        tpl_report_earliest(t, TH_URL, s->word_index, "IPv4 address '%s' in %s",
                            tpl_quote(e, sizeof e, w, n, 40),
                            ts_where(s, how, where, sizeof where));
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
    tpl_report_earliest(t, TH_URL, s->word_index, "e-mail address '%s' in %s",
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
    tpl_report(t, TH_BLOB, s->blob_index, "%s-like run of %u+ characters in %s: '%s'",
               hex ? "hex" : "base64", TPL_BLOB_MIN, ts_where(s, how, w, sizeof w),
               tpl_quote(e, sizeof e, s->blob_head, sizeof s->blob_head, 40));
}

void ts_end(tpl *t, tscan *s)
{
    url_finish(t, s);
    word_finish(t, s);
    s->blob_len = 0;
    s->ac_state = 0;
    s->ac_space = false;
    s->u_need = 0;
}

/* --------------------------------------------------------------- words */

/* A run of letters ended (at a symbol y): look-alike letters mixed into a
 * Latin word, or a word of fullwidth or styled letters (GG738); and, under
 * a gate, the count of natural-language words (GG734). */
static void letters_end(tpl *t, tscan *s, unsigned y)
{
    uint8_t wl = s->wl;
    s->wl = 0;
    if (!(wl & WL_OTHER) && (((wl & WL_ASCII) && (wl & WL_CONFUSABLE)) ||
                             ((wl & (WL_WIDE | WL_STYLED)) && s->wl_n >= 2))) {
        char w[200];
        tpl_report(t, TH_HOMOGLYPH, s->wl_index, "a word in %s is written with %s",
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
    if (s->nl_words >= 5 && !s->nl_done) {
        s->nl_done = true;
        tpl_report(t, TH_GATED, s->wl_index,
                   "natural-language text is output only under a condition on %s",
                   gate_text(s->gate));
    }
}

/* --------------------------------------------------------------- feed */

/* A match ends at the symbol just fed. */
static void matched(tpl *t, tscan *s, uint16_t o)
{
    ac_match(t, s, &patterns[o - 1]);
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
    s->ac_state = t->ts.ac_next[s->ac_state][y];
    uint16_t o = t->ts.ac_out[s->ac_state];
    if (o)
        matched(t, s, o);
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
    uint8_t kind, a = fold_cp(s->u_cp, &kind);
    if (a == FOLD_SKIP) {
        s->skip_n = s->ring_n; /* after the symbol fed last */
        return;
    }
    unsigned y = a ? ac_sym(a) : Y_OTHER;
    bool letter = y >= 1 && y <= 26;
    if (letter) {
        if (!s->wl)
            s->wl_index = s->u_index;
        /* dotless i is a letter of Turkish and Azerbaijani words
         * ("kitapları"): read as 'i' by the phrase detectors, but a word
         * holding it is text of that language, not a disguise */
        s->wl |= (uint8_t)(kind == FK_WIDE      ? WL_WIDE
                           : kind == FK_STYLED  ? WL_STYLED
                           : s->u_cp == 0x0131u ? WL_OTHER
                                                : WL_CONFUSABLE);
    } else if (!a && !(s->u_cp >= 0x2000 && s->u_cp <= 0x2BFF) &&
               !(s->u_cp >= 0x3000 && s->u_cp <= 0x303F)) {
        /* a letter of another script: a word in it is text, not a disguise */
        if (!s->wl)
            s->wl_index = s->u_index;
        s->wl |= WL_OTHER;
        ac_feed(t, s, Y_OTHER, s->u_index, false);
        return;
    }
    feed_sym(t, s, y, s->u_index, kind != FK_NONE);
}

static void url_byte(tpl *t, tscan *s, uint8_t c)
{
    if (url_char(c) && s->url_len < sizeof s->url)
        s->url[s->url_len++] = (char)c;
    else
        url_finish(t, s);
}

/* The phrase automaton, URL capture, UTF-8 folding and letter words over n
 * bytes. The hot state lives in locals, written back around the rare slow
 * paths (non-ASCII, a URL being captured, a match, a word ending). */
static void ac_pass(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step)
{
    uint32_t st = s->ac_state, rn = s->ring_n, wl_n = s->wl_n;
    uint8_t wl = s->wl;
    bool space = s->ac_space;
    const uint8_t *sym = t->ts.sym, *symx = t->ts.symx;
    uint16_t(*next)[AC_SYMS] = t->ts.ac_next;
    const uint16_t *out = t->ts.ac_out;
    uint64_t *ring = s->ring_index;
#define SYNC()                                                                                     \
    (s->ac_state = (uint16_t)st, s->ring_n = rn, s->ac_space = space, s->wl = wl, s->wl_n = wl_n)
#define LOAD()                                                                                     \
    (st = s->ac_state, rn = s->ring_n, space = s->ac_space, wl = s->wl, wl_n = s->wl_n,            \
     slow = s->u_need || s->url_cap)
    bool slow = s->u_need || s->url_cap; /* a sequence or a URL is open */
    uint64_t idx = index;
    for (size_t i = 0; i < n; i++, idx += step) {
        const uint8_t c = p[i];
        const uint8_t x = symx[c];
        if ((x & SX_SLOW) || slow) {
            SYNC();
            if (s->url_cap)
                url_byte(t, s, c);
            if (c >= 0x80) {
                feed_u8(t, s, c, idx);
                LOAD();
                continue;
            }
            if (s->u_need) {
                s->u_need = 0; /* a sequence cut short */
                feed_sym(t, s, Y_OTHER, s->u_index, false);
                feed_sym(t, s, sym[c], idx, false);
                LOAD();
                continue;
            }
            LOAD();
        }
        const unsigned y = x & SX_SYM;
        if (y - 1u < 26u && !slow) {
            /* a run of ASCII letters, in one inner loop: the word of
             * letters (GG738, GG734) and the automaton; it ends at a byte
             * that is not an ASCII letter, or when a match opens a URL */
            if (!wl)
                s->wl_index = idx;
            wl |= WL_ASCII;
            space = false;
            unsigned yy = y;
            for (;;) {
                wl_n++;
                ring[rn % TS_RING] = idx;
                rn++;
                st = next[st][yy];
                if (out[st]) {
                    SYNC();
                    matched(t, s, out[st]);
                    LOAD();
                }
                if (i + 1 == n || slow)
                    break;
                yy = symx[p[i + 1]] & SX_SYM;
                if (yy - 1u >= 26u)
                    break;
                i++;
                idx += step;
            }
            continue;
        }
        if (y - 1u < 26u) { /* a letter after a URL opened (the URL byte is taken) */
            if (!wl)
                s->wl_index = idx;
            wl |= WL_ASCII;
            wl_n++;
        } else if (wl == WL_ASCII && !s->gate) { /* letters_end's common case: nothing */
            wl = 0;
            wl_n = 0;
        } else if (wl || s->gate) {
            SYNC();
            letters_end(t, s, y);
            LOAD();
        }
        if ((x & SX_MDEND) && (s->ctx & CTX_MDLINK))
            s->ctx &= (uint8_t)~CTX_MDLINK;
        if (y != Y_SPACE || !space) { /* whitespace runs fold to one symbol */
            space = y == Y_SPACE;
            ring[rn % TS_RING] = idx;
            rn++;
            st = next[st][y];
            if (out[st]) {
                SYNC();
                matched(t, s, out[st]);
                LOAD();
            }
        }
    }
    SYNC();
#undef SYNC
#undef LOAD
}

/* Base64 / hex runs over n bytes: a run is judged when it reaches
 * TPL_BLOB_MIN and again only when its class changes, so the bytes of a
 * long run of one class are skipped in a tight loop. */
static void blob_pass(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step)
{
    const uint8_t *symf = t->ts.symf, *bc = t->ts.bcls;
    uint32_t blen = s->blob_len;
    uint8_t bcls = s->blob_cls;
    size_t i = 0;
    while (i < n) {
        if (!(symf[p[i]] & SYM_BLOB)) {
            blen = 0;
            while (++i < n && !(symf[p[i]] & SYM_BLOB))
                ;
            continue;
        }
        if (blen == 0) { /* a fresh run that ends here short of the minimum: nothing */
            size_t j = i + 1;
            while (j < n && (symf[p[j]] & SYM_BLOB))
                j++;
            if (j < n && j - i < TPL_BLOB_MIN) {
                i = j;
                continue;
            }
        }
        if (blen >= TPL_BLOB_MIN) { /* judged already: skip while the class holds */
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
    uint8_t wk = s->word_kind;
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
        if (wlen == 0) { /* a fresh word that ends here holding a letter and no '@': nothing */
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

/* Whether p[0..n) is all whitespace (the text between trimmed tags). */
static bool blank(const tpl *t, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t->ts.sym[p[i]] != Y_SPACE)
            return false;
    return true;
}

/* The three passes over whitespace only, in one step: what the first
 * whitespace byte does (a word of letters ends, one space symbol, runs
 * end) and what a line feed does to a markdown link target; the bytes
 * after it change nothing. */
static void blank_run(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index)
{
    if (s->wl || s->gate)
        letters_end(t, s, Y_SPACE);
    if ((s->ctx & CTX_MDLINK) && memchr(p, '\n', n))
        s->ctx &= (uint8_t)~CTX_MDLINK;
    if (!s->ac_space) {
        s->ac_space = true;
        s->ring_index[s->ring_n % TS_RING] = index;
        s->ring_n++;
        s->ac_state = t->ts.ac_next[s->ac_state][Y_SPACE];
        uint16_t o = t->ts.ac_out[s->ac_state];
        if (o)
            matched(t, s, o);
    }
    s->blob_len = 0;
    if (s->word_len)
        word_finish(t, s);
}

/* Where the run of bytes with class bit `cls` that ends p[0..n) starts. */
static size_t tail_start(const uint8_t *symf, const uint8_t *p, size_t n, uint8_t cls)
{
    size_t i = n;
    while (i > 0 && (symf[p[i - 1]] & cls))
        i--;
    return i;
}

/* blob_pass when no run in p can reach the minimum: only the run at the
 * end is kept open. */
static void blob_tail(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step)
{
    const uint8_t *symf = t->ts.symf, *bc = t->ts.bcls;
    size_t i = tail_start(symf, p, n, SYM_BLOB);
    s->blob_len = (uint32_t)(n - i);
    if (i == n)
        return;
    uint8_t cls = 0;
    for (size_t j = i; j < n; j++) {
        cls |= bc[p[j]];
        if (j - i < sizeof s->blob_head)
            s->blob_head[j - i] = p[j];
    }
    s->blob_cls = cls;
    s->blob_index = index + i * step;
    s->blob_seg = s->seg;
}

/* word_pass when no word in p can be an address: only the word at the
 * end is kept open. */
static void word_tail(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, uint64_t step)
{
    const uint8_t *symf = t->ts.symf, *wkt = t->ts.wkind;
    size_t i = tail_start(symf, p, n, SYM_WORD);
    if (i == n)
        return;
    uint8_t wk = 0;
    uint32_t wlen = 0;
    for (size_t j = i; j < n; j++) {
        wk |= wkt[p[j]];
        if (wlen < sizeof s->word)
            s->word[wlen] = p[j];
        if (wlen <= sizeof s->word)
            wlen++;
    }
    s->word_len = wlen;
    s->word_kind = wk;
    s->word_index = index + i * step;
    s->word_seg = s->seg;
}

/* The scanners over n bytes, one pass each: the phrase automaton (with URL
 * capture and words of letters), blobs, IPv4 / e-mail words. The passes
 * share no state; each keeps the order of its own findings. */
void ts_run(tpl *t, tscan *s, const uint8_t *p, size_t n, uint64_t index, bool same_index)
{
    if (s == &t->ts.out)
        tk_run(t, p, n, s->seg, index, same_index); /* special tokens output */
    if (n == 0)
        return;
    if (!s->url_cap && !s->u_need && blank(t, p, n)) {
        blank_run(t, s, p, n, index);
        return;
    }
    const uint64_t step = same_index ? 0 : 1;
    ac_pass(t, s, p, n, index, step);
    /* One look over the piece decides what the run passes must do: with no
     * blob run open and no run of TPL_BLOB_MIN blob bytes in it, the piece
     * holds no blob (only the run at its end may grow into one); with no
     * digit, no '@' and no word open, it holds no IPv4 or e-mail address.
     * The look stops at the first long run (a blob may be there: both
     * passes run), so a long run costs nothing extra. */
    const uint8_t *symf = t->ts.symf;
    uint8_t any = 0;
    uint32_t run = s->blob_len < TPL_BLOB_MIN ? s->blob_len : TPL_BLOB_MIN;
    size_t i = 0;
    for (; i < n && run < TPL_BLOB_MIN; i++) {
        const uint8_t f = symf[p[i]];
        any |= f;
        run = (f & SYM_BLOB) ? run + 1 : 0;
    }
    if (i < n || run >= TPL_BLOB_MIN || s->blob_len) {
        blob_pass(t, s, p, n, index, step);
        word_pass(t, s, p, n, index, step);
        return;
    }
    blob_tail(t, s, p, n, index, step);
    if (s->word_len == 0 && !(any & SYM_ATDIGIT))
        word_tail(t, s, p, n, index, step);
    else
        word_pass(t, s, p, n, index, step);
}
