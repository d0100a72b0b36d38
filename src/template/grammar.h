/* grammar.h - the instruction grammar of the template text scanners
 * (grammar.c, prefix gr_): the words of data/template/grammar.def with
 * their roles, matched in the scanners' streams (ASCII words by the phrase
 * automaton of stream.c, words of other scripts by gr_letter), and the
 * pairs of roles that make an instruction (GG726, GG739); a concealment
 * of the instruction itself ("do not tell the user about this
 * instruction") is an instruction (GG726) besides. */
#ifndef GGUFLINT_TEMPLATE_GRAMMAR_H
#define GGUFLINT_TEMPLATE_GRAMMAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* the roles of a word (grammar.def) */
enum {
    GR_V_OVR,
    GR_V_OBEY,
    GR_V_CONC,
    GR_V_SEND,
    GR_Q_UNIV,
    GR_O_RULES,
    GR_O_INSTR,
    GR_O_USER,
    GR_O_CONV,
    GR_O_SELF,
    GR__N
};
#define GR_WORD_MAX 16u /* letters (and single spaces) of a word of another script */
#define GR_LETTERS 16u  /* letters of a script run remembered (a power of 2, >= GR_WORD_MAX) */

/* What a scanner holds of the grammar (in tscan, reset with it). */
typedef struct gr_state {
    uint16_t have;        /* roles seen since the reset */
    uint32_t rn[GR__N];   /* ring_n after the role's last word */
    uint64_t ix[GR__N];   /* where that word began */
    uint16_t word[GR__N]; /* and which word it was */
    uint32_t done[8];     /* by rule: ring_n of the other word it was last reported with */
    uint32_t phrase_rn;   /* ring_n after the last listed phrase (0: none) */
    uint32_t next_rn;     /* ring_n at which the next script letter continues the run */
    uint32_t run;         /* letters in the current run of script letters */
    bool space;           /* the symbol before the letter being fed was a space (stream.c) */
    uint32_t cp[GR_LETTERS];
    uint64_t cix[GR_LETTERS];
} gr_state;

struct tpl;
struct tscan;

bool gr_build(void);         /* the tables, once per process (stream.c's tables_build) */
size_t gr_ascii_count(void); /* the ASCII words: patterns of the automaton */
const char *gr_ascii_text(size_t i);
static inline void gr_reset(gr_state *g)
{
    g->have = 0;
    memset(g->done, 0, sizeof g->done);
    g->phrase_rn = 0;
    g->run = 0;
}
/* An instruction the grammar found, for stream.c's ts_phrase to report:
 * its TH_* kind, where it begins, its length in symbols, the HOW_* bits
 * that do not apply, its text. */
#define GR_HITS 4u
typedef struct gr_hit {
    int kind;
    uint64_t index;
    uint32_t len;
    unsigned not_how;
    char text[200];
} gr_hit;
/* ASCII word i ended at the symbol fed last, which began at `index`: the
 * instructions it completes, into hit[0..GR_HITS), their number. */
unsigned gr_ascii_hit(struct tpl *t, struct tscan *s, size_t i, uint64_t index, gr_hit *hit);
/* A letter of a non-Latin script (gr_script) at `index` was fed; rn0: the
 * scanner's ring_n before it was, and s->gr.space whether the symbol
 * before it was a space (one space between two letters of such scripts
 * continues the run, as a space: "не говори"). The same. */
unsigned gr_letter(struct tpl *t, struct tscan *s, uint32_t cp, uint64_t index, uint32_t rn0,
                   gr_hit *hit);
/* The filter gr_letter's fast mode reads (TPL_FAST): bit c % 4096 set when
 * some word of another script ends in the case-folded letter c (a letter
 * whose bit is clear ends no word: gr_letter only notes it in the run). */
const uint64_t *gr_end_filter(void);
static inline bool gr_may_end(const uint64_t *filter, uint32_t c)
{
    return (filter[(c >> 6) & 63] >> (c & 63)) & 1u;
}
static inline bool gr_script(uint32_t cp)
{
    return (cp >= 0x0370 && cp <= 0x052F) || (cp >= 0x0590 && cp <= 0x06FF) ||
           (cp >= 0x0900 && cp <= 0x097F) || (cp >= 0x0E00 && cp <= 0x0E7F) ||
           (cp >= 0x1100 && cp <= 0x11FF) || (cp >= 0x3040 && cp <= 0x30FF) ||
           (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
           (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF);
}
/* Ideographs and kana: text with no spaces between words (GG734 counts
 * them two to a word). */
static inline bool gr_unspaced(uint32_t cp)
{
    return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
           (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF);
}

#endif
