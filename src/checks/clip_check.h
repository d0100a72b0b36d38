/* clip_check.h - what the projector (mmproj) checks share: the file's
 * encoders and their projector types as llama.cpp's mtmd loader
 * (tools/mtmd/clip.cpp clip_model_loader) sees them, the generated tables
 * (data/arch/clip_*.def, clipgen.py) and the finding helper.
 * check_clip.c owns the projector types and the 2026 memory-safety values,
 * check_clip_keys.c the keys (types, presence, ranges), check_clip_tensors.c
 * the tensors (presence, the graph's dereferences, shapes, output width). */
#ifndef GGUFLINT_CLIP_CHECK_H
#define GGUFLINT_CLIP_CHECK_H

#include "checks/arch_check.h"

/* Flags of a projector type (data/arch/clip_projectors.def). */
enum {
    G_INP = 1,      /* the graph convolves with v.patch_embd.weight */
    G_POS = 2,      /* the graph reads position_embeddings without a null check */
    G_VIT = 4,      /* the graph reads each layer's attn_q/k/v or attn_qkv */
    MINICPMV = 8,   /* bucket_coords[1024] (GG558) */
    MERGE2 = 16,    /* the Qwen2-VL 2 x 2 merge (GG559) */
    MERGE_GT1 = 32, /* build_patch_merge_permute asserts n_merge > 1 (GG521) */
    G_PE1 = 64,     /* the graph also convolves with v.patch_embd.weight.1 */
    G_RESIZE = 128, /* the graph resizes position_embd as a sqrt(ne[1]) square */
    G_QKVB = 256    /* the graph adds each layer's attn_q/k/v bias unguarded */
};

/* Encoders, the loader's modalities: vision, audio, audio generation. */
enum { CLIP_V = 0, CLIP_A = 1, CLIP_G = 2, CLIP_F = 3, CLIP_NMOD = 3 };

#define CLIP_TYPE_MAX 20
#define CLIP_TENSOR_MAX 48
#define CLIP_KEY_MAX 48

typedef struct clip_projector {
    char name[CLIP_TYPE_MAX];
    uint8_t modality; /* CLIP_V, CLIP_A or CLIP_G */
    unsigned flags;
    char file[24]; /* the graph builder (tools/mtmd/models/) */
} clip_projector;

/* Key value types of the loader's getters. */
enum { CK_BOOL, CK_I32, CK_U32, CK_F32, CK_STR, CK_ARR_F32, CK_ARR_I32 };

typedef struct clip_key {
    char key[CLIP_KEY_MAX];
    uint8_t type; /* CK_* */
    bool required;
    uint8_t modality;          /* CLIP_V, CLIP_A, CLIP_G or CLIP_F (read once per file) */
    char ptype[CLIP_TYPE_MAX]; /* "" every type of the encoder */
} clip_key;

typedef struct clip_tensor_row {
    char ptype[CLIP_TYPE_MAX];
    char tensor[CLIP_TENSOR_MAX];
} clip_tensor_row;

typedef struct clip_output_row {
    char ptype[CLIP_TYPE_MAX];
    char tensor[CLIP_TENSOR_MAX];
    uint8_t dim;
} clip_output_row;

extern const clip_projector clip_projectors[];
extern const size_t clip_n_projectors;
extern const clip_key clip_keys[];
extern const size_t clip_n_keys;
extern const clip_tensor_row clip_tensor_rows[];
extern const size_t clip_n_tensor_rows;
extern const clip_output_row clip_output_rows[];
extern const size_t clip_n_output_rows;

enum { IN_E, IN_E4, IN_EMM, IN_ES, IN_PREV, IN_PREV_2, IN_PREV_E, IN_ESM };

typedef struct clip_chain_row {
    char ptype[CLIP_TYPE_MAX];
    char tensor[CLIP_TENSOR_MAX];
    uint8_t dim, input;
} clip_chain_row;

typedef struct clip_used_row {
    char ptype[CLIP_TYPE_MAX];
    char tensor[CLIP_TENSOR_MAX];
    char when[CLIP_TENSOR_MAX]; /* "" always, else only when this tensor exists */
} clip_used_row;

extern const clip_used_row clip_used_rows[];
extern const size_t clip_n_used_rows;
extern const clip_chain_row clip_chain_rows[];
extern const size_t clip_n_chain_rows;

typedef struct clip_enc {
    bool on;                    /* clip.has_<x>_encoder is true */
    const gguflint_kv *type_kv; /* where its projector type was read */
    const clip_projector *proj; /* NULL: type absent or unknown */
} clip_enc;

typedef struct clip_file {
    gguflint_ctx *ctx;
    const gguflint_kv *anchor; /* where file-level findings point */
    char anchor_path[160];
    unsigned flags;     /* union of the projector types' flags */
    char type_name[64]; /* a projector type, for messages */
    unsigned w;         /* width of length fields: 4 in v1, else 8 */
    clip_enc enc[CLIP_NMOD];
} clip_file;

void clip_report(const clip_file *f, int rule, const gguflint_kv *kv, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void clip_report_tensor(const clip_file *f, int rule, const gguflint_tensor *t, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

/* An integer value of a numeric (not bool, string or array) KV. */
bool clip_value(const gguflint_kv *kv, int64_t *v);
/* The key's value when it has the type the loader reads (u32), else false. */
bool clip_u32(const gguflint_ctx *ctx, const char *key, int64_t *v);
/* The table row of a projector type name (the legacy "qwen2.5o" resolved
 * for the modality), or NULL. */
const clip_projector *clip_projector_of(const char *name, size_t len, int modality);

/* The llava graph runs layers 0 .. n_layer - 2 only (models/llava.cpp
 * il_last = n_layer - 1; GLM-Edge, "adapter", runs them all; explicit
 * feature layers decide otherwise). */
bool clip_skips_last_layer(const clip_file *f, const clip_enc *e);

/* check_clip_keys.c */
void clip_check_keys(const clip_file *f);
void clip_check_values(const clip_file *f);
/* check_clip_tensors.c */
void clip_check_tensors(const clip_file *f);

#endif
