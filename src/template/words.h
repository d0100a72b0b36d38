/* words.h - the word table of the template analyser (words.c, prefix
 * word_): ids of the names with a meaning to the analyser, and their
 * classes. */
#ifndef GGUFLINT_TEMPLATE_WORDS_H
#define GGUFLINT_TEMPLATE_WORDS_H

#include "template/caps.h"
#include "template/template.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    W_NONE,
    /* expression keywords */
    W_AND,
    W_OR,
    W_NOT,
    W_IN,
    W_IS,
    W_IF,
    W_ELSE,
    W_TRUE,
    W_FALSE,
    W_NONE_LIT,
    W_TRUE_U,
    W_FALSE_U,
    W_NONE_U,
    W_RECURSIVE,
    /* statements */
    W_SET,
    W_ENDSET,
    W_FOR,
    W_ENDFOR,
    W_ELIF,
    W_ENDIF,
    W_MACRO,
    W_ENDMACRO,
    W_CALL,
    W_ENDCALL,
    W_FILTER,
    W_ENDFILTER,
    W_WITH,
    W_ENDWITH,
    W_BLOCK,
    W_ENDBLOCK,
    W_RAW,
    W_ENDRAW,
    W_GENERATION,
    W_ENDGENERATION,
    W_AUTOESCAPE,
    W_ENDAUTOESCAPE,
    W_TRANS,
    W_ENDTRANS,
    /* Jinja globals that reach __globals__ */
    W_LIPSUM,
    W_CYCLER,
    W_JOINER,
    W_NAMESPACE,
    W_SELF,
    W_RANGE,
    W_DICT,
    W_LOOP,
    W_CALLER,
    W_VARARGS,
    W_KWARGS,
    W_REQUEST,
    W_CONFIG,
    W_URL_FOR,
    W_GET_FLASHED,
    W_G,
    /* Python modules */
    W_OS,
    W_SYS,
    W_SUBPROCESS,
    W_IMPORTLIB,
    W_BUILTINS,
    W_POSIX,
    W_NT,
    W_PTY,
    W_SOCKET,
    W_SHUTIL,
    W_URLLIB,
    W_REQUESTS,
    /* Python builtins */
    W_EVAL,
    W_EXEC,
    W_COMPILE,
    W_OPEN,
    W_INPUT,
    W_BREAKPOINT,
    W_GLOBALS,
    W_LOCALS,
    W_VARS,
    W_SETATTR,
    W_DELATTR,
    W_GETATTR,
    W_CHR,
    W_IMPORT_DUNDER,
    /* attributes that run commands or expose the process */
    W_POPEN,
    W_SYSTEM,
    W_CHECK_OUTPUT,
    W_CHECK_CALL,
    W_GETOUTPUT,
    W_GETSTATUSOUTPUT,
    W_POPEN_CLS,
    W_SPAWNL,
    W_SPAWNV,
    W_EXECV,
    W_EXECVE,
    W_ENVIRON,
    W_IMPORT_MODULE,
    W_LOAD_MODULE,
    W_MODULES,
    W_READ,
    W_RUN,
    W_WRITE,
    /* class hunting */
    W_CATCH_WARNINGS,
    W_WRAP_CLOSE,
    W_FILELOADER,
    W_BUILTINIMPORTER,
    W_MODULE_ATTR,
    W_MRO,
    /* methods and filters that fold */
    W_FORMAT,
    W_FORMAT_MAP,
    W_REPLACE,
    W_JOIN,
    W_LOWER,
    W_UPPER,
    W_STRIP,
    W_LSTRIP,
    W_RSTRIP,
    W_TITLE,
    W_CAPITALIZE,
    W_SWAPCASE,
    W_STARTSWITH,
    W_ENDSWITH,
    W_FIND,
    W_RFIND,
    W_COUNT,
    W_INDEX,
    W_ATTR,
    W_TRIM,
    W_STRING,
    W_REVERSE,
    W_FIRST,
    W_LAST,
    W_LIST,
    W_ITEMS,
    W_CENTER,
    W_INDENT,
    /* message fields */
    W_CONTENT,
    W_TEXT,
    /* turn counting and dates (GG734) */
    W_LENGTH,
    W_INDEX0,
    W_REVINDEX,
    W_REVINDEX0,
    W_STRFTIME_NOW,
    W_URLENCODE,
    W_TOJSON,
    /* generator, coroutine, frame, traceback and code internals */
    W_GI_FRAME,
    W_GI_CODE,
    W_CR_FRAME,
    W_CR_CODE,
    W_AG_FRAME,
    W_AG_CODE,
    W_TB_FRAME,
    W_TB_NEXT,
    W_F_BUILTINS,
    W_F_GLOBALS,
    W_F_LOCALS,
    W_F_BACK,
    W_F_CODE,
    W_GET,
    W_POP,
    W_SETDEFAULT,
    /* statements that load other templates */
    W_INCLUDE,
    W_IMPORT,
    W_EXTENDS,
    W_FROM,
    /* filters taking attribute names */
    W_MAP,
    W_SELECTATTR,
    W_REJECTATTR,
    W_GROUPBY,
    W_ATTRIBUTE,
    /* list methods: the mutators the folder models, and the readers */
    W_APPEND,
    W_EXTEND,
    W_INSERT,
    W_COPY,
    W__COUNT
};

/* word classes */
#define WC_GADGET 0x01u    /* Jinja global exposing __globals__ */
#define WC_MODULE 0x02u    /* a Python module name */
#define WC_CALLSINK 0x04u  /* a builtin that runs code or opens files when called */
#define WC_ATTRSINK 0x08u  /* an attribute that runs commands, on any object */
#define WC_KEYSINK 0x10u   /* a subscript / attr name that reaches a sink on any object */
#define WC_TAINTSINK 0x20u /* a sink once an object-model chain is reached */
#define WC_CLASSHUNT 0x40u /* a class or attribute named in class-hunting payloads */
#define WC_INTERNAL 0x80u  /* a generator / frame / code attribute: Python internals */

/* open addressing over word ids, built by word_init. A slot packs a word's
 * hash (bits 32..63), its length (16..23) and its id (0..15); 0 is empty.
 * A probe compares the slot with the name's hash and length in one step,
 * then the name's key words (word_key) with the word's: no byte loop. */
typedef struct tpl_words {
    uint64_t slots[TPL_WORD_SLOTS];
    uint64_t key[W__COUNT][3]; /* each word's key words (word_key) */
    uint64_t hunt_bits;        /* word_hunt_bit of every WC_CLASSHUNT word */
} tpl_words;

void word_init(tpl *t);

/* A bit of s[0..n) (1 <= n) from its length and its first and last bytes:
 * a text whose bit is not in hunt_bits is no WC_CLASSHUNT word (a filter
 * for the literals checked against those names). The weights keep the
 * usual chat-template keys ('content', 'role', 'user', 'name', 'arguments',
 * 'tool_calls' ...) off the hunted names' bits. */
static inline uint64_t word_hunt_bit(const uint8_t *s, size_t n)
{
    return (uint64_t)1 << ((n + s[0] + s[n - 1] * 9u) & 63u);
}
/* word_hash reads eight bytes a step (names are short: one to three steps);
 * the word table is fixed and the variable table is bounded, so no input can
 * make its collisions cost more than a bounded probe */
#define WORD_HASH_SEED 0x9E3779B97F4A7C15u
#define WORD_HASH_MUL 0xFF51AFD7ED558CCDu
#define WORD_MAX_LEN 24u /* the longest word is shorter: longer names are no word */

static inline uint64_t word_first8(const uint8_t *s)
{
    uint64_t w;
    memcpy(&w, s, 8);
    return w;
}

/* The last 1..8 bytes of a name as one word: two overlapping 4-byte loads,
 * or three single bytes, so that (n, word) names the bytes exactly and no
 * byte past s[n - 1] is read. */
static inline uint64_t word_last8(const uint8_t *s, size_t n)
{
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        return lo | (uint64_t)hi << 32;
    }
    return s[0] | (uint64_t)s[n / 2] << 8 | (uint64_t)s[n - 1] << 16;
}

static inline uint64_t word_step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * WORD_HASH_MUL;
    return h ^ (h >> 29);
}

/* The hash of s[0..n): whole 8-byte words, then the tail (word_last8);
 * names of up to 8 bytes (most) are the tail alone. */
static inline uint32_t word_hash(const uint8_t *s, size_t n)
{
    if (n - 1 < 8)
        return (uint32_t)((word_step(WORD_HASH_SEED ^ n, word_last8(s, n)) * WORD_HASH_MUL) >> 32);
    uint64_t h = WORD_HASH_SEED ^ n;
    while (n > 8) {
        h = word_step(h, word_first8(s));
        s += 8;
        n -= 8;
    }
    if (n)
        h = word_step(h, word_last8(s, n));
    h *= WORD_HASH_MUL;
    return (uint32_t)(h >> 32);
}

/* The key words of a name of 1..WORD_MAX_LEN bytes (the values word_hash
 * mixes, unused ones 0) and its hash, in one pass. word_init keys the words
 * with it, so a name and a word of the same length have equal keys exactly
 * when their bytes are equal. */
static inline uint32_t word_key(const uint8_t *s, size_t n, uint64_t k[3])
{
    uint64_t h = WORD_HASH_SEED ^ n;
    k[1] = k[2] = 0;
    if (n <= 8) {
        k[0] = word_last8(s, n);
        h = word_step(h, k[0]);
    } else if (n <= 16) {
        k[0] = word_first8(s);
        k[1] = word_last8(s + 8, n - 8);
        h = word_step(word_step(h, k[0]), k[1]);
    } else {
        k[0] = word_first8(s);
        k[1] = word_first8(s + 8);
        k[2] = word_last8(s + 16, n - 16);
        h = word_step(word_step(word_step(h, k[0]), k[1]), k[2]);
    }
    h *= WORD_HASH_MUL;
    return (uint32_t)(h >> 32);
}

/* The word of s[0..n) with its hash and key words at hand. */
static inline unsigned word_probe(const tpl_words *wd, size_t n, uint32_t hash, const uint64_t k[3])
{
    uint64_t want = (uint64_t)hash << 32 | (uint64_t)n << 16;
    uint32_t i = hash & (TPL_WORD_SLOTS - 1);
    for (;;) {
        uint64_t sl = wd->slots[i];
        if (sl == 0)
            return W_NONE;
        if ((sl & ~(uint64_t)0xFFFF) == want) {
            const uint64_t *wk = wd->key[sl & 0xFFFF];
            if (wk[0] == k[0] && wk[1] == k[1] && wk[2] == k[2])
                return (unsigned)(sl & 0xFFFF);
        }
        i = (i + 1) & (TPL_WORD_SLOTS - 1);
    }
}

/* The word of s[0..n) whose hash is at hand (hash = word_hash(s, n)),
 * W_NONE when none. Names of up to 8 bytes (most) have one key word: the
 * probe compares only it. */
static inline unsigned word_probe_hashed(const tpl_words *wd, const uint8_t *s, size_t n,
                                         uint32_t hash)
{
    if (n - 1 < 8) {
        uint64_t k0 = word_last8(s, n);
        uint64_t want = (uint64_t)hash << 32 | (uint64_t)n << 16;
        for (uint32_t i = hash & (TPL_WORD_SLOTS - 1);; i = (i + 1) & (TPL_WORD_SLOTS - 1)) {
            uint64_t sl = wd->slots[i];
            if (sl == 0)
                return W_NONE;
            if ((sl & ~(uint64_t)0xFFFF) == want && wd->key[sl & 0xFFFF][0] == k0)
                return (unsigned)(sl & 0xFFFF);
        }
    }
    if (n == 0 || n > WORD_MAX_LEN)
        return W_NONE;
    uint64_t k[3];
    (void)word_key(s, n, k);
    return word_probe(wd, n, hash, k);
}

/* The word of s[0..n), W_NONE when none; *hash = word_hash(s, n). */
static inline unsigned word_find(const tpl_words *wd, const uint8_t *s, size_t n, uint32_t *hash)
{
    *hash = word_hash(s, n);
    return word_probe_hashed(wd, s, n, *hash);
}

/* word_lookup(t, s, n, hash): word_probe_hashed on t's table, a macro so
 * that it inlines where the tpl is complete (the lexer's name tokens: with
 * word_hash inlined next to it, the loads and the tail are shared). */
#define word_lookup(t, s, n, hash) word_probe_hashed(&(t)->wd, (s), (n), (hash))

/* The word of s[0..n) for bytes whose hash is not at hand (a constant's):
 * W_NONE at once when they cannot be a word (every word is an identifier
 * of at most 24 bytes), else hashed and looked up. */
unsigned word_of(const tpl *t, const uint8_t *s, size_t n);
/* The word table itself (words.c): each word's text and classes. */
typedef struct word_def {
    const char *s;
    uint16_t cls;
} word_def;
extern const word_def word_defs[W__COUNT];

static inline uint16_t word_class(unsigned id)
{
    return id < W__COUNT ? word_defs[id].cls : 0;
}

static inline const char *word_text(unsigned id)
{
    return id > W_NONE && id < W__COUNT && word_defs[id].s ? word_defs[id].s : "";
}

#endif
