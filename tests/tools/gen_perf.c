/* gen_perf.c - writes the inputs of ci/bench.sh's per-record, template and
 * resident-set rows into OUTDIR, which must exist (gen_bench.c writes the
 * a/b/c inputs):
 *
 *   gen_perf OUTDIR [t|f|v|l|k|s ...]        (no letter: all six)
 *
 *   t  OUTDIR/t.gguf: a llama vocabulary-only header whose
 *      tokenizer.chat_template is exactly 1 MiB: a synthetic chat template
 *      (written for this benchmark in the style of current models: a
 *      namespace, system/tool/user/assistant branches, tool calls with
 *      tojson, reasoning blocks, filters, a non-ASCII comment) repeated,
 *      then padded with a comment.
 *   f  OUTDIR/t4.gguf: the same with a 4 MiB template.
 *   v  OUTDIR/v/f000.gguf..f999.gguf: 1 000 small vocabulary-only llama
 *      files (about 6 KB): a 160-token SPM vocabulary with scores and token
 *      types, the special token ids, and one block of the synthetic
 *      template (about 2.9 KB) as tokenizer.chat_template: the per-file cost
 *      of `-r` over many small files.
 *   l  OUTDIR/l1.gguf and OUTDIR/l2.gguf: the same small llama model with 16
 *      and 272 blocks (147 and 2 451 tensors, F16 weights, zero data written
 *      sparse): the Ir difference per added tensor is the cost of a tensor.
 *   k  OUTDIR/k1.gguf and OUTDIR/k2.gguf: l1.gguf's metadata without tensors,
 *      with 0 and 20 000 extra u32 KVs (custom.bench.kNNNNN): the difference
 *      per added KV is the cost of a KV.
 *   s  OUTDIR/s.gguf: a llama model of 200 GiB whose data is a hole (sparse
 *      file): a lint must touch only its metadata pages.
 *
 * Every file lints clean with the default profile (the template may have
 * notes). Deterministic: two runs write identical bytes. */
#define _POSIX_C_SOURCE 200809L

#include "gguf_builder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ALIGN 32u

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "gen_perf: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

/* Write the builder's metadata and extend the file to `total` bytes with a
 * hole (the data section reads as zeros). */
static void write_sparse(const char *path, gb *b, uint64_t data_bytes)
{
    size_t len = 0;
    uint8_t *buf = gb_finish(b, &len);
    if (!buf)
        die("out of memory in the builder", path);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fflush(f) != 0)
        die("cannot write", path);
    if (ftruncate(fileno(f), (off_t)(len + data_bytes)) != 0)
        die("cannot extend (sparse)", path);
    if (fclose(f) != 0)
        die("cannot write", path);
    free(buf);
}

static void llama_header(gb *b, uint32_t blocks, uint32_t n_embd, uint32_t n_ff, uint32_t n_head,
                         uint32_t n_vocab, uint32_t file_type)
{
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "gguflint bench (per-record costs)");
    gb_kv_u32(b, "general.alignment", ALIGN);
    gb_kv_u32(b, "general.file_type", file_type);
    gb_kv_u32(b, "llama.vocab_size", n_vocab);
    gb_kv_u32(b, "llama.context_length", 4096);
    gb_kv_u32(b, "llama.embedding_length", n_embd);
    gb_kv_u32(b, "llama.block_count", blocks);
    gb_kv_u32(b, "llama.feed_forward_length", n_ff);
    gb_kv_u32(b, "llama.rope.dimension_count", n_embd / n_head);
    gb_kv_u32(b, "llama.attention.head_count", n_head);
    gb_kv_u32(b, "llama.attention.head_count_kv", n_head);
    gb_kv_f32(b, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
}

/* token_embd, output_norm, output and 9 tensors per block, F16 weights and
 * F32 norms, offsets packed; returns the data size. */
static uint64_t llama_tensors(gb *b, uint32_t blocks, uint64_t n_embd, uint64_t n_ff,
                              uint64_t n_vocab)
{
    static const struct {
        const char *name;
        int rows; /* 0: [n_embd]; 1: [n_embd, n_embd]; 2: [n_embd, n_ff]; 3: [n_ff, n_embd] */
    } per_block[] = {
        {"attn_norm", 0}, {"attn_q", 1},   {"attn_k", 1}, {"attn_v", 1},   {"attn_output", 1},
        {"ffn_norm", 0},  {"ffn_gate", 2}, {"ffn_up", 2}, {"ffn_down", 3},
    };
    uint64_t off = 0;
    uint64_t ne[2];
#define T(nm, nd, e0, e1, ty, esz)                                                                 \
    do {                                                                                           \
        ne[0] = (e0), ne[1] = (e1);                                                                \
        gb_tensor(b, nm, nd, ne, ty, off);                                                         \
        off += gb_align_up((e0) * (e1) * (esz), ALIGN);                                            \
    } while (0)
    T("token_embd.weight", 2, n_embd, n_vocab, GB_F16, 2);
    T("output_norm.weight", 1, n_embd, 1, GB_F32, 4);
    T("output.weight", 2, n_embd, n_vocab, GB_F16, 2);
    char name[64];
    for (uint32_t l = 0; l < blocks; l++)
        for (size_t k = 0; k < sizeof per_block / sizeof per_block[0]; k++) {
            snprintf(name, sizeof name, "blk.%u.%s.weight", l, per_block[k].name);
            switch (per_block[k].rows) {
            case 0: T(name, 1, n_embd, 1, GB_F32, 4); break;
            case 1: T(name, 2, n_embd, n_embd, GB_F16, 2); break;
            case 2: T(name, 2, n_embd, n_ff, GB_F16, 2); break;
            default: T(name, 2, n_ff, n_embd, GB_F16, 2); break;
            }
        }
#undef T
    gb_pad_to(b, ALIGN);
    return off;
}

static void gen_l(const char *dir)
{
    static const uint32_t blocks[2] = {16, 272};
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/l%d.gguf", dir, i + 1);
        gb *b = gb_new(3);
        llama_header(b, blocks[i], 64, 128, 4, 32, 1);
        uint64_t data = llama_tensors(b, blocks[i], 64, 128, 32);
        write_sparse(path, b, data);
        gb_free(b);
        printf("%s: %u blocks, %u tensors\n", path, blocks[i], 3 + 9 * blocks[i]);
    }
}

static void gen_k(const char *dir)
{
    static const uint32_t extra[2] = {0, 20000};
    for (int i = 0; i < 2; i++) {
        char path[4096], key[64];
        snprintf(path, sizeof path, "%s/k%d.gguf", dir, i + 1);
        gb *b = gb_new(3);
        llama_header(b, 16, 64, 128, 4, 32, 1);
        for (uint32_t k = 0; k < extra[i]; k++) {
            snprintf(key, sizeof key, "custom.bench.k%05u", k);
            gb_kv_u32(b, key, k);
        }
        write_sparse(path, b, 0);
        gb_free(b);
        printf("%s: %u extra KVs\n", path, extra[i]);
    }
}

static void gen_s(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/s.gguf", dir);
    /* ~200 GiB: n_embd 8192, n_ff 28672, 108 blocks of F16 plus embeddings */
    gb *b = gb_new(3);
    llama_header(b, 108, 8192, 28672, 64, 128256, 1);
    uint64_t data = llama_tensors(b, 108, 8192, 28672, 128256);
    write_sparse(path, b, data);
    gb_free(b);
    printf("%s: %llu bytes of data (a hole)\n", path, (unsigned long long)data);
}

/* One block of the synthetic template; %u is the block's number. */
static const char tpl_block[] =
    "{#- block %u: a synthetic chat template for the gguflint benchmark -#}\n"
    "{%%- set ns = namespace(system='', last_user=-1) -%%}\n"
    "{%%- if messages and messages[0]['role'] == 'system' -%%}\n"
    "  {%%- set ns.system = messages[0]['content'] | trim -%%}\n"
    "  {%%- set loop_messages = messages[1:] -%%}\n"
    "{%%- else -%%}\n"
    "  {%%- set loop_messages = messages -%%}\n"
    "{%%- endif -%%}\n"
    "{{- bos_token -}}\n"
    "{%%- if tools is defined and tools -%%}\n"
    "  {{- '<|system|>\\n' + ns.system + '\\n\\nYou may call these tools. Answer with a JSON "
    "object {\"name\": ..., \"arguments\": ...} inside <tool_call></tool_call>.\\n' -}}\n"
    "  {%%- for tool in tools -%%}\n"
    "    {{- '<tool>' + (tool | tojson) + '</tool>\\n' -}}\n"
    "  {%%- endfor -%%}\n"
    "  {{- '<|end|>\\n' -}}\n"
    "{%%- elif ns.system -%%}\n"
    "  {{- '<|system|>\\n' + ns.system + '<|end|>\\n' -}}\n"
    "{%%- endif -%%}\n"
    "{%%- for message in loop_messages -%%}\n"
    "  {%%- if message['role'] == 'user' -%%}\n"
    "    {%%- set ns.last_user = loop.index0 -%%}\n"
    "    {{- '<|user|>\\n' + message['content'] | trim + '<|end|>\\n' -}}\n"
    "  {%%- elif message['role'] == 'assistant' -%%}\n"
    "    {{- '<|assistant|>\\n' -}}\n"
    "    {%%- if message.reasoning_content is defined and message.reasoning_content and "
    "loop.index0 > ns.last_user -%%}\n"
    "      {{- '<think>\\n' + message.reasoning_content | trim + '\\n</think>\\n' -}}\n"
    "    {%%- endif -%%}\n"
    "    {%%- if message['content'] is string -%%}\n"
    "      {{- message['content'] | trim -}}\n"
    "    {%%- else -%%}\n"
    "      {%%- for part in message['content'] -%%}\n"
    "        {%%- if part['type'] == 'text' -%%}{{- part['text'] -}}{%%- endif -%%}\n"
    "      {%%- endfor -%%}\n"
    "    {%%- endif -%%}\n"
    "    {%%- if message.tool_calls is defined -%%}\n"
    "      {%%- for call in message.tool_calls -%%}\n"
    "        {%%- set fn = call.function if call.function is defined else call -%%}\n"
    "        {{- '\\n<tool_call>{\"name\": \"' + fn.name + '\", \"arguments\": ' + (fn.arguments "
    "| tojson if fn.arguments is not string else fn.arguments) + '}</tool_call>' -}}\n"
    "      {%%- endfor -%%}\n"
    "    {%%- endif -%%}\n"
    "    {{- '<|end|>\\n' -}}\n"
    "  {%%- elif message['role'] == 'tool' -%%}\n"
    "    {{- '<|tool|>\\n<tool_response>' + message['content'] | string + "
    "'</tool_response><|end|>\\n' -}}\n"
    "  {%%- else -%%}\n"
    "    {{- raise_exception('Unexpected role: ' + message['role']) -}}\n"
    "  {%%- endif -%%}\n"
    "{%%- endfor -%%}\n"
    "{%%- if add_generation_prompt -%%}\n"
    "  {{- '<|assistant|>\\n' -}}\n"
    "  {%%- if enable_thinking is defined and not enable_thinking -%%}{{- "
    "'<think>\\n\\n</think>\\n' -}}{%%- endif -%%}\n"
    "{%%- endif -%%}\n"
    "{#- \xc3\x9c"
    "bersetzungen \xc2\xb7 \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xc2\xb7 "
    "\xd1\x80\xd1\x83\xd1\x81\xd1\x81\xd0\xba\xd0\xb8\xd0\xb9 -#}\n";

static void gen_template(const char *dir, const char *file, size_t SIZE)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = malloc(SIZE + 1);
    if (!text)
        die("out of memory", NULL);
    size_t len = 0;
    char block[sizeof tpl_block + 16];
    for (unsigned i = 0;; i++) {
        int n = snprintf(block, sizeof block, tpl_block, i);
        if (n < 0 || len + (size_t)n + 8 > SIZE)
            break;
        memcpy(text + len, block, (size_t)n);
        len += (size_t)n;
    }
    /* pad to exactly 1 MiB with one comment */
    memcpy(text + len, "{#", 2);
    memset(text + len + 2, ' ', SIZE - len - 4);
    memcpy(text + SIZE - 2, "#}", 2);
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_str(b, "general.name", "gguflint bench (a large template)");
    gb_kv_strn(b, "tokenizer.chat_template", text, SIZE);
    write_sparse(path, b, 0);
    gb_free(b);
    free(text);
    printf("%s: a %zu-byte chat template\n", path, SIZE);
}

static void gen_t(const char *dir)
{
    gen_template(dir, "t.gguf", (size_t)1 << 20);
}

static void gen_f(const char *dir)
{
    gen_template(dir, "t4.gguf", (size_t)4 << 20);
}

/* A string array from a pool of NUL-separated strings. */
static void kv_strs(gb *b, const char *key, const char *pool, const uint32_t *off, uint32_t n)
{
    gb_kv_begin(b, key, GB_VT_ARR);
    gb_arr_header(b, GB_VT_STR, n);
    for (uint32_t k = 0; k < n; k++)
        gb_str(b, pool + off[k], off[k + 1] - off[k]);
}

static void gen_v(const char *dir)
{
    enum { FILES = 1000, N_VOCAB = 160, N_SPECIAL = 8 };
    /* the unknown, bos and eos tokens and the ones the template emits */
    static const char *const special[N_SPECIAL] = {
        "<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>", "<|tool|>"};
    char path[4096];
    snprintf(path, sizeof path, "%s/v", dir);
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die("cannot create directory", path);
    char block[sizeof tpl_block + 16];
    int tl = snprintf(block, sizeof block, tpl_block, 0u);
    if (tl < 0)
        die("cannot format the template", NULL);
    for (uint32_t i = 0; i < FILES; i++) {
        char name[64], pool[N_VOCAB * 16];
        uint32_t off[N_VOCAB + 1];
        float scores[N_VOCAB];
        int32_t types[N_VOCAB];
        size_t plen = 0;
        for (uint32_t k = 0; k < N_VOCAB; k++) {
            off[k] = (uint32_t)plen;
            int w = k < N_SPECIAL ? snprintf(pool + plen, 16, "%s", special[k])
                                  : snprintf(pool + plen, 16, "\xE2\x96\x81w%u", k * 7 + i % 13);
            plen += (size_t)w;
            scores[k] = -(float)k;
            types[k] = k == 0 ? 2 : k < N_SPECIAL ? 3 : 1;
        }
        off[N_VOCAB] = (uint32_t)plen;
        snprintf(name, sizeof name, "gguflint bench v %03u", i);
        gb *b = gb_new(3);
        gb_kv_str(b, "general.architecture", "llama");
        gb_kv_str(b, "general.name", name);
        gb_kv_str(b, "tokenizer.ggml.model", "llama");
        kv_strs(b, "tokenizer.ggml.tokens", pool, off, N_VOCAB);
        gb_kv_arr(b, "tokenizer.ggml.scores", GB_VT_F32, N_VOCAB, scores, sizeof scores);
        gb_kv_arr(b, "tokenizer.ggml.token_type", GB_VT_I32, N_VOCAB, types, sizeof types);
        gb_kv_u32(b, "tokenizer.ggml.bos_token_id", 1);
        gb_kv_u32(b, "tokenizer.ggml.eos_token_id", 2);
        gb_kv_u32(b, "tokenizer.ggml.unknown_token_id", 0);
        gb_kv_strn(b, "tokenizer.chat_template", block, (size_t)tl);
        snprintf(path, sizeof path, "%s/v/f%03u.gguf", dir, i);
        write_sparse(path, b, 0);
        gb_free(b);
    }
    printf("%s/v: %u vocabulary-only files with a chat template\n", dir, (unsigned)FILES);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gen_perf OUTDIR [t|l|k|s ...]\n");
        return 2;
    }
    const char *dir = argv[1];
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gen_perf: %s is not a directory\n", dir);
        return 2;
    }
    static const char letters[] = "tfvlks";
    static void (*const gens[])(const char *) = {gen_t, gen_f, gen_v, gen_l, gen_k, gen_s};
    _Static_assert(sizeof gens / sizeof gens[0] == sizeof letters - 1, "one generator per letter");
    bool want[sizeof letters - 1] = {false};
    for (int i = 2; i < argc; i++) {
        const char *c = strlen(argv[i]) == 1 ? strchr(letters, argv[i][0]) : NULL;
        if (!c) {
            fprintf(stderr, "gen_perf: unknown input '%s' (t, f, v, l, k or s)\n", argv[i]);
            return 2;
        }
        want[c - letters] = true;
    }
    for (size_t i = 0; i < sizeof want; i++)
        if (argc == 2 || want[i])
            gens[i](dir);
    return 0;
}
