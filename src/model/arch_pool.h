/* arch_pool.h - the .def files whose strings make the pool, in pool order,
 * for arch_tables.c's passes: included (no guard) inside a struct or an
 * initialiser with the row macros defined, it expands every row and then
 * undefines the macros, so the next pass defines its own. */
#include "../../data/arch/gen_archs.def"
#include "../../data/arch/gen_keys.def"
#include "../../data/arch/gen_tensors.def"
#include "../../data/arch/gen_syms.def"
#include "../../data/arch/hand_names.def"
#include "../../data/arch/gen_gguf_py.def"
#undef GEN_PY_ARCH
#undef GEN_PY_NAME
#undef GEN_STAMP
#undef GEN_SOURCE
#undef GEN_COMMON_KEYS
#undef GEN_ARCH
#undef GEN_KEY
#undef GEN_TENSOR
#undef GEN_SYM
#undef HAND_NAME
