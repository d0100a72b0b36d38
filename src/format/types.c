/* types.c - the value-type and ggml tensor-type tables, each defined once.
 * The ggml types' facts (block size in elements, bytes per block, whether
 * the id is still valid) are data: data/ggml/types.def. */
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

#define GGML_TYPE(id, n, b, s) [id] = {n, b, s, GT_VALID},
#define GGML_REMOVED(id, n) [id] = {n, 0, 0, GT_REMOVED},
static const ggml_type_info ggml_types[] = {
#include "../../data/ggml/types.def"
};
#undef GGML_TYPE
#undef GGML_REMOVED

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
