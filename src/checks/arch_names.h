/* arch_names.h - the known architecture names near an unknown one: a case
 * variant ("LLAMA") or one edit away ("llamax", "lama"), for GG516 and the
 * GG540 note. Bounded: a value longer than ARCH_NEAR_LEN_MAX is not
 * compared, and each comparison is one linear pass (at most the name's
 * length plus one byte), so an attacker's 1 MB value costs nothing. */
#ifndef GGUFLINT_ARCH_NAMES_H
#define GGUFLINT_ARCH_NAMES_H

#include "gguflint.h"
#include "model/arch_tables.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    ARCH_NEAR_KEEP = 3,     /* candidates kept for the message */
    ARCH_NEAR_LEN_MAX = 64, /* longer values are never compared */
};

/* What kind of neighbour the kept candidates are (the best kind found). */
enum {
    NEAR_NONE,
    NEAR_DIGIT, /* only a digit added, removed or changed: a newer version of a family */
    NEAR_EDIT,  /* one other byte added, removed or changed (case ignored) */
    NEAR_CASE,  /* the same name in other ASCII case */
};

typedef struct arch_near {
    int kind;     /* NEAR_* */
    size_t count; /* neighbours of that kind (only the first ARCH_NEAR_KEEP are kept) */
    const arch_info *names[ARCH_NEAR_KEEP];
} arch_near;

/* The table names (arch_infos) near name[0..len), best kind first, in table
 * order. Call it only for a name that is not in the table. */
void arch_near_names(const uint8_t *name, size_t len, arch_near *out);

/* "'a'", "'a' or 'b'", "'a', 'b' or 'c'", "... (and N more)". */
void arch_near_list(const arch_near *near, char *buf, size_t cap);

/* Reports an architecture name the tables do not know (general.architecture
 * `akv`, its first `vis` bytes as llama.cpp sees them): GG516 for a case
 * variant or a one-letter slip of a known name, else the GG540 note. */
void arch_check_unknown(gguflint_ctx *ctx, const gguflint_kv *akv, size_t vis, const char *path);

#endif
