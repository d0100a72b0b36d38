/* template_lex.c - the analyser's entry points and its lexer: a byte-at-a-time
 * state machine (so chunk boundaries of array-typed templates do not matter)
 * that splits the template into text, comments, raw blocks and tags, turns
 * tags into tokens for template_eval.c and resolves string literals the way
 * Jinja does (Python unicode-escape: \xhh, \uhhhh, \Uhhhhhhhh, octal, \N{...},
 * the single-character escapes), noting escapes that spell identifier
 * characters. Tags end at }} / %} only outside brackets, as in Jinja's lexer.
 * No recursion, no allocation per token: the literal buffer grows to
 * TPL_CONST_CAP once and is reused. */
#include "template/template_impl.h"

#include <stdlib.h>
#include <string.h>

enum { M_TEXT, M_COMMENT, M_TAG, M_RAW };
enum { S_NONE, S_NAME, S_NUM, S_NUMDOT, S_FLOAT, S_STR };
enum { E_NONE, E_START, E_HEX, E_OCT, E_NBRACE, E_NNAME };

tpl *tpl_new(void)
{
    tpl *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->vars = calloc(TPL_VARS_MAX, sizeof *t->vars);
    /* small first buffers, so no view ever points into NULL */
    t->lit = malloc(256);
    t->ar = malloc(1024);
    t->vs = malloc(1024);
    t->lit_cap = 256;
    t->ar_cap = t->vs_cap = 1024;
    if (!t->vars || !t->lit || !t->ar || !t->vs || !ac_init(t)) {
        tpl_free(t);
        return NULL;
    }
    words_init(t);
    t->budget = t->budget_given = TPL_BUDGET_BASE;
    return t;
}

void tpl_free(tpl *t)
{
    if (!t)
        return;
    free(t->ac_next);
    free(t->ac_out);
    free(t->ac_link);
    free(t->vars);
    free(t->lit);
    free(t->ar);
    free(t->vs);
    free(t);
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

void tpl_begin(tpl *t, uint64_t total_len)
{
    for (int k = 0; k < TH__COUNT; k++)
        if (t->hit_mask & (1u << k))
            t->hits[k].have = false;
    t->hit_mask = 0;
    t->total = total_len;
    t->index = 0;
    t->first_tag = -1;
    t->u8_need = 0;
    t->hist_n = 0;
    ts_reset(&t->out, "text");
    ts_segment(&t->out, SG_TEXT);
    ts_reset(&t->lits, "string literal");
    t->mode = M_TEXT;
    t->sub = S_NONE;
    t->pend = false;
    t->raw_collect = false;
    t->esc = E_NONE;
    memset(&t->cur, 0, sizeof t->cur);
    ev_template_begin(t);
}

/* ---------------------------------------------------------------- tokens */

static void tok_init(const tpl *t, tok *k, uint8_t kind)
{
    memset(k, 0, sizeof *k);
    k->kind = kind;
    k->pos = t->tok_pos;
    k->index = t->tok_index;
}

static void tok_start(tpl *t)
{
    t->tok_pos = t->cur;
    t->tok_index = t->index;
}

static void emit_op(tpl *t, uint8_t op)
{
    tok k;
    tok_init(t, &k, TK_OP);
    k.op = op;
    ev_tok(t, &k);
}

static void emit_other(tpl *t)
{
    tok k;
    tok_init(t, &k, TK_OTHER);
    ev_tok(t, &k);
}

static void emit_name(tpl *t)
{
    tok k;
    tok_init(t, &k, TK_NAME);
    k.s = t->name;
    k.n = t->name_len;
    k.hash = name_hash(t->name, t->name_len);
    k.word = (uint16_t)word_lookup(t, t->name, t->name_len, k.hash);
    ev_tok(t, &k);
}

static void emit_num(tpl *t, bool is_float)
{
    tok k;
    tok_init(t, &k, is_float ? TK_FLOAT : TK_INT);
    k.ival = t->num;
    k.huge = t->num_huge;
    ev_tok(t, &k);
}

/* ---------------------------------------------------------- string literals */

/* The literal's kept bytes go to the LIT stream in one run when it ends
 * (byte i at the literal's first index + 1 + i: exact without escapes). */
static void lit_scan_prefix(tpl *t)
{
    if (t->lit_len && !(t->lit_flags & LF_SCANNED))
        ts_run(t, &t->lits, t->lit, t->lit_len, t->tok_index + 1, false);
    t->lit_flags |= LF_SCANNED;
}

static void lit_put(tpl *t, uint8_t c)
{
    t->lit_full++;
    if (t->lit_len >= TPL_CONST_CAP) {
        /* past the kept prefix: scan it first, then the rest byte by byte */
        lit_scan_prefix(t);
        ts_run(t, &t->lits, &c, 1, t->index, false);
        t->lit_flags |= LF_TRUNC;
        return;
    }
    if (t->lit_len == t->lit_cap) {
        uint32_t nc = t->lit_cap ? t->lit_cap * 2 : 256;
        if (nc > TPL_CONST_CAP)
            nc = TPL_CONST_CAP;
        uint8_t *p = realloc(t->lit, nc);
        if (!p) {
            t->nomem = true;
            return;
        }
        t->lit = p;
        t->lit_cap = nc;
    }
    t->lit[t->lit_len++] = c;
}

static void lit_put_cp(tpl *t, uint32_t cp)
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        cp = 0xFFFD; /* Python keeps a lone surrogate, or rejects the escape */
        t->lit_flags |= LF_INEXACT;
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
    if (t->esc_len + 1u < sizeof t->esc_text)
        t->esc_text[t->esc_len++] = (char)c;
    t->esc_text[t->esc_len] = '\0';
}

/* A numeric or named escape resolved to cp. */
static void esc_done(tpl *t, uint32_t cp)
{
    t->esc = E_NONE;
    const char *name;
    if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
        cp == '_' || cp == '.') {
        if (!(t->lit_flags & LF_ESC_IDENT))
            memcpy(t->lit_esc, t->esc_text, sizeof t->lit_esc);
        t->lit_flags |= LF_ESC_IDENT;
    } else if (cp_invisible(cp, &name)) {
        hit(t, TH_INVISIBLE, t->cur, t->index,
            "escape '%s' in a string literal produces the invisible character U+%04X (%s)",
            t->esc_text, (unsigned)cp, name);
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
        {"SPACE", ' '}, {"EXCLAMATION MARK", '!'}, {"QUOTATION MARK", '"'},
        {"NUMBER SIGN", '#'}, {"DOLLAR SIGN", '$'}, {"PERCENT SIGN", '%'}, {"AMPERSAND", '&'},
        {"APOSTROPHE", '\''}, {"LEFT PARENTHESIS", '('}, {"RIGHT PARENTHESIS", ')'},
        {"ASTERISK", '*'}, {"PLUS SIGN", '+'}, {"COMMA", ','}, {"HYPHEN-MINUS", '-'},
        {"FULL STOP", '.'}, {"SOLIDUS", '/'}, {"COLON", ':'}, {"SEMICOLON", ';'},
        {"LESS-THAN SIGN", '<'}, {"EQUALS SIGN", '='}, {"GREATER-THAN SIGN", '>'},
        {"QUESTION MARK", '?'}, {"COMMERCIAL AT", '@'}, {"LEFT SQUARE BRACKET", '['},
        {"REVERSE SOLIDUS", '\\'}, {"RIGHT SQUARE BRACKET", ']'}, {"CIRCUMFLEX ACCENT", '^'},
        {"LOW LINE", '_'}, {"GRAVE ACCENT", '`'}, {"LEFT CURLY BRACKET", '{'},
        {"VERTICAL LINE", '|'}, {"RIGHT CURLY BRACKET", '}'}, {"TILDE", '~'},
        {"NULL", 0}, {"CHARACTER TABULATION", 9}, {"LINE FEED", 10}, {"CARRIAGE RETURN", 13},
        {"FULLWIDTH LOW LINE", 0xFF3F}, {"ZERO WIDTH SPACE", 0x200B},
        {"ZERO WIDTH NON-JOINER", 0x200C}, {"ZERO WIDTH JOINER", 0x200D},
        {"WORD JOINER", 0x2060}, {"ZERO WIDTH NO-BREAK SPACE", 0xFEFF},
        {"LEFT-TO-RIGHT OVERRIDE", 0x202D}, {"RIGHT-TO-LEFT OVERRIDE", 0x202E},
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
    k.s = t->lit;
    k.n = t->lit_len;
    k.full = t->lit_full;
    k.lflags = t->lit_flags;
    memcpy(k.esc, t->lit_esc, sizeof k.esc);
    lit_scan_prefix(t);
    ts_end(t, &t->lits);
    ev_tok(t, &k);
}

static void str_byte(tpl *t, uint8_t c)
{
again:
    switch (t->esc) {
    case E_NONE:
        if (c == t->quote) {
            t->sub = S_NONE;
            str_end(t);
        } else if (c == '\\') {
            t->esc = E_START;
            t->esc_len = 0;
            esc_text_add(t, c);
        } else if (c == '\n' && t->lit_cr) {
            /* the LF of a CR LF, already put as one LF */
        } else {
            lit_put(t, c == '\r' ? '\n' : c); /* Jinja normalises newlines first */
        }
        t->lit_cr = c == '\r';
        return;
    case E_START:
        esc_text_add(t, c);
        t->esc = E_NONE;
        t->lit_cr = c == '\r';
        if (c >= 0x80) /* Jinja escapes it to \xNN first: the backslash stays */
            t->lit_flags |= LF_INEXACT;
        switch (c) {
        case '\n': case '\r': return; /* line continuation */
        case '\\': case '\'': case '"': lit_put(t, c); return;
        case 'a': lit_put(t, 7); return;
        case 'b': lit_put(t, 8); return;
        case 'f': lit_put(t, 12); return;
        case 'n': lit_put(t, 10); return;
        case 'r': lit_put(t, 13); return;
        case 't': lit_put(t, 9); return;
        case 'v': lit_put(t, 11); return;
        case 'x': t->esc = E_HEX; t->esc_need = 2; break;
        case 'u': t->esc = E_HEX; t->esc_need = 4; break;
        case 'U': t->esc = E_HEX; t->esc_need = 8; break;
        case 'N': t->esc = E_NBRACE; return;
        default:
            if (c >= '0' && c <= '7') {
                t->esc = E_OCT;
                t->esc_val = (uint32_t)(c - '0');
                t->esc_digits = 1;
                return;
            }
            lit_put(t, '\\'); /* unknown escapes are kept */
            lit_put(t, c);
            return;
        }
        t->esc_val = 0;
        t->esc_digits = 0;
        return;
    case E_HEX: {
        int h = hexval(c);
        if (h < 0) { /* invalid: Python rejects it; keep the text and go on */
            t->esc = E_NONE;
            t->lit_flags |= LF_INEXACT;
            for (uint8_t i = 0; i < t->esc_len; i++)
                lit_put(t, (uint8_t)t->esc_text[i]);
            goto again;
        }
        esc_text_add(t, c);
        t->esc_val = (t->esc_val << 4) | (uint32_t)h;
        if (++t->esc_digits == t->esc_need)
            esc_done(t, t->esc_val);
        return;
    }
    case E_OCT:
        if (c >= '0' && c <= '7' && t->esc_digits < 3) {
            esc_text_add(t, c);
            t->esc_val = t->esc_val * 8 + (uint32_t)(c - '0');
            if (++t->esc_digits < 3)
                return;
            esc_done(t, t->esc_val);
            return;
        }
        esc_done(t, t->esc_val);
        goto again;
    case E_NBRACE:
        if (c == '{') {
            esc_text_add(t, c);
            t->esc = E_NNAME;
            t->raw_len = 0;
            return;
        }
        t->esc = E_NONE; /* a malformed \N escape: Python rejects it */
        t->lit_flags |= LF_INEXACT;
        lit_put(t, '\\');
        lit_put(t, 'N');
        goto again;
    case E_NNAME:
        if (c == '}') {
            bool known;
            esc_text_add(t, c);
            uint32_t cp = named_cp(t->rawbuf, t->raw_len, &known);
            if (!known)
                t->lit_flags |= LF_INEXACT;
            esc_done(t, cp);
            return;
        }
        if (t->raw_len < sizeof t->rawbuf && c != t->quote) {
            t->rawbuf[t->raw_len++] = c;
            esc_text_add(t, c);
            return;
        }
        t->esc = E_NONE; /* too long or unterminated: not a name escape */
        t->lit_flags |= LF_INEXACT;
        lit_put_cp(t, 0xFFFD);
        goto again;
    default:
        t->esc = E_NONE;
        goto again;
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
    ev_end(t);
    t->mode = ev_wants_raw(t) ? M_RAW : M_TEXT;
    t->raw_collect = false;
    ts_segment(&t->out, SG_TEXT); /* the tag was transparent: the text goes on */
}

static void num_add(tpl *t, unsigned d)
{
    if (t->num > (INT64_MAX - (int64_t)d) / t->num_base)
        t->num_huge = true;
    else
        t->num = t->num * t->num_base + (int64_t)d;
    if (t->num_digits < 255)
        t->num_digits++;
}

/* One byte of a number; false when it does not belong to it. */
static bool num_byte(tpl *t, uint8_t c)
{
    if (c == '_')
        return true;
    if (t->num_base == 10) {
        if (c >= '0' && c <= '9') {
            num_add(t, (unsigned)(c - '0'));
            return true;
        }
        if (c == '.') {
            t->sub = S_NUMDOT;
            return true;
        }
        if (c == 'e' || c == 'E') {
            t->sub = S_FLOAT;
            t->pend_c = c;
            return true;
        }
        if (t->num == 0 && t->num_digits == 1 && (c == 'x' || c == 'X' || c == 'o' ||
                                                  c == 'O' || c == 'b' || c == 'B')) {
            t->num_base = (c == 'x' || c == 'X') ? 16 : (c == 'o' || c == 'O') ? 8 : 2;
            return true;
        }
        return false;
    }
    int h = hexval(c);
    if (h < 0 || (unsigned)h >= t->num_base)
        return false;
    num_add(t, (unsigned)h);
    return true;
}

static void tag_byte(tpl *t, uint8_t c)
{
    if (t->tag_fresh) {
        t->tag_fresh = false;
        if (c == '-' || c == '+')
            return;
    }
again:
    switch (t->sub) {
    case S_STR:
        str_byte(t, c);
        return;
    case S_NAME:
        if (name_char(c)) {
            if (t->name_len < TPL_NAME_CAP)
                t->name[t->name_len++] = c;
            return;
        }
        t->sub = S_NONE;
        emit_name(t);
        break;
    case S_NUM:
        if (num_byte(t, c))
            return;
        t->sub = S_NONE;
        emit_num(t, false);
        break;
    case S_NUMDOT:
        if (c >= '0' && c <= '9') {
            t->sub = S_FLOAT;
            t->pend_c = c;
            return;
        }
        t->sub = S_NONE;
        emit_num(t, false);
        tok_start(t);
        emit_op(t, '.');
        goto again;
    case S_FLOAT: {
        bool after_e = t->pend_c == 'e' || t->pend_c == 'E';
        if ((c >= '0' && c <= '9') || c == '_' || c == 'e' || c == 'E' ||
            (after_e && (c == '+' || c == '-'))) {
            t->pend_c = c;
            return;
        }
        t->sub = S_NONE;
        emit_num(t, true);
        break;
    }
    default:
        break;
    }
    if (t->pend) {
        t->pend = false;
        uint8_t p = t->pend_c;
        switch (p) {
        case '*': if (c == '*') { emit_op(t, OPC_POW); return; } break;
        case '/': if (c == '/') { emit_op(t, OPC_FDIV); return; } break;
        case '=': if (c == '=') { emit_op(t, OPC_EQ); return; } break;
        case '!': if (c == '=') { emit_op(t, OPC_NE); return; } break;
        case '<': if (c == '=') { emit_op(t, OPC_LE); return; } break;
        case '>': if (c == '=') { emit_op(t, OPC_GE); return; } break;
        case '%': case '}':
            if (c == '}') {
                tag_end(t);
                return;
            }
            break;
        default: break;
        }
        if (p == '!')
            emit_other(t);
        else
            emit_op(t, p);
    }
    if (is_space(c))
        return;
    tok_start(t);
    if (name_start(c)) {
        t->sub = S_NAME;
        t->name[0] = c;
        t->name_len = 1;
        return;
    }
    if (c >= '0' && c <= '9') {
        t->sub = S_NUM;
        t->num = c - '0';
        t->num_huge = false;
        t->num_base = 10;
        t->num_digits = 1;
        return;
    }
    switch (c) {
    case '\'': case '"':
        t->sub = S_STR;
        t->quote = c;
        t->lit_len = 0;
        t->lit_full = 0;
        t->lit_flags = 0;
        t->lit_cr = false;
        t->lit_esc[0] = '\0';
        t->esc = E_NONE;
        ts_reset(&t->lits, "string literal");
        return;
    case '*': case '/': case '=': case '!': case '<': case '>':
        t->pend = true;
        t->pend_c = c;
        return;
    case '%':
        if (t->tagkind == TAG_BLOCK && t->depth == 0) {
            t->pend = true;
            t->pend_c = c;
            return;
        }
        emit_op(t, c);
        return;
    case '}':
        if (t->depth == 0) {
            if (t->tagkind == TAG_VAR) {
                t->pend = true;
                t->pend_c = c;
                return;
            }
        } else {
            t->depth--;
        }
        emit_op(t, c);
        return;
    case ')': case ']':
        if (t->depth > 0)
            t->depth--;
        emit_op(t, c);
        return;
    case '(': case '[': case '{':
        if (t->depth < UINT32_MAX)
            t->depth++;
        emit_op(t, c);
        return;
    case '.': case '|': case ',': case ':': case '~': case '+': case '-':
        emit_op(t, c);
        return;
    default:
        emit_other(t);
        return;
    }
}

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
    ts_run(t, &t->out, &c, 1, t->index, false);
    if (c == '{') {
        t->raw_collect = true;
        t->raw_len = 0;
    }
    if (!t->raw_collect)
        return;
    if (t->raw_len == sizeof t->rawbuf) {
        t->raw_collect = false;
        return;
    }
    t->rawbuf[t->raw_len++] = c;
    if (t->raw_len == 2 && c != '%')
        t->raw_collect = false;
    if (c == '}' && t->raw_collect) {
        t->raw_collect = false;
        if (is_endraw(t->rawbuf, t->raw_len)) {
            t->mode = M_TEXT;
            ts_segment(&t->out, SG_TEXT);
        }
    }
}

static void open_tag(tpl *t, uint8_t kind)
{
    if (t->first_tag < 0)
        t->first_tag = (int64_t)t->tag_index;
    t->mode = M_TAG;
    t->tagkind = kind;
    t->depth = 0;
    t->tag_fresh = true;
    t->sub = S_NONE;
    ev_begin(t, kind);
}

static void lex_byte(tpl *t, uint8_t c)
{
    switch (t->mode) {
    case M_TEXT:
        if (t->pend) {
            t->pend = false;
            if (c == '{' || c == '%') {
                open_tag(t, c == '{' ? TAG_VAR : TAG_BLOCK);
                return;
            }
            if (c == '#') {
                t->mode = M_COMMENT; /* transparent: the output stream goes on */
                return;
            }
            ts_run(t, &t->out, (const uint8_t *)"{", 1, t->index - 1, false);
        }
        if (c == '{') {
            t->pend = true;
            t->tag_pos = t->cur;
            t->tag_index = t->index;
            return;
        }
        ts_run(t, &t->out, &c, 1, t->index, false);
        return;
    case M_COMMENT:
        if (t->pend) {
            t->pend = false;
            if (c == '}') {
                t->mode = M_TEXT;
                ts_segment(&t->out, SG_TEXT);
                return;
            }
        }
        if (c == '#') {
            t->pend = true;
            t->pend_c = c;
        }
        return;
    case M_RAW:
        raw_mode_byte(t, c);
        return;
    default:
        tag_byte(t, c);
        return;
    }
}

void tpl_feed(tpl *t, const uint8_t *p, uint64_t n, tpl_pos pos)
{
    t->cur = pos;
    if (t->index == 0)
        t->first_pos = pos;
    t->hist_pos[t->hist_n & 7] = pos;
    t->hist_index[t->hist_n & 7] = t->index;
    t->hist_n++;
    uint64_t i = 0;
    while (i < n && !t->nomem) {
        /* runs of plain text (and comment / raw bodies) up to the next
         * byte that can change the lexer's state */
        uint8_t stop = t->mode == M_TEXT || (t->mode == M_RAW && !t->raw_collect) ? '{'
                       : t->mode == M_COMMENT ? '#' : 0;
        if (stop && !t->pend) {
            const uint8_t *b = memchr(p + i, stop, (size_t)(n - i));
            size_t run = b ? (size_t)(b - (p + i)) : (size_t)(n - i);
            if (run > 0) {
                raw_run(t, p + i, run);
                if (t->mode != M_COMMENT)
                    ts_run(t, &t->out, p + i, run, t->index, false);
                t->index += run;
                i += run;
                continue;
            }
        }
        if (p[i] >= 0x80 || t->u8_need)
            raw_byte(t, p[i]);
        lex_byte(t, p[i]);
        t->index++;
        i++;
    }
}

void tpl_end(tpl *t)
{
    if (t->nomem)
        return;
    switch (t->mode) {
    case M_TEXT:
        if (t->pend)
            ts_run(t, &t->out, (const uint8_t *)"{", 1, t->index - 1, false);
        break;
    case M_COMMENT:
        hit(t, TH_SYNTAX, t->tag_pos, t->tag_index,
            "the template ends inside a {# comment #} (Jinja rejects it)");
        break;
    case M_RAW:
        hit(t, TH_SYNTAX, t->tag_pos, t->tag_index,
            "the template ends inside a {%% raw %%} block (Jinja rejects it)");
        break;
    default:
        if (t->sub == S_STR) {
            hit(t, TH_SYNTAX, t->tok_pos, t->tok_index,
                "the template ends inside a string literal (Jinja rejects it)");
            lit_scan_prefix(t);
            ts_end(t, &t->lits);
        } else {
            hit(t, TH_SYNTAX, t->tag_pos, t->tag_index, "the template ends inside a %s tag "
                "(Jinja rejects it)", t->tagkind == TAG_VAR ? "{{ }}" : "{% %}");
            if (t->sub == S_NAME)
                emit_name(t);
            else if (t->sub == S_NUM || t->sub == S_NUMDOT)
                emit_num(t, false);
            if (t->pend && t->pend_c != '%' && t->pend_c != '}')
                emit_op(t, t->pend_c);
        }
        t->sub = S_NONE;
        ev_end(t);
        break;
    }
    t->pend = false;
    t->mode = M_TEXT;
    ts_end(t, &t->out);
    ts_end(t, &t->lits);
    raw_end(t);
    ev_template_end(t);
    if (t->total > TPL_OVERSIZE)
        hit(t, TH_OVERSIZE, t->first_pos, UINT64_MAX,
            "the template is %llu bytes, over the 256 KiB no real chat template needs",
            (unsigned long long)t->total);
}

int tpl_probe(tpl *t, const uint8_t *p, size_t n, uint8_t *buf, size_t cap, size_t *len)
{
    t->budget = t->budget_given = TPL_BUDGET_BASE;
    t->probe_buf = buf;
    t->probe_cap = cap;
    t->probe_len = 0;
    t->probe_known = false;
    tpl_pos pos = {0, n, 0};
    tpl_begin(t, n);
    tpl_feed(t, p, n, pos);
    tpl_end(t);
    t->probe_buf = NULL;
    *len = t->probe_known ? t->probe_len : 0;
    return t->probe_known && !t->nomem;
}
