/* arch_tables.h - the architecture tables generated from llama.cpp's loader
 * (data/arch/gen_*.def, written by data/arch/archgen.py) as C arrays, and the
 * few facts kept by hand beside them (data/arch/hand_names.def). One row per
 * architecture name; each row points at a range of key rows and a range of
 * tensor rows. Formulas are RPN strings interpreted by arch_eval.c. */
#ifndef GGUFLINT_ARCH_TABLES_H
#define GGUFLINT_ARCH_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How much of an architecture the tables describe. */
enum { COV_NAME, COV_KEYS, COV_FULL };

/* Architecture flags (GEN_ARCH flags column). */
enum {
    AF_ROPE_IS_HEAD = 1, /* rope.dimension_count must equal the head size */
    AF_HEADS = 2,        /* every layer has attention: head counts are divisors */
    AF_Q_IS_E = 4,       /* attn_q is [E, E]: head_count * head size must be E */
};

/* The type a loader reads a key as (GEN_KEY TYPE column). */
enum {
    KT_U32,
    KT_I32,
    KT_F32,
    KT_BOOL,
    KT_STR,
    KT_LAYERS,     /* u32, or an array (i32/u32) of block_count elements */
    KT_F32_LAYERS, /* f32, or an array of f32 of block_count elements */
    KT_SECTIONS,   /* i32, or an array of i32 of 4 elements */
    KT_ARR_STR,    /* an array of strings */
    KT_ARR_INT,    /* an array of i32, u32 or bool (get_arr into integers) */
    KT_ARR_F32,    /* an array of f32 */
    KT_ARR_ANY     /* an array of i32, u32, bool, f32 or strings (target type not read) */
};

/* Every string of the tables lives in one pool (arch_tables.c), and rows
 * hold uint32 offsets into it: the tables carry no pointers, so the dynamic
 * loader has nothing to relocate at start (they were ~20 000 relocations).
 * arch_str(off) is the NUL-terminated string at an offset. */
typedef uint32_t arch_str_t;
struct arch_pool;
extern const struct arch_pool arch_pool;
static inline const char *arch_str(arch_str_t off)
{
    return (const char *)(const void *)&arch_pool + off;
}

/* A cheap first filter for matching a file's tensor name against a row: a
 * global name of length n has key 0x8000 | n, a per-layer name with its
 * layer number at byte `at` followed by `suf` bytes has key at << 8 | suf.
 * Names longer than 255 bytes match no row (no row name is that long). */
#define ARCH_GLOBAL_KEY(n) ((uint16_t)(0x8000u | (unsigned)(n)))
#define ARCH_LAYER_KEY(at, suf) ((uint16_t)(((unsigned)(at) << 8) | (unsigned)(suf)))

typedef struct arch_key {
    arch_str_t suffix;  /* the key is "<arch>.<suffix>" */
    unsigned char type; /* KT_* */
    bool required;
} arch_key;

typedef struct arch_tensor {
    arch_str_t name;    /* with one "%d" for the layer index when per-layer */
    uint8_t name_len;   /* strlen of name */
    int8_t layer_at;    /* where "%d" is in name, -1 for a global tensor */
    uint16_t shape_key; /* ARCH_*_KEY of the name: equal for every file name it matches */
    bool required;      /* REQ: "missing tensor" when absent and cond holds */
    arch_str_t count;   /* number of layers (per-layer rows), "" for globals */
    arch_str_t cond;    /* "" always, "?" unknown, else an RPN condition */
    arch_str_t ne[4];   /* RPN shape formulas; "" = 1 (dimension absent), "?" = any */
} arch_tensor;

typedef struct arch_info {
    arch_str_t name;
    uint8_t name_len;
    unsigned char coverage; /* COV_* */
    unsigned flags;         /* AF_* */
    uint16_t key_first, key_count;
    uint16_t tensor_first, tensor_count;
    arch_str_t recurrent; /* RPN of is_recurrent(i), "" none */
    int source;           /* index in arch_source_files of the loader code, -1 none */
} arch_info;

typedef struct arch_sym {
    arch_str_t name; /* the llama_hparams member or derived quantity */
    arch_str_t key;  /* "<arch>.<key>" gives it, or "" */
    bool has_default;
    int64_t dflt;
} arch_sym;

/* The symbols by name: SYM_n_embd is the row of n_embd in arch_syms (and
 * #N / @N in a formula). The derived ones are computed in arch_eval.c. */
enum arch_sym_id {
#define GEN_SYM(name, key, has, dflt) SYM_##name,
#include "../../data/arch/gen_syms.def"
#undef GEN_SYM
    SYM_COUNT
};

extern const arch_info arch_infos[];
extern const size_t arch_info_count;
extern const arch_key arch_keys[];
extern const size_t arch_key_count;
extern const arch_tensor arch_tensors[];
extern const size_t arch_tensor_count;
extern const arch_sym arch_syms[];
extern const size_t arch_sym_count;
/* The keys every loader reads (load_hparams before its switch). */
extern const uint16_t arch_common_first, arch_common_count;
/* llama.cpp source files and commits the tables were generated from
 * (pool offsets). */
extern const arch_str_t arch_source_files[];
extern const arch_str_t arch_source_commits[];
extern const size_t arch_source_count;
/* The llama.cpp tree every generated table came from (GEN_STAMP): its
 * commit, its date (YYYY-MM-DD) and its build (`git describe`), pool
 * offsets. Messages that depend on the tables name the date. */
extern const arch_str_t arch_stamp_commit, arch_stamp_date, arch_stamp_build;
/* Names accepted without a table (not a llama_model architecture, e.g.
 * control vectors), kept by hand in data/arch/hand_names.def. */
extern const arch_str_t arch_hand_names[];
extern const size_t arch_hand_name_count;

/* The row of an architecture name (length-delimited, NUL-free), or NULL. */
const arch_info *arch_find(const uint8_t *name, size_t len);
/* Whether the global tensor `name` has one row per token (ne[1] = n_vocab)
 * in architecture a: false only when a FULL table creates it with other
 * rows (wavtokenizer-dec's output.weight is [n_embd, n_embd_out]). */
bool arch_rows_are_vocab(const arch_info *a, const char *name);
/* Whether gguf-py's MODEL_TENSORS (data/arch/gen_gguf_py.def) lists the
 * tensor `name` (length-delimited) for the architecture: its base name
 * with the layer number, then nothing or one ".suffix". */
bool arch_py_lists(const arch_info *a, const uint8_t *name, size_t len);
/* Symbol index by name, or -1 (used by the evaluator for derived symbols). */
int arch_sym_index(const char *name);

#endif
