/* arch_tables.c - expands the generated architecture tables
 * (data/arch/gen_*.def) and the hand-kept names (data/arch/hand_names.def)
 * into the arrays declared in arch_tables.h. Data only: the tables are
 * written by data/arch/archgen.py and never edited here. */
#include "model/arch_tables.h"
#include "model/arch_eval.h"

#include <string.h>

#define GEN_SOURCE(file, commit)
#define GEN_COMMON_KEYS(first, count)
#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src)                                       \
    {name, COV_##cov, (unsigned)(flags), kf, kc, tf, tc, rec, src},
#define HEADS AF_HEADS
#define Q_IS_E AF_Q_IS_E
#define ROPE_IS_HEAD AF_ROPE_IS_HEAD
const arch_info arch_infos[] = {
#include "../../data/arch/gen_archs.def"
};
#undef GEN_ARCH
#undef HEADS
#undef Q_IS_E
#undef ROPE_IS_HEAD
const size_t arch_info_count = sizeof arch_infos / sizeof arch_infos[0];

#define GEN_ARCH(name, cov, kf, kc, tf, tc, flags, rec, src)
#undef GEN_COMMON_KEYS
#define GEN_COMMON_KEYS(first, count)                                                              \
    const uint16_t arch_common_first = first, arch_common_count = count;
#include "../../data/arch/gen_archs.def"
#undef GEN_COMMON_KEYS
#define GEN_COMMON_KEYS(first, count)

#undef GEN_SOURCE
#define GEN_SOURCE(file, commit) file,
const char *const arch_source_files[] = {
#include "../../data/arch/gen_archs.def"
};
#undef GEN_SOURCE
#define GEN_SOURCE(file, commit) commit,
const char *const arch_source_commits[] = {
#include "../../data/arch/gen_archs.def"
};
#undef GEN_SOURCE
#undef GEN_ARCH
#undef GEN_COMMON_KEYS
const size_t arch_source_count = sizeof arch_source_files / sizeof arch_source_files[0];

#define REQ true
#define OPT false
#define GEN_KEY(suffix, type, req) {suffix, KT_##type, req},
const arch_key arch_keys[] = {
#include "../../data/arch/gen_keys.def"
};
#undef GEN_KEY
const size_t arch_key_count = sizeof arch_keys / sizeof arch_keys[0];

#define GEN_TENSOR(name, req, count, cond, a, b, c, d) {name, req, count, cond, {a, b, c, d}},
const arch_tensor arch_tensors[] = {
#include "../../data/arch/gen_tensors.def"
};
#undef GEN_TENSOR
#undef REQ
#undef OPT
const size_t arch_tensor_count = sizeof arch_tensors / sizeof arch_tensors[0];

#define GEN_SYM(name, key, has, dflt) {name, key, has, dflt},
const arch_sym arch_syms[] = {
#include "../../data/arch/gen_syms.def"
};
#undef GEN_SYM
const size_t arch_sym_count = sizeof arch_syms / sizeof arch_syms[0];

#define HAND_NAME(s) s,
const char *const arch_hand_names[] = {
#include "../../data/arch/hand_names.def"
};
#undef HAND_NAME
const size_t arch_hand_name_count = sizeof arch_hand_names / sizeof arch_hand_names[0];

_Static_assert(sizeof arch_tensors / sizeof arch_tensors[0] < 65535, "tensor rows fit uint16_t");
_Static_assert(sizeof arch_keys / sizeof arch_keys[0] < 65535, "key rows fit uint16_t");
_Static_assert(sizeof arch_syms / sizeof arch_syms[0] <= ARCH_MAX_SYMS,
               "every generated symbol has a slot in arch_env (raise ARCH_MAX_SYMS)");

const arch_info *arch_find(const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < arch_info_count; i++)
        if (strlen(arch_infos[i].name) == len && memcmp(arch_infos[i].name, name, len) == 0)
            return &arch_infos[i];
    return NULL;
}

int arch_sym_index(const char *name)
{
    for (size_t i = 0; i < arch_sym_count; i++)
        if (strcmp(arch_syms[i].name, name) == 0)
            return (int)i;
    return -1;
}
