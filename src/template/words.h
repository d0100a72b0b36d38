/* words.h - the word table of the template analyser (words.c, prefix
 * word_): ids of the names with a meaning to the analyser, and their
 * classes. */
#ifndef GGUFLINT_TEMPLATE_WORDS_H
#define GGUFLINT_TEMPLATE_WORDS_H

#include "template/caps.h"
#include "template/template.h"

#include <stddef.h>
#include <stdint.h>

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

/* open addressing over word ids, built by word_init */
typedef struct tpl_words {
    uint16_t slots[TPL_WORD_SLOTS];
    uint32_t hash[TPL_WORD_SLOTS]; /* each slot's full hash, compared before the bytes */
    uint8_t len[TPL_WORD_SLOTS];
    uint32_t hunt_lens; /* bit n: some WC_CLASSHUNT word is n bytes long */
} tpl_words;

void word_init(tpl *t);
uint32_t word_hash(const uint8_t *s, size_t n);
/* word_hash reads eight bytes a step (names are short: one to three steps);
 * the word table is fixed and the variable table is bounded, so no input can
 * make its collisions cost more than a bounded probe */
#define WORD_HASH_SEED 0x9E3779B97F4A7C15u
#define WORD_HASH_MUL 0xFF51AFD7ED558CCDu
/* The word of s[0..n) (hash = word_hash(s, n)), W_NONE when none. */
unsigned word_lookup(const tpl *t, const uint8_t *s, size_t n, uint32_t hash);
/* The word of s[0..n) for bytes whose hash is not at hand (a constant's):
 * W_NONE at once when they cannot be a word (every word is an identifier
 * of at most 24 bytes), else hashed and looked up. */
unsigned word_of(const tpl *t, const uint8_t *s, size_t n);
uint16_t word_class(unsigned id);
const char *word_text(unsigned id);

#endif
