/* gen_remote.c - writes the files the URL tests (tests/test_remote.py) and
 * the remote benchmark row (ci/bench.sh) serve from a local HTTP server:
 *
 *   gen_remote OUTDIR [sparse]
 *
 *   OUTDIR/small.gguf        the tiny valid llama model (tiny_llama.c)
 *   OUTDIR/sparse.gguf       (only with "sparse") a valid llama model with a
 *                            128 256-token vocabulary - about 4.5 MB of
 *                            metadata - and about 2.2 GiB of F16 tensor data
 *                            that is never written: the file is extended with
 *                            ftruncate, so it is sparse and costs no disk
 *   OUTDIR/hf/org/repo/...   a Hugging Face repository as the test server
 *                            serves it: small.gguf, README.md, q/m-0000N-of-
 *                            00003.gguf (shards 1 and 2 of 3: the set misses
 *                            its third shard) and big/many.gguf (a vocabulary
 *                            larger than the first range)
 *
 * Deterministic: two runs write identical bytes. */
#define _POSIX_C_SOURCE 200809L

#include "gguf_builder.h"
#include "tiny_llama.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "gen_remote: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create directory", path);
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die("cannot write", path);
}

static void path_join(char *out, size_t cap, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, cap, "%s/%s", dir, name) >= cap)
        die("path too long", name);
}

/* ---- the sparse model ---- */

enum { E = 4096, V = 128256, L = 3, F = 14336, H = 32, HKV = 8 };

typedef struct tspec {
    char name[48];
    uint32_t n_dims;
    uint64_t ne0, ne1;
} tspec;

/* A vocabulary token: control and byte tokens first, then words of 4 to 28
 * letters: the index spelled in lower-case base 26, then 0 to 23 capitals, so
 * no two are equal. */
static size_t token(char *out, uint32_t i, int32_t *type)
{
    if (i == 0) {
        *type = 2;
        return (size_t)sprintf(out, "<unk>");
    }
    if (i < 3) {
        *type = 3;
        return (size_t)sprintf(out, i == 1 ? "<s>" : "</s>");
    }
    if (i < 3 + 256) {
        *type = 6;
        return (size_t)sprintf(out, "<0x%02X>", i - 3);
    }
    *type = 1;
    size_t n = 0;
    out[n++] = (char)0xe2;
    out[n++] = (char)0x96;
    out[n++] = (char)0x81;
    for (uint32_t v = i; v; v /= 26)
        out[n++] = (char)('a' + v % 26);
    uint32_t extra = (i * 2654435761u >> 27) % 24;
    for (uint32_t k = 0; k < extra; k++)
        out[n++] = (char)('A' + (i + k) % 26);
    return n;
}

/* The sparse model's hyper-parameters: the tiny model's keys, a real
 * model's sizes. */
static gb_llama remote_llama(void)
{
    gb_llama p = gb_tiny_hparams;
    p.name = "sparse-remote-test";
    p.context = 8192;
    p.embd = E;
    p.blocks = L;
    p.ff = F;
    p.heads = H;
    p.heads_kv = HKV;
    p.rope_base = 500000.0f;
    p.rope_dims = E / H;
    p.vocab = V;
    return p;
}

static void write_sparse(const char *dir)
{
    char path[4096];
    path_join(path, sizeof path, dir, "sparse.gguf");
    gb *b = gb_new(3);
    gb_llama p = remote_llama();
    gb_llama_kvs(b, &p);
    gb_kv_str(b, "tokenizer.ggml.model", "llama");
    gb_kv_begin(b, "tokenizer.ggml.tokens", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, V);
    float *scores = malloc(V * sizeof *scores);
    int32_t *types = malloc(V * sizeof *types);
    if (!scores || !types)
        die("out of memory", NULL);
    for (uint32_t i = 0; i < V; i++) {
        char t[64];
        size_t n = token(t, i, &types[i]);
        gb_str(b, t, n);
        scores[i] = -(float)i;
    }
    gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, V, scores, V * sizeof *scores);
    gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, V, types, V * sizeof *types);
    free(scores);
    free(types);
    gb_kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
    gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
    gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
    gb_kv_u32(b, "general.quantization_version", 2);

    tspec t[2 + 9 * L];
    size_t n = 0;
    t[n++] = (tspec){"token_embd.weight", 2, E, V};
    t[n++] = (tspec){"output_norm.weight", 1, E, 1};
    for (int i = 0; i < L; i++) {
        static const struct {
            const char *suffix;
            uint32_t n_dims;
            uint64_t ne0, ne1;
        } blk[] = {{"attn_norm.weight", 1, E, 1},
                   {"attn_q.weight", 2, E, E},
                   {"attn_k.weight", 2, E, (uint64_t)E / H * HKV},
                   {"attn_v.weight", 2, E, (uint64_t)E / H * HKV},
                   {"attn_output.weight", 2, E, E},
                   {"ffn_norm.weight", 1, E, 1},
                   {"ffn_gate.weight", 2, E, F},
                   {"ffn_down.weight", 2, F, E},
                   {"ffn_up.weight", 2, E, F}};
        for (size_t k = 0; k < sizeof blk / sizeof blk[0]; k++) {
            snprintf(t[n].name, sizeof t[n].name, "blk.%d.%s", i, blk[k].suffix);
            t[n].n_dims = blk[k].n_dims;
            t[n].ne0 = blk[k].ne0;
            t[n].ne1 = blk[k].ne1;
            n++;
        }
    }
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t ne[2] = {t[i].ne0, t[i].ne1};
        uint32_t type = t[i].n_dims == 1 ? GB_F32 : GB_F16;
        gb_tensor(b, t[i].name, t[i].n_dims, ne, type, off);
        off = gb_align_up(off + gb_nbytes(type, t[i].n_dims, ne), 32);
    }
    gb_pad_to(b, 32);
    size_t meta_len = 0;
    uint8_t *meta = gb_finish(b, &meta_len);
    gb_free(b);
    if (!meta)
        die("out of memory in the builder", path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        die("cannot create", path);
    size_t done = 0;
    while (done < meta_len) {
        ssize_t w = write(fd, meta + done, meta_len - done);
        if (w <= 0)
            die("cannot write", path);
        done += (size_t)w;
    }
    free(meta);
    /* the data section: zeros that are never written */
    if (ftruncate(fd, (off_t)(meta_len + off)) != 0 || close(fd) != 0)
        die("cannot extend", path);
    printf("%s: %zu bytes of metadata, %llu bytes of data\n", path, meta_len,
           (unsigned long long)off);
}

/* ---- the repository ---- */

/* Shard `no` (1-based) of 3 of a model whose tensors are f32 [4] "t0".."t5",
 * two per shard; the first shard holds the model metadata. */
static uint8_t *shard(int no, size_t *len)
{
    gb *b = gb_new(3);
    if (no == 1) {
        gb_kv_str(b, "general.architecture", "none");
        gb_kv_str(b, "general.name", "m");
    }
    gb_kv_u16(b, "split.no", (uint16_t)(no - 1));
    gb_kv_u16(b, "split.count", 3);
    gb_kv_i32(b, "split.tensors.count", 6);
    uint64_t ne[1] = {4};
    for (int i = 0; i < 2; i++) {
        char name[8];
        snprintf(name, sizeof name, "t%d", (no - 1) * 2 + i);
        gb_tensor(b, name, 1, ne, GB_F32, 32u * (unsigned)i);
    }
    gb_pad_to(b, 32);
    for (int i = 0; i < 2; i++) {
        float v[4] = {1, 2, 3, 4};
        gb_bytes(b, v, sizeof v);
        gb_pad_to(b, 32);
    }
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

/* A small file whose metadata is larger than a 64 KiB first range. */
static uint8_t *many_strings(size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "none");
    gb_kv_begin(b, "x.strings", GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, 20000);
    for (int i = 0; i < 20000; i++) {
        char s[32];
        int n = snprintf(s, sizeof s, "string number %05d", i);
        gb_str(b, s, (size_t)n);
    }
    gb_pad_to(b, 32);
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: gen_remote OUTDIR [sparse]", NULL);
    const char *dir = argv[1];
    make_dir(dir);
    char p[4096], q[4096];
    size_t len;
    uint8_t *tiny = gb_tiny_llama(&len);
    if (!tiny)
        die("out of memory", NULL);
    path_join(p, sizeof p, dir, "small.gguf");
    write_file(p, tiny, len);

    path_join(p, sizeof p, dir, "hf");
    make_dir(p);
    path_join(q, sizeof q, p, "org");
    make_dir(q);
    path_join(p, sizeof p, q, "repo");
    make_dir(p);
    path_join(q, sizeof q, p, "small.gguf");
    write_file(q, tiny, len);
    free(tiny);
    path_join(q, sizeof q, p, "README.md");
    write_file(q, "# a test repository\n", 20);
    char sub[4096];
    path_join(sub, sizeof sub, p, "q");
    make_dir(sub);
    for (int no = 1; no <= 2; no++) {
        uint8_t *s = shard(no, &len);
        if (!s)
            die("out of memory", NULL);
        char name[64];
        snprintf(name, sizeof name, "m-%05d-of-00003.gguf", no);
        path_join(q, sizeof q, sub, name);
        write_file(q, s, len);
        free(s);
    }
    /* a folder holding the first shard alone (a download that stopped) */
    path_join(sub, sizeof sub, p, "lone");
    make_dir(sub);
    uint8_t *first = shard(1, &len);
    if (!first)
        die("out of memory", NULL);
    path_join(q, sizeof q, sub, "m-00001-of-00003.gguf");
    write_file(q, first, len);
    free(first);
    path_join(sub, sizeof sub, p, "big");
    make_dir(sub);
    uint8_t *m = many_strings(&len);
    if (!m)
        die("out of memory", NULL);
    path_join(q, sizeof q, sub, "many.gguf");
    write_file(q, m, len);
    free(m);

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "sparse") == 0)
            write_sparse(dir);
        else
            die("unknown file set", argv[i]);
    }
    return 0;
}
