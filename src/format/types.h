/* types.h - lookups into the value-type and ggml-type tables defined once in
 * types.c (the llama_ftype table of general.file_type is in filetypes.c). */
#ifndef GGUFLINT_TYPES_H
#define GGUFLINT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

enum {
    VT_UINT8 = 0,
    VT_INT8 = 1,
    VT_UINT16 = 2,
    VT_INT16 = 3,
    VT_UINT32 = 4,
    VT_INT32 = 5,
    VT_FLOAT32 = 6,
    VT_BOOL = 7,
    VT_STRING = 8,
    VT_ARRAY = 9,
    VT_UINT64 = 10,
    VT_INT64 = 11,
    VT_FLOAT64 = 12,
    VT_COUNT = 13
};

/* Name of a value type ("u32", "str", ...) or NULL when the id is invalid. */
const char *vt_name(uint32_t vt);
/* Payload size of a fixed-size value type, 0 for string, array and invalid. */
unsigned vt_size(uint32_t vt);

typedef enum { GT_VALID, GT_REMOVED, GT_UNKNOWN } gt_status;

typedef struct ggml_type_info {
    const char *name; /* "q4_K"; for removed ids the historical name */
    uint32_t block;   /* elements per block */
    uint32_t size;    /* bytes per block */
    gt_status status;
} ggml_type_info;

#define GGML_TYPE_TABLE_COUNT 43u
/* Always returns an entry; ids past the table get status GT_UNKNOWN. */
const ggml_type_info *gt_info(uint32_t id);

#endif
