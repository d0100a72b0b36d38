/* arch_tables.c - expands the generated architecture tables
 * (data/arch/gen_*.def) and the hand-kept names (data/arch/hand_names.def)
 * into the arrays declared in arch_tables.h. Data only: the tables are
 * written by data/arch/archgen.py and never edited here.
 *
 * Relocation-free form: every string of every row becomes a char-array
 * member of one constant struct (the pool), named after its .def file and
 * line (a .def file holds one row per line), and the rows hold the member's
 * offsetof. Each .def file is included twice - once to declare and fill the
 * pool, once for the rows - so the generated files stay readable and the
 * executable carries no pointer the dynamic loader must fix up at start. */
#include "model/arch_tables.h"
#include "model/arch_eval.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define AT_CAT_(a, b) a##b
#define AT_CAT(a, b) AT_CAT_(a, b)
/* The pool member of string `tag` on the current .def line. */
#define M(tag) AT_CAT(tag, __LINE__)
#define OFF(tag) ((arch_str_t)offsetof(struct arch_pool, M(tag)))

#define REQ true
#define OPT false
#define HEADS AF_HEADS
#define Q_IS_E AF_Q_IS_E
#define ROPE_IS_HEAD AF_ROPE_IS_HEAD

/* ---- pass 1: the pool's members */
#define GEN_STAMP(commit, date, build)                                                             \
    char M(st_c)[sizeof commit], M(st_d)[sizeof date], M(st_b)[sizeof build];
#define GEN_SOURCE(file, commit) char M(src_f)[sizeof file], M(src_c)[sizeof commit];
#define GEN_COMMON_KEYS(first, count)
#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src)                                       \
    char M(a_n)[sizeof name], M(a_r)[sizeof rec];
#define GEN_KEY(suffix, type, req) char M(k_s)[sizeof suffix];
#define GEN_TENSOR(name, at, req, count, cond, a, b, c, d)                                         \
    char M(t_n)[sizeof name], M(t_c)[sizeof count], M(t_k)[sizeof cond], M(t_0)[sizeof a],         \
        M(t_1)[sizeof b], M(t_2)[sizeof c], M(t_3)[sizeof d];
#define GEN_SYM(name, key, has, dflt) char M(s_n)[sizeof #name], M(s_k)[sizeof key];
#define HAND_NAME(s) char M(h_n)[sizeof s];
#define GEN_PY_ARCH(name, first, count) char M(p_a)[sizeof name];
#define GEN_PY_NAME(name, at) char M(p_n)[sizeof name];
struct arch_pool {
#include "model/arch_pool.h"
};

/* ---- pass 2: the pool's contents, in the same order */
#define GEN_STAMP(commit, date, build) commit, date, build,
#define GEN_SOURCE(file, commit) file, commit,
#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src) name, rec,
#define GEN_KEY(suffix, type, req) suffix,
#define GEN_TENSOR(name, at, req, count, cond, a, b, c, d) name, count, cond, a, b, c, d,
#define GEN_SYM(name, key, has, dflt) #name, key,
#define HAND_NAME(s) s,
#define GEN_PY_ARCH(name, first, count) name,
#define GEN_PY_NAME(name, at) name,
#define GEN_COMMON_KEYS(first, count)
const struct arch_pool arch_pool = {
#include "model/arch_pool.h"
};

/* ---- pass 3: the rows */
#define GEN_SOURCE(file, commit)
#define GEN_COMMON_KEYS(first, count)
#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src)
#define GEN_STAMP(commit, date, build)                                                             \
    const arch_str_t arch_stamp_commit = OFF(st_c), arch_stamp_date = OFF(st_d),                   \
                     arch_stamp_build = OFF(st_b);
#include "../../data/arch/gen_archs.def"
#undef GEN_STAMP
#undef GEN_ARCH
#define GEN_STAMP(commit, date, build)
#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src)                                       \
    {OFF(a_n), (uint8_t)(sizeof name - 1), COV_##cov, (unsigned)(flags), kf, kc, tf, tc, OFF(a_r), \
     src},
const arch_info arch_infos[] = {
#include "../../data/arch/gen_archs.def"
};
#undef GEN_ARCH
#undef GEN_COMMON_KEYS
const size_t arch_info_count = sizeof arch_infos / sizeof arch_infos[0];

#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src)
#define GEN_COMMON_KEYS(first, count)                                                              \
    const uint16_t arch_common_first = first, arch_common_count = count;
#include "../../data/arch/gen_archs.def"
#undef GEN_COMMON_KEYS
#define GEN_COMMON_KEYS(first, count)

#undef GEN_SOURCE
#define GEN_SOURCE(file, commit) OFF(src_f),
const arch_str_t arch_source_files[] = {
#include "../../data/arch/gen_archs.def"
};
#undef GEN_SOURCE
#define GEN_SOURCE(file, commit) OFF(src_c),
const arch_str_t arch_source_commits[] = {
#include "../../data/arch/gen_archs.def"
};
#undef GEN_SOURCE
#undef GEN_ARCH
#undef GEN_COMMON_KEYS
const size_t arch_source_count = sizeof arch_source_files / sizeof arch_source_files[0];

#define GEN_KEY(suffix, type, req) {OFF(k_s), KT_##type, req},
const arch_key arch_keys[] = {
#include "../../data/arch/gen_keys.def"
};
#undef GEN_KEY
const size_t arch_key_count = sizeof arch_keys / sizeof arch_keys[0];

#define GEN_TENSOR(name, at, req, count, cond, a, b, c, d)                                         \
    {OFF(t_n),                                                                                     \
     (uint8_t)(sizeof name - 1),                                                                   \
     at,                                                                                           \
     (at) < 0 ? ARCH_GLOBAL_KEY(sizeof name - 1)                                                   \
              : ARCH_LAYER_KEY(at, sizeof name - 3 - (size_t)(at)),                                \
     req,                                                                                          \
     OFF(t_c),                                                                                     \
     OFF(t_k),                                                                                     \
     {OFF(t_0), OFF(t_1), OFF(t_2), OFF(t_3)}},
const arch_tensor arch_tensors[] = {
#include "../../data/arch/gen_tensors.def"
};
#undef GEN_TENSOR
const size_t arch_tensor_count = sizeof arch_tensors / sizeof arch_tensors[0];

#define GEN_SYM(name, key, has, dflt) {OFF(s_n), OFF(s_k), has, dflt},
const arch_sym arch_syms[] = {
#include "../../data/arch/gen_syms.def"
};
#undef GEN_SYM
const size_t arch_sym_count = sizeof arch_syms / sizeof arch_syms[0];

#define HAND_NAME(s) OFF(h_n),
const arch_str_t arch_hand_names[] = {
#include "../../data/arch/hand_names.def"
};
#undef HAND_NAME
const size_t arch_hand_name_count = sizeof arch_hand_names / sizeof arch_hand_names[0];

#define GEN_PY_ARCH(name, first, count) {OFF(p_a), first, count},
#define GEN_PY_NAME(name, at)
static const struct {
    arch_str_t name;
    uint16_t first, count;
} py_archs[] = {
#include "../../data/arch/gen_gguf_py.def"
};
#undef GEN_PY_ARCH
#undef GEN_PY_NAME
#define GEN_PY_ARCH(name, first, count)
#define GEN_PY_NAME(name, at) {OFF(p_n), (uint8_t)(sizeof name - 1), at},
static const struct {
    arch_str_t name;
    uint8_t len;
    int8_t at;
} py_names[] = {
#include "../../data/arch/gen_gguf_py.def"
};
#undef GEN_PY_ARCH
#undef GEN_PY_NAME
#undef REQ
#undef OPT
#undef HEADS
#undef Q_IS_E
#undef ROPE_IS_HEAD

_Static_assert(sizeof arch_tensors / sizeof arch_tensors[0] < 65535, "tensor rows fit uint16_t");
_Static_assert(sizeof arch_keys / sizeof arch_keys[0] < 65535, "key rows fit uint16_t");
_Static_assert(sizeof arch_syms / sizeof arch_syms[0] == SYM_COUNT, "one row per SYM_ id");
_Static_assert(sizeof arch_syms / sizeof arch_syms[0] <= ARCH_MAX_SYMS,
               "every generated symbol has a slot in arch_env (raise ARCH_MAX_SYMS)");
_Static_assert(sizeof(struct arch_pool) < UINT32_MAX, "pool offsets fit uint32_t");
/* archgen.py keeps tensor names to 120 bytes: name_len and the keys fit */
#define GEN_TENSOR(name, at, req, count, cond, a, b, c, d)                                         \
    _Static_assert(sizeof name <= 121 && (at) < 120, "tensor name fits name_len");
#include "../../data/arch/gen_tensors.def"
#undef GEN_TENSOR

const arch_info *arch_find(const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < arch_info_count; i++)
        if (arch_infos[i].name_len == len && memcmp(arch_str(arch_infos[i].name), name, len) == 0)
            return &arch_infos[i];
    return NULL;
}

bool arch_rows_are_vocab(const arch_info *a, const char *name)
{
    if (!a || a->coverage != COV_FULL)
        return true;
    char want[16];
    snprintf(want, sizeof want, "#%d", (int)SYM_n_vocab);
    for (uint16_t i = 0; i < a->tensor_count; i++) {
        const arch_tensor *t = &arch_tensors[a->tensor_first + i];
        if (t->layer_at >= 0 || strcmp(arch_str(t->name), name) != 0)
            continue;
        const char *ne1 = arch_str(t->ne[1]);
        if (strcmp(ne1, want) == 0 || strcmp(ne1, "?") == 0)
            return true;
    }
    for (uint16_t i = 0; i < a->tensor_count; i++) {
        const arch_tensor *t = &arch_tensors[a->tensor_first + i];
        if (t->layer_at < 0 && strcmp(arch_str(t->name), name) == 0)
            return false; /* every row of that name has other rows */
    }
    return true;
}

/* A file's tensor name against a gguf-py base name: the base (its %d a
 * plain decimal layer number), then nothing or one ".suffix" (.weight,
 * .bias, .scale ...). */
static bool py_match(const char *base, size_t blen, int at, const uint8_t *name, size_t len)
{
    size_t i = 0, j = 0;
    if (at >= 0) {
        if (len < (size_t)at || memcmp(base, name, (size_t)at) != 0)
            return false;
        i = j = (size_t)at;
        size_t d = 0;
        while (i < len && name[i] >= '0' && name[i] <= '9')
            i++, d++;
        if (d == 0 || d > 9 || (d > 1 && name[j] == '0'))
            return false;
        j += 2;
    }
    size_t rest = blen - j;
    if (len - i < rest || memcmp(base + j, name + i, rest) != 0)
        return false;
    i += rest;
    if (i == len)
        return true;
    if (name[i] != '.' || i + 1 == len)
        return false;
    for (size_t k = i + 1; k < len; k++)
        if (!((name[k] >= 'a' && name[k] <= 'z') || name[k] == '_' ||
              (name[k] >= '0' && name[k] <= '9')))
            return false;
    return true;
}

bool arch_py_lists(const arch_info *a, const uint8_t *name, size_t len)
{
    const char *an = arch_str(a->name);
    for (size_t i = 0; i < sizeof py_archs / sizeof py_archs[0]; i++) {
        if (strcmp(arch_str(py_archs[i].name), an) != 0)
            continue;
        for (size_t k = py_archs[i].first; k < (size_t)py_archs[i].first + py_archs[i].count &&
                                           k < sizeof py_names / sizeof py_names[0];
             k++)
            if (py_match(arch_str(py_names[k].name), py_names[k].len, py_names[k].at, name, len))
                return true;
        return false;
    }
    return false;
}

int arch_sym_index(const char *name)
{
    for (size_t i = 0; i < arch_sym_count; i++)
        if (strcmp(arch_str(arch_syms[i].name), name) == 0)
            return (int)i;
    return -1;
}
