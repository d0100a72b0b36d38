/* fuzz_manifest.c - the manifest reader of `gguflint hash --verify-manifest`
 * (src/cli/manifest.c, over libjansson) on arbitrary bytes: it must accept a
 * document or give a reason, never crash or leak, and whatever it accepts
 * must hold only validated fields (digests of 64 lowercase hex digits, names
 * no longer than the input, file indexes inside the file list). */
#include "fuzz_common.h"

#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    manifest m;
    char err[256] = "";
    if (!manifest_parse((const char *)data, size, &m, err, sizeof err)) {
        FUZZ_ASSERT(err[0] != '\0');
        return 0;
    }
    for (size_t i = 0; i < m.n_tensors; i++) {
        const mtensor *t = &m.tensors[i];
        FUZZ_ASSERT(t->file < m.n_files);
        FUZZ_ASSERT(t->name_len <= size);
        FUZZ_ASSERT(strlen(t->sha256) == 64);
        FUZZ_ASSERT(strspn(t->sha256, "0123456789abcdef") == 64);
        FUZZ_ASSERT(t->n_dims <= 8);
        FUZZ_ASSERT(strlen(t->type) < sizeof t->type);
    }
    for (size_t i = 0; i < m.n_files; i++) {
        const mfile *f = &m.files[i];
        FUZZ_ASSERT(f->path != NULL);
        FUZZ_ASSERT(!f->file_sha256[0] || strlen(f->file_sha256) == 64);
        FUZZ_ASSERT(!f->data_sha256[0] || strlen(f->data_sha256) == 64);
    }
    manifest_free(&m);
    return 0;
}
