/* gen_examples.c - writes corpus/examples/: valid.gguf (a tiny but complete
 * llama model, clean under every check and profile)
 * and hostile.gguf (a small file with many problems, including a terminal
 * escape in a key), so the README's first command shows both a clean result
 * and real findings. Usage: gen_examples OUTDIR. A test regenerates into a
 * temporary directory and fails when the committed files are stale. */
#include "gguf_builder.h"
#include "tiny_llama.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int write_file(const char *dir, const char *name, const uint8_t *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "gen_examples: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

static uint8_t *hostile(size_t *len)
{
    gb *b = gb_new(3);
    gb_kv_str(b, "general.architecture", "llama");
    gb_kv_i32(b, "general.alignment", 32); /* GG115: must be u32 */
    gb_kv_str(b, "general.name", "tiny");
    gb_kv_str(b, "general.name", "tiny again");       /* GG106 */
    gb_kv_u32(b, "llama.\x1b[31mblock_count", 1);     /* GG104: ESC in a key */
    gb_kv_bool(b, "tokenizer.ggml.add_bos_token", 7); /* GG114 */
    gb_kv_u32(b, "Llama.Context_Length", 4096);       /* GG105 */
    uint64_t ne1[2] = {32, 4}, ne2[1] = {8}, ne3[5] = {8, 1, 1, 1, 1}, ne4[2] = {33, 2};
    gb_tensor(b, "token_embd.weight", 2, ne1, GB_F16, 0);
    gb_tensor(b, "blk.0.attn_norm.weight", 1, ne2, GB_F32, 64); /* GG218: expected 256 */
    gb_tensor(b, "token_embd.weight", 1, ne2, GB_F32, 256);     /* GG205 */
    gb_tensor(b, "blk.0.attn_q.weight", 5, ne3, GB_F32, 300);   /* GG207 */
    gb_tensor(b, "blk.0.ffn_up.weight", 2, ne4, GB_Q4_0, 512);  /* GG214 */
    gb_tensor(b, "output.weight", 2, ne1, 31, 1024);            /* GG213 */
    gb_pad_to(b, 32);
    gb_fill(b, 0xAB, 64); /* far less data than the tensors claim: GG216 */
    uint8_t *buf = gb_finish(b, len);
    gb_free(b);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_examples OUTDIR\n");
        return 2;
    }
    size_t len;
    uint8_t *v = gb_tiny_llama(&len);
    if (!v || write_file(argv[1], "valid.gguf", v, len))
        return 1;
    free(v);
    uint8_t *h = hostile(&len);
    if (!h || write_file(argv[1], "hostile.gguf", h, len))
        return 1;
    free(h);
    return 0;
}
