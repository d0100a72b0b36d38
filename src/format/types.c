/* types.c - the value-type and ggml tensor-type tables, each defined once.
 * Facts from ggml's include/ggml.h and src/ggml.c type_traits (2026-08): block
 * size in elements, bytes per block, and whether the id is still valid. */
#include "format/types.h"

#include "gguflint.h"

#include <stddef.h>

static const struct {
    const char *name;
    unsigned size;
} value_types[VT_COUNT] = {
    [VT_UINT8] = {"u8", 1},    [VT_INT8] = {"i8", 1},    [VT_UINT16] = {"u16", 2},
    [VT_INT16] = {"i16", 2},   [VT_UINT32] = {"u32", 4}, [VT_INT32] = {"i32", 4},
    [VT_FLOAT32] = {"f32", 4}, [VT_BOOL] = {"bool", 1},  [VT_STRING] = {"str", 0},
    [VT_ARRAY] = {"arr", 0},   [VT_UINT64] = {"u64", 8}, [VT_INT64] = {"i64", 8},
    [VT_FLOAT64] = {"f64", 8},
};

const char *vt_name(uint32_t vt)
{
    return vt < VT_COUNT ? value_types[vt].name : NULL;
}

unsigned vt_size(uint32_t vt)
{
    return vt < VT_COUNT ? value_types[vt].size : 0;
}

/* clang-format off: the table in rows of four ids */
#define V(n, b, s)                                                                                 \
    {                                                                                              \
        n, b, s, GT_VALID                                                                          \
    }
#define R(n)                                                                                       \
    {                                                                                              \
        n, 0, 0, GT_REMOVED                                                                        \
    }
static const ggml_type_info ggml_types[GGML_TYPE_TABLE_COUNT] = {
    V("f32", 1, 4),
    V("f16", 1, 2),
    V("q4_0", 32, 18),
    V("q4_1", 32, 20),
    R("q4_2"),
    R("q4_3"),
    V("q5_0", 32, 22),
    V("q5_1", 32, 24),
    V("q8_0", 32, 34),
    V("q8_1", 32, 36),
    V("q2_K", 256, 84),
    V("q3_K", 256, 110),
    V("q4_K", 256, 144),
    V("q5_K", 256, 176),
    V("q6_K", 256, 210),
    V("q8_K", 256, 292),
    V("iq2_xxs", 256, 66),
    V("iq2_xs", 256, 74),
    V("iq3_xxs", 256, 98),
    V("iq1_s", 256, 50),
    V("iq4_nl", 32, 18),
    V("iq3_s", 256, 110),
    V("iq2_s", 256, 82),
    V("iq4_xs", 256, 136),
    V("i8", 1, 1),
    V("i16", 1, 2),
    V("i32", 1, 4),
    V("i64", 1, 8),
    V("f64", 1, 8),
    V("iq1_m", 256, 56),
    V("bf16", 1, 2),
    R("q4_0_4_4"),
    R("q4_0_4_8"),
    R("q4_0_8_8"),
    V("tq1_0", 256, 54),
    V("tq2_0", 256, 66),
    R("iq4_nl_4_4"),
    R("iq4_nl_4_8"),
    R("iq4_nl_8_8"),
    V("mxfp4", 32, 17),
    V("nvfp4", 64, 36),
    V("q1_0", 128, 18),
    V("q2_0", 64, 18),
};
/* clang-format on */
#undef V
#undef R

_Static_assert(sizeof ggml_types / sizeof ggml_types[0] == GGML_TYPE_TABLE_COUNT,
               "ggml type table size");

static const ggml_type_info unknown_type = {NULL, 0, 0, GT_UNKNOWN};

const ggml_type_info *gt_info(uint32_t id)
{
    return id < GGML_TYPE_TABLE_COUNT ? &ggml_types[id] : &unknown_type;
}

const char *gguflint_value_type_name(uint32_t t)
{
    return vt_name(t);
}

const char *gguflint_ggml_type_name(uint32_t t)
{
    const ggml_type_info *ti = gt_info(t);
    return ti->status == GT_VALID ? ti->name : NULL;
}
