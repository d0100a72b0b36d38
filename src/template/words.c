/* words.c - the template analyser's word table (prefix word_, state t->wd):
 * the names with a meaning to the analyser (Jinja keywords and statements,
 * the Jinja globals that expose __globals__, Python modules, builtins and
 * attributes that run code, class-hunting names, folding methods and
 * filters), each with its classes, in one open-addressing table. */
#include "template/tpl.h"

#include <string.h>

_Static_assert(W__COUNT <= 0xFFFF, "a word id fits the 16 id bits of a slot");

#define TAINT WC_TAINTSINK
const word_def word_defs[W__COUNT] = {
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
    [W_ITEMS] = {"items", 0},
    [W_CENTER] = {"center", 0},
    [W_INDENT] = {"indent", 0},
    [W_CONTENT] = {"content", 0},
    [W_TEXT] = {"text", 0},
    [W_LENGTH] = {"length", 0},
    [W_INDEX0] = {"index0", 0},
    [W_REVINDEX] = {"revindex", 0},
    [W_REVINDEX0] = {"revindex0", 0},
    [W_STRFTIME_NOW] = {"strftime_now", 0},
    [W_URLENCODE] = {"urlencode", 0},
    [W_TOJSON] = {"tojson", 0},
    [W_GI_FRAME] = {"gi_frame", WC_INTERNAL},
    [W_GI_CODE] = {"gi_code", WC_INTERNAL},
    [W_CR_FRAME] = {"cr_frame", WC_INTERNAL},
    [W_CR_CODE] = {"cr_code", WC_INTERNAL},
    [W_AG_FRAME] = {"ag_frame", WC_INTERNAL},
    [W_AG_CODE] = {"ag_code", WC_INTERNAL},
    [W_TB_FRAME] = {"tb_frame", WC_INTERNAL},
    [W_TB_NEXT] = {"tb_next", WC_INTERNAL},
    [W_F_BUILTINS] = {"f_builtins", WC_INTERNAL | WC_KEYSINK},
    [W_F_GLOBALS] = {"f_globals", WC_INTERNAL},
    [W_F_LOCALS] = {"f_locals", WC_INTERNAL},
    [W_F_BACK] = {"f_back", WC_INTERNAL},
    [W_F_CODE] = {"f_code", WC_INTERNAL},
    [W_GET] = {"get", 0},
    [W_POP] = {"pop", 0},
    [W_SETDEFAULT] = {"setdefault", 0},
    [W_INCLUDE] = {"include", 0},
    [W_IMPORT] = {"import", 0},
    [W_EXTENDS] = {"extends", 0},
    [W_FROM] = {"from", 0},
    [W_MAP] = {"map", 0},
    [W_SELECTATTR] = {"selectattr", 0},
    [W_REJECTATTR] = {"rejectattr", 0},
    [W_GROUPBY] = {"groupby", 0},
    [W_ATTRIBUTE] = {"attribute", 0},
    [W_APPEND] = {"append", 0},
    [W_EXTEND] = {"extend", 0},
    [W_INSERT] = {"insert", 0},
    [W_COPY] = {"copy", 0},
};
#undef TAINT

void word_init(tpl *t)
{
    memset(t->wd.slots, 0, sizeof t->wd.slots);
    memset(t->wd.key, 0, sizeof t->wd.key);
    t->wd.hunt_bits = 0;
    for (unsigned id = 1; id < W__COUNT; id++) {
        const char *s = word_defs[id].s;
        if (!s)
            continue;
        size_t n = strlen(s);
        uint32_t full = word_key((const uint8_t *)s, n, t->wd.key[id]),
                 h = full & (TPL_WORD_SLOTS - 1);
        while (t->wd.slots[h])
            h = (h + 1) & (TPL_WORD_SLOTS - 1);
        t->wd.slots[h] = (uint64_t)full << 32 | (uint64_t)n << 16 | id;
        if (word_defs[id].cls & WC_CLASSHUNT)
            t->wd.hunt_bits |= word_hunt_bit((const uint8_t *)s, n);
    }
}

unsigned word_of(const tpl *t, const uint8_t *s, size_t n)
{
    if (n == 0 || n > WORD_MAX_LEN)
        return W_NONE;
    uint8_t a = s[0], z = s[n - 1];
    bool start = (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || a == '_';
    bool end =
        (z >= 'a' && z <= 'z') || (z >= 'A' && z <= 'Z') || z == '_' || (z >= '0' && z <= '9');
    if (!start || !end)
        return W_NONE;
    uint32_t h;
    return word_find(&t->wd, s, n, &h);
}
