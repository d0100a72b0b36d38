/* lex.c - the template analyser's lexer (prefix lx_, state t->lx): a byte-at-a-time
 * state machine (so chunk boundaries of array-typed templates do not matter)
 * that splits the template into text, comments, raw blocks and tags, turns
 * tags into tokens for the evaluator (eval.c) and resolves string literals the way
 * Jinja does (Python unicode-escape: \xhh, \uhhhh, \Uhhhhhhhh, octal, \N{...},
 * the single-character escapes), noting escapes that spell identifier
 * characters. Tags end at }} / %} only outside brackets, as in Jinja's lexer.
 * No recursion, no allocation per token: the literal buffer grows to
 * TPL_CONST_CAP once and is reused. */
#include "common/attr.h"
#include "template/tpl.h"
#include "common/alloc.h"

#include "common/utf8.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#endif

enum { M_TEXT, M_COMMENT, M_TAG, M_RAW };
enum { S_NONE, S_NAME, S_NUM, S_NUMDOT, S_FLOAT, S_STR };
enum { E_NONE, E_START, E_HEX, E_OCT, E_NBRACE, E_NNAME };

/* A new template: the lexer starts in text. */
void lx_begin(tpl *t)
{
    t->lx.mode = M_TEXT;
    t->lx.sub = S_NONE;
    t->lx.pend = false;
    t->lx.raw_collect = false;
    t->lx.esc = E_NONE;
}

/* byte classes of the tag fast paths */
#define LC_NAME 0x01u  /* continues a name: [A-Za-z0-9_] (non-ASCII goes the slow way) */
#define LC_SPACE 0x02u /* whitespace between tokens */
#define LC_STR 0x04u   /* plain string literal text: not a quote, backslash, CR or LF */
#define LC_START 0x08u /* starts a name: [A-Za-z_] */
#define LC_QUOTE 0x10u /* opens a string literal */
/* LC_OP: a one-byte operator or bracket that needs no lookahead: ( ) [ ] { . | , : ~ + -
 * LC_PEND: may start a two-byte operator or the tag's closer: * / = ! < > % } */
#define LC_OP 0x20u
#define LC_PEND 0x40u

/* what tag_run does with a token's first byte (act[]): LA_OUT leaves it to
 * the byte loop */
enum { LA_OUT, LA_NAME, LA_QUOTE, LA_OP, LA_SIGN, LA_PEND };

/* The byte tables depend on nothing but the bytes: made once per process
 * and shared, read-only, by every analyser. */
static uint8_t lex_cls[256], lex_act[256];
static pthread_once_t lex_once = PTHREAD_ONCE_INIT;

static void lex_tables(void)
{
    for (unsigned c = 0; c < 256; c++) {
        bool name =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        bool str = c != '\'' && c != '"' && c != '\\' && c != '\r' && c != '\n';
        bool start = name && !(c >= '0' && c <= '9');
        bool quote = c == '\'' || c == '"';
        bool op = c != 0 && strchr("()[]{.|,:~+-", (int)c) != NULL;
        bool pend = c != 0 && strchr("*/=!<>%}", (int)c) != NULL;
        lex_cls[c] = (uint8_t)((name ? LC_NAME : 0) | (space ? LC_SPACE : 0) | (str ? LC_STR : 0) |
                               (start ? LC_START : 0) | (quote ? LC_QUOTE : 0) | (op ? LC_OP : 0) |
                               (pend ? LC_PEND : 0));
        lex_act[c] = pend                           ? LA_PEND
                     : op && (c == '-' || c == '+') ? LA_SIGN
                     : op                           ? LA_OP
                     : quote                        ? LA_QUOTE
                     : start                        ? LA_NAME
                                                    : LA_OUT;
    }
}

bool lx_init(tpl *t)
{
    pthread_once(&lex_once, lex_tables);
    t->lx.cls = lex_cls;
    t->lx.act = lex_act;
    t->lx.lit = gl_malloc(256); /* a first buffer, so no token ever points into NULL */
    t->lx.lit_cap = 256;
    return t->lx.lit != NULL;
}

void lx_free(tpl *t)
{
    gl_free(t->lx.lit);
}

/* ---------------------------------------------------------------- tokens */

static void tok_init(const tpl *t, tok *k, uint8_t kind)
{
    memset(k, 0, sizeof *k);
    k->kind = kind;
    k->index = t->lx.tok_index;
}

static void tok_start(tpl *t)
{
    t->lx.tok_index = t->index;
}

static void emit_op(tpl *t, uint8_t op)
{
    tok k;
    tok_init(t, &k, TK_OP);
    k.op = op;
    t->lx.last_op = op;
    t->lx.last_op_index = k.index;
    ev_tok(t, &k);
}

static void emit_other(tpl *t)
{
    tok k;
    tok_init(t, &k, TK_OTHER);
    ev_tok(t, &k);
}

/* A name token: s[0..n) is its text (cut to TPL_NAME_CAP), in the name
 * buffer or, when the whole name lay in the bytes being fed, in them. */
static inline __attribute__((always_inline)) void emit_name_at(tpl *t, const uint8_t *s, uint32_t n,
                                                               uint8_t lflags)
{
    tok k;
    tok_init(t, &k, TK_NAME);
    k.lflags = lflags;
    k.s = s;
    k.n = n;
    k.hash = word_hash(s, n);
    k.word = (uint16_t)word_lookup(t, s, n, k.hash);
    ev_tok(t, &k);
}

static void emit_name(tpl *t)
{
    emit_name_at(t, t->lx.name, t->lx.name_len, 0);
}

static void emit_num(tpl *t, bool is_float)
{
    tok k;
    tok_init(t, &k, is_float ? TK_FLOAT : TK_INT);
    k.ival = t->lx.num;
    k.huge = t->lx.num_huge;
    ev_tok(t, &k);
}

/* ---------------------------------------------------------- string literals */

/* The literal's kept bytes go to the LIT stream in one run when it ends
 * (byte i at the literal's first index + 1 + i: exact without escapes). */
static void lit_scan_prefix(tpl *t)
{
    if (t->lx.lit_len && !(t->lx.lit_flags & LF_SCANNED))
        ts_run(t, &t->ts.lits, t->lx.lit, t->lx.lit_len, t->lx.tok_index + 1, false);
    t->lx.lit_flags |= LF_SCANNED;
}

/* Room in the literal buffer for k more bytes within its kept prefix. */
static bool lit_room(tpl *t, size_t k)
{
    if (t->lx.lit_len + k > TPL_CONST_CAP)
        return false; /* past the kept prefix: the byte loop */
    return tpl_grow_bytes(t, &t->lx.lit, &t->lx.lit_cap, t->lx.lit_len + (uint32_t)k,
                          TPL_CONST_CAP);
}

static void lit_put(tpl *t, uint8_t c)
{
    t->lx.lit_full++;
    if (t->lx.lit_len >= TPL_CONST_CAP) {
        /* past the kept prefix: scan it first, then the rest byte by byte */
        lit_scan_prefix(t);
        ts_run(t, &t->ts.lits, &c, 1, t->index, false);
        t->lx.lit_flags |= LF_TRUNC;
        return;
    }
    if (!lit_room(t, 1))
        return; /* out of memory */
    t->lx.lit[t->lx.lit_len++] = c;
}

static void lit_put_cp(tpl *t, uint32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        cp = 0xFFFD; /* Python keeps a lone surrogate, or rejects the escape */
        t->lx.lit_flags |= LF_INEXACT;
    }
    if (cp < 0x80) {
        lit_put(t, (uint8_t)cp);
    } else if (cp < 0x800) {
        lit_put(t, (uint8_t)(0xC0 | (cp >> 6)));
        lit_put(t, (uint8_t)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        lit_put(t, (uint8_t)(0xE0 | (cp >> 12)));
        lit_put(t, (uint8_t)(0x80 | ((cp >> 6) & 0x3F)));
        lit_put(t, (uint8_t)(0x80 | (cp & 0x3F)));
    } else {
        lit_put(t, (uint8_t)(0xF0 | (cp >> 18)));
        lit_put(t, (uint8_t)(0x80 | ((cp >> 12) & 0x3F)));
        lit_put(t, (uint8_t)(0x80 | ((cp >> 6) & 0x3F)));
        lit_put(t, (uint8_t)(0x80 | (cp & 0x3F)));
    }
}

static void esc_text_add(tpl *t, uint8_t c)
{
    if (t->lx.esc_len + 1u < sizeof t->lx.esc_text)
        t->lx.esc_text[t->lx.esc_len++] = (char)c;
    t->lx.esc_text[t->lx.esc_len] = '\0';
}

/* A numeric or named escape resolved to cp. */
static void esc_done(tpl *t, uint32_t cp)
{
    t->lx.esc = E_NONE;
    const char *name;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
        cp == '_' || cp == '.') {
        if (!(t->lx.lit_flags & LF_ESC_IDENT))
            memcpy(t->lx.lit_esc, t->lx.esc_text, sizeof t->lx.lit_esc);
        t->lx.lit_flags |= LF_ESC_IDENT;
    } else if (raw_invisible(cp, &name)) {
        tpl_report(t, TH_INVISIBLE, t->index,
                   "escape '%s' in a string literal produces the invisible character U+%04X (%s)",
                   t->lx.esc_text, (unsigned)cp, name);
    }
    lit_put_cp(t, cp);
}

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* \N{NAME} (case-insensitive, as in Python): the printable ASCII characters
 * and the invisible ones an obfuscator needs; any other name is U+FFFD and
 * the literal inexact. */
static uint32_t named_cp(const uint8_t *raw, size_t n, bool *known)
{
    static const struct {
        const char *name;
        uint32_t cp;
    } names[] = {
        {"SPACE", ' '},
        {"EXCLAMATION MARK", '!'},
        {"QUOTATION MARK", '"'},
        {"NUMBER SIGN", '#'},
        {"DOLLAR SIGN", '$'},
        {"PERCENT SIGN", '%'},
        {"AMPERSAND", '&'},
        {"APOSTROPHE", '\''},
        {"LEFT PARENTHESIS", '('},
        {"RIGHT PARENTHESIS", ')'},
        {"ASTERISK", '*'},
        {"PLUS SIGN", '+'},
        {"COMMA", ','},
        {"HYPHEN-MINUS", '-'},
        {"FULL STOP", '.'},
        {"SOLIDUS", '/'},
        {"COLON", ':'},
        {"SEMICOLON", ';'},
        {"LESS-THAN SIGN", '<'},
        {"EQUALS SIGN", '='},
        {"GREATER-THAN SIGN", '>'},
        {"QUESTION MARK", '?'},
        {"COMMERCIAL AT", '@'},
        {"LEFT SQUARE BRACKET", '['},
        {"REVERSE SOLIDUS", '\\'},
        {"RIGHT SQUARE BRACKET", ']'},
        {"CIRCUMFLEX ACCENT", '^'},
        {"LOW LINE", '_'},
        {"GRAVE ACCENT", '`'},
        {"LEFT CURLY BRACKET", '{'},
        {"VERTICAL LINE", '|'},
        {"RIGHT CURLY BRACKET", '}'},
        {"TILDE", '~'},
        {"NULL", 0},
        {"CHARACTER TABULATION", 9},
        {"LINE FEED", 10},
        {"CARRIAGE RETURN", 13},
        {"FULLWIDTH LOW LINE", 0xFF3F},
        {"ZERO WIDTH SPACE", 0x200B},
        {"ZERO WIDTH NON-JOINER", 0x200C},
        {"ZERO WIDTH JOINER", 0x200D},
        {"WORD JOINER", 0x2060},
        {"ZERO WIDTH NO-BREAK SPACE", 0xFEFF},
        {"LEFT-TO-RIGHT OVERRIDE", 0x202D},
        {"RIGHT-TO-LEFT OVERRIDE", 0x202E},
    };
    uint8_t s[48];
    *known = true;
    if (n > sizeof s)
        goto unknown;
    for (size_t i = 0; i < n; i++)
        s[i] = raw[i] >= 'a' && raw[i] <= 'z' ? (uint8_t)(raw[i] - 32) : raw[i];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && memcmp(names[i].name, s, n) == 0)
            return names[i].cp;
    static const char small[] = "LATIN SMALL LETTER ", cap[] = "LATIN CAPITAL LETTER ";
    if (n == sizeof small && memcmp(s, small, sizeof small - 1) == 0 && s[n - 1] >= 'A' &&
        s[n - 1] <= 'Z')
        return (uint32_t)(s[n - 1] - 'A' + 'a');
    if (n == sizeof cap && memcmp(s, cap, sizeof cap - 1) == 0 && s[n - 1] >= 'A' &&
        s[n - 1] <= 'Z')
        return s[n - 1];
    static const char *const digits[] = {"ZERO", "ONE", "TWO",   "THREE", "FOUR",
                                         "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"};
    if (n > 6 && memcmp(s, "DIGIT ", 6) == 0)
        for (uint32_t d = 0; d < 10; d++)
            if (strlen(digits[d]) == n - 6 && memcmp(s + 6, digits[d], n - 6) == 0)
                return '0' + d;
unknown:
    *known = false;
    return 0xFFFD;
}

static void str_end(tpl *t)
{
    tok k;
    tok_init(t, &k, TK_STR);
    k.s = t->lx.lit;
    k.n = t->lx.lit_len;
    k.full = t->lx.lit_full;
    k.lflags = t->lx.lit_flags;
    if (utf8_is_ascii(k.s, k.n))
        k.lflags |= LF_ASCII;
    k.esc = t->lx.lit_esc;
    if (!(t->lx.lit_flags & LF_SCANNED)) { /* the whole literal and its end in one call */
        t->lx.lit_flags |= LF_SCANNED;
        ts_literal(t, &t->ts.lits, t->lx.lit, t->lx.lit_len, t->lx.tok_index + 1);
    } else {
        ts_end(t, &t->ts.lits);
    }
    ev_tok(t, &k);
}

static void str_byte(tpl *t, uint8_t c)
{
again:
    switch (t->lx.esc) {
    case E_NONE:
        if (c == t->lx.quote) {
            t->lx.sub = S_NONE;
            str_end(t);
        } else if (c == '\\') {
            t->lx.esc = E_START;
            t->lx.esc_len = 0;
            esc_text_add(t, c);
        } else if (c == '\n' && t->lx.lit_cr) {
            /* the LF of a CR LF, already put as one LF */
        } else {
            lit_put(t, c == '\r' ? '\n' : c); /* Jinja normalises newlines first */
        }
        t->lx.lit_cr = c == '\r';
        return;
    case E_START:
        esc_text_add(t, c);
        t->lx.esc = E_NONE;
        t->lx.lit_cr = c == '\r';
        if (c >= 0x80) /* Jinja escapes it to \xNN first: the backslash stays */
            t->lx.lit_flags |= LF_INEXACT;
        switch (c) {
        case '\n':
        case '\r': return; /* line continuation */
        case '\\':
        case '\'':
        case '"': lit_put(t, c); return;
        case 'a': lit_put(t, 7); return;
        case 'b': lit_put(t, 8); return;
        case 'f': lit_put(t, 12); return;
        case 'n': lit_put(t, 10); return;
        case 'r': lit_put(t, 13); return;
        case 't': lit_put(t, 9); return;
        case 'v': lit_put(t, 11); return;
        case 'x':
            t->lx.esc = E_HEX;
            t->lx.esc_need = 2;
            break;
        case 'u':
            t->lx.esc = E_HEX;
            t->lx.esc_need = 4;
            break;
        case 'U':
            t->lx.esc = E_HEX;
            t->lx.esc_need = 8;
            break;
        case 'N': t->lx.esc = E_NBRACE; return;
        default:
            if (c >= '0' && c <= '7') {
                t->lx.esc = E_OCT;
                t->lx.esc_val = (uint32_t)(c - '0');
                t->lx.esc_digits = 1;
                return;
            }
            lit_put(t, '\\'); /* unknown escapes are kept */
            lit_put(t, c);
            return;
        }
        t->lx.esc_val = 0;
        t->lx.esc_digits = 0;
        return;
    case E_HEX: {
        int h = hexval(c);
        if (h < 0) { /* invalid: Python rejects it; keep the text and go on */
            t->lx.esc = E_NONE;
            t->lx.lit_flags |= LF_INEXACT;
            for (uint8_t i = 0; i < t->lx.esc_len; i++)
                lit_put(t, (uint8_t)t->lx.esc_text[i]);
            goto again;
        }
        esc_text_add(t, c);
        t->lx.esc_val = (t->lx.esc_val << 4) | (uint32_t)h;
        if (++t->lx.esc_digits == t->lx.esc_need)
            esc_done(t, t->lx.esc_val);
        return;
    }
    case E_OCT:
        if (c >= '0' && c <= '7' && t->lx.esc_digits < 3) {
            esc_text_add(t, c);
            t->lx.esc_val = t->lx.esc_val * 8 + (uint32_t)(c - '0');
            if (++t->lx.esc_digits < 3)
                return;
            esc_done(t, t->lx.esc_val);
            return;
        }
        esc_done(t, t->lx.esc_val);
        goto again;
    case E_NBRACE:
        if (c == '{') {
            esc_text_add(t, c);
            t->lx.esc = E_NNAME;
            t->lx.raw_len = 0;
            return;
        }
        t->lx.esc = E_NONE; /* a malformed \N escape: Python rejects it */
        t->lx.lit_flags |= LF_INEXACT;
        lit_put(t, '\\');
        lit_put(t, 'N');
        goto again;
    case E_NNAME:
        if (c == '}') {
            bool known;
            esc_text_add(t, c);
            uint32_t cp = named_cp(t->lx.rawbuf, t->lx.raw_len, &known);
            if (!known)
                t->lx.lit_flags |= LF_INEXACT;
            esc_done(t, cp);
            return;
        }
        if (t->lx.raw_len < sizeof t->lx.rawbuf && c != t->lx.quote) {
            t->lx.rawbuf[t->lx.raw_len++] = c;
            esc_text_add(t, c);
            return;
        }
        t->lx.esc = E_NONE; /* too long or unterminated: not a name escape */
        t->lx.lit_flags |= LF_INEXACT;
        lit_put_cp(t, 0xFFFD);
        goto again;
    default: t->lx.esc = E_NONE; goto again;
    }
}

/* ------------------------------------------------------------------- tags */

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool name_start(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool name_char(uint8_t c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

static void tag_end(tpl *t)
{
    /* '-' or '+' right before the closing }} or %} is whitespace control,
     * not an operator (t->index is at the second byte of the closer) */
    if ((t->lx.last_op == '-' || t->lx.last_op == '+') && t->lx.last_op_index + 2 == t->index) {
        ev_ws_close(t);
        t->lx.ws_end = t->lx.last_op == '-';
    }
    ev_end(t);
    if (t->fd.cp.n) /* a capture is open */
        ev_cap_tag_end(t, t->lx.ws_end);
    t->lx.ws_end = false;
    t->lx.mode = ev_wants_raw(t) ? M_RAW : M_TEXT;
    t->lx.raw_collect = false;
    ts_segment(&t->ts.out, SG_TEXT); /* the tag was transparent: the text goes on */
}

static void num_add(tpl *t, unsigned d)
{
    if (t->lx.num > (INT64_MAX - (int64_t)d) / t->lx.num_base)
        t->lx.num_huge = true;
    else
        t->lx.num = t->lx.num * t->lx.num_base + (int64_t)d;
    if (t->lx.num_digits < 255)
        t->lx.num_digits++;
}

/* One byte of a number; false when it does not belong to it. */
static bool num_byte(tpl *t, uint8_t c)
{
    if (c == '_')
        return true;
    if (t->lx.num_base == 10) {
        if (c >= '0' && c <= '9') {
            num_add(t, (unsigned)(c - '0'));
            return true;
        }
        if (c == '.') {
            t->lx.sub = S_NUMDOT;
            return true;
        }
        if (c == 'e' || c == 'E') {
            t->lx.sub = S_FLOAT;
            t->lx.pend_c = c;
            return true;
        }
        if (t->lx.num == 0 && t->lx.num_digits == 1 &&
            (c == 'x' || c == 'X' || c == 'o' || c == 'O' || c == 'b' || c == 'B')) {
            t->lx.num_base = (c == 'x' || c == 'X') ? 16 : (c == 'o' || c == 'O') ? 8 : 2;
            return true;
        }
        return false;
    }
    int h = hexval(c);
    if (h < 0 || (unsigned)h >= t->lx.num_base)
        return false;
    num_add(t, (unsigned)h);
    return true;
}

/* A closing bracket: Jinja's lexer rejects one that closes nothing or
 * another kind of bracket ("unexpected ')'"). */
static void close_bracket(tpl *t, uint8_t c)
{
    uint8_t open = c == ')' ? '(' : c == ']' ? '[' : '{';
    if (t->lx.depth == 0) {
        tpl_report(t, TH_SYNTAX, t->index,
                   "unexpected '%c': it closes no bracket (Jinja rejects the template)", c);
        return;
    }
    t->lx.depth--;
    if (t->lx.depth < TPL_BSTACK && t->lx.bstack[t->lx.depth] != open)
        tpl_report(t, TH_SYNTAX, t->index,
                   "unexpected '%c': the bracket open is '%c' (Jinja rejects the template)", c,
                   t->lx.bstack[t->lx.depth]);
}

/* A one-byte operator or bracket (LC_OP; the token starts here). */
static inline __attribute__((always_inline)) void op_byte(tpl *t, uint8_t c)
{
    if (c == ')' || c == ']') {
        close_bracket(t, c);
    } else if (c == '(' || c == '[' || c == '{') {
        if (t->lx.depth < TPL_BSTACK)
            t->lx.bstack[t->lx.depth] = c;
        if (t->lx.depth < UINT32_MAX)
            t->lx.depth++;
    }
    emit_op(t, c);
}

/* A string literal opens with quote c (the token starts here). */
static void str_open(tpl *t, uint8_t c)
{
    t->lx.sub = S_STR;
    t->lx.quote = c;
    t->lx.lit_len = 0;
    t->lx.lit_full = 0;
    t->lx.lit_flags = 0;
    t->lx.lit_cr = false;
    t->lx.lit_esc[0] = '\0';
    t->lx.esc = E_NONE;
    ts_reset(&t->ts.lits, "string literal");
}

/* The operator p then c make (OPC_*, lex.h), or 0 when they make none. */
static inline uint8_t two_byte_op(uint8_t p, uint8_t c)
{
    switch (p) {
    case '*': return c == '*' ? OPC_POW : 0;
    case '/': return c == '/' ? OPC_FDIV : 0;
    case '=': return c == '=' ? OPC_EQ : 0;
    case '!': return c == '=' ? OPC_NE : 0;
    case '<': return c == '=' ? OPC_LE : 0;
    case '>': return c == '=' ? OPC_GE : 0;
    default: return 0;
    }
}

static inline __attribute__((always_inline)) void tag_byte(tpl *t, uint8_t c)
{
    if (t->lx.tag_fresh) {
        t->lx.tag_fresh = false;
        if (c == '-')
            ev_cap_trim(t);
        if (c == '-' || c == '+')
            return;
    }
again:
    switch (t->lx.sub) {
    case S_STR: str_byte(t, c); return;
    case S_NAME:
        if (name_char(c)) {
            if (t->lx.name_len < TPL_NAME_CAP)
                t->lx.name[t->lx.name_len++] = c;
            return;
        }
        t->lx.sub = S_NONE;
        emit_name(t);
        break;
    case S_NUM:
        if (num_byte(t, c))
            return;
        t->lx.sub = S_NONE;
        emit_num(t, false);
        break;
    case S_NUMDOT:
        if (c >= '0' && c <= '9') {
            t->lx.sub = S_FLOAT;
            t->lx.pend_c = c;
            return;
        }
        t->lx.sub = S_NONE;
        emit_num(t, false);
        tok_start(t);
        emit_op(t, '.');
        goto again;
    case S_FLOAT: {
        bool after_e = t->lx.pend_c == 'e' || t->lx.pend_c == 'E';
        if ((c >= '0' && c <= '9') || c == '_' || c == 'e' || c == 'E' ||
            (after_e && (c == '+' || c == '-'))) {
            t->lx.pend_c = c;
            return;
        }
        t->lx.sub = S_NONE;
        emit_num(t, true);
        break;
    }
    default: break;
    }
    if (t->lx.pend) {
        t->lx.pend = false;
        uint8_t p = t->lx.pend_c;
        if ((p == '%' || p == '}') && c == '}') {
            tag_end(t);
            return;
        }
        uint8_t op = two_byte_op(p, c);
        if (op) {
            emit_op(t, op);
            return;
        }
        if (p == '!')
            emit_other(t);
        else {
            if (p == '}')
                close_bracket(t, p); /* a lone '}' in {{ }} */
            emit_op(t, p);
        }
    }
    if (is_space(c))
        return;
    tok_start(t);
    if (name_start(c)) {
        t->lx.sub = S_NAME;
        t->lx.name[0] = c;
        t->lx.name_len = 1;
        return;
    }
    if (c >= '0' && c <= '9') {
        t->lx.sub = S_NUM;
        t->lx.num = c - '0';
        t->lx.num_huge = false;
        t->lx.num_base = 10;
        t->lx.num_digits = 1;
        return;
    }
    switch (c) {
    case '\'':
    case '"': str_open(t, c); return;
    case '*':
    case '/':
    case '=':
    case '!':
    case '<':
    case '>':
        t->lx.pend = true;
        t->lx.pend_c = c;
        return;
    case '%':
        if (t->lx.tagkind == TAG_BLOCK && t->lx.depth == 0) {
            t->lx.pend = true;
            t->lx.pend_c = c;
            return;
        }
        emit_op(t, c);
        return;
    case '}':
        if (t->lx.depth == 0 && t->lx.tagkind == TAG_VAR) {
            t->lx.pend = true;
            t->lx.pend_c = c;
            return;
        }
        close_bracket(t, c);
        emit_op(t, c);
        return;
    default:
        if (t->lx.cls[c] & LC_OP)
            op_byte(t, c);
        else
            emit_other(t);
        return;
    }
}

/* ------------------------------------------------------------ byte runs */

/* The end of the run of name bytes ([A-Za-z0-9_]) from j, before n; and of
 * plain string literal bytes (LC_STR) from j, before lim, with *hi OR-ed
 * with 0x80 when the run holds a non-ASCII byte. Sixteen bytes a step where
 * SSE2 is at hand, the class table for the rest. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static inline __attribute__((always_inline)) size_t name_end(const uint8_t *cls, const uint8_t *p,
                                                             size_t j, size_t n)
{
    const __m128i c20 = _mm_set1_epi8(0x20), a1 = _mm_set1_epi8('a' - 1),
                  z1 = _mm_set1_epi8('z' + 1);
    const __m128i d1 = _mm_set1_epi8('0' - 1), d2 = _mm_set1_epi8('9' + 1), us = _mm_set1_epi8('_');
    for (; n - j >= 16; j += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
        __m128i l = _mm_or_si128(a, c20); /* signed: non-ASCII is negative, never a letter */
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(l, a1), _mm_cmplt_epi8(l, z1));
        __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(a, d1), _mm_cmplt_epi8(a, d2));
        __m128i ok = _mm_or_si128(_mm_or_si128(letter, digit), _mm_cmpeq_epi8(a, us));
        unsigned m = (unsigned)_mm_movemask_epi8(ok);
        if (m != 0xFFFFu)
            return j + (unsigned)__builtin_ctz(~m);
    }
    while (j < n && (cls[p[j]] & LC_NAME))
        j++;
    return j;
}

static size_t str_end_run(const uint8_t *cls, const uint8_t *p, size_t j, size_t lim, uint8_t *hi)
{
    const __m128i q1 = _mm_set1_epi8('\''), q2 = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    const __m128i cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
    for (; lim - j >= 16; j += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
        __m128i stop =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(a, q1), _mm_cmpeq_epi8(a, q2)),
                         _mm_or_si128(_mm_cmpeq_epi8(a, bs),
                                      _mm_or_si128(_mm_cmpeq_epi8(a, cr), _mm_cmpeq_epi8(a, lf))));
        unsigned m = (unsigned)_mm_movemask_epi8(stop), h = (unsigned)_mm_movemask_epi8(a);
        if (m) {
            unsigned k = (unsigned)__builtin_ctz(m);
            if (h & ((1u << k) - 1u))
                *hi |= 0x80;
            return j + k;
        }
        if (h)
            *hi |= 0x80;
    }
    while (j < lim && (cls[p[j]] & LC_STR))
        *hi |= p[j++];
    return j;
}
#else
static inline __attribute__((always_inline)) size_t name_end(const uint8_t *cls, const uint8_t *p,
                                                             size_t j, size_t n)
{
    while (j < n && (cls[p[j]] & LC_NAME))
        j++;
    return j;
}

static size_t str_end_run(const uint8_t *cls, const uint8_t *p, size_t j, size_t lim, uint8_t *hi)
{
    while (j < lim && (cls[p[j]] & LC_STR))
        *hi |= p[j++];
    return j;
}
#endif

/* {% raw %} ... {% endraw %}: text until {%[-+]? endraw [-+]?%} */
static bool is_endraw(const uint8_t *b, uint32_t n)
{
    uint32_t i = 2; /* past "{%" */
    if (i < n && (b[i] == '-' || b[i] == '+'))
        i++;
    while (i < n && is_space(b[i]))
        i++;
    if (n - i < 6 || memcmp(b + i, "endraw", 6) != 0)
        return false;
    i += 6;
    while (i < n && is_space(b[i]))
        i++;
    if (i < n && (b[i] == '-' || b[i] == '+'))
        i++;
    return n - i == 2 && b[i] == '%' && b[i + 1] == '}';
}

static void raw_mode_byte(tpl *t, uint8_t c)
{
    ts_run(t, &t->ts.out, &c, 1, t->index, false);
    if (c == '{') {
        t->lx.raw_collect = true;
        t->lx.raw_len = 0;
    }
    if (!t->lx.raw_collect)
        return;
    if (t->lx.raw_len == sizeof t->lx.rawbuf) {
        t->lx.raw_collect = false;
        return;
    }
    t->lx.rawbuf[t->lx.raw_len++] = c;
    if (t->lx.raw_len == 2 && c != '%')
        t->lx.raw_collect = false;
    if (c == '}' && t->lx.raw_collect) {
        t->lx.raw_collect = false;
        if (is_endraw(t->lx.rawbuf, t->lx.raw_len)) {
            t->lx.mode = M_TEXT;
            ts_segment(&t->ts.out, SG_TEXT);
        }
    }
}

static void open_tag(tpl *t, uint8_t kind)
{
    if (t->first_tag < 0)
        t->first_tag = (int64_t)t->lx.tag_index;
    t->lx.mode = M_TAG;
    t->lx.tagkind = kind;
    t->lx.depth = 0;
    t->lx.last_op = 0;
    t->lx.tag_fresh = true;
    t->lx.sub = S_NONE;
    ev_begin(t, kind, t->lx.tag_index);
}

static void lex_byte(tpl *t, uint8_t c)
{
    switch (t->lx.mode) {
    case M_TEXT:
        if (t->lx.pend) {
            t->lx.pend = false;
            if (c == '{' || c == '%') {
                open_tag(t, c == '{' ? TAG_VAR : TAG_BLOCK);
                return;
            }
            if (c == '#') {
                t->lx.mode = M_COMMENT; /* transparent: the output stream goes on */
                t->lx.cm_first = true;
                return;
            }
            ts_run(t, &t->ts.out, (const uint8_t *)"{", 1, t->index - 1, false);
            ev_cap_text(t, (const uint8_t *)"{", 1);
        }
        if (c == '{') {
            t->lx.pend = true;
            t->lx.tag_index = t->index;
            return;
        }
        ts_run(t, &t->ts.out, &c, 1, t->index, false);
        ev_cap_text(t, &c, 1);
        return;
    case M_COMMENT:
        if (t->lx.cm_first) { /* {#- trims the text before it */
            t->lx.cm_first = false;
            if (c == '-')
                ev_cap_trim(t);
        }
        if (t->lx.pend) {
            t->lx.pend = false;
            if (c == '}') {
                t->lx.mode = M_TEXT;
                ts_segment(&t->ts.out, SG_TEXT);
                ev_cap_tag_end(t, t->lx.cm_dash); /* -#} */
                return;
            }
        }
        if (c == '#') {
            t->lx.pend = true;
            t->lx.pend_c = c;
            t->lx.cm_dash = t->lx.cm_last == '-';
        }
        t->lx.cm_last = c;
        return;
    default: raw_mode_byte(t, c); return; /* M_RAW (lx_feed takes tags itself) */
    }
}

/* Inside a tag, the tokens the byte loop would take a byte at a time but
 * that need no lookahead: whitespace, names (emitted at the byte after
 * them) and string literals without escapes or line breaks (emitted at
 * their closing quote, their text appended in one piece and seen by the
 * raw scanner in one piece). Returns how many bytes it took, with t->index
 * moved past them (0: the byte loop takes the next byte). Stops where the
 * byte loop must decide: operators, numbers, escapes, non-ASCII in a name,
 * a literal past its kept prefix, the end of the bytes. Entered with the
 * raw scanner idle, no pending operator and not at a tag's first byte. */
static const uint8_t run_class[] = {[S_NONE] = LC_SPACE | LC_START | LC_QUOTE | LC_OP | LC_PEND,
                                    [S_NAME] = LC_NAME,
                                    [S_STR] = LC_STR};
_Static_assert(sizeof run_class == S_STR + 1, "one entry per sub-state up to S_STR");

/* The one-character escapes of a string literal and the byte each stands
 * for (str_byte's E_START cases that put one byte); 0: another kind. */
static const uint8_t simple_esc[256] = {
    ['\\'] = '\\', ['\''] = '\'', ['"'] = '"', ['a'] = 7, ['b'] = 8,
    ['f'] = 12,    ['n'] = 10,    ['r'] = 13,  ['t'] = 9, ['v'] = 11};

static size_t tag_run(tpl *t, const uint8_t *p, size_t n)
{
    const uint8_t *cls = t->lx.cls;
    const uint64_t base = t->index;
    size_t k = 0;
    const uint8_t *act = t->lx.act;
    while (k < n && !t->nomem) {
    next:
        switch (__builtin_expect(t->lx.sub, S_NONE)) {
        case S_NONE:
        none:
            /* token after token, until one the byte loop must take */
            for (;;) {
                while (k < n && (cls[p[k]] & LC_SPACE))
                    k++;
                if (k == n || t->nomem)
                    goto out;
                const uint8_t c = p[k];
                const uint8_t action = act[c];
                if (action == LA_NAME) { /* the commonest */
                    t->index = base + k;
                    tok_start(t);
                    size_t j = name_end(cls, p, k, n);
                    if (j < n && p[j] < 0x80) {
                        /* the whole name is here: no copy */
                        t->index = base + j;
                        emit_name_at(t, p + k,
                                     j - k < TPL_NAME_CAP ? (uint32_t)(j - k) : TPL_NAME_CAP,
                                     LF_ASCII);
                        k = j;
                        continue;
                    }
                    t->lx.sub = S_NAME; /* it may go on: the buffer */
                    t->lx.name_len = 0;
                    goto next;
                }
                switch (action) {
                case LA_SIGN:
                    if (n - k > 2 && t->lx.depth == 0 && p[k + 2] == '}' &&
                        p[k + 1] == (t->lx.tagkind == TAG_BLOCK ? '%' : '}')) {
                        /* '-%}' / '-}}': whitespace control, not an operator;
                         * the evaluator never sees it (tag_end's ev_ws_close
                         * is for a '-' the byte loop emitted) */
                        t->lx.last_op = 0;
                        t->lx.ws_end = c == '-';
                        k++;
                        continue;
                    }
                    /* an operator */
                    GGUFLINT_FALLTHROUGH;
                case LA_OP:
                    t->index = base + k;
                    tok_start(t);
                    op_byte(t, c);
                    k++;
                    continue;
                case LA_QUOTE:
                    t->index = base + k;
                    tok_start(t);
                    str_open(t, c);
                    k++;
                    goto str; /* its text follows */
                case LA_PEND: {
                    /* the closer, or a two-byte operator, when both bytes
                     * are here; the rarer cases ('!' alone, a stray '}', '%'
                     * as an operator) stay with the byte loop */
                    if (n - k < 2)
                        goto out;
                    const uint8_t d = p[k + 1];
                    if (t->lx.depth == 0 && d == '}' &&
                        c == (t->lx.tagkind == TAG_BLOCK ? '%' : '}')) {
                        t->index = base + k + 1; /* tag_end is at the closer's second byte */
                        tag_end(t);
                        k += 2;
                        goto out;
                    }
                    /* a '%' or '}' that did not close, and '!' alone: the byte loop's */
                    const uint8_t two = two_byte_op(c, d);
                    if (c == '%' || c == '}' || (c == '!' && !two))
                        goto out;
                    t->index = base + k;
                    tok_start(t);
                    emit_op(t, two ? two : c);
                    k += two ? 2 : 1;
                    continue;
                }
                default: goto out;
                }
            }
        case S_NAME: {
            size_t j = name_end(cls, p, k, n);
            uint32_t room = TPL_NAME_CAP - t->lx.name_len;
            uint32_t put = j - k < room ? (uint32_t)(j - k) : room;
            memcpy(t->lx.name + t->lx.name_len, p + k, put);
            t->lx.name_len += put;
            k = j;
            if (k == n || p[k] >= 0x80)
                goto out; /* the name may go on (next bytes, or non-ASCII) */
            t->index = base + k;
            t->lx.sub = S_NONE;
            emit_name(t);
            break;
        }
        case S_STR:
        str : {
            if (t->lx.esc != E_NONE)
                goto out;
            /* within the kept prefix the run is appended; past it (room 0)
             * it goes to the LIT stream directly, as lit_put does a byte at
             * a time. Never scanned further than it is taken, so a long
             * literal costs O(1) per byte. */
            const size_t room = TPL_CONST_CAP - t->lx.lit_len;
            const size_t lim = room && n - k > room ? k + room : n;
            uint8_t hi = 0; /* any byte >= 0x80: the raw scanner must see the run */
            size_t j = str_end_run(cls, p, k, lim, &hi);
            if (j > k) {
                t->index = base + k;
                if (room) {
                    if (!lit_room(t, j - k))
                        goto out;
                    if (hi & 0x80)
                        raw_run(t, p + k, j - k);
                    memcpy(t->lx.lit + t->lx.lit_len, p + k, j - k);
                    t->lx.lit_len += (uint32_t)(j - k);
                } else {
                    raw_run(t, p + k, j - k);
                    lit_scan_prefix(t);
                    ts_run(t, &t->ts.lits, p + k, j - k, base + k, false);
                    t->lx.lit_flags |= LF_TRUNC;
                }
                t->lx.lit_full += j - k;
                t->lx.lit_cr = false;
                k = j;
                if (!raw_idle(t))
                    goto out; /* a sequence cut short: the byte loop reports it */
            }
            if (n - k >= 2 && p[k] == '\\' && simple_esc[p[k + 1]] &&
                t->lx.lit_len < TPL_CONST_CAP) {
                /* \n, \t, \\, \' ... within the kept prefix: the byte it
                 * stands for, as str_byte puts it */
                if (!lit_room(t, 1))
                    goto out;
                t->lx.lit[t->lx.lit_len++] = simple_esc[p[k + 1]];
                t->lx.lit_full++;
                t->lx.lit_cr = false;
                k += 2;
                continue;
            }
            if (k == n || p[k] != t->lx.quote)
                goto out;
            t->index = base + k;
            t->lx.sub = S_NONE;
            t->lx.lit_cr = false;
            str_end(t);
            k++;
            goto none;
        }
        default: goto out;
        }
    }
out:
    t->index = base + k;
    return k;
}

/* One byte of template at t->index, the plain way: the byte loop, which
 * is the reference every fast path of lx_feed agrees with (the raw
 * scanner first, then the lexer of the mode; in_tag: the mode is M_TAG, a
 * constant where lx_feed knows it). */
static inline __attribute__((always_inline)) void lex_one(tpl *t, uint8_t c, bool in_tag)
{
    if (c >= 0x80 || !raw_idle(t))
        raw_byte(t, c);
    if (in_tag)
        tag_byte(t, c);
    else
        lex_byte(t, c);
    t->index++;
}

/* n bytes of template at t->index: runs of plain text (and comment / raw
 * bodies) go to the scanners in one piece, inside tags the runs tag_run
 * takes, other bytes one at a time (lex_one). In the reference mode (fast
 * false) every byte goes through lex_one. */
void lx_feed(tpl *t, const uint8_t *p, uint64_t n)
{
    const bool fast = TPL_FAST(t);
    uint64_t i = 0;
    while (i < n && !t->nomem) {
        if (t->lx.mode == M_TAG) {
            /* a tag: its own loop, until the tag ends or the bytes do */
            do {
                const uint8_t c = p[i];
                if (c < 0x80 && raw_idle(t) && (t->lx.cls[c] & run_class[t->lx.sub]) &&
                    !t->lx.pend && !t->lx.tag_fresh && fast) {
                    size_t run = tag_run(t, p + i, (size_t)(n - i));
                    if (run > 0) {
                        i += run; /* tag_run moved t->index */
                        continue;
                    }
                }
                lex_one(t, c, true);
                i++;
            } while (i < n && t->lx.mode == M_TAG && !t->nomem);
            continue;
        }
        /* runs of plain text (and comment / raw bodies) up to the next
         * byte that can change the lexer's state */
        uint8_t stop = t->lx.mode == M_TEXT || (t->lx.mode == M_RAW && !t->lx.raw_collect) ? '{'
                       : t->lx.mode == M_COMMENT                                           ? '#'
                                                                                           : 0;
        if (fast && stop && !t->lx.pend) {
            size_t run;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
            /* the text between two tags is mostly a line break and an
             * indent: one 16-byte step finds its end without a call */
            unsigned m = 0;
            if (n - i >= 16)
                m = (unsigned)_mm_movemask_epi8(
                    _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)),
                                   _mm_set1_epi8((char)stop)));
            if (m) {
                run = (unsigned)__builtin_ctz(m);
            } else
#endif
            {
                const uint8_t *b = memchr(p + i, stop, (size_t)(n - i));
                run = b ? (size_t)(b - (p + i)) : (size_t)(n - i);
            }
            if (run > 0) {
                if (!raw_idle(t) || !utf8_is_ascii(p + i, run))
                    raw_run(t, p + i, run);
                if (t->lx.mode != M_COMMENT) {
                    ts_run(t, &t->ts.out, p + i, run, t->index, false);
                    if (t->lx.mode == M_TEXT)
                        ev_cap_text(t, p + i, run);
                } else {
                    if (t->lx.cm_first) { /* {#- */
                        t->lx.cm_first = false;
                        if (p[i] == '-')
                            ev_cap_trim(t);
                    }
                    t->lx.cm_last = p[i + run - 1];
                }
                t->index += run;
                i += run;
            }
            /* a tag's opener with both bytes here, and its whitespace
             * control byte: taken at once (lex_byte and tag_byte take them
             * a byte at a time otherwise, to the same effect) */
            if (t->lx.mode == M_TEXT && n - i >= 2 && p[i] == '{' && raw_idle(t) &&
                (p[i + 1] == '{' || p[i + 1] == '%' || p[i + 1] == '#')) {
                t->lx.tag_index = t->index;
                const uint8_t c = p[i + 1];
                t->index += 2;
                i += 2;
                if (c == '#') {
                    t->lx.mode = M_COMMENT; /* transparent: the output stream goes on */
                    t->lx.cm_first = true;
                    continue;
                }
                open_tag(t, c == '{' ? TAG_VAR : TAG_BLOCK);
                if (i < n) {
                    t->lx.tag_fresh = false;
                    if (p[i] == '-' || p[i] == '+') {
                        if (p[i] == '-')
                            ev_cap_trim(t);
                        t->index++;
                        i++;
                    }
                    /* the tag's tokens straight away, as the tag loop
                     * below would take them */
                    if (i < n && (t->lx.cls[p[i]] & run_class[S_NONE]))
                        i += tag_run(t, p + i, (size_t)(n - i));
                }
                continue;
            }
            if (run > 0)
                continue;
        }
        lex_one(t, p[i], false);
        i++;
    }
}

/* The template ended: flush what the lexer holds, report what is left open. */
void lx_end(tpl *t)
{
    switch (t->lx.mode) {
    case M_TEXT:
        if (t->lx.pend)
            ts_run(t, &t->ts.out, (const uint8_t *)"{", 1, t->index - 1, false);
        break;
    case M_COMMENT:
        tpl_report(t, TH_SYNTAX, t->lx.tag_index,
                   "the template ends inside a {# comment #} (Jinja rejects it)");
        break;
    case M_RAW:
        tpl_report(t, TH_SYNTAX, t->lx.tag_index,
                   "the template ends inside a {%% raw %%} block (Jinja rejects it)");
        break;
    default:
        if (t->lx.sub == S_STR) {
            tpl_report(t, TH_SYNTAX, t->lx.tok_index,
                       "the template ends inside a string literal (Jinja rejects it)");
            lit_scan_prefix(t);
            ts_end(t, &t->ts.lits);
        } else {
            tpl_report(t, TH_SYNTAX, t->lx.tag_index,
                       "the template ends inside a %s tag "
                       "(Jinja rejects it)",
                       t->lx.tagkind == TAG_VAR ? "{{ }}" : "{% %}");
            if (t->lx.sub == S_NAME)
                emit_name(t);
            else if (t->lx.sub == S_NUM || t->lx.sub == S_NUMDOT)
                emit_num(t, false);
            if (t->lx.pend && t->lx.pend_c != '%' && t->lx.pend_c != '}')
                emit_op(t, t->lx.pend_c);
        }
        t->lx.sub = S_NONE;
        ev_end(t);
        break;
    }
    t->lx.pend = false;
    t->lx.mode = M_TEXT;
}
