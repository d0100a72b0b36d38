/* fuzz_common.h - shared by every harness: always-on fuzz asserts (active in
 * release builds too) and a memory sink for rendered output. A harness that
 * sees GGUFLINT_E_INTERNAL aborts: that status marks states believed
 * unreachable. */
#ifndef GGUFLINT_FUZZ_COMMON_H
#define GGUFLINT_FUZZ_COMMON_H

#include "gguflint.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: fuzz assert failed: %s\n", __FILE__, __LINE__, #cond);         \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Counts bytes written and checks that rendered output never holds a raw
 * control byte other than newline (text) - the escaping invariant. */
typedef struct fuzz_sink {
    size_t bytes;
    int check_controls;
} fuzz_sink;

static inline void fuzz_write(void *user, const char *data, size_t len)
{
    fuzz_sink *s = user;
    s->bytes += len;
    if (s->check_controls)
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)data[i];
            FUZZ_ASSERT(c == '\n' || (c >= 0x20 && c != 0x7F));
        }
}

/* Status check shared by the harnesses. */
static inline void fuzz_check_status(int st)
{
    FUZZ_ASSERT(st != GGUFLINT_E_INTERNAL);
    FUZZ_ASSERT(st == GGUFLINT_OK || st == GGUFLINT_E_NOMEM);
}

#endif
