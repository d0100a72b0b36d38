/* filetypes.h - the llama_ftype table (general.file_type) as data, defined
 * once in filetypes.c: each value's status, names, default tensor type and
 * the types llama-quantize's mixture gives each tensor role; the file-name
 * quantisation tags; and the tensor classification the mixture rules use
 * (which tensors are quantized at all, and their role). Facts from
 * docs/FORMAT.md sections 3, 4 and 4.1 and llama.cpp's
 * src/llama-quant.cpp (llama_tensor_get_type_impl, tensor_allows_quantization,
 * tensor_type_fallback, llama_ftype_get_default_type). */
#ifndef GGUFLINT_FILETYPES_H
#define GGUFLINT_FILETYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ggml_type ids the table names (values of enum ggml_type, see types.c). */
enum {
    GGT_F32 = 0,
    GGT_F16 = 1,
    GGT_Q4_0 = 2,
    GGT_Q4_1 = 3,
    GGT_Q5_0 = 6,
    GGT_Q5_1 = 7,
    GGT_Q8_0 = 8,
    GGT_Q8_1 = 9,
    GGT_Q2_K = 10,
    GGT_Q3_K = 11,
    GGT_Q4_K = 12,
    GGT_Q5_K = 13,
    GGT_Q6_K = 14,
    GGT_Q8_K = 15,
    GGT_IQ2_XXS = 16,
    GGT_IQ2_XS = 17,
    GGT_IQ3_XXS = 18,
    GGT_IQ1_S = 19,
    GGT_IQ4_NL = 20,
    GGT_IQ3_S = 21,
    GGT_IQ2_S = 22,
    GGT_IQ4_XS = 23,
    GGT_I8 = 24,
    GGT_I16 = 25,
    GGT_I32 = 26,
    GGT_I64 = 27,
    GGT_F64 = 28,
    GGT_IQ1_M = 29,
    GGT_BF16 = 30,
    GGT_TQ1_0 = 34,
    GGT_TQ2_0 = 35,
    GGT_MXFP4 = 39,
    GGT_NVFP4 = 40,
    GGT_Q1_0 = 41,
    GGT_Q2_0 = 42
};
/* A set of ggml types (every valid id is below 64). */
typedef uint64_t typeset;
#define TS(t) ((typeset)1 << (t))
#define TS_FLOATS (TS(GGT_F32) | TS(GGT_F16) | TS(GGT_BF16))

/* True for a valid ggml type that is block-quantized (not F32/F16/BF16/F64 or
 * an integer type). */
bool ggt_quantized(uint32_t type);

/* Tensor roles as llama-quantize's mixture tells them apart (tensor_get_category). */
typedef enum ft_role {
    FTR_ATTN_V, /* attn_v, attn_qkv, attn_kv_b */
    FTR_ATTN_K,
    FTR_ATTN_Q,
    FTR_ATTN_OUTPUT,
    FTR_FFN_DOWN,    /* every name containing ffn_down (experts, shared experts) */
    FTR_FFN_GATE_UP, /* ffn_gate, ffn_up */
    FTR_OTHER,
    FTR__MIXED,              /* roles below are not checked against the mixture: */
    FTR_OUTPUT = FTR__MIXED, /* output.weight (and tied token_embd): any type by option */
    FTR_TOKEN_EMBD           /* token_embd / per_layer_token_embd: any type by option */
} ft_role;

typedef enum { FT_CURRENT, FT_REMOVED } ft_status;

typedef struct ftype_info {
    uint32_t value; /* general.file_type */
    ft_status status;
    const char *name;          /* LLAMA_FTYPE_ suffix: "MOSTLY_Q4_K_M" */
    const char *display;       /* llama_model_ftype_name: "Q4_K - Medium" */
    uint32_t default_type;     /* ggml type of quantizable tensors; UINT32_MAX if removed */
    bool mxfp4_moe;            /* MXFP4 on 3-D expert tensors, Q8_0 elsewhere */
    typeset extra[FTR__MIXED]; /* types the mixture may use per role, besides the default */
} ftype_info;

#define FT_GUESSED 1024u /* llama.cpp's in-memory "guessed" flag, never stored */

/* The entry for a general.file_type value, or NULL when it is not one. */
const ftype_info *ft_info(uint32_t value);

/* The file type llama.cpp guesses from the most frequent tensor type (when a
 * file has no general.file_type); NULL when it has no guess. */
const ftype_info *ft_guess(uint32_t ggml_type);

/* ggml_n_dims: the number of dimensions up to the last one above 1. */
unsigned ft_eff_dims(const uint64_t ne[4]);

/* Whether llama-quantize would quantize a tensor with this name and these
 * dims (tensor_allows_quantization, with default options). */
bool ft_quantizable(const uint8_t *name, size_t len, unsigned eff_dims);

/* The role of a quantizable tensor; has_output: the model has output.weight
 * (otherwise token_embd is the tied output). */
ft_role ft_role_of(const uint8_t *name, size_t len, bool has_output);

/* Every type the file type could have given a quantizable tensor of this role
 * and shape, including the shape fallbacks (row length not a multiple of the
 * block size). Only for roles below FTR__MIXED. */
typeset ft_allowed(const ftype_info *ft, ft_role role, uint64_t ne0, uint64_t ne2);

/* ---- file-name quantisation tags ("-Q4_K_M.gguf") ---- */
typedef struct ftype_tag {
    const char *tag; /* upper case: "Q4_K_M" */
    uint64_t ftypes; /* the file types it can name (bit = general.file_type value) */
} ftype_tag;

/* The rightmost quantisation tag in a file name (directories ignored, case
 * insensitive, delimited by the start or a non-alphanumeric byte before and
 * the end or a byte other than [A-Za-z0-9_] after). NULL when none; *at
 * and *len give its place in `name`. */
const ftype_tag *ft_tag_in_name(const char *name, size_t *at, size_t *len);

#endif
