/* template_text.c - the template analyser's shared helpers and its raw byte
 * scanner:
 *  - the word table (names with a meaning to the analyser) and hit();
 *  - raw_byte: every byte of the template, for invalid UTF-8 and invisible
 *    characters (zero-width, bidi controls, tag characters).
 * The scanners of the text a template outputs are in template_stream.c. */
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
    [W_AND] = {"and", 0},
    [W_OR] = {"or", 0},
    [W_NOT] = {"not", 0},
    [W_IN] = {"in", 0},
    [W_IS] = {"is", 0},
    [W_IF] = {"if", 0},
    [W_ELSE] = {"else", 0},
    [W_TRUE] = {"true", 0},
    [W_FALSE] = {"false", 0},
    [W_NONE_LIT] = {"none", 0},
    [W_TRUE_U] = {"True", 0},
    [W_FALSE_U] = {"False", 0},
    [W_NONE_U] = {"None", 0},
    [W_RECURSIVE] = {"recursive", 0},
    [W_SET] = {"set", 0},
    [W_ENDSET] = {"endset", 0},
    [W_FOR] = {"for", 0},
    [W_ENDFOR] = {"endfor", 0},
    [W_ELIF] = {"elif", 0},
    [W_ENDIF] = {"endif", 0},
    [W_MACRO] = {"macro", 0},
    [W_ENDMACRO] = {"endmacro", 0},
    [W_CALL] = {"call", TAINT},
    [W_ENDCALL] = {"endcall", 0},
    [W_FILTER] = {"filter", 0},
    [W_ENDFILTER] = {"endfilter", 0},
    [W_WITH] = {"with", 0},
    [W_ENDWITH] = {"endwith", 0},
    [W_BLOCK] = {"block", 0},
    [W_ENDBLOCK] = {"endblock", 0},
    [W_RAW] = {"raw", 0},
    [W_ENDRAW] = {"endraw", 0},
    [W_GENERATION] = {"generation", 0},
    [W_ENDGENERATION] = {"endgeneration", 0},
    [W_AUTOESCAPE] = {"autoescape", 0},
    [W_ENDAUTOESCAPE] = {"endautoescape", 0},
    [W_TRANS] = {"trans", 0},
    [W_ENDTRANS] = {"endtrans", 0},
    [W_LIPSUM] = {"lipsum", WC_GADGET},
    [W_CYCLER] = {"cycler", WC_GADGET},
    [W_JOINER] = {"joiner", WC_GADGET},
    [W_NAMESPACE] = {"namespace", WC_GADGET},
    [W_SELF] = {"self", WC_GADGET},
    [W_RANGE] = {"range", WC_GADGET},
    [W_DICT] = {"dict", WC_GADGET},
    [W_LOOP] = {"loop", WC_GADGET},
    [W_CALLER] = {"caller", WC_GADGET},
    [W_VARARGS] = {"varargs", WC_GADGET},
    [W_KWARGS] = {"kwargs", WC_GADGET},
    [W_REQUEST] = {"request", WC_GADGET},
    [W_CONFIG] = {"config", WC_GADGET},
    [W_URL_FOR] = {"url_for", WC_GADGET},
    [W_GET_FLASHED] = {"get_flashed_messages", WC_GADGET},
    [W_G] = {"g", WC_GADGET},
    [W_OS] = {"os", WC_MODULE | WC_KEYSINK | TAINT},
    [W_SYS] = {"sys", WC_MODULE | TAINT},
    [W_SUBPROCESS] = {"subprocess", WC_MODULE | WC_KEYSINK | TAINT | WC_CLASSHUNT},
    [W_IMPORTLIB] = {"importlib", WC_MODULE | WC_KEYSINK | TAINT},
    [W_BUILTINS] = {"builtins", WC_MODULE | WC_KEYSINK | TAINT},
    [W_POSIX] = {"posix", WC_MODULE | WC_KEYSINK | TAINT},
    [W_NT] = {"nt", WC_MODULE | TAINT},
    [W_PTY] = {"pty", WC_MODULE | WC_KEYSINK | TAINT},
    [W_SOCKET] = {"socket", WC_MODULE | TAINT},
    [W_SHUTIL] = {"shutil", WC_MODULE | TAINT},
    [W_URLLIB] = {"urllib", WC_MODULE | TAINT},
    [W_REQUESTS] = {"requests", WC_MODULE | TAINT},
    [W_EVAL] = {"eval", WC_CALLSINK | WC_KEYSINK | TAINT},
    [W_EXEC] = {"exec", WC_CALLSINK | WC_KEYSINK | TAINT},
    [W_COMPILE] = {"compile", WC_CALLSINK | TAINT},
    [W_OPEN] = {"open", WC_CALLSINK | TAINT},
    [W_INPUT] = {"input", WC_CALLSINK},
    [W_BREAKPOINT] = {"breakpoint", WC_CALLSINK},
    [W_GLOBALS] = {"globals", WC_CALLSINK},
    [W_LOCALS] = {"locals", WC_CALLSINK},
    [W_VARS] = {"vars", WC_CALLSINK},
    [W_SETATTR] = {"setattr", WC_CALLSINK},
    [W_DELATTR] = {"delattr", WC_CALLSINK},
    [W_GETATTR] = {"getattr", 0},
    [W_CHR] = {"chr", 0},
    [W_IMPORT_DUNDER] = {"__import__", WC_CALLSINK | WC_KEYSINK | TAINT},
    [W_POPEN] = {"popen", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_SYSTEM] = {"system", TAINT},
    [W_CHECK_OUTPUT] = {"check_output", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_CHECK_CALL] = {"check_call", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_GETOUTPUT] = {"getoutput", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_GETSTATUSOUTPUT] = {"getstatusoutput", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_POPEN_CLS] = {"Popen", WC_ATTRSINK | WC_KEYSINK | TAINT | WC_CLASSHUNT},
    [W_SPAWNL] = {"spawnl", WC_ATTRSINK | TAINT},
    [W_SPAWNV] = {"spawnv", WC_ATTRSINK | TAINT},
    [W_EXECV] = {"execv", WC_ATTRSINK | TAINT},
    [W_EXECVE] = {"execve", WC_ATTRSINK | TAINT},
    [W_ENVIRON] = {"environ", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_IMPORT_MODULE] = {"import_module", WC_ATTRSINK | WC_KEYSINK | TAINT},
    [W_LOAD_MODULE] = {"load_module", WC_ATTRSINK | TAINT},
    [W_MODULES] = {"modules", TAINT},
    [W_READ] = {"read", TAINT},
    [W_RUN] = {"run", TAINT},
    [W_WRITE] = {"write", TAINT},
    [W_CATCH_WARNINGS] = {"catch_warnings", WC_CLASSHUNT},
    [W_WRAP_CLOSE] = {"_wrap_close", WC_CLASSHUNT},
    [W_FILELOADER] = {"FileLoader", WC_CLASSHUNT},
    [W_BUILTINIMPORTER] = {"BuiltinImporter", WC_CLASSHUNT},
    [W_MODULE_ATTR] = {"_module", WC_CLASSHUNT},
    [W_MRO] = {"mro", 0},
    [W_FORMAT] = {"format", 0},
    [W_FORMAT_MAP] = {"format_map", 0},
    [W_REPLACE] = {"replace", 0},
    [W_JOIN] = {"join", 0},
    [W_LOWER] = {"lower", 0},
    [W_UPPER] = {"upper", 0},
    [W_STRIP] = {"strip", 0},
    [W_LSTRIP] = {"lstrip", 0},
    [W_RSTRIP] = {"rstrip", 0},
    [W_TITLE] = {"title", 0},
    [W_CAPITALIZE] = {"capitalize", 0},
    [W_SWAPCASE] = {"swapcase", 0},
    [W_STARTSWITH] = {"startswith", 0},
    [W_ENDSWITH] = {"endswith", 0},
    [W_FIND] = {"find", 0},
    [W_RFIND] = {"rfind", 0},
    [W_COUNT] = {"count", 0},
    [W_INDEX] = {"index", 0},
    [W_ATTR] = {"attr", 0},
    [W_TRIM] = {"trim", 0},
    [W_STRING] = {"string", 0},
    [W_REVERSE] = {"reverse", 0},
    [W_FIRST] = {"first", 0},
    [W_LAST] = {"last", 0},
    [W_LIST] = {"list", 0},
    [W_CENTER] = {"center", 0},
    [W_INDENT] = {"indent", 0},
    [W_CONTENT] = {"content", 0},
    [W_TEXT] = {"text", 0},
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
    case 0x2061:
    case 0x2062:
    case 0x2063:
    case 0x2064: s = "INVISIBLE OPERATOR"; break;
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
    hit(t, TH_UTF8, pos, index,
        "invalid UTF-8: byte 0x%02x does not start or continue a "
        "valid sequence",
        c);
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
            t->u8_need = 1;
            t->u8_cp = c & 0x1Fu;
            t->u8_min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            t->u8_need = 2;
            t->u8_cp = c & 0x0Fu;
            t->u8_min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            t->u8_need = 3;
            t->u8_cp = c & 0x07u;
            t->u8_min = 0x10000;
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
