/* grammar.c - the instruction grammar of the template text scanners
 * (prefix gr_, state tscan.gr): the words of data/template/grammar.def and
 * the pairs of their roles that make an instruction, in any of the
 * languages the table has. ASCII words are patterns of stream.c's phrase
 * automaton (its alphabet folds case, fullwidth and look-alike letters and
 * accents); words of other scripts are found here, as the last 1..16
 * letters of the run of such letters the scanner is in (a run ends at
 * anything but one space between two of its letters, which it keeps as a
 * space: CJK needs no spaces, "не говори" has one), looked up in a hash
 * table built once
 * per process. The roles of the words seen are kept with where they were
 * (ring_n), so a rule is one comparison per role pair: O(1) per word. */
#include "template/tpl.h"

#include "common/utf8.h"

#include <stdio.h>
#include <string.h>

#define V_OVR (1u << GR_V_OVR)
#define V_OBEY (1u << GR_V_OBEY)
#define V_CONC (1u << GR_V_CONC)
#define V_SEND (1u << GR_V_SEND)
#define Q_UNIV (1u << GR_Q_UNIV)
#define O_RULES (1u << GR_O_RULES)
#define O_INSTR (1u << GR_O_INSTR)
#define O_USER (1u << GR_O_USER)
#define O_CONV (1u << GR_O_CONV)
#define O_SELF (1u << GR_O_SELF)
#define LATE (1u << GR__N)
#define FIRST (1u << (GR__N + 1)) /* a verb whose object must follow it */

typedef struct gword {
    /* an array, not a pointer: 470 words were 470 dynamic relocations at
     * every start-up (a longer entry fails the build: initializer too long) */
    char s[40];
    uint16_t roles;
} gword;

#define GW(roles, text) {text, (uint16_t)(roles)},
static const gword gwords[] = {
#include "../../data/template/grammar.def"
};
#undef GW
#define N_GWORDS (sizeof gwords / sizeof gwords[0])
_Static_assert(N_GWORDS < 0xFFFF, "a word index fits");

/* a rule: a verb and an object within GR_WINDOW symbols, in either order;
 * obedience also wants a universal quantifier between them ("follow any
 * instructions", "任何指令都要执行") */
#define GR_WINDOW 40u
typedef struct grule {
    uint8_t verb, obj;
    bool quant;
    int kind; /* TH_INSTRUCTION or TH_CONCEAL */
    const char *name;
} grule;
static const grule grules[] = {
    {GR_V_OVR, GR_O_RULES, false, TH_INSTRUCTION, "override"},
    {GR_V_OBEY, GR_O_INSTR, true, TH_INSTRUCTION, "obedience"},
    {GR_V_CONC, GR_O_USER, false, TH_CONCEAL, "concealment"},
    {GR_V_SEND, GR_O_CONV, false, TH_INSTRUCTION, "exfiltration"},
    /* the instruction hides itself: real tool-calling templates conceal
     * function calls from the user, never their own text */
    {GR_V_CONC, GR_O_SELF, false, TH_INSTRUCTION, "self-concealment"},
};
_Static_assert(sizeof grules / sizeof grules[0] <=
                   sizeof((gr_state *)0)->done / sizeof((gr_state *)0)->done[0],
               "a done slot per rule");

/* the process's tables (gr_build, under stream.c's pthread_once) */
#define GR_SLOTS 1024u
static struct {
    uint16_t ascii[N_GWORDS]; /* the ASCII words, by automaton pattern number */
    size_t n_ascii;
    uint32_t cp[N_GWORDS][GR_WORD_MAX]; /* the other words' letters, case-folded */
    uint8_t len[N_GWORDS];              /* their letter counts (ASCII: bytes) */
    uint32_t slot_h[GR_SLOTS];
    uint16_t slot_w[GR_SLOTS]; /* word + 1; 0 empty */
    uint64_t last[64];         /* bit cp % 4096 of every word's last letter (TPL_FAST's filter) */
    uint8_t most[256];         /* by last letter % 256: the longest word ending so (TPL_FAST) */
} gt;

/* Greek letters with tonos (and final sigma) as their base letters: Greek
 * text is often written without accents */
static const uint16_t greek_base[] = {
    [0x0386 - 0x0386] = 0x03B1, [0x0388 - 0x0386] = 0x03B5, [0x0389 - 0x0386] = 0x03B7,
    [0x038A - 0x0386] = 0x03B9, [0x038C - 0x0386] = 0x03BF, [0x038E - 0x0386] = 0x03C5,
    [0x038F - 0x0386] = 0x03C9, [0x03AC - 0x0386] = 0x03B1, [0x03AD - 0x0386] = 0x03B5,
    [0x03AE - 0x0386] = 0x03B7, [0x03AF - 0x0386] = 0x03B9, [0x03C2 - 0x0386] = 0x03C3,
    [0x03CC - 0x0386] = 0x03BF, [0x03CD - 0x0386] = 0x03C5, [0x03CE - 0x0386] = 0x03C9,
};

static uint32_t fold_case(uint32_t cp)
{
    if (cp < 0x0386 || cp > 0x0451)
        return cp;
    if (cp <= 0x03CE && greek_base[cp - 0x0386])
        return greek_base[cp - 0x0386];
    if ((cp >= 0x0410 && cp <= 0x042F) || (cp >= 0x0391 && cp <= 0x03A9))
        return cp + 0x20; /* Cyrillic, Greek capitals */
    if (cp == 0x0401 || cp == 0x0451)
        return 0x0435; /* ё as е */
    if (cp >= 0x0400 && cp <= 0x040F)
        return cp + 0x50;
    return cp;
}

static uint32_t mix(uint32_t h, uint32_t cp)
{
    h = (h ^ cp) * 0x9E3779B1u;
    return h ^ (h >> 15);
}

bool gr_build(void)
{
    for (size_t i = 0; i < N_GWORDS; i++) {
        const uint8_t *s = (const uint8_t *)gwords[i].s;
        if (!memchr(s, 0, sizeof gwords[i].s))
            return false; /* an entry that fills its array has no end: every template test fails */
        size_t n = strlen(gwords[i].s), k = 0;
        bool ascii = true;
        for (size_t j = 0; j < n; j++)
            ascii &= s[j] < 0x80;
        if (ascii) {
            gt.ascii[gt.n_ascii++] = (uint16_t)i;
            gt.len[i] = (uint8_t)n;
            continue;
        }
        for (size_t j = 0; j < n;) {
            uint32_t cp;
            unsigned m = utf8_decode(s + j, n - j, &cp);
            bool space = cp == ' ' && k > 0 && j + 1 < n && gt.cp[i][k - 1] != ' ';
            if (!m || k == GR_WORD_MAX || !(gr_script(cp) || space))
                return false; /* the table is wrong (grammar.def's rules) */
            gt.cp[i][k++] = fold_case(cp);
            j += m;
        }
        const uint32_t end = gt.cp[i][k - 1];
        gt.len[i] = (uint8_t)k;
        gt.last[(end >> 6) & 63] |= 1ull << (end & 63);
        if (gt.most[end & 255] < k)
            gt.most[end & 255] = (uint8_t)k;
        uint32_t h = 0x811C9DC5u;
        for (size_t j = k; j-- > 0;) /* the newest letter first, as gr_letter hashes */
            h = mix(h, gt.cp[i][j]);
        uint32_t at = h & (GR_SLOTS - 1);
        while (gt.slot_w[at])
            at = (at + 1) & (GR_SLOTS - 1);
        gt.slot_h[at] = h;
        gt.slot_w[at] = (uint16_t)(i + 1);
    }
    return true;
}

size_t gr_ascii_count(void)
{
    return gt.n_ascii;
}

const char *gr_ascii_text(size_t i)
{
    return gwords[gt.ascii[i]].s;
}

/* "'ignor' ... 'guideline'" for a message */
static void pair_text(char *buf, size_t cap, unsigned a, unsigned b)
{
    char e1[64], e2[64];
    const char *s1 = gwords[a].s, *s2 = gwords[b].s;
    while (*s1 == ' ')
        s1++;
    while (*s2 == ' ')
        s2++;
    size_t n1 = strlen(s1), n2 = strlen(s2);
    while (n1 && s1[n1 - 1] == ' ')
        n1--;
    while (n2 && s2[n2 - 1] == ' ')
        n2--;
    snprintf(buf, cap, "%s ... %s", tpl_quote(e1, sizeof e1, (const uint8_t *)s1, n1, 30),
             tpl_quote(e2, sizeof e2, (const uint8_t *)s2, n2, 30));
}

static bool near(const gr_state *g, unsigned role, uint32_t rn)
{
    return (g->have & (1u << role)) && rn - g->rn[role] <= GR_WINDOW;
}

/* Word w (roles `roles`), which began at `ix`, ended at ring_n rn. */
static unsigned token(tscan *s, unsigned w, unsigned roles, uint64_t ix, uint32_t rn, gr_hit *hit,
                      unsigned nh)
{
    gr_state *g = &s->gr;
    s->matches++; /* the value memo replays no grammar state */
    for (size_t r = 0; r < sizeof grules / sizeof grules[0]; r++) {
        const grule *u = &grules[r];
        unsigned other;
        if ((roles & (1u << u->obj)) && near(g, u->verb, rn))
            other = u->verb;
        else if ((roles & (1u << u->verb)) && near(g, u->obj, rn) && !(roles & FIRST) &&
                 ((roles & LATE) || u->verb == GR_V_CONC))
            other = u->obj;
        else
            continue;
        if (u->quant) {
            /* verb ... quantifier ... object, or quantifier object ... verb */
            uint32_t q = g->rn[GR_Q_UNIV];
            bool ok = near(g, GR_Q_UNIV, rn) &&
                      (other == u->verb ? q > g->rn[u->verb] : q <= g->rn[u->obj]);
            if (!ok)
                continue;
        }
        if (g->done[r] == g->rn[other])
            continue; /* one report per pair (and rule) */
        g->done[r] = g->rn[other];
        if (g->phrase_rn && rn - g->phrase_rn <= GR_WINDOW && u->obj != GR_O_SELF)
            continue; /* a listed phrase said it already (it says no self-concealment) */
        if (nh == GR_HITS)
            continue;
        gr_hit *h = &hit[nh++];
        char text[160];
        pair_text(text, sizeof text, g->word[other], w);
        snprintf(h->text, sizeof h->text, "%s (%s)", text, u->name);
        h->len = rn - g->rn[other] + gt.len[g->word[other]];
        if (h->len > rn)
            h->len = rn;
        h->kind = u->kind;
        h->index = g->ix[other];
        /* Cyrillic words hold letters that look Latin: in words of the
         * script they are its letters, not a disguise */
        h->not_how = gt.cp[w][0] && gt.cp[g->word[other]][0] ? HOW_FOLDED : 0;
    }
    for (unsigned b = 0; b < GR__N; b++)
        if (roles & (1u << b)) {
            g->rn[b] = rn;
            g->ix[b] = ix;
            g->word[b] = (uint16_t)w;
        }
    g->have |= (uint16_t)(roles & ((1u << GR__N) - 1));
    return nh;
}

unsigned gr_ascii_hit(tpl *t, tscan *s, size_t i, uint64_t index, gr_hit *hit)
{
    (void)t;
    unsigned w = gt.ascii[i];
    return token(s, w, gwords[w].roles, index, s->ring_n, hit, 0);
}

const uint64_t *gr_end_filter(void)
{
    return gt.last;
}

unsigned gr_letter(tpl *t, tscan *s, uint32_t cp, uint64_t index, uint32_t rn0, gr_hit *hit)
{
    unsigned nh = 0;
    gr_state *g = &s->gr;
    if (rn0 == g->next_rn + 1 && g->space && g->run) {
        g->cp[g->run % GR_LETTERS] = ' '; /* one space between two letters */
        g->cix[g->run % GR_LETTERS] = index;
        g->run++;
    } else if (rn0 != g->next_rn) {
        g->run = 0; /* something else came between: a new run */
    }
    g->next_rn = s->ring_n;
    const uint32_t c = fold_case(cp);
    g->cp[g->run % GR_LETTERS] = c;
    g->cix[g->run % GR_LETTERS] = index;
    g->run++;
    /* a word can only end here if some word ends in this letter: most
     * letters of real text end none, and no word is longer than the
     * longest that ends so (the reference mode looks all of them up) */
    uint32_t most = g->run < GR_WORD_MAX ? g->run : GR_WORD_MAX;
    if (TPL_FAST(t)) {
        if (!gr_may_end(gt.last, c))
            return 0;
        if (most > gt.most[c & 255])
            most = gt.most[c & 255];
    }
    uint32_t h = 0x811C9DC5u;
    for (uint32_t k = 1; k <= most; k++) {
        h = mix(h, g->cp[(g->run - k) % GR_LETTERS]);
        for (uint32_t at = h & (GR_SLOTS - 1); gt.slot_w[at]; at = (at + 1) & (GR_SLOTS - 1)) {
            unsigned w = gt.slot_w[at] - 1u;
            if (gt.slot_h[at] != h || gt.len[w] != k)
                continue;
            bool same = true;
            for (uint32_t j = 0; j < k; j++)
                same &= gt.cp[w][j] == g->cp[(g->run - k + j) % GR_LETTERS];
            if (same)
                nh = token(s, w, gwords[w].roles, g->cix[(g->run - k) % GR_LETTERS], s->ring_n, hit,
                           nh);
        }
    }
    return nh;
}
