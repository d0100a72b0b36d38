/* arch_check.h - what check_arch.c hands to its helpers: the file's
 * architecture as llama.cpp sees it and what kind of file it is.
 * check_arch.c owns the keys and hyper-parameter values,
 * check_arch_tensors.c the tensor set and shapes. */
#ifndef GGUFLINT_ARCH_CHECK_H
#define GGUFLINT_ARCH_CHECK_H

#include "model/arch_eval.h"
#include "checks/arch_asserts.h"
#include "checks/checks.h"

typedef struct arch_file {
    gguflint_ctx *ctx;
    const gguflint_kv *arch_kv; /* general.architecture */
    char arch[80];              /* its value up to the first NUL (llama.cpp's view) */
    char arch_path[160];
    const arch_info *info; /* NULL: not a table architecture */
    unsigned w;            /* width of length fields: 4 in v1, else 8 */
    bool complete;         /* the metadata was read to the end */
    bool shard;            /* part of a split set (split.count > 1) */
    uint64_t split_no;
    bool model_meta; /* this file must carry the model's hyper-parameters */
} arch_file;

/* True when a finding of `rule` is to be formatted; false when none would
 * be kept: then the drop is counted and nothing is formatted. */
bool arch_keep(gguflint_ctx *ctx, int rule);

/* A string llama.cpp reads as a C string: reports a NUL in it (GG514) and
 * returns the length llama.cpp sees (up to the first NUL). */
size_t arch_c_string(gguflint_ctx *ctx, const gguflint_kv *kv, const char *what);

/* Multimodal projector files (general.architecture = "clip"). */
void arch_check_clip(const arch_file *f);

/* LoRA adapters (check_lora.c): against the base model attached with
 * gguflint_set_base (ctx->base) when there is one, else against f's
 * architecture table (f->info, may be NULL). */
void arch_check_lora(const arch_file *f);
/* Control vectors and imatrix files (check_adapter.c). */
void arch_check_cvec(const arch_file *f);
void arch_check_imatrix(gguflint_ctx *ctx, const gguflint_kv *general_type);

/* The first table row of f's architecture that names this tensor (a per-layer
 * row only for a layer below its count), with the layer; NULL if none. */
const arch_tensor *arch_row_of(const arch_file *f, arch_env *env, const uint8_t *p, size_t n,
                               uint32_t *layer);

/* GG533: the hyper-parameter asserts of data/arch/hparam_asserts.def. */
void arch_check_asserts(const arch_file *f, arch_env *env);

/* Where a finding about dimension j of tensor t points (w: the width of
 * length fields): ne[j], or n_dims when t has j dimensions or fewer; the
 * finding's path goes to path. */
typedef struct arch_site {
    uint64_t offset, len;
} arch_site;
arch_site arch_dim_site(const gguflint_ctx *ctx, unsigned w, const gguflint_tensor *t, uint32_t j,
                        char *path, size_t cap);

/* The tensor names and shapes of a FULL architecture. */
void arch_check_tensors(const arch_file *f, arch_env *env);

/* Shared by check_adapter.c and check_lora.c: a finding at a tensor info
 * (offset of its name, as wide as the name's length field and bytes) or at
 * a KV's value, formatted only when it will be kept. */
void adapter_at_tensor(gguflint_ctx *ctx, int rule, const gguflint_tensor *t, unsigned w,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void adapter_at_kv(gguflint_ctx *ctx, int rule, const gguflint_kv *kv, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool adapter_ends_with(gguflint_view v, const char *suffix);
/* The tensor named `base` (n bytes) + `suffix`, or NULL (also for a name of
 * 512 bytes or more, or one holding a NUL). */
const gguflint_tensor *adapter_sibling(const gguflint_ctx *ctx, const uint8_t *base, size_t n,
                                       const char *suffix);

#endif
