/* gen_bench.c - writes the deterministic inputs of the benchmark (ci/bench.sh)
 * into OUTDIR, which must exist:
 *
 *   gen_bench OUTDIR [a|b|c ...]        (no letter: all three)
 *
 *   a  OUTDIR/a.gguf: metadata-heavy llama model, about 15.7 MB of metadata:
 *      a 256 000-token byte-level BPE vocabulary ("gpt2": tokens, scores,
 *      token types) with 250 000 merges, the llama hyper-parameters, and
 *      1 001 tensors: 111 blocks of 7 Q4_0 weights ([256, 64] or [64, 256],
 *      9 216 bytes) and 2 F32 [256] norms, token_embd.weight (Q4_0
 *      [256, 256000]) and output_norm.weight. Zero data, written in full.
 *   b  OUTDIR/b.gguf: data-heavy llama model, little metadata: 64 F16
 *      tensors of 16 MiB ([4096, 2048] or [2048, 4096]) holding a repeating
 *      pattern of finite non-zero values, plus F32 norms of ones. Size:
 *      BENCH_B_MIB MiB of F16 tensors (default 1024, 128..16384), rounded to
 *      whole blocks (token_embd + 7 tensors per block).
 *   c  OUTDIR/c/d000..d099/f0000.gguf..f9999.gguf: 10 000 small valid
 *      one-block llama models (7-15 KB), 100 per directory, varied by index:
 *      F16 or Q8_0 weights, width, vocabulary size, context length, name,
 *      general.alignment present or not.
 *
 * Every file is valid and lints clean with the default profile: the shapes
 * agree with the hyper-parameters, offsets are contiguous and padded, the
 * file ends at the last tensor's padding. The builder works in memory, so only
 * the metadata goes through it; the data sections of a and b are streamed
 * with fwrite. Everything depends only on fixed seeds: two runs write
 * identical bytes. GEN_BENCH_VERBOSE=1 prints how the vocabulary was made. */
#define _POSIX_C_SOURCE 200809L

#include "genkit.h"
#include "gguf_builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ALIGN 32u

/* ---- helpers ---- */

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "gen_bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* uniform in [0, n), n > 0 (the bias of the modulo is irrelevant here) */
static uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)((gk_rng_next(s) >> 32) % n);
}

/* The metadata (everything before the data section) from the builder, then
 * `data` streamed by the caller. Returns the open file, positioned after the
 * metadata; *meta_len gets its size (= data_start). */
static FILE *open_with_meta(const char *path, gb *b, size_t *meta_len)
{
    size_t len = 0;
    uint8_t *buf = gb_finish(b, &len);
    if (!buf)
        die("out of memory in the builder", path);
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    if (fwrite(buf, 1, len, f) != len)
        die("cannot write", path);
    free(buf);
    *meta_len = len;
    return f;
}

static void close_file(FILE *f, const char *path)
{
    if (ferror(f) || fclose(f) != 0)
        die("cannot write", path);
}

static void write_zeros(FILE *f, uint64_t n, const char *path)
{
    static const uint8_t zeros[1 << 16];
    while (n > 0) {
        size_t k = n < sizeof zeros ? (size_t)n : sizeof zeros;
        if (fwrite(zeros, 1, k, f) != k)
            die("cannot write", path);
        n -= k;
    }
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create directory", path);
}

/* One tensor of the plan: name, shape, type; offsets follow from the order. */
typedef struct {
    char name[64];
    uint32_t n_dims;
    uint64_t ne[2];
    uint32_t type;
    uint64_t nbytes;
} tensor_plan;

static void plan(tensor_plan *t, const char *name, uint32_t n_dims, uint64_t ne0, uint64_t ne1,
                 uint32_t type)
{
    snprintf(t->name, sizeof t->name, "%s", name);
    t->n_dims = n_dims;
    t->ne[0] = ne0;
    t->ne[1] = ne1;
    t->type = type;
    t->nbytes = gb_nbytes(type, n_dims, t->ne);
    if (t->nbytes == UINT64_MAX)
        die("bad tensor plan", name);
}

/* Tensor infos with contiguous padded offsets, then the padding up to the data
 * section. Returns the size of the data section. */
static uint64_t write_infos(gb *b, const tensor_plan *t, size_t n)
{
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        gb_tensor(b, t[i].name, t[i].n_dims, t[i].ne, t[i].type, off);
        off += gb_align_up(t[i].nbytes, ALIGN);
    }
    gb_pad_to(b, ALIGN);
    return off;
}

/* The llama tensor set of `blocks` blocks: token_embd [n_embd, n_vocab],
 * output_norm, and per block the attention (q/k/v [n_embd, n_q|n_kv],
 * output [n_q, n_embd]) and the feed-forward (gate/up [n_embd, n_ff], down
 * [n_ff, n_embd]) weights in `wtype`, norms in F32. n_q = n_head * head_dim,
 * n_kv = n_head_kv * head_dim. Returns the number of tensors (array holds
 * 2 + 9 * blocks). */
static size_t llama_tensors(tensor_plan *t, uint32_t blocks, uint64_t n_embd, uint64_t n_vocab,
                            uint64_t n_q, uint64_t n_kv, uint64_t n_ff, uint32_t wtype,
                            uint32_t embd_type)
{
    size_t n = 0;
    char name[64];
    plan(&t[n++], "token_embd.weight", 2, n_embd, n_vocab, embd_type);
    for (uint32_t i = 0; i < blocks; i++) {
        snprintf(name, sizeof name, "blk.%u.attn_norm.weight", i);
        plan(&t[n++], name, 1, n_embd, 1, GB_F32);
        snprintf(name, sizeof name, "blk.%u.attn_q.weight", i);
        plan(&t[n++], name, 2, n_embd, n_q, wtype);
        snprintf(name, sizeof name, "blk.%u.attn_k.weight", i);
        plan(&t[n++], name, 2, n_embd, n_kv, wtype);
        snprintf(name, sizeof name, "blk.%u.attn_v.weight", i);
        plan(&t[n++], name, 2, n_embd, n_kv, wtype);
        snprintf(name, sizeof name, "blk.%u.attn_output.weight", i);
        plan(&t[n++], name, 2, n_q, n_embd, wtype);
        snprintf(name, sizeof name, "blk.%u.ffn_norm.weight", i);
        plan(&t[n++], name, 1, n_embd, 1, GB_F32);
        snprintf(name, sizeof name, "blk.%u.ffn_gate.weight", i);
        plan(&t[n++], name, 2, n_embd, n_ff, wtype);
        snprintf(name, sizeof name, "blk.%u.ffn_up.weight", i);
        plan(&t[n++], name, 2, n_embd, n_ff, wtype);
        snprintf(name, sizeof name, "blk.%u.ffn_down.weight", i);
        plan(&t[n++], name, 2, n_ff, n_embd, wtype);
    }
    plan(&t[n++], "output_norm.weight", 1, n_embd, 1, GB_F32);
    return n;
}

/* An array of n strings given as a pool and n+1 offsets. */
static void kv_str_array(gb *b, const char *key, const char *pool, const uint32_t *off, size_t n)
{
    gb_kv_begin(b, key, GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, n);
    for (size_t i = 0; i < n; i++)
        gb_str(b, pool + off[i], off[i + 1] - off[i]);
}

/* ---- (a) the vocabulary ---- */

/* A growable pool of distinct strings with a hash set for lookups. */
typedef struct {
    char *pool;
    size_t pool_len, pool_cap;
    uint32_t *off; /* n + 1 offsets into pool */
    size_t n, cap;
    uint32_t *slots; /* index + 1, 0 = empty; power-of-two size */
    size_t mask;
} strset;

static void strset_init(strset *s, size_t cap, size_t pool_cap)
{
    s->pool = gk_malloc(pool_cap);
    s->pool_len = 0;
    s->pool_cap = pool_cap;
    s->off = gk_malloc((cap + 1) * sizeof *s->off);
    s->off[0] = 0;
    s->n = 0;
    s->cap = cap;
    size_t slots = 1;
    while (slots < cap * 2)
        slots <<= 1;
    s->slots = gk_calloc(slots, sizeof *s->slots);
    s->mask = slots - 1;
}

static void strset_free(strset *s)
{
    free(s->pool);
    free(s->off);
    free(s->slots);
}

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)p[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static size_t strset_len(const strset *s, size_t i)
{
    return s->off[i + 1] - s->off[i];
}

static const char *strset_at(const strset *s, size_t i)
{
    return s->pool + s->off[i];
}

/* The index of string p[0..n), or UINT32_MAX. */
static uint32_t strset_find(const strset *s, const char *p, size_t n)
{
    size_t h = (size_t)hash_bytes(p, n) & s->mask;
    for (;;) {
        uint32_t v = s->slots[h];
        if (v == 0)
            return UINT32_MAX;
        size_t j = v - 1;
        if (strset_len(s, j) == n && memcmp(strset_at(s, j), p, n) == 0)
            return (uint32_t)j;
        h = (h + 1) & s->mask;
    }
}

/* Add the concatenation a ‖ b (b may be empty) unless present; true if
 * added. */
static bool strset_add2(strset *s, const char *a, size_t na, const char *b, size_t nb)
{
    if (s->n == s->cap)
        die("string set full", NULL);
    size_t n = na + nb;
    if (s->pool_cap - s->pool_len < n) {
        /* a and b may point into the pool: copy them out first */
        char *tmp = gk_malloc(n);
        memcpy(tmp, a, na);
        memcpy(tmp + na, b, nb);
        while (s->pool_cap - s->pool_len < n)
            s->pool_cap *= 2;
        char *p = realloc(s->pool, s->pool_cap);
        if (!p)
            die("out of memory", NULL);
        s->pool = p;
        bool added = strset_add2(s, tmp, n, "", 0);
        free(tmp);
        return added;
    }
    char *dst = s->pool + s->pool_len;
    memcpy(dst, a, na);
    memcpy(dst + na, b, nb);
    size_t h = (size_t)hash_bytes(dst, n) & s->mask;
    for (;;) {
        uint32_t v = s->slots[h];
        if (v == 0)
            break;
        size_t j = v - 1;
        if (strset_len(s, j) == n && memcmp(strset_at(s, j), dst, n) == 0)
            return false;
        h = (h + 1) & s->mask;
    }
    s->slots[h] = (uint32_t)(s->n + 1);
    s->pool_len += n;
    s->n++;
    s->off[s->n] = (uint32_t)s->pool_len;
    return true;
}

static size_t utf8_put(uint8_t *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    out[0] = (uint8_t)(0xE0 | (cp >> 12));
    out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (uint8_t)(0x80 | (cp & 0x3F));
    return 3; /* only the BMP is used */
}

#define A_VOCAB 256000u
#define A_MERGES 250000u
#define A_SPECIAL 3u
#define A_BASE (A_SPECIAL + 256u)
#define A_MAX_TOKEN 48u /* bytes */

/* GPT-2's byte-to-unicode table: printable Latin-1 bytes map to themselves,
 * the others (controls, space, NBSP, soft hyphen) to U+0100 + n in order, so
 * the space byte 0x20 is U+0120 'Ġ'. Returns the code point of byte `c`. */
static bool byte_printable(unsigned c)
{
    return (c >= 0x21 && c <= 0x7E) || (c >= 0xA1 && c <= 0xAC) || (c >= 0xAE && c <= 0xFF);
}

static uint32_t byte_to_unicode(unsigned c)
{
    if (byte_printable(c))
        return c;
    uint32_t n = 0;
    for (unsigned i = 0; i < c; i++)
        n += !byte_printable(i);
    return 0x100 + n;
}

/* The vocabulary under construction: tokens, merges, and per script the
 * letter tokens and the word tokens grown so far. */
enum { S_LATIN, S_CYRILLIC, S_GREEK, S_CJK, S_DIGIT, N_SCRIPTS };

typedef struct {
    uint32_t *ids;
    size_t n, cap;
} idlist;

typedef struct {
    strset *v;
    uint32_t *left, *right;
    size_t n_merges;
    uint32_t byte_tok[256];
    idlist letters[N_SCRIPTS];
    idlist words[N_SCRIPTS];
    idlist vowels, consonants, accented, suffixes; /* Latin */
    uint64_t rng;
} vocab;

static void idlist_push(idlist *l, uint32_t id)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        uint32_t *p = realloc(l->ids, l->cap * sizeof *p);
        if (!p)
            die("out of memory", NULL);
        l->ids = p;
    }
    l->ids[l->n++] = id;
}

/* Token a ‖ b as a new merge; UINT32_MAX when it exists or is too long. */
static uint32_t vocab_merge(vocab *vc, uint32_t a, uint32_t b)
{
    strset *v = vc->v;
    size_t na = strset_len(v, a), nb = strset_len(v, b);
    if (na + nb > A_MAX_TOKEN || v->n == A_VOCAB)
        return UINT32_MAX;
    if (!strset_add2(v, strset_at(v, a), na, strset_at(v, b), nb))
        return UINT32_MAX;
    if (vc->n_merges < A_MERGES) {
        vc->left[vc->n_merges] = a;
        vc->right[vc->n_merges] = b;
        vc->n_merges++;
    }
    return (uint32_t)(v->n - 1);
}

/* The token of code point cp, made by merging its UTF-8 bytes left to right
 * (creating the prefixes as needed), as byte-level BPE does. */
static uint32_t vocab_char(vocab *vc, uint32_t cp)
{
    uint8_t u[3];
    size_t n = utf8_put(u, cp);
    uint32_t t = vc->byte_tok[u[0]];
    for (size_t i = 1; i < n; i++) {
        uint32_t next = vocab_merge(vc, t, vc->byte_tok[u[i]]);
        if (next == UINT32_MAX) {
            /* the prefix exists already: find it */
            char enc[12];
            size_t len = 0;
            for (size_t k = 0; k <= i; k++) {
                uint8_t e[3];
                size_t el = utf8_put(e, byte_to_unicode(u[k]));
                memcpy(enc + len, e, el);
                len += el;
            }
            next = strset_find(vc->v, enc, len);
            if (next == UINT32_MAX)
                die("internal error: lost prefix", NULL);
        }
        t = next;
    }
    return t;
}

/* Letters of each script, skewed towards the frequent ones: Latin by English
 * letter frequency with some capitals and accented letters, Cyrillic and
 * Greek small and capital letters, 512 CJK ideographs, digits. */
static uint32_t pick_letter(vocab *vc, int script, bool word_start)
{
    const idlist *l = &vc->letters[script];
    uint32_t i = rng_below(&vc->rng, (uint32_t)l->n);
    uint32_t j = rng_below(&vc->rng, (uint32_t)l->n);
    /* the minimum of two uniform picks favours the front of the list; capitals
     * come after the small letters and show up mostly at word starts */
    uint32_t k = i < j ? i : j;
    if (word_start && script != S_CJK && script != S_DIGIT && rng_below(&vc->rng, 4) == 0)
        k = i > j ? i : j;
    return l->ids[k];
}

/* The token of an ASCII string, made by merging its letters left to right. */
static uint32_t vocab_ascii(vocab *vc, const char *str)
{
    uint32_t t = vc->byte_tok[(unsigned char)str[0]];
    for (size_t i = 1; str[i]; i++) {
        uint32_t next = vocab_merge(vc, t, vc->byte_tok[(unsigned char)str[i]]);
        if (next == UINT32_MAX) {
            next = strset_find(vc->v, str, i + 1);
            if (next == UINT32_MAX)
                die("internal error: lost prefix", NULL);
        }
        t = next;
    }
    return t;
}

/* A Latin letter after a word ending in `prev`: vowels and consonants mostly
 * alternate, so words look pronounceable; letters by English frequency. */
static uint32_t pick_latin(vocab *vc, unsigned prev, bool word_start)
{
    bool after_vowel = prev && strchr("aeiouy", (int)prev) != NULL;
    bool vowel = rng_below(&vc->rng, 100) < (after_vowel ? 20u : prev ? 70u : 35u);
    const idlist *l = vowel ? &vc->vowels : &vc->consonants;
    if (rng_below(&vc->rng, 100) < 2)
        l = &vc->accented; /* é, ñ, ü... (two UTF-8 bytes, byte-mapped) */
    uint32_t t = l->ids[rng_below(&vc->rng, (uint32_t)l->n)];
    if (word_start && rng_below(&vc->rng, 5) == 0) {
        /* a capital */
        const char *str = strset_at(vc->v, t);
        if (*str >= 'a' && *str <= 'z' && strset_len(vc->v, t) == 1)
            t = vc->byte_tok[(unsigned char)(*str - 'a' + 'A')];
    }
    return t;
}

static void vocab_letters(vocab *vc)
{
    static const char vowels[] = "eeeeeeaaaaooooiiiiuuyy";
    static const char consonants[] = "tttttttnnnnnnsssssshhhhhrrrrrrddddllllcccmmmwwffggppbbvkjxqz";
    for (const char *p = vowels; *p; p++)
        idlist_push(&vc->vowels, vc->byte_tok[(unsigned char)*p]);
    for (const char *p = consonants; *p; p++)
        idlist_push(&vc->consonants, vc->byte_tok[(unsigned char)*p]);
    static const uint32_t accented[] = {0xE9, 0xE8, 0xE0, 0xFC, 0xF6, 0xE4, 0xF1, 0xE7, 0xE1, 0xF3};
    for (size_t i = 0; i < sizeof accented / sizeof accented[0]; i++)
        idlist_push(&vc->accented, vocab_char(vc, accented[i]));
    static const char *const suffixes[] = {
        "ing",  "ed",   "er",  "ers", "ly",  "tion", "tions", "ment", "ments", "ness",
        "able", "al",   "es",  "s",   "ic",  "ous",  "ive",   "ity",  "ize",   "ation",
        "ful",  "less", "est", "ism", "ist", "ance", "ence",  "ship", "ward",  "like"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        idlist_push(&vc->suffixes, vocab_ascii(vc, suffixes[i]));
    for (uint32_t cp = 0x430; cp <= 0x44F; cp++)
        idlist_push(&vc->letters[S_CYRILLIC], vocab_char(vc, cp));
    for (uint32_t cp = 0x410; cp <= 0x42F; cp++)
        idlist_push(&vc->letters[S_CYRILLIC], vocab_char(vc, cp));
    for (uint32_t cp = 0x3B1; cp <= 0x3C9; cp++)
        idlist_push(&vc->letters[S_GREEK], vocab_char(vc, cp));
    for (uint32_t cp = 0x391; cp <= 0x3A9; cp++)
        if (cp != 0x3A2)
            idlist_push(&vc->letters[S_GREEK], vocab_char(vc, cp));
    for (uint32_t cp = 0x4E00; cp < 0x5000; cp++)
        idlist_push(&vc->letters[S_CJK], vocab_char(vc, cp));
    for (unsigned c = '0'; c <= '9'; c++)
        idlist_push(&vc->letters[S_DIGIT], vc->byte_tok[c]);
}

/* The next letter of a word of `script` ending in token `prev` (UINT32_MAX
 * at a word start). */
static uint32_t next_letter(vocab *vc, int script, uint32_t prev)
{
    if (script == S_LATIN) {
        unsigned last = 0;
        if (prev != UINT32_MAX) {
            size_t n = strset_len(vc->v, prev);
            last = (unsigned char)strset_at(vc->v, prev)[n - 1];
            if (last >= 'A' && last <= 'Z')
                last = last - 'A' + 'a';
            if (last < 'a' || last > 'z')
                last = 'b'; /* Ġ, accented letters: as after a consonant */
        }
        return pick_latin(vc, last, prev == UINT32_MAX);
    }
    return pick_letter(vc, script, prev == UINT32_MAX);
}

/* Tokens 0..2 are <unk> <s> </s>, 3..258 the 256 byte tokens, the rest
 * merges of two earlier tokens, in rank order: first the multi-byte letters
 * of the scripts used, then words grown letter by letter (sometimes by a
 * short suffix) from a word start 'Ġ' + letter or a bare letter. All
 * distinct, valid UTF-8, no spaces; every merge joins two tokens of the
 * vocabulary into a third. */
static void make_vocab(strset *v, uint32_t *left, uint32_t *right)
{
    /* Per script: share of the merged tokens (percent), how often a word to
     * grow is the shorter of two random ones (percent), how often it grows
     * by a suffix token rather than a letter (percent), the longest such
     * suffix and the longest token (bytes). Tuned so that the metadata comes
     * to about 15.6 MB with a realistic mix: most tokens Latin ('Ġ'-prefixed
     * words), the rest Cyrillic, Greek and CJK (byte-mapped, two UTF-8
     * bytes per byte of text), a few digit groups. */
    static const struct {
        uint32_t weight, shorter, suffix, suffix_max, max_len;
    } P[N_SCRIPTS] = {
        [S_LATIN] = {74, 0, 23, 0, A_MAX_TOKEN},
        [S_CYRILLIC] = {12, 100, 10, 8, A_MAX_TOKEN},
        [S_GREEK] = {4, 100, 10, 8, A_MAX_TOKEN},
        [S_CJK] = {9, 100, 10, 12, A_MAX_TOKEN},
        [S_DIGIT] = {1, 0, 0, 0, 4},
    };
    vocab vc;
    memset(&vc, 0, sizeof vc);
    vc.v = v;
    vc.left = left;
    vc.right = right;
    vc.rng = 0x9E3779B97F4A7C15ULL;
    strset_init(v, A_VOCAB, (size_t)A_VOCAB * 20);
    static const char *const special[A_SPECIAL] = {"<unk>", "<s>", "</s>"};
    for (unsigned i = 0; i < A_SPECIAL; i++)
        strset_add2(v, special[i], strlen(special[i]), "", 0);
    for (unsigned c = 0; c < 256; c++) {
        uint8_t u[3];
        size_t n = utf8_put(u, byte_to_unicode(c));
        vc.byte_tok[c] = (uint32_t)v->n;
        if (!strset_add2(v, (const char *)u, n, "", 0))
            die("duplicate byte token", NULL);
    }
    vocab_letters(&vc);
    const uint32_t space = vc.byte_tok[' '];
    size_t made[N_SCRIPTS] = {0}, attempts = 0;
    while (v->n < A_VOCAB) {
        if (++attempts > 100 * (size_t)A_VOCAB)
            die("internal error: the vocabulary does not grow", NULL);
        uint32_t r = rng_below(&vc.rng, 100), s = 0;
        while (r >= P[s].weight)
            r -= P[s++].weight;
        /* keep the mix: a script that is ahead of its share yields to the
         * one most behind (words of some scripts collide more often) */
        if (made[s] * 100 > P[s].weight * (v->n - A_BASE) + 1000) {
            for (uint32_t k = 0; k < N_SCRIPTS; k++)
                if (made[k] * P[s].weight < made[s] * P[k].weight)
                    s = k;
        }
        idlist *w = &vc.words[s];
        uint32_t a, b;
        uint32_t start = rng_below(&vc.rng, 100);
        if (w->n < 16 || start < 8) {
            /* a word start: mostly Ġ + letter, but CJK and digits rarely
             * take a space */
            bool sp = s != S_CJK && s != S_DIGIT ? start % 8 != 0 : start < 2;
            a = sp ? space : next_letter(&vc, (int)s, UINT32_MAX);
            b = next_letter(&vc, (int)s, sp ? UINT32_MAX : a);
        } else {
            /* grow an earlier word (or the shorter of two, so that
             * lengths stay word-like) */
            a = w->ids[rng_below(&vc.rng, (uint32_t)w->n)];
            if (rng_below(&vc.rng, 100) < P[s].shorter) {
                uint32_t c = w->ids[rng_below(&vc.rng, (uint32_t)w->n)];
                if (strset_len(v, c) < strset_len(v, a))
                    a = c;
            }
            b = next_letter(&vc, (int)s, a);
            if (rng_below(&vc.rng, 100) < P[s].suffix) {
                /* a suffix that is itself a token: an English one, or a
                 * short earlier word of the script */
                if (s == S_LATIN) {
                    b = vc.suffixes.ids[rng_below(&vc.rng, (uint32_t)vc.suffixes.n)];
                } else {
                    uint32_t c = w->ids[rng_below(&vc.rng, (uint32_t)w->n)];
                    if (strset_len(v, c) <= P[s].suffix_max &&
                        memcmp(strset_at(v, c), "\xC4\xA0", 2) != 0)
                        b = c;
                }
            }
        }
        if (strset_len(v, a) + strset_len(v, b) > P[s].max_len)
            continue;
        uint32_t t = vocab_merge(&vc, a, b);
        if (t != UINT32_MAX) {
            idlist_push(w, t);
            made[s]++;
        }
    }
    if (getenv("GEN_BENCH_VERBOSE"))
        fprintf(stderr,
                "vocab: %zu attempts; latin %zu cyrillic %zu greek %zu cjk %zu digits %zu\n",
                attempts, made[0], made[1], made[2], made[3], made[4]);
    if (vc.n_merges != A_MERGES)
        die("internal error: merge count", NULL);
    for (int s = 0; s < N_SCRIPTS; s++) {
        free(vc.letters[s].ids);
        free(vc.words[s].ids);
    }
    free(vc.vowels.ids);
    free(vc.consonants.ids);
    free(vc.accented.ids);
    free(vc.suffixes.ids);
}

static void gen_a(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/a.gguf", dir);

    strset v;
    uint32_t *left = gk_malloc(A_MERGES * sizeof *left);
    uint32_t *right = gk_malloc(A_MERGES * sizeof *right);
    make_vocab(&v, left, right);

    /* merges "left right" */
    strset m;
    strset_init(&m, A_MERGES, (size_t)A_MERGES * 24);
    for (size_t i = 0; i < A_MERGES; i++) {
        char buf[2 * A_MAX_TOKEN + 1];
        size_t na = strset_len(&v, left[i]), nb = strset_len(&v, right[i]);
        memcpy(buf, strset_at(&v, left[i]), na);
        buf[na] = ' ';
        memcpy(buf + na + 1, strset_at(&v, right[i]), nb);
        if (!strset_add2(&m, buf, na + 1 + nb, "", 0))
            die("duplicate merge", NULL);
    }

    float *scores = gk_malloc(A_VOCAB * sizeof *scores);
    int32_t *types = gk_malloc(A_VOCAB * sizeof *types);
    for (uint32_t i = 0; i < A_VOCAB; i++) {
        scores[i] = i < A_SPECIAL ? 0.0f : -(float)(i - A_SPECIAL);
        types[i] = i == 0 ? 2 : i < A_SPECIAL ? 3 : 1; /* UNKNOWN, CONTROL, NORMAL */
    }

    /* hyper-parameters: n_embd 256, one 64-wide head, n_ff 64, so every
     * weight is Q4_0 [256, 64] or [64, 256] (9 216 bytes) */
    const uint32_t blocks = 111, n_embd = 256, n_head = 1, head_dim = 64, n_ff = 64;
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "gguflint bench a (metadata-heavy)");
    gb_kv_u32(b, "general.alignment", ALIGN);
    gb_kv_u32(b, "general.file_type", 2); /* MOSTLY_Q4_0 */
    gb_kv_u32(b, "general.quantization_version", 2);
    gb_kv_u32(b, "llama.vocab_size", A_VOCAB);
    gb_kv_u32(b, "llama.context_length", 8192);
    gb_kv_u32(b, "llama.embedding_length", n_embd);
    gb_kv_u32(b, "llama.block_count", blocks);
    gb_kv_u32(b, "llama.feed_forward_length", n_ff);
    gb_kv_u32(b, "llama.rope.dimension_count", head_dim);
    gb_kv_f32(b, "llama.rope.freq_base", 500000.0f);
    gb_kv_u32(b, "llama.attention.head_count", n_head);
    gb_kv_u32(b, "llama.attention.head_count_kv", n_head);
    gb_kv_u32(b, "llama.attention.key_length", head_dim);
    gb_kv_u32(b, "llama.attention.value_length", head_dim);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_str(b, "tokenizer.ggml.model", "gpt2");
    gb_kv_str(b, "tokenizer.ggml.pre", "default");
    kv_str_array(b, "tokenizer.ggml.tokens", v.pool, v.off, v.n);
    gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, A_VOCAB, scores, A_VOCAB * sizeof *scores);
    gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, A_VOCAB, types, A_VOCAB * sizeof *types);
    kv_str_array(b, "tokenizer.ggml.merges", m.pool, m.off, m.n);
    gb_kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
    gb_kv_bool(b, "tokenizer.ggml.add_bos_token", 1);
    gb_kv_bool(b, "tokenizer.ggml.add_eos_token", 0);

    tensor_plan *t = gk_malloc((2 + 9 * (size_t)blocks) * sizeof *t);
    size_t nt = llama_tensors(t, blocks, n_embd, A_VOCAB, n_head * head_dim, n_head * head_dim,
                              n_ff, GB_Q4_0, GB_Q4_0);
    uint64_t data = write_infos(b, t, nt);
    size_t meta;
    FILE *f = open_with_meta(path, b, &meta);
    gb_free(b);
    write_zeros(f, data, path);
    close_file(f, path);
    printf("%s: %zu tokens, %zu merges, %zu tensors, %zu bytes of metadata, %llu bytes of "
           "data\n",
           path, v.n, m.n, nt, meta, (unsigned long long)data);

    free(t);
    free(scores);
    free(types);
    free(left);
    free(right);
    strset_free(&m);
    strset_free(&v);
}

/* ---- (b) F16 data ---- */

static uint64_t env_u64(const char *name, uint64_t dflt, uint64_t lo, uint64_t hi)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        fprintf(stderr, "gen_bench: %s must be a number in %llu..%llu, got '%s'\n", name,
                (unsigned long long)lo, (unsigned long long)hi, s);
        exit(2);
    }
    return v;
}

static void gen_b(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/b.gguf", dir);
    /* 16 MiB tensors: token_embd [4096, 2048] and 7 per block ([4096, 2048]
     * q/k/v/gate/up, [2048, 4096] output/down), n_embd 4096, 16 heads of 128,
     * n_ff 2048, a 2048-token vocabulary */
    uint64_t mib = env_u64("BENCH_B_MIB", 1024, 128, 16384);
    uint64_t big = mib / 16;
    uint32_t blocks = (uint32_t)((big + 3) / 7); /* big - 1 rounded to 7s */
    if (blocks == 0)
        blocks = 1;
    const uint32_t n_embd = 4096, n_head = 16, head_dim = 128, n_ff = 2048, n_vocab = 2048;

    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "gguflint bench b (data-heavy)");
    gb_kv_u32(b, "general.alignment", ALIGN);
    gb_kv_u32(b, "general.file_type", 1); /* MOSTLY_F16 */
    gb_kv_u32(b, "llama.vocab_size", n_vocab);
    gb_kv_u32(b, "llama.context_length", 4096);
    gb_kv_u32(b, "llama.embedding_length", n_embd);
    gb_kv_u32(b, "llama.block_count", blocks);
    gb_kv_u32(b, "llama.feed_forward_length", n_ff);
    gb_kv_u32(b, "llama.rope.dimension_count", head_dim);
    gb_kv_u32(b, "llama.attention.head_count", n_head);
    gb_kv_u32(b, "llama.attention.head_count_kv", n_head);
    gb_kv_u32(b, "llama.attention.key_length", head_dim);
    gb_kv_u32(b, "llama.attention.value_length", head_dim);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    {
        char *pool = gk_malloc((size_t)n_vocab * 16);
        uint32_t *off = gk_malloc((n_vocab + 1) * sizeof *off);
        float *scores = gk_malloc(n_vocab * sizeof *scores);
        int32_t *types = gk_malloc(n_vocab * sizeof *types);
        size_t len = 0;
        off[0] = 0;
        for (uint32_t i = 0; i < n_vocab; i++) {
            int k;
            if (i < 3)
                k = snprintf(pool + len, 16, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
            else
                k = snprintf(pool + len, 16, "\xE2\x96\x81w%u", i); /* U+2581 'wN' */
            len += (size_t)k;
            off[i + 1] = (uint32_t)len;
            scores[i] = -(float)i;
            types[i] = i == 0 ? 2 : i < 3 ? 3 : 1;
        }
        kv_str_array(b, "tokenizer.ggml.tokens", pool, off, n_vocab);
        gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, n_vocab, scores, n_vocab * sizeof *scores);
        gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, n_vocab, types,
                  n_vocab * sizeof *types);
        free(pool);
        free(off);
        free(scores);
        free(types);
    }
    gb_kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);

    tensor_plan *t = gk_malloc((2 + 9 * (size_t)blocks) * sizeof *t);
    size_t nt = llama_tensors(t, blocks, n_embd, n_vocab, n_head * head_dim, n_head * head_dim,
                              n_ff, GB_F16, GB_F16);
    uint64_t data = write_infos(b, t, nt);
    size_t meta;
    FILE *f = open_with_meta(path, b, &meta);
    gb_free(b);

    /* 1 MiB of finite F16 values (sign, exponent 2^-8..2^1, any mantissa;
     * never zero, inf or NaN), written over and over; norms are 1.0 in F32. */
    enum { CHUNK = 1 << 20 };
    uint16_t *chunk = gk_malloc(CHUNK);
    uint64_t rng = 0xD1B54A32D192ED03ULL;
    for (size_t i = 0; i < CHUNK / 2; i++) {
        uint64_t r = gk_rng_next(&rng);
        unsigned sign = (unsigned)(r >> 63);
        unsigned exp = 7 + (unsigned)((r >> 40) % 10); /* biased 7..16 */
        unsigned mant = (unsigned)(r & 0x3FF);
        chunk[i] = (uint16_t)(sign << 15 | exp << 10 | mant);
    }
    float ones[1024];
    for (size_t i = 0; i < 1024; i++)
        ones[i] = 1.0f;
    uint64_t written = 0;
    for (size_t i = 0; i < nt; i++) {
        uint64_t n = t[i].nbytes;
        if (t[i].type == GB_F32) {
            for (uint64_t k = 0; k < n; k += sizeof ones) {
                size_t w = n - k < sizeof ones ? (size_t)(n - k) : sizeof ones;
                if (fwrite(ones, 1, w, f) != w)
                    die("cannot write", path);
            }
        } else {
            for (uint64_t k = 0; k < n; k += CHUNK) {
                size_t w = n - k < CHUNK ? (size_t)(n - k) : CHUNK;
                if (fwrite(chunk, 1, w, f) != w)
                    die("cannot write", path);
            }
        }
        uint64_t padded = gb_align_up(n, ALIGN);
        write_zeros(f, padded - n, path);
        written += padded;
    }
    if (written != data)
        die("internal error: data size", path);
    close_file(f, path);
    free(chunk);
    printf("%s: %zu tensors, %zu bytes of metadata, %llu bytes of data\n", path, nt, meta,
           (unsigned long long)data);
    free(t);
}

/* ---- (c) many small files ---- */

#define C_DIRS 100u
#define C_PER_DIR 100u

/* A small valid llama model, varied by `i`: vocabulary size, width, weight
 * type, context length, name, the alignment key present or not. */
static uint8_t *small_model(uint32_t i, size_t *len)
{
    const uint32_t n_vocab = 8 + i % 25;
    const uint32_t wtype = i % 2 ? GB_Q8_0 : GB_F16;
    const uint32_t n_embd = wtype == GB_F16 ? 16 : 32; /* Q8_0 rows: 32s */
    const uint32_t n_head = n_embd / 16, n_ff = i % 3 == 0 ? 64 : 32;
    char name[64];
    snprintf(name, sizeof name, "gguflint bench c %05u", i);

    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", name);
    if (i % 4 != 0)
        gb_kv_u32(b, "general.alignment", ALIGN);
    gb_kv_u32(b, "general.file_type", wtype == GB_F16 ? 1 : 7);
    if (wtype != GB_F16)
        gb_kv_u32(b, "general.quantization_version", 2);
    gb_kv_u32(b, "llama.context_length", 64u << (i % 5));
    gb_kv_u32(b, "llama.embedding_length", n_embd);
    gb_kv_u32(b, "llama.block_count", 1);
    gb_kv_u32(b, "llama.feed_forward_length", n_ff);
    gb_kv_u32(b, "llama.rope.dimension_count", 16);
    gb_kv_u32(b, "llama.attention.head_count", n_head);
    gb_kv_u32(b, "llama.attention.head_count_kv", n_head);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    char pool[64 * 16];
    uint32_t off[64];
    float scores[64];
    int32_t types[64];
    size_t plen = 0;
    off[0] = 0;
    for (uint32_t k = 0; k < n_vocab; k++) {
        int w;
        if (k < 3)
            w = snprintf(pool + plen, 16, "%s", k == 0 ? "<unk>" : k == 1 ? "<s>" : "</s>");
        else
            w = snprintf(pool + plen, 16, "\xE2\x96\x81t%u", k + i % 7);
        plen += (size_t)w;
        off[k + 1] = (uint32_t)plen;
        scores[k] = -(float)k;
        types[k] = k == 0 ? 2 : k < 3 ? 3 : 1;
    }
    kv_str_array(b, "tokenizer.ggml.tokens", pool, off, n_vocab);
    gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, n_vocab, scores, n_vocab * sizeof *scores);
    gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, n_vocab, types, n_vocab * sizeof *types);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);

    tensor_plan t[2 + 9];
    size_t nt = llama_tensors(t, 1, n_embd, n_vocab, n_embd, n_embd, n_ff, wtype, wtype);
    write_infos(b, t, nt);
    for (size_t k = 0; k < nt; k++) {
        gb_zeros(b, (size_t)t[k].nbytes);
        gb_pad_to(b, ALIGN);
    }
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

static void gen_c(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/c", dir);
    make_dir(path);
    uint64_t total = 0;
    for (uint32_t d = 0; d < C_DIRS; d++) {
        snprintf(path, sizeof path, "%s/c/d%03u", dir, d);
        make_dir(path);
        for (uint32_t k = 0; k < C_PER_DIR; k++) {
            uint32_t i = d * C_PER_DIR + k;
            snprintf(path, sizeof path, "%s/c/d%03u/f%04u.gguf", dir, d, i);
            size_t len;
            uint8_t *buf = small_model(i, &len);
            if (!buf)
                die("out of memory in the builder", path);
            FILE *f = fopen(path, "wb");
            if (!f)
                die("cannot create", path);
            if (fwrite(buf, 1, len, f) != len)
                die("cannot write", path);
            close_file(f, path);
            free(buf);
            total += len;
        }
    }
    printf("%s/c: %u files in %u directories, %llu bytes\n", dir, C_DIRS * C_PER_DIR, C_DIRS,
           (unsigned long long)total);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_bench OUTDIR [a|b|c ...]\n");
        return 2;
    }
    const char *dir = argv[1];
    bool want[3] = {argc == 2, argc == 2, argc == 2};
    for (int i = 2; i < argc; i++) {
        if (strlen(argv[i]) != 1 || argv[i][0] < 'a' || argv[i][0] > 'c') {
            fprintf(stderr, "gen_bench: unknown input '%s' (a, b or c)\n", argv[i]);
            return 2;
        }
        want[argv[i][0] - 'a'] = true;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gen_bench: %s is not a directory\n", dir);
        return 2;
    }
    if (want[0])
        gen_a(dir);
    if (want[1])
        gen_b(dir);
    if (want[2])
        gen_c(dir);
    return 0;
}
