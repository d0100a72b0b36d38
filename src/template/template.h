/* template.h - static analysis of Jinja chat templates, never rendering
 * them: the interface check_template.c uses. A template arrives as one or
 * more chunks (a string value, or the elements of a string array, which are
 * concatenated); the analyser lexes {{ }}, {% %} and {# #}, resolves string
 * literals with their escapes, folds constant expressions (~, +, join,
 * format, replace, case filters, {% set %}) and reports the indicators of
 * docs/SECURITY.md section 3 as "hits", one kept per kind with a
 * count of the others. Time is linear in the bytes fed to one analyser and
 * memory is bounded whatever the input (see caps.h). The parts and their
 * state are described in core.c and tpl.h. */
#ifndef GGUFLINT_TEMPLATE_H
#define GGUFLINT_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kinds of hits, one per template rule (GG720...). */
enum {
    TH_GADGET,      /* dunder attributes, __globals__ gadgets, class hunting */
    TH_EXEC,        /* os / subprocess / eval / open sinks, sandbox-escape helpers */
    TH_OBFUSCATION, /* escapes spelling names, names built by folding, chr, non-literal attr */
    TH_BLOB,        /* base64 / hex runs of 64+ characters */
    TH_OVERSIZE,    /* template over 256 KiB */
    TH_URL,         /* URLs, IPv4 addresses, e-mail addresses */
    TH_INSTRUCTION, /* instruction-like literal text */
    TH_TRIGGER,     /* message content compared with a trigger word */
    TH_INVISIBLE,   /* zero-width, bidi and tag characters */
    TH_DOS,         /* render-time denial of service */
    TH_UTF8,        /* invalid UTF-8 */
    TH_SYNTAX,      /* unterminated constructs, unbalanced blocks */
    TH_LIMIT,       /* an analysis cap was hit */
    TH_GATED,       /* instructions emitted only under a content / turn / date condition */
    TH_ASSEMBLED,   /* instruction text no literal holds */
    TH_EXFIL,       /* message content into a URL, markdown link or HTML comment */
    TH_SHELL,       /* installer and shell commands */
    TH_HOMOGLYPH,   /* look-alike letters in words and names */
    TH_CONCEAL,     /* "do not tell the user" */
    TH__COUNT
};

typedef struct tpl_hit {
    bool have;
    uint64_t index; /* its template byte index (UINT64_MAX: none quoted) */
    uint64_t loc;   /* the template byte that places it: the caller maps it to
                     * the string or array element holding that byte */
    uint64_t more;  /* further occurrences */
    char msg[448];  /* escaped, one line */
} tpl_hit;

typedef struct tpl tpl;

/* An analyser, reusable for any number of templates. Its folding budget is
 * shared by all of them (a base plus a few bytes per template byte), so use
 * one analyser per file: the file's cost stays linear in its size. NULL on
 * NOMEM. */
tpl *tpl_new(void);
void tpl_free(tpl *t);
/* The analyser of one file (check_template): the calling thread's kept
 * analyser, its per-file state (the folding budget, the literal, value and
 * token memos) reset as tpl_new leaves it, else tpl_new's. NULL on NOMEM.
 * tpl_release hands it back: kept for the thread's next file (freed when
 * the thread exits) unless it ran out of memory, grew past TPL_KEEP_HEAP
 * or fresh analysers are forced; then freed. So a run over many small
 * files pays tpl_new's zeroing of the ~300 KiB of tables once per thread,
 * not once per file. NULL is ignored. */
tpl *tpl_acquire(void);
void tpl_release(tpl *t);
/* The twin of that reuse, for tests (tests/test_template_reuse.c): with
 * on != 0 every tpl_acquire makes a fresh analyser and every tpl_release
 * frees it, so a test can require the same findings of both. Process-wide;
 * set from the environment variable GGUFLINT_TPL_FRESH (anything but "0"
 * or empty) at the first tpl_acquire, until a call says otherwise. */
void tpl_force_fresh(int on);
/* A template in one piece: tpl_begin, tpl_feed and tpl_end, or nothing
 * when the analyser is kept and its last file's first template was these
 * same bytes and so is this file's (the analysis is a function of the
 * bytes and of the state tpl_acquire resets, so its state, the hits and
 * tokens included, is already what the analysis would leave). Never so
 * in the reference mode or with fresh analysers forced: there every
 * template is analysed. */
void tpl_whole(tpl *t, const uint8_t *p, uint64_t n);
/* Start a template of total_len bytes (the sum of the chunks to come). */
void tpl_begin(tpl *t, uint64_t total_len);
/* Feed the next n bytes (the template's bytes are numbered from 0 across
 * the chunks; a hit's loc is such a number). */
void tpl_feed(tpl *t, const uint8_t *p, uint64_t n);
/* End of template: flush, check what is left open. */
void tpl_end(tpl *t);
/* The hit of a kind (have == false when none). */
const tpl_hit *tpl_hit_get(const tpl *t, int kind);
/* True when an allocation failed (the results are then incomplete). */
bool tpl_nomem(const tpl *t);
/* Template byte index of the first "{{" or "{%" in the template, or -1. */
int64_t tpl_first_tag(const tpl *t);
/* The special tokens the last template emits (tokens.c): "<|im_start|>"
 * and "<｜User｜>" (TKN_BAR), "<start_of_turn>" or "</s>" (TKN_ANGLE),
 * "[INST]" (TKN_BRACKET), each once, with the template line and column of
 * its first occurrence (0 when not known). */
enum { TKN_BAR = 1, TKN_ANGLE, TKN_BRACKET };
size_t tpl_token_count(const tpl *t);
const uint8_t *tpl_token_get(const tpl *t, size_t i, size_t *len, int *kind, uint64_t *line,
                             uint64_t *col);
/* Whether a {{ }} tag outputs the bos_token / eos_token variable. */
enum { TPL_VAR_BOS, TPL_VAR_EOS };
bool tpl_emits_var(const tpl *t, int which);
/* The reference mode, for tests and fuzzers (tests/test_template_ref.c,
 * fuzz/fuzz_template.c): with on != 0 every analyser takes, from its next
 * tpl_begin on, the plain byte loops instead of every fast path (the
 * lexer's text runs, opener shortcut and tag_run; the scanners' ASCII
 * loops, whitespace steps and run shortcuts; the literal, value and token
 * memos; the token hints), so that a test can require the same findings
 * and messages of both. Process-wide, like fp_force_level; 0, the fast
 * paths, by default. A build with -DGGUFLINT_TPL_REFERENCE compiles the
 * fast paths out (tpl.h's TPL_FAST). */
void tpl_force_reference(int on);
/* Test hook of the differential oracle (tests/tools/tpl_fold.c): analyse
 * one template on a fresh folding budget and tell what the folder knows of
 * the value of its last {{ }} tag, as Jinja would print it. Returns 1 with
 * the text in buf (*len bytes), 0 when the value is unknown, inexact or
 * longer than cap. */
int tpl_probe(tpl *t, const uint8_t *p, size_t n, uint8_t *buf, size_t cap, size_t *len);

#endif
