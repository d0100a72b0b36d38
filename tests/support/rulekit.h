/* rulekit.h - the kit of the structural rule tests (test_container.c,
 * test_kv.c, test_tensor.c, test_data.c, test_builder.c): the options they
 * lint with (only the container, kv, tensor and data families: their small
 * files are not complete models), files of one KV, and files of up to
 * RK_MAXT tensors described as a layout (names, dims, types, offsets), built
 * with the gguf_builder so each field's offset is known. */
#ifndef GGUFLINT_TEST_RULEKIT_H
#define GGUFLINT_TEST_RULEKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gguf_builder.h"
#include "gguflint.h"

/* The structural families only; one shared object, never freed. */
const gguflint_options *rk_structural(void);
/* New options equal to rk_structural() (the caller changes and frees them). */
gguflint_options *rk_options(void);

/* Finish and free the builder; the buffer must exist (the test fails if not). */
uint8_t *rk_finish(gb *b, size_t *len);

/* A v3 file holding one KV written by `fn` (and nothing else); *m gets the
 * KV's field offsets. */
typedef void (*rk_kv_writer)(gb *b);
uint8_t *rk_one_kv_file(rk_kv_writer fn, gb_marks *m, size_t *len);

/* Finish the builder and require a finding of `id` at `at` under `opt`
 * (the buffer is freed); RK_EXPECT names the calling test. */
void rk_expect_at(gb *b, const gguflint_options *opt, const char *id, uint64_t at,
                  const char *where);
#define RK_EXPECT(b, opt, id, at) rk_expect_at(b, opt, id, at, __func__)

#define RK_AUTO UINT64_MAX /* a tensor offset: the running sum of padded sizes */
#define RK_MAXT 4

typedef struct rk_tensor {
    const char *name;
    size_t namelen; /* 0: strlen(name) */
    uint32_t n_dims;
    uint64_t ne[5];
    uint32_t type;
    uint64_t offset; /* RK_AUTO or a given offset */
} rk_tensor;

typedef struct rk_layout {
    rk_tensor t[RK_MAXT];
    size_t nt;
    uint32_t align_kv;     /* 0: no general.alignment KV (default 32) */
    bool stop_after_infos; /* no padding and no data at all */
    bool data_len_set;
    uint64_t data_len; /* bytes of data section (default: what the tensors need) */
} rk_layout;

typedef struct rk_built {
    uint8_t *buf;
    size_t len;
    gb_marks t[RK_MAXT];
    size_t info_end;   /* end of the tensor infos */
    size_t data_start; /* info_end padded to the alignment */
} rk_built;

/* general.architecture = llama, general.alignment when set, the tensors,
 * then (unless stop_after_infos) padding and zeroed data. */
rk_built rk_build(const rk_layout *l);

/* One tensor of a layout: name, n_dims, type, dims; offset RK_AUTO, or
 * `off` with RK_TO. */
/* clang-format off: initialiser macros */
#define RK_T(nm, nd, t, ...)                                                                       \
    {                                                                                              \
        .name = nm, .n_dims = nd, .ne = {__VA_ARGS__}, .type = t, .offset = RK_AUTO                \
    }
#define RK_TO(nm, nd, t, off, ...)                                                                 \
    {                                                                                              \
        .name = nm, .n_dims = nd, .ne = {__VA_ARGS__}, .type = t, .offset = off                    \
    }
/* clang-format on */

#endif
