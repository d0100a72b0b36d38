/* arch_api.c - the public view of the architecture tables (gguflint.h:
 * gguflint_arch_*), for `gguflint archs` and library users. */
#include "gguflint.h"
#include "model/arch_tables.h"

#include <stddef.h>
#include <string.h>

/* The first published layout (0.3): a struct_size below it is refused. */
#define ARCH_INFO_SIZE_V1 (offsetof(gguflint_arch_info, source_commit) + sizeof(const char *))

size_t gguflint_arch_count(void)
{
    return arch_info_count;
}

int gguflint_arch_get(size_t index, gguflint_arch_info *caller)
{
    if (!caller || index >= arch_info_count || caller->struct_size < ARCH_INFO_SIZE_V1)
        return GGUFLINT_E_ARG;
    const arch_info *a = &arch_infos[index];
    static const char *const cov[] = {"name", "keys", "full"};
    gguflint_arch_info info = {0}, *out = &info;
    out->name = arch_str(a->name);
    out->coverage = a->coverage < 3 ? cov[a->coverage] : "name";
    out->key_count = a->key_count;
    /* a table the generator could not complete is not used: no rows */
    out->tensor_count = a->coverage == COV_FULL ? a->tensor_count : 0;
    if (a->source >= 0 && (size_t)a->source < arch_source_count) {
        out->source = arch_str(arch_source_files[a->source]);
        out->source_commit = arch_str(arch_source_commits[a->source]);
    }
    /* the fields both sides know: an older caller's struct is shorter */
    size_t n = caller->struct_size < sizeof info ? caller->struct_size : sizeof info;
    info.struct_size = caller->struct_size;
    memcpy(caller, &info, n);
    return GGUFLINT_OK;
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
