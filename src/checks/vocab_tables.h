/* vocab_tables.h - llama.cpp's tokenizer tables (data/vocab/gen_*.def,
 * written by data/vocab/vocabgen.py from llama_vocab::impl::load): the
 * tokenizer.ggml.model names the loader accepts with the facts the tokenizer
 * checks need, and the tokenizer.ggml.pre names its BPE branch accepts.
 *
 * The rows carry no pointers: names are fixed char arrays inside the rows,
 * so the dynamic loader has nothing to relocate at start (as in
 * model/arch_tables.c; tests/check_table_relocs.py checks it). */
#ifndef GGUFLINT_VOCAB_TABLES_H
#define GGUFLINT_VOCAB_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* The special ids a tokenizer assumes when their key is absent. */
enum { VD_BOS, VD_EOS, VD_UNK, VD_SEP, VD_PAD, VD_MASK, VD__COUNT };

/* TOK_MODEL / PRE_TOK flags. */
enum {
    VM_NO_VOCAB = 1,  /* no tokens needed (none, no_vocab) */
    VM_MERGES = 2,    /* throws "cannot find tokenizer merges" without them */
    VM_READS_PRE = 4, /* tokenizer.ggml.pre is looked up in vocab_pres */
    VP_NO_BOS = 1,    /* the pre-tokenizer's branch clears the default BOS id */
};

/* Where a row came from: the tree of vocab_source_*, or a newer upstream
 * file (vocabgen.py HAND_*). */
enum { VO_TREE, VO_NEWER };

typedef struct vocab_model {
    char name[16];
    char merges_unless_pre[32];  /* merges not needed with this pre-tokenizer, "" none */
    char forced_pre[32];         /* the loader replaces tokenizer.ggml.pre by this, "" none */
    uint8_t flags;               /* VM_* */
    uint8_t origin;              /* VO_* */
    int32_t defaults[VD__COUNT]; /* -1: none */
} vocab_model;

typedef struct vocab_pre {
    char name[32];
    uint8_t flags;  /* VP_* */
    uint8_t origin; /* VO_* */
} vocab_pre;

extern const vocab_model vocab_models[];
extern const size_t vocab_model_count;
extern const vocab_pre vocab_pres[];
extern const size_t vocab_pre_count;

/* The llama.cpp tree the tables were generated from. */
extern const char vocab_source_commit[41];
extern const char vocab_source_date[11];  /* YYYY-MM-DD */
extern const char vocab_source_build[12]; /* bNNNNN */

/* The row of a name (length-delimited; a name with a NUL matches nothing),
 * or NULL. */
const vocab_model *vocab_model_find(const uint8_t *name, size_t len);
const vocab_pre *vocab_pre_find(const uint8_t *name, size_t len);

#endif
