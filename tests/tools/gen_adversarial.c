/* gen_adversarial.c - writes the inputs of the adversarial benchmark
 * (ci/bench.sh --adversarial): for each hostile shape, the hostile input and
 * its "twin", an input of the same size and structure with the hostile
 * property replaced by random or ordinary content. Sizes scale linearly with
 * SCALE (the benchmark runs 1 and 16).
 *
 *   gen_adversarial OUTDIR SCALE SHAPE...
 *
 * Shapes (N at SCALE 1; everything x SCALE):
 *   tokens      a llama vocabulary of 16 384 8-byte tokens whose hashes share
 *               their top 32 bits under the golden-ratio multiplicative hash
 *               once used by the duplicate-token index; twin: random tokens
 *   tokdup      a llama vocabulary of 16 384 copies of one 8-byte token:
 *               every insert after the first meets the same slot, compares
 *               bytes and is a duplicate finding (issue 28); twin: random
 *               8-byte tokens
 *   tokutf8     16 384 tokens of three 4-byte sequences each, every token
 *               cut one byte short (invalid UTF-8 at every token boundary,
 *               a finding each); twin: the same tokens whole
 *   toktail     16 384 valid tokens as in tokutf8, but the last token's
 *               final byte replaced by 0xFF (one bad byte after a long run:
 *               the run fails and its strings are checked one by one);
 *               twin: the same tokens all valid
 *   tokesc      16 384 distinct 8-byte tokens of four ESC bytes, each followed
 *               by a control byte (no terminal escape sequence: nothing to
 *               report, but every ESC is looked at where the UTF-8 pass
 *               finds it, issue 28); twin: random 8-byte lowercase tokens
 *   keys        4 096 KVs whose keys share the low 20 bits of FNV-1a (a Joux
 *               multicollision over [a-z0-9_] blocks); twin: random keys of
 *               the same length
 *   names       4 096 tensors (1-D i8, alignment 8) whose names share the low
 *               20 bits of FNV-1a; twin: random names of the same length
 *   tinykv      65 536 minimal KVs (u8, short unique keys); twin: a plain
 *               file of the same size (one string of ordinary text)
 *   tensors     65 536 small tensors (1-D i8 [8], alignment 8); twin: a plain
 *               file of the same size
 *   aliased     64 F32 tensors whose infos all point at one 256 KiB region
 *               (for --deep and hash); twin: 64 contiguous tensors sharing
 *               the same 256 KiB
 *   tplmany     500 tiny chat templates (tokenizer.chat_template.N) that
 *               each make the analyser fold 3 x 65 000-byte replaces; twin:
 *               the same keys holding plain text
 *   tplbig      one 1 MiB chat template of repeated folding expressions;
 *               twin: 1 MiB of plain text
 *   tpllit      one 1 MiB chat template that is one string literal, all
 *               but 64 KiB of it past the lexer's kept prefix; twin: 1 MiB
 *               of plain text
 *   tplcjk      one 64 KiB chat template that is one string literal of CJK,
 *               Hangul, kana and emoji text (3- and 4-byte UTF-8 with
 *               punctuation and spaces, as real multilingual prompts are);
 *               twin: the same size of plain ASCII text in one literal
 *   findings    as many findings per byte as the format allows: KVs with an
 *               empty key and a bool of 2, tensors with an empty name, four
 *               zero dims, an unknown type and a misaligned offset; twin: the
 *               same counts with valid content
 *   nesting     one array nested 4 deep (the default depth limit) whose
 *               innermost arrays hold one u8: 4 096 x 4 innermost arrays;
 *               twin: a flat u8 array of the same size
 *   manifest    6 250 tensors (as in `tensors`) with 48-byte names sharing a
 *               40-byte prefix; the manifest is made by `gguflint hash`
 *               (the benchmark does it); twin: random 48-byte names
 *   shards      OUTDIR/shards/: 1 250 small files named
 *               mNNNNN-00001-of-00002.gguf (no two in one set); twin
 *               OUTDIR/shards.twin/: the same files named mNNNNN.gguf
 *
 * Output: OUTDIR/SHAPE.gguf and OUTDIR/SHAPE.twin.gguf (directories for
 * shards). Deterministic: fixed seeds. */
#define _POSIX_C_SOURCE 200809L

#include "collide.h"
#include "genkit.h"
#include "gguf_builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "gen_adversarial: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void write_buf(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create", path);
    if (len && fwrite(buf, 1, len, f) != len)
        die("cannot write", path);
    if (fclose(f) != 0)
        die("cannot write", path);
}

static void finish(gb *b, const char *dir, const char *name)
{
    size_t len = 0;
    uint8_t *buf = gb_finish(b, &len);
    if (!buf)
        die("out of memory in the builder", name);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_buf(path, buf, len);
    free(buf);
    gb_free(b);
}

static gb *new_builder(void)
{
    gb *b = gb_new(3);
    if (!b)
        die("out of memory", NULL);
    return b;
}

static void random_string(uint64_t *seed, const char *alpha, char *out, size_t n)
{
    size_t na = strlen(alpha);
    for (size_t i = 0; i < n; i++)
        out[i] = alpha[gk_rng_next(seed) % na];
    out[n] = '\0';
}

static void plain_text(uint64_t *seed, char *out, size_t n);

static const char KEY_ALPHA[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
static const char NAME_ALPHA[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.";

/* ---- shapes ---- */

/* A llama vocabulary of n 8-byte tokens. Hostile: (w + 8) * K = H0 + j, so
 * the top 32 bits of every hash are equal (one cluster: each insert walks it). */
static void shape_tokens(const char *dir, uint64_t n, bool twin)
{
    uint8_t *toks = gk_calloc(n, 16);
    uint64_t seed = 0xfeedull;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t w = twin ? gk_rng_next(&seed) : collide_golden_token(j);
        uint64_t len = 8;
        memcpy(toks + 16 * j, &len, 8);
        memcpy(toks + 16 * j + 8, &w, 8);
    }
    gb *b = new_builder();
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, n);
    gb_bytes(b, toks, (size_t)(16 * n));
    free(toks);
    finish(b, dir, twin ? "tokens.twin.gguf" : "tokens.gguf");
}

/* A llama vocabulary of the n tokens toks[0..n), each `len` bytes at
 * toks + len * j. */
static void write_vocab(const char *dir, const char *name, const uint8_t *toks, uint64_t n,
                        uint64_t len)
{
    uint8_t *arr = gk_calloc(n, 8 + len);
    for (uint64_t j = 0; j < n; j++) {
        memcpy(arr + (8 + len) * j, &len, 8);
        memcpy(arr + (8 + len) * j + 8, toks + len * j, len);
    }
    gb *b = new_builder();
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, n);
    gb_bytes(b, arr, (size_t)((8 + len) * n));
    free(arr);
    finish(b, dir, name);
}

/* n copies of one 8-byte token; twin: random 8-byte tokens. */
static void shape_tokdup(const char *dir, uint64_t n, bool twin)
{
    uint8_t *toks = gk_calloc(n, 8);
    uint64_t seed = 0xd0bull;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t w = twin ? gk_rng_next(&seed) : 0x6161616161616161ull;
        memcpy(toks + 8 * j, &w, 8);
    }
    write_vocab(dir, twin ? "tokdup.twin.gguf" : "tokdup.gguf", toks, n, 8);
    free(toks);
}

/* n distinct tokens ESC c1 ESC c2 ESC c3 ESC c4, the c_k control bytes
 * other than ESC (j in base 30 over them); twin: random lowercase. */
static void shape_tokesc(const char *dir, uint64_t n, bool twin)
{
    static const uint8_t ctl[30] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 28, 29, 30, 31};
    uint8_t *toks = gk_calloc(n, 8);
    uint64_t seed = 0xe5cull;
    for (uint64_t j = 0; j < n; j++) {
        uint64_t r = gk_rng_next(&seed), x = j;
        for (unsigned k = 0; k < 4; k++) {
            if (twin) {
                toks[8 * j + 2 * k] = (uint8_t)('a' + (r >> (16 * k)) % 26);
                toks[8 * j + 2 * k + 1] = (uint8_t)('a' + (r >> (16 * k + 8)) % 26);
            } else {
                toks[8 * j + 2 * k] = 0x1B;
                toks[8 * j + 2 * k + 1] = ctl[x % 30];
                x /= 30;
            }
        }
    }
    write_vocab(dir, twin ? "tokesc.twin.gguf" : "tokesc.gguf", toks, n, 8);
    free(toks);
}

/* Three distinct 4-byte sequences (U+10000 and up) per token, j in base 2^10
 * over them, so no two tokens are equal. cut: each token one byte short
 * (its last sequence truncated); tail: only the last token's last byte
 * replaced by 0xFF. */
static void shape_tok4(const char *dir, uint64_t n, bool cut, bool tail, const char *name)
{
    const uint64_t len = cut ? 11 : 12;
    uint8_t *toks = gk_calloc(n, len);
    for (uint64_t j = 0; j < n; j++) {
        uint8_t t[12];
        for (int k = 0; k < 3; k++) {
            uint32_t cp = 0x10000u + (uint32_t)((j >> (10 * k)) & 0x3FF) * 64u + (uint32_t)k;
            t[4 * k] = (uint8_t)(0xF0 | (cp >> 18));
            t[4 * k + 1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
            t[4 * k + 2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
            t[4 * k + 3] = (uint8_t)(0x80 | (cp & 0x3F));
        }
        memcpy(toks + len * j, t, len);
    }
    if (tail)
        toks[len * n - 1] = 0xFF;
    write_vocab(dir, name, toks, n, len);
    free(toks);
}

static void shape_keys(const char *dir, uint64_t n, bool twin)
{
    collide_family r;
    if (!collide_fnv(&r, "k.", KEY_ALPHA, 4, n))
        die("no FNV-1a collision found", "keys");
    gb *b = new_builder();
    char key[300];
    uint64_t seed = 0xabcdefull;
    for (uint64_t j = 0; j < n; j++) {
        size_t len = collide_fnv_string(&r, j, key);
        if (twin)
            random_string(&seed, KEY_ALPHA, key + 2, len - 2);
        gb_kv_u8(b, key, 1);
    }
    finish(b, dir, twin ? "keys.twin.gguf" : "keys.gguf");
}

/* n tensors, 1-D i8 [8], alignment 8, contiguous; name(j) gives the names. */
typedef size_t (*name_fn)(void *state, uint64_t j, char *out);

static void tensors_file(const char *dir, const char *file, uint64_t n, name_fn name, void *st)
{
    gb *b = new_builder();
    gb_kv_u32(b, "general.alignment", 8);
    char nm[256];
    uint64_t ne[1] = {8};
    for (uint64_t j = 0; j < n; j++) {
        size_t len = name(st, j, nm);
        gb_tensorn(b, nm, len, 1, ne, GB_I8, 8 * j);
    }
    gb_pad_to(b, 8);
    gb_zeros(b, (size_t)(8 * n));
    finish(b, dir, file);
}

typedef struct names_state {
    collide_family r;
    bool twin;
    uint64_t seed;
    const char *prefix;
} names_state;

static size_t mc_name(void *p, uint64_t j, char *out)
{
    names_state *s = p;
    size_t len = collide_fnv_string(&s->r, j, out);
    size_t pre = strlen(s->prefix);
    if (s->twin)
        random_string(&s->seed, NAME_ALPHA, out + pre, len - pre);
    return len;
}

static void shape_names(const char *dir, uint64_t n, bool twin)
{
    names_state st = {.twin = twin, .seed = 0x5eedull, .prefix = "t."};
    if (!collide_fnv(&st.r, "t.", NAME_ALPHA, 3, n))
        die("no FNV-1a collision found", "names");
    tensors_file(dir, twin ? "names.twin.gguf" : "names.gguf", n, mc_name, &st);
}

/* Short unique names: base-64 digits of j, at least 3. */
static size_t seq_name(uint64_t j, const char *prefix, char *out)
{
    size_t n = strlen(prefix);
    memcpy(out, prefix, n);
    do {
        out[n++] = NAME_ALPHA[j % 62];
        j /= 62;
    } while (j);
    out[n] = '\0';
    return n;
}

typedef struct seq_state {
    bool twin;
    uint64_t seed;
    const char *prefix;
    size_t pad; /* pad names to this length with '_' + random (0: none) */
} seq_state;

static size_t seq_or_random(void *p, uint64_t j, char *out)
{
    seq_state *s = p;
    size_t n = seq_name(j, s->prefix, out);
    size_t pre = strlen(s->prefix);
    while (n < s->pad) {
        out[n++] = '_';
        out[n] = '\0';
    }
    if (s->twin) {
        /* same length, random bytes after the prefix, the index kept at the end
         * so names stay unique */
        char tmp[256];
        size_t k = seq_name(j, "", tmp);
        if (n > pre + k)
            random_string(&s->seed, NAME_ALPHA, out + pre, n - pre - k);
        memcpy(out + n - k, tmp, k);
    }
    return n;
}

static void shape_tinykv(const char *dir, uint64_t n)
{
    gb *b = new_builder();
    char key[64];
    for (uint64_t j = 0; j < n; j++) {
        size_t len = 0;
        uint64_t v = j;
        do {
            key[len++] = KEY_ALPHA[v % 36];
            v /= 36;
        } while (v);
        key[len] = '\0';
        gb_kv_u8(b, key, 0);
    }
    finish(b, dir, "tinykv.gguf");
}

static void shape_tensors(const char *dir, uint64_t n)
{
    seq_state st = {false, 0x9ull, "t.", 0};
    tensors_file(dir, "tensors.gguf", n, seq_or_random, &st);
}

/* The plain twin of SHAPE.gguf: a file of the same size holding one string
 * of ordinary text (what an ordinary file of that size costs). */
static void plain_twin(const char *dir, const char *shape)
{
    char path[4096], name[256];
    snprintf(path, sizeof path, "%s/%s.gguf", dir, shape);
    struct stat sb;
    if (stat(path, &sb) != 0)
        die("cannot stat", path);
    gb *b = new_builder();
    const char *key = "general.description";
    size_t over = (size_t)gb_offset(b) + 8 + strlen(key) + 4 + 8;
    size_t n = (size_t)sb.st_size > over ? (size_t)sb.st_size - over : 0;
    char *text = gk_calloc(n, 1);
    uint64_t seed = 0x51ull;
    plain_text(&seed, text, n);
    gb_kv_strn(b, key, text, n);
    free(text);
    snprintf(name, sizeof name, "%s.twin.gguf", shape);
    finish(b, dir, name);
}

/* n tensor infos over one region of `region` bytes of 1.0f (hostile: all at
 * offset 0, each the whole region; twin: contiguous slices of it). */
static void shape_aliased(const char *dir, uint64_t n, uint64_t region, bool twin)
{
    gb *b = new_builder();
    uint64_t slice = region / n;
    slice -= slice % 32;
    char nm[64];
    for (uint64_t j = 0; j < n; j++) {
        snprintf(nm, sizeof nm, "a.%llu", (unsigned long long)j);
        uint64_t ne[1] = {(twin ? slice : region) / 4};
        gb_tensor(b, nm, 1, ne, GB_F32, twin ? j * slice : 0);
    }
    gb_pad_to(b, 32);
    float one = 1.0f;
    uint8_t *data = gk_calloc((size_t)region, 1);
    for (uint64_t i = 0; i + 4 <= region; i += 4)
        memcpy(data + i, &one, 4);
    gb_bytes(b, data, (size_t)region);
    free(data);
    finish(b, dir, twin ? "aliased.twin.gguf" : "aliased.gguf");
}

static const char TPL_FOLD[] =
    "{% set a='x'*65000 %}{{a.replace('x','y')~a.replace('x','y')~a.replace('x','y')}}";
static const char TPL_REPEAT[] = "{{('x'*65000).replace('x','y')}}";

/* Plain printable text (no '{'), deterministic. */
static void plain_text(uint64_t *seed, char *out, size_t n)
{
    static const char words[] = "the quick brown fox jumps over the lazy dog and then some ";
    size_t off = (size_t)(gk_rng_next(seed) % (sizeof words - 1));
    for (size_t i = 0; i < n; i++)
        out[i] = words[(off + i) % (sizeof words - 1)];
}

static void shape_tplmany(const char *dir, uint64_t n, bool twin)
{
    gb *b = new_builder();
    char key[64], text[sizeof TPL_FOLD];
    uint64_t seed = 0x31ull;
    for (uint64_t j = 0; j < n; j++) {
        snprintf(key, sizeof key, "tokenizer.chat_template.t%llu", (unsigned long long)j);
        if (twin)
            plain_text(&seed, text, sizeof TPL_FOLD - 1);
        else
            memcpy(text, TPL_FOLD, sizeof TPL_FOLD - 1);
        gb_kv_strn(b, key, text, sizeof TPL_FOLD - 1);
    }
    finish(b, dir, twin ? "tplmany.twin.gguf" : "tplmany.gguf");
}

static void shape_tplbig(const char *dir, uint64_t size, bool twin)
{
    char *text = gk_calloc((size_t)size, 1);
    uint64_t seed = 0x32ull;
    if (twin) {
        plain_text(&seed, text, (size_t)size);
    } else {
        size_t k = sizeof TPL_REPEAT - 1;
        for (uint64_t i = 0; i < size; i++)
            text[i] = i + k <= size ? TPL_REPEAT[i % k] : ' ';
    }
    gb *b = new_builder();
    gb_kv_strn(b, "tokenizer.chat_template", text, (size_t)size);
    free(text);
    finish(b, dir, twin ? "tplbig.twin.gguf" : "tplbig.gguf");
}

static void shape_tpllit(const char *dir, uint64_t size, bool twin)
{
    char *text = gk_calloc((size_t)size, 1);
    uint64_t seed = 0x33ull;
    plain_text(&seed, text, (size_t)size);
    if (!twin && size >= 8) {
        memcpy(text, "{{ '", 4);
        memcpy(text + size - 4, "' }}", 4);
    }
    gb *b = new_builder();
    gb_kv_strn(b, "tokenizer.chat_template", text, (size_t)size);
    free(text);
    finish(b, dir, twin ? "tpllit.twin.gguf" : "tpllit.gguf");
}

/* Multilingual text: Chinese, Japanese, Korean and emoji words with the
 * spaces and punctuation of prose, each a whole UTF-8 sequence. */
static void cjk_text(uint64_t *seed, char *out, size_t n)
{
    static const char *const words[] = {"\u4f60\u597d",
                                        "\u4e16\u754c",
                                        "\u6a21\u578b",
                                        "\u52a9\u624b",
                                        "\u3053\u3093\u306b\u3061\u306f",
                                        "\u30e2\u30c7\u30eb",
                                        "\uc548\ub155\ud558\uc138\uc694",
                                        "\U0001F600",
                                        "\U0001F389",
                                        "\uff0c",
                                        "\u3002",
                                        " ",
                                        "\u2014"};
    size_t i = 0;
    while (i < n) {
        const char *w = words[gk_rng_next(seed) % (sizeof words / sizeof words[0])];
        size_t k = strlen(w);
        if (i + k > n)
            break;
        memcpy(out + i, w, k);
        i += k;
    }
    memset(out + i, ' ', n - i);
}

static void shape_tplcjk(const char *dir, uint64_t size, bool twin)
{
    char *text = gk_calloc((size_t)size, 1);
    uint64_t seed = 0x34ull;
    if (size < 8)
        die("tplcjk", "size too small");
    memcpy(text, "{{ '", 4);
    /* the literal's body between the quotes, whole sequences only */
    if (twin)
        plain_text(&seed, text + 4, (size_t)size - 8);
    else
        cjk_text(&seed, text + 4, (size_t)size - 8);
    memcpy(text + size - 4, "' }}", 4);
    gb *b = new_builder();
    gb_kv_strn(b, "tokenizer.chat_template", text, (size_t)size);
    free(text);
    finish(b, dir, twin ? "tplcjk.twin.gguf" : "tplcjk.gguf");
}

static void shape_findings(const char *dir, uint64_t n, bool twin)
{
    /* Hostile and twin have the same byte counts: a KV is an 8-byte key length,
     * a key of 2 bytes, a type and one byte; a tensor info a 2-byte name, 4
     * dims, a type and an offset. */
    gb *b = new_builder();
    for (uint64_t j = 0; j < n; j++) {
        char key[3] = {0, 0, 0};
        if (twin) {
            key[0] = KEY_ALPHA[j % 26];
            key[1] = KEY_ALPHA[(j / 26) % 36];
        }
        /* hostile: a 2-byte key of NULs (control bytes, duplicate) */
        gb_kv_beginn(b, key, 2, GB_VT_BOOL);
        gb_u8(b, twin ? 1 : 2);
    }
    uint64_t off = 0;
    for (uint64_t j = 0; j < n; j++) {
        char name[3] = {0, 0, 0};
        uint64_t ne[4] = {0, 0, 0, 0};
        uint32_t type = 99;
        uint64_t o = 3;
        if (twin) {
            name[0] = NAME_ALPHA[j % 62];
            name[1] = NAME_ALPHA[(j / 62) % 62];
            ne[0] = ne[1] = ne[2] = ne[3] = 1;
            type = GB_I8;
            o = off;
            off += 32;
        }
        gb_tensorn(b, name, 2, 4, ne, type, o);
    }
    gb_pad_to(b, 32);
    gb_zeros(b, (size_t)(32 * n)); /* the twin's data; trailing bytes in the hostile file */
    finish(b, dir, twin ? "findings.twin.gguf" : "findings.gguf");
}

static void shape_nesting(const char *dir, uint64_t n, bool twin)
{
    /* depth 4: outer [arr] of n, each [arr] of 2, each [arr] of 2, each [u8] of 1 */
    gb *b = new_builder();
    gb_kv_begin(b, "nest", GB_VT_ARR);
    if (twin) {
        /* the same number of bytes as a flat u8 array */
        uint64_t bytes = n * (12 + 2 * (12 + 2 * (12 + 1)));
        gb_arr_header(b, GB_VT_U8, bytes);
        uint64_t seed = 0x41ull;
        for (uint64_t i = 0; i < bytes; i++)
            gb_u8(b, (uint8_t)gk_rng_next(&seed));
    } else {
        gb_arr_header(b, GB_VT_ARR, n);
        for (uint64_t i = 0; i < n; i++) {
            gb_arr_header(b, GB_VT_ARR, 2);
            for (int k = 0; k < 2; k++) {
                gb_arr_header(b, GB_VT_ARR, 2);
                for (int l = 0; l < 2; l++) {
                    gb_arr_header(b, GB_VT_U8, 1);
                    gb_u8(b, 7);
                }
            }
        }
    }
    finish(b, dir, twin ? "nesting.twin.gguf" : "nesting.gguf");
}

static void shape_manifest(const char *dir, uint64_t n, bool twin)
{
    /* hostile: 48-byte names sharing a 40-byte prefix (each comparison of a
     * linear lookup runs 40 bytes); twin: short random names */
    seq_state st = {twin, 0x99ull, twin ? "m." : "model.layers.shared_prefix.attention.wq.", 48};
    tensors_file(dir, twin ? "manifest.twin.gguf" : "manifest.gguf", n, seq_or_random, &st);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create directory", path);
}

static void shape_shards(const char *dir, uint64_t n, bool twin)
{
    char sub[4096], path[8192];
    snprintf(sub, sizeof sub, "%s/%s", dir, twin ? "shards.twin" : "shards");
    make_dir(sub);
    for (uint64_t j = 0; j < n; j++) {
        gb *b = new_builder();
        gb_kv_str(b, "general.name", "shard");
        size_t len = 0;
        uint8_t *buf = gb_finish(b, &len);
        if (!buf)
            die("out of memory", NULL);
        if (twin)
            snprintf(path, sizeof path, "%s/m%05llu-00001-xx-00002.gguf", sub,
                     (unsigned long long)j);
        else
            snprintf(path, sizeof path, "%s/m%05llu-00001-of-00002.gguf", sub,
                     (unsigned long long)j);
        write_buf(path, buf, len);
        free(buf);
        gb_free(b);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: gen_adversarial OUTDIR SCALE SHAPE...\n");
        return 2;
    }
    const char *dir = argv[1];
    uint64_t s = strtoull(argv[2], NULL, 10);
    if (s == 0 || s > 64)
        die("SCALE must be 1..64", argv[2]);
    for (int i = 3; i < argc; i++) {
        const char *sh = argv[i];
        for (int twin = 0; twin < 2; twin++) {
            if (strcmp(sh, "tokens") == 0)
                shape_tokens(dir, 16384 * s, twin);
            else if (strcmp(sh, "tokdup") == 0)
                shape_tokdup(dir, 16384 * s, twin);
            else if (strcmp(sh, "tokesc") == 0)
                shape_tokesc(dir, 16384 * s, twin);
            else if (strcmp(sh, "tokutf8") == 0)
                shape_tok4(dir, 16384 * s, !twin, false,
                           twin ? "tokutf8.twin.gguf" : "tokutf8.gguf");
            else if (strcmp(sh, "toktail") == 0)
                shape_tok4(dir, 16384 * s, false, !twin,
                           twin ? "toktail.twin.gguf" : "toktail.gguf");
            else if (strcmp(sh, "keys") == 0)
                shape_keys(dir, 4096 * s, twin);
            else if (strcmp(sh, "names") == 0)
                shape_names(dir, 4096 * s, twin);
            else if (strcmp(sh, "tinykv") == 0)
                twin ? plain_twin(dir, sh) : shape_tinykv(dir, 65536 * s);
            else if (strcmp(sh, "tensors") == 0)
                twin ? plain_twin(dir, sh) : shape_tensors(dir, 65536 * s);
            else if (strcmp(sh, "aliased") == 0)
                shape_aliased(dir, 64 * s, (256u << 10) * s, twin);
            else if (strcmp(sh, "tplmany") == 0)
                shape_tplmany(dir, 500 * s, twin);
            else if (strcmp(sh, "tplbig") == 0)
                shape_tplbig(dir, (1u << 20) * s, twin);
            else if (strcmp(sh, "tpllit") == 0)
                shape_tpllit(dir, (1u << 20) * s, twin);
            else if (strcmp(sh, "tplcjk") == 0)
                shape_tplcjk(dir, (64u << 10) * s, twin);
            else if (strcmp(sh, "findings") == 0)
                shape_findings(dir, 16384 * s, twin);
            else if (strcmp(sh, "nesting") == 0)
                shape_nesting(dir, 4096 * s, twin);
            else if (strcmp(sh, "manifest") == 0)
                shape_manifest(dir, 6250 * s, twin);
            else if (strcmp(sh, "shards") == 0)
                shape_shards(dir, 1250 * s, twin);
            else
                die("unknown shape", sh);
        }
    }
    return 0;
}
