/* digest.h - the SHA-256 digests of one GGUF file for `gguflint hash`: the
 * whole file (what the Hugging Face Hub shows as its LFS oid), the data
 * section, and each tensor's data bytes, computed in one sequential read of
 * the file. Tensors whose infos alias one byte range (same offset and size)
 * share a digest computed once; tensors whose ranges overlap otherwise are
 * refused (the file is malformed: GG217), so no byte is hashed twice for the
 * same purpose, however many tensor infos point at it. Uses the public API
 * and OpenSSL's libcrypto. */
#ifndef GGUFLINT_CLI_DIGEST_H
#define GGUFLINT_CLI_DIGEST_H

#include "gguflint.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct dtensor {
    uint8_t *name; /* the exact bytes */
    size_t name_len;
    uint32_t type;
    uint32_t n_dims;
    uint64_t ne[4];
    uint64_t offset, nbytes;
    char sha256[65];
} dtensor;

typedef struct dfile {
    char *path;
    uint64_t size, data_start;
    char file_sha256[65], data_sha256[65];
    dtensor *tensors;
    size_t n_tensors;
} dfile;

/* Digest one file. Returns 0 (EXIT_CLEAN), 1 when the file's layout makes it
 * unusable (metadata unreadable, data outside the file, overlapping tensors:
 * run gguflint on it), 2 on I/O or memory errors; the reason is printed. */
int digest_file(const char *path, dfile *out);
void digest_free(dfile *f);

#endif
