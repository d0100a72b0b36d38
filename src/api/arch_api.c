/* arch_api.c - the public view of the architecture tables (gguflint.h:
 * gguflint_arch_*), for `gguflint archs` and library users. */
#include "gguflint.h"
#include "model/arch_tables.h"

#include <string.h>

size_t gguflint_arch_count(void)
{
    return arch_info_count;
}

int gguflint_arch_get(size_t index, gguflint_arch_info *out)
{
    if (!out || index >= arch_info_count)
        return -1;
    const arch_info *a = &arch_infos[index];
    static const char *const cov[] = {"name", "keys", "full"};
    memset(out, 0, sizeof *out);
    out->name = arch_str(a->name);
    out->coverage = a->coverage < 3 ? cov[a->coverage] : "name";
    out->key_count = a->key_count;
    /* a table the generator could not complete is not used: no rows */
    out->tensor_count = a->coverage == COV_FULL ? a->tensor_count : 0;
    if (a->source >= 0 && (size_t)a->source < arch_source_count) {
        out->source = arch_str(arch_source_files[a->source]);
        out->source_commit = arch_str(arch_source_commits[a->source]);
    }
    return 0;
}

/* GEN_SOURCE row 0 is llama-arch.cpp (LLM_ARCH_NAMES); every table has the
 * stamp's commit. */
const char *gguflint_arch_names_source(void)
{
    return arch_source_count > 0 ? arch_str(arch_source_files[0]) : "";
}

const char *gguflint_arch_names_commit(void)
{
    return arch_str(arch_stamp_commit);
}

const char *gguflint_arch_tables_date(void)
{
    return arch_str(arch_stamp_date);
}

const char *gguflint_arch_tables_build(void)
{
    return arch_str(arch_stamp_build);
}
