/* template_text.c - the byte-level scanners of the template analyser and its
 * shared helpers:
 *  - raw_byte: every byte of the template, for invalid UTF-8 and invisible
 *    characters (zero-width, bidi controls, tag characters);
 *  - text_byte: the bytes a template *outputs* (text outside tags, raw
 *    blocks and the resolved contents of string literals), for URLs, IPv4
 *    and e-mail addresses, instruction-like phrases (an Aho-Corasick
 *    automaton over a folded alphabet, whitespace runs collapsed) and
 *    base64 / hex blobs;
 *  - the word table (names with a meaning to the analyser) and hit().
 * Each scanner keeps O(1) state per template and costs O(1) per byte. */
#include "template/template_impl.h"

#include "core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ words */

typedef struct wdef {
    const char *s;
    uint16_t cls;
} wdef;

#define TAINT WC_TAINTSINK
static const wdef words[W__COUNT] = {
    [W_AND] = {"and", 0}, [W_OR] = {"or", 0}, [W_NOT] = {"not", 0}, [W_IN] = {"in", 0},
    [W_IS] = {"is", 0}, [W_IF] = {"if", 0}, [W_ELSE] = {"else", 0}, [W_TRUE] = {"true", 0},
    [W_FALSE] = {"false", 0}, [W_NONE_LIT] = {"none", 0}, [W_TRUE_U] = {"True", 0},
    [W_FALSE_U] = {"False", 0}, [W_NONE_U] = {"None", 0}, [W_RECURSIVE] = {"recursive", 0},
    [W_SET] = {"set", 0}, [W_ENDSET] = {"endset", 0}, [W_FOR] = {"for", 0},
    [W_ENDFOR] = {"endfor", 0}, [W_ELIF] = {"elif", 0}, [W_ENDIF] = {"endif", 0},
    [W_MACRO] = {"macro", 0}, [W_ENDMACRO] = {"endmacro", 0}, [W_CALL] = {"call", TAINT},
    [W_ENDCALL] = {"endcall", 0}, [W_FILTER] = {"filter", 0}, [W_ENDFILTER] = {"endfilter", 0},
    [W_WITH] = {"with", 0}, [W_ENDWITH] = {"endwith", 0}, [W_BLOCK] = {"block", 0},
    [W_ENDBLOCK] = {"endblock", 0}, [W_RAW] = {"raw", 0}, [W_ENDRAW] = {"endraw", 0},
    [W_GENERATION] = {"generation", 0}, [W_ENDGENERATION] = {"endgeneration", 0},
    [W_AUTOESCAPE] = {"autoescape", 0}, [W_ENDAUTOESCAPE] = {"endautoescape", 0},
    [W_TRANS] = {"trans", 0}, [W_ENDTRANS] = {"endtrans", 0},
    [W_LIPSUM] = {"lipsum", WC_GADGET}, [W_CYCLER] = {"cycler", WC_GADGET},
    [W_JOINER] = {"joiner", WC_GADGET}, [W_NAMESPACE] = {"namespace", WC_GADGET},
    [W_SELF] = {"self", WC_GADGET}, [W_RANGE] = {"range", WC_GADGET},
    [W_DICT] = {"dict", WC_GADGET}, [W_LOOP] = {"loop", WC_GADGET},
    [W_CALLER] = {"caller", WC_GADGET}, [W_VARARGS] = {"varargs", WC_GADGET},
    [W_KWARGS] = {"kwargs", WC_GADGET}, [W_REQUEST] = {"request", WC_GADGET},
    [W_CONFIG] = {"config", WC_GADGET}, [W_URL_FOR] = {"url_for", WC_GADGET},
    [W_GET_FLASHED] = {"get_flashed_messages", WC_GADGET}, [W_G] = {"g", WC_GADGET},
    [W_OS] = {"os", WC_MODULE | WC_KEYSINK | TAINT},
    [W_SYS] = {"sys", WC_MODULE | TAINT},
    [W_SUBPROCESS] = {"subprocess", WC_MODULE | WC_KEYSINK | TAINT | WC_CLASSHUNT},
    [W_IMPORTLIB] = {"importlib", WC_MODULE | WC_KEYSINK | TAINT},
    [W_BUILTINS] = {"builtins", WC_MODULE | WC_KEYSINK | TAINT},
    [W_POSIX] = {"posix", WC_MODULE | WC_KEYSINK | TAINT},
    [W_NT] = {"nt", WC_MODULE | TAINT}, [W_PTY] = {"pty", WC_MODULE | WC_KEYSINK | TAINT},
    [W_SOCKET] = {"socket", WC_MODULE | TAINT}, [W_SHUTIL] = {"shutil", WC_MODULE | TAINT},
    [W_URLLIB] = {"urllib", WC_MODULE | TAINT}, [W_REQUESTS] = {"requests", WC_MODULE | TAINT},
    [W_EVAL] = {"eval", WC_CALLSINK | WC_KEYSINK | TAINT},
    [W_EXEC] = {"exec", WC_CALLSINK | WC_KEYSINK | TAINT},
    [W_COMPILE] = {"compile", WC_CALLSINK | TAINT}, [W_OPEN] = {"open", WC_CALLSINK | TAINT},
    [W_INPUT] = {"input", WC_CALLSINK}, [W_BREAKPOINT] = {"breakpoint", WC_CALLSINK},
    [W_GLOBALS] = {"globals", WC_CALLSINK}, [W_LOCALS] = {"locals", WC_CALLSINK},
    [W_VARS] = {"vars", WC_CALLSINK}, [W_SETATTR] = {"setattr", WC_CALLSINK},
    [W_DELATTR] = {"delattr", WC_CALLSINK}, [W_GETATTR] = {"getattr", 0}, [W_CHR] = {"chr", 0},
    [W_IMPORT_DUNDER] = {"__import__", WC_CALLSINK | WC_KEYSINK | TAINT},
    [W_POPEN] = {"popen", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_SYSTEM] = {"system", TAINT},
    [W_CHECK_OUTPUT] = {"check_output", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_CHECK_CALL] = {"check_call", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_GETOUTPUT] = {"getoutput", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_GETSTATUSOUTPUT] = {"getstatusoutput", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_POPEN_CLS] = {"Popen", WC_ATTRSINK | WC_KEYSINK | TAINT | WC_CLASSHUNT},
    [W_SPAWNL] = {"spawnl", WC_ATTRSINK | TAINT}, [W_SPAWNV] = {"spawnv", WC_ATTRSINK | TAINT},
    [W_EXECV] = {"execv", WC_ATTRSINK | TAINT}, [W_EXECVE] = {"execve", WC_ATTRSINK | TAINT},
    [W_ENVIRON] = {"environ", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_IMPORT_MODULE] = {"import_module", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_LOAD_MODULE] = {"load_module", WC_ATTRSINK | TAINT},
    [W_MODULES] = {"modules", TAINT}, [W_READ] = {"read", TAINT}, [W_RUN] = {"run", TAINT},
    [W_WRITE] = {"write", TAINT},
    [W_CATCH_WARNINGS] = {"catch_warnings", WC_CLASSHUNT},
    [W_WRAP_CLOSE] = {"_wrap_close", WC_CLASSHUNT},
    [W_FILELOADER] = {"FileLoader", WC_CLASSHUNT},
    [W_BUILTINIMPORTER] = {"BuiltinImporter", WC_CLASSHUNT},
    [W_MODULE_ATTR] = {"_module", WC_CLASSHUNT}, [W_MRO] = {"mro", 0},
    [W_FORMAT] = {"format", 0}, [W_FORMAT_MAP] = {"format_map", 0},
    [W_REPLACE] = {"replace", 0}, [W_JOIN] = {"join", 0}, [W_LOWER] = {"lower", 0},
    [W_UPPER] = {"upper", 0}, [W_STRIP] = {"strip", 0}, [W_LSTRIP] = {"lstrip", 0},
    [W_RSTRIP] = {"rstrip", 0}, [W_TITLE] = {"title", 0}, [W_CAPITALIZE] = {"capitalize", 0},
    [W_SWAPCASE] = {"swapcase", 0}, [W_STARTSWITH] = {"startswith", 0},
    [W_ENDSWITH] = {"endswith", 0}, [W_FIND] = {"find", 0}, [W_RFIND] = {"rfind", 0},
    [W_COUNT] = {"count", 0}, [W_INDEX] = {"index", 0}, [W_ATTR] = {"attr", 0},
    [W_TRIM] = {"trim", 0}, [W_STRING] = {"string", 0}, [W_REVERSE] = {"reverse", 0},
    [W_FIRST] = {"first", 0}, [W_LAST] = {"last", 0}, [W_LIST] = {"list", 0},
    [W_CENTER] = {"center", 0}, [W_INDENT] = {"indent", 0},
    [W_CONTENT] = {"content", 0}, [W_TEXT] = {"text", 0},
};
#undef TAINT

uint16_t word_class(unsigned id)
{
    return id < W__COUNT ? words[id].cls : 0;
}

const char *word_text(unsigned id)
{
    return id > W_NONE && id < W__COUNT && words[id].s ? words[id].s : "";
}

uint32_t name_hash(const uint8_t *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 16777619u;
    }
    return h;
}

void words_init(tpl *t)
{
    memset(t->wslots, 0, sizeof t->wslots);
    for (unsigned id = 1; id < W__COUNT; id++) {
        const char *s = words[id].s;
        if (!s)
            continue;
        uint32_t h = name_hash((const uint8_t *)s, strlen(s)) & (TPL_WORD_SLOTS - 1);
        while (t->wslots[h])
            h = (h + 1) & (TPL_WORD_SLOTS - 1);
        t->wslots[h] = (uint16_t)id;
    }
}

unsigned word_lookup(const tpl *t, const uint8_t *s, size_t n, uint32_t hash)
{
    if (n == 0 || n > 24)
        return W_NONE;
    uint32_t h = hash & (TPL_WORD_SLOTS - 1);
    while (t->wslots[h]) {
        const char *w = words[t->wslots[h]].s;
        if (strlen(w) == n && memcmp(w, s, n) == 0)
            return t->wslots[h];
        h = (h + 1) & (TPL_WORD_SLOTS - 1);
    }
    return W_NONE;
}

/* ------------------------------------------------------------------- hits */

void hit(tpl *t, int kind, tpl_pos pos, uint64_t index, const char *fmt, ...)
{
    tpl_hit *h = &t->hits[kind];
    if (h->have) {
        h->more++;
        return;
    }
    h->have = true;
    t->hit_mask |= 1u << kind;
    h->pos = pos;
    h->more = 0;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(h->msg, sizeof h->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof h->msg && index != UINT64_MAX)
        snprintf(h->msg + n, sizeof h->msg - (size_t)n, " (template byte %llu)",
                 (unsigned long long)index);
}

const char *q(char *buf, size_t cap, const uint8_t *s, size_t n, size_t max_in)
{
    esc_fixed(buf, cap, s, n, max_in);
    return buf;
}

/* ------------------------------------------------------- raw byte scanner */

bool cp_invisible(uint32_t cp, const char **name)
{
    const char *s = NULL;
    switch (cp) {
    case 0x00AD: s = "SOFT HYPHEN"; break;
    case 0x061C: s = "ARABIC LETTER MARK"; break;
    case 0x180E: s = "MONGOLIAN VOWEL SEPARATOR"; break;
    case 0x200B: s = "ZERO WIDTH SPACE"; break;
    case 0x200C: s = "ZERO WIDTH NON-JOINER"; break;
    case 0x200D: s = "ZERO WIDTH JOINER"; break;
    case 0x200E: s = "LEFT-TO-RIGHT MARK"; break;
    case 0x200F: s = "RIGHT-TO-LEFT MARK"; break;
    case 0x202A: s = "LEFT-TO-RIGHT EMBEDDING"; break;
    case 0x202B: s = "RIGHT-TO-LEFT EMBEDDING"; break;
    case 0x202C: s = "POP DIRECTIONAL FORMATTING"; break;
    case 0x202D: s = "LEFT-TO-RIGHT OVERRIDE"; break;
    case 0x202E: s = "RIGHT-TO-LEFT OVERRIDE"; break;
    case 0x2060: s = "WORD JOINER"; break;
    case 0x2061: case 0x2062: case 0x2063: case 0x2064: s = "INVISIBLE OPERATOR"; break;
    case 0x2066: s = "LEFT-TO-RIGHT ISOLATE"; break;
    case 0x2067: s = "RIGHT-TO-LEFT ISOLATE"; break;
    case 0x2068: s = "FIRST STRONG ISOLATE"; break;
    case 0x2069: s = "POP DIRECTIONAL ISOLATE"; break;
    case 0xFEFF: s = "ZERO WIDTH NO-BREAK SPACE"; break;
    default:
        if (cp >= 0xE0000 && cp <= 0xE007F)
            s = "TAG CHARACTER (invisible ASCII)";
        break;
    }
    if (name)
        *name = s;
    return s != NULL;
}

static void u8_invalid(tpl *t, tpl_pos pos, uint64_t index, uint8_t c)
{
    hit(t, TH_UTF8, pos, index, "invalid UTF-8: byte 0x%02x does not start or continue a "
        "valid sequence", c);
}

void raw_byte(tpl *t, uint8_t c)
{
again:
    if (t->u8_need == 0) {
        if (c < 0x80)
            return;
        t->u8_pos = t->cur;
        t->u8_index = t->index;
        t->u8_bytes[0] = c;
        t->u8_len = 1;
        if (c >= 0xC2 && c <= 0xDF) {
            t->u8_need = 1; t->u8_cp = c & 0x1Fu; t->u8_min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            t->u8_need = 2; t->u8_cp = c & 0x0Fu; t->u8_min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            t->u8_need = 3; t->u8_cp = c & 0x07u; t->u8_min = 0x10000;
        } else {
            u8_invalid(t, t->cur, t->index, c);
        }
        return;
    }
    if ((c & 0xC0) != 0x80) {
        u8_invalid(t, t->u8_pos, t->u8_index, t->u8_bytes[0]);
        t->u8_need = 0;
        goto again;
    }
    t->u8_cp = (t->u8_cp << 6) | (c & 0x3Fu);
    if (t->u8_len < 4)
        t->u8_bytes[t->u8_len++] = c;
    if (--t->u8_need > 0)
        return;
    uint32_t cp = t->u8_cp;
    const char *name;
    if (cp < t->u8_min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        u8_invalid(t, t->u8_pos, t->u8_index, t->u8_bytes[0]);
    else if (cp_invisible(cp, &name))
        hit(t, TH_INVISIBLE, t->u8_pos, t->u8_index, "invisible character U+%04X (%s)",
            (unsigned)cp, name);
}

void raw_end(tpl *t)
{
    if (t->u8_need > 0)
        hit(t, TH_UTF8, t->u8_pos, t->u8_index,
            "invalid UTF-8: the template ends inside a %u-byte sequence", t->u8_len + t->u8_need);
    t->u8_need = 0;
}

/* ----------------------------------------------------------- text scanner */

tpl_pos pos_at(const tpl *t, uint64_t index)
{
    uint32_t n = t->hist_n < 8 ? t->hist_n : 8;
    for (uint32_t k = 1; k <= n; k++) {
        uint32_t slot = (t->hist_n - k) & 7;
        if (t->hist_index[slot] <= index)
            return t->hist_pos[slot];
    }
    return n ? t->hist_pos[(t->hist_n - n) & 7] : t->cur; /* older: the oldest known */
}

#define SYM_MASK 0x1Fu
#define SYM_BLOB 0x20u /* base64 / hex alphabet */
#define SYM_WORD 0x40u /* IPv4 / e-mail word */
#define SYM_DIGITDOT 0x80u

/* Folded alphabet: 0 other, 1-26 letters (any case), 27 whitespace, 28 ':',
 * 29 '/', 30 '\'', 31 '.'. */
static unsigned ac_sym(uint8_t c)
{
    if (c >= 'a' && c <= 'z')
        return (unsigned)(c - 'a') + 1;
    if (c >= 'A' && c <= 'Z')
        return (unsigned)(c - 'A') + 1;
    switch (c) {
    case ' ': case '\t': case '\n': case '\r': case '\f': case '\v': return 27;
    case ':': return 28;
    case '/': return 29;
    case '\'': return 30;
    case '.': return 31;
    default: return 0;
    }
}

typedef struct pattern {
    const char *s;
    int kind; /* TH_URL or TH_INSTRUCTION */
} pattern;

static const pattern patterns[] = {
    {"http://", TH_URL}, {"https://", TH_URL}, {"ftp://", TH_URL}, {"ftps://", TH_URL},
    {"sftp://", TH_URL}, {"file://", TH_URL}, {"ws://", TH_URL}, {"wss://", TH_URL},
    {"gopher://", TH_URL}, {"www.", TH_URL},
    {"ignore previous", TH_INSTRUCTION}, {"ignore all previous", TH_INSTRUCTION},
    {"ignore prior", TH_INSTRUCTION}, {"ignore all prior", TH_INSTRUCTION},
    {"ignore the above", TH_INSTRUCTION}, {"ignore your instructions", TH_INSTRUCTION},
    {"ignore the instructions", TH_INSTRUCTION}, {"ignore the system prompt", TH_INSTRUCTION},
    {"disregard previous", TH_INSTRUCTION}, {"disregard all previous", TH_INSTRUCTION},
    {"disregard the above", TH_INSTRUCTION}, {"disregard your instructions", TH_INSTRUCTION},
    {"forget previous instructions", TH_INSTRUCTION}, {"forget all previous", TH_INSTRUCTION},
    {"forget your instructions", TH_INSTRUCTION}, {"you are now", TH_INSTRUCTION},
    {"do not tell the user", TH_INSTRUCTION}, {"don't tell the user", TH_INSTRUCTION},
    {"never tell the user", TH_INSTRUCTION}, {"do not inform the user", TH_INSTRUCTION},
    {"without telling the user", TH_INSTRUCTION}, {"without informing the user", TH_INSTRUCTION},
    {"do not reveal", TH_INSTRUCTION}, {"never reveal", TH_INSTRUCTION},
    {"do not disclose", TH_INSTRUCTION}, {"never disclose", TH_INSTRUCTION},
    {"new instructions:", TH_INSTRUCTION}, {"secret instructions", TH_INSTRUCTION},
    {"hidden instructions", TH_INSTRUCTION}, {"developer mode", TH_INSTRUCTION},
};
#define N_PATTERNS (sizeof patterns / sizeof patterns[0])
_Static_assert(N_PATTERNS < 65535, "pattern index fits");

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
 * a full transition table (so feeding is one lookup per byte). */
bool ac_init(tpl *t)
{
    for (unsigned c = 0; c < 256; c++) {
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        bool blob = alnum || (c != 0 && strchr("+/=_-", (int)c));
        bool word = alnum || (c != 0 && strchr("._%+-@", (int)c));
        bool digitdot = (c >= '0' && c <= '9') || c == '.';
        t->sym[c] = (uint8_t)(ac_sym((uint8_t)c) | (blob ? SYM_BLOB : 0) | (word ? SYM_WORD : 0) |
                              (digitdot ? SYM_DIGITDOT : 0));
        t->bcls[c] = blob_class((uint8_t)c);
    }
    t->ac_next = calloc(AC_MAX_STATES, sizeof *t->ac_next);
    t->ac_out = calloc(AC_MAX_STATES, sizeof *t->ac_out);
    t->ac_link = calloc(AC_MAX_STATES, sizeof *t->ac_link);
    if (!t->ac_next || !t->ac_out || !t->ac_link)
        return false;
    uint16_t (*next)[AC_SYMS] = t->ac_next;
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
        t->ac_out[s] = (uint16_t)(p + 1);
    }
    t->ac_states = n;
    /* BFS; queue in a local array of states */
    uint16_t queue[AC_MAX_STATES];
    size_t qh = 0, qt = 0;
    for (unsigned y = 1; y < AC_SYMS; y++)
        if (next[0][y]) {
            t->ac_link[next[0][y]] = 0;
            queue[qt++] = next[0][y];
        }
    while (qh < qt) {
        uint16_t s = queue[qh++];
        if (!t->ac_out[s])
            t->ac_out[s] = t->ac_out[t->ac_link[s]];
        for (unsigned y = 1; y < AC_SYMS; y++) {
            uint16_t u = next[s][y];
            if (u) {
                t->ac_link[u] = next[t->ac_link[s]][y];
                queue[qt++] = u;
            } else {
                next[s][y] = next[t->ac_link[s]][y];
            }
        }
    }
    return true;
}

static bool url_char(uint8_t c)
{
    return c > 0x20 && c < 0x7F && !strchr("\"'<>{}|\\^`", c);
}

static void url_finish(tpl *t)
{
    if (!t->url_cap)
        return;
    t->url_cap = false;
    char e[200];
    hit(t, TH_URL, t->url_pos, t->url_index, "URL '%s' in template %s",
        q(e, sizeof e, (const uint8_t *)t->url, t->url_len, 100), t->seg_what);
}

static void ac_match(tpl *t, const pattern *p)
{
    uint32_t len = (uint32_t)strlen(p->s);
    uint32_t start = t->ring_n - len;
    uint64_t index = t->ring_index[start & 63];
    tpl_pos pos = pos_at(t, index);
    if (p->kind == TH_INSTRUCTION) {
        hit(t, TH_INSTRUCTION, pos, index, "instruction-like phrase '%s' in template %s", p->s,
            t->seg_what);
        return;
    }
    if (t->hits[TH_URL].have) {
        t->hits[TH_URL].more++;
        return;
    }
    url_finish(t);
    t->url_cap = true;
    t->url_pos = pos;
    t->url_index = index;
    t->url_len = len < sizeof t->url ? len : 0;
    memcpy(t->url, p->s, t->url_len);
}

/* The word run ([A-Za-z0-9._%+-@]) ended: an IPv4 address or an e-mail? */
#define WK_AT 1u    /* holds an '@' */
#define WK_NOTIP 2u /* holds something other than digits and dots */

static void word_finish(tpl *t)
{
    uint32_t n = t->word_len;
    t->word_len = 0;
    if (n == 0 || n > sizeof t->word || (t->word_kind & (WK_AT | WK_NOTIP)) == WK_NOTIP)
        return;
    const uint8_t *w = t->word;
    while (n > 0 && w[n - 1] == '.')
        n--;
    char e[120];
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
        hit(t, TH_URL, t->word_pos, t->word_index, "IPv4 address '%s' in template %s",
            q(e, sizeof e, w, n, 40), t->seg_what);
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
    hit(t, TH_URL, t->word_pos, t->word_index, "e-mail address '%s' in template %s",
        q(e, sizeof e, w, n, 60), t->seg_what);
}




static void blob_hit(tpl *t)
{
    uint8_t k = t->blob_cls;
    bool b64 = (k & BC_DIGIT) && (k & BC_UPPER) && (k & BC_LOWER);
    bool hex = !(k & BC_NOTHEX) && (k & BC_DIGIT) && (k & (BC_UPPER | BC_LOWER));
    if (!b64 && !hex)
        return;
    t->blob_cls |= BC_DONE;
    char e[120];
    hit(t, TH_BLOB, t->blob_pos, t->blob_index,
        "%s-like run of %u+ characters in template %s: '%s'", hex ? "hex" : "base64",
        TPL_BLOB_MIN, t->seg_what, q(e, sizeof e, t->blob_head, sizeof t->blob_head, 40));
}


void text_reset(tpl *t, const char *what)
{
    text_end(t);
    t->seg_what = what;
}

void text_end(tpl *t)
{
    url_finish(t);
    word_finish(t);
    t->blob_len = 0;
    t->ac_state = 0;
    t->ac_space = false;
}

static void url_byte(tpl *t, uint8_t c)
{
    if (url_char(c) && t->url_len < sizeof t->url)
        t->url[t->url_len++] = (char)c;
    else
        url_finish(t);
}

/* The text scanners over n bytes at template index t->index. The hot state
 * lives in locals, written back around the rare slow paths (a phrase or URL
 * match, a finished word, a blob reaching the threshold). */
void text_run(tpl *t, const uint8_t *p, size_t n)
{
    const uint64_t base = t->index;
    uint32_t st = t->ac_state, rn = t->ring_n, blen = t->blob_len, wlen = t->word_len;
    uint8_t bcls = t->blob_cls, wk = t->word_kind;
    bool space = t->ac_space;
    const uint8_t *sym = t->sym, *bc = t->bcls;
    uint16_t(*next)[AC_SYMS] = t->ac_next;
    const uint16_t *out = t->ac_out;
    uint64_t *ring = t->ring_index;
#define SYNC()                                                                            \
    (t->ac_state = (uint16_t)st, t->ring_n = rn, t->blob_len = blen, t->blob_cls = bcls,  \
     t->word_len = wlen, t->word_kind = wk, t->ac_space = space)
#define LOAD()                                                                            \
    (st = t->ac_state, rn = t->ring_n, blen = t->blob_len, bcls = t->blob_cls,            \
     wlen = t->word_len, wk = t->word_kind, space = t->ac_space)
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = p[i];
        const uint64_t idx = base + i;
        if (t->url_cap) {
            SYNC();
            url_byte(t, c);
            LOAD();
        }
        const uint8_t f = sym[c];
        const unsigned y = f & SYM_MASK;
        if (y != 27 || !space) { /* whitespace runs fold to one symbol */
            space = y == 27;
            ring[rn & 63] = idx;
            rn++;
            st = next[st][y];
            if (out[st]) {
                SYNC();
                t->index = idx;
                ac_match(t, &patterns[out[st] - 1]);
                LOAD();
            }
        }
        if (f & SYM_BLOB) {
            if (blen == 0) {
                bcls = 0;
                t->blob_pos = t->cur;
                t->blob_index = idx;
            }
            if (blen < sizeof t->blob_head)
                t->blob_head[blen] = c;
            if (blen < UINT32_MAX)
                blen++;
            bcls |= bc[c];
            if (blen >= TPL_BLOB_MIN && !(bcls & BC_DONE)) {
                SYNC();
                blob_hit(t);
                LOAD();
            }
        } else {
            blen = 0;
        }
        if (f & SYM_WORD) {
            if (wlen == 0) {
                t->word_pos = t->cur;
                t->word_index = idx;
                wk = 0;
            }
            if (c == '@')
                wk |= WK_AT;
            else if (!(f & SYM_DIGITDOT))
                wk |= WK_NOTIP;
            if (wlen < sizeof t->word)
                t->word[wlen] = c;
            if (wlen <= sizeof t->word)
                wlen++;
        } else if (wlen) {
            SYNC();
            word_finish(t);
            LOAD();
        }
    }
    SYNC();
#undef SYNC
#undef LOAD
    t->index = base;
}

void text_byte(tpl *t, uint8_t c)
{
    text_run(t, &c, 1);
}

void raw_run(tpl *t, const uint8_t *p, size_t n)
{
    uint64_t base = t->index;
    size_t i = 0;
    while (i < n) {
        if (t->u8_need == 0) {
            /* ASCII fast path, eight bytes at a time */
            while (n - i >= 8) {
                uint64_t w;
                memcpy(&w, p + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            while (i < n && p[i] < 0x80)
                i++;
            if (i == n)
                break;
        }
        t->index = base + i;
        raw_byte(t, p[i]);
        i++;
    }
    t->index = base;
}
