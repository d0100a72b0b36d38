/* manifest.h - the tensor manifest of `gguflint hash`: what it records for a
 * set of files, read back with libjansson for --verify-manifest.
 *
 * The document (schema_version 1; fields are only ever added):
 *   {"schema_version": 1, "tool": {...}, "algorithm": "sha256",
 *    "files": [{"path": P, "size": N, "data_start": N,
 *               "file_sha256": H,      (the whole file: the Hub's LFS oid)
 *               "data_sha256": H,      (the data section)
 *               "tensors": [{"name": S, "name_hex": X (only when the name is
 *                            not UTF-8), "type": T, "shape": [N, ...],
 *                            "offset": N, "nbytes": N, "sha256": H}, ...]}]}
 * Names are written with gguflint_json_string, so a UTF-8 name decodes to the
 * same code points in any JSON reader (jq, Python); a name that is not UTF-8
 * carries its exact bytes in name_hex. Everything a manifest records is
 * verified; older manifests without some fields are verified on the fields
 * they have. */
#ifndef GGUFLINT_CLI_MANIFEST_H
#define GGUFLINT_CLI_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest manifest read (a manifest of 100 000 tensors is about 25 MB). */
#define MANIFEST_MAX_BYTES (64u << 20)

typedef struct mtensor {
    uint8_t *name; /* the exact bytes (name_hex, else the UTF-8 of name) */
    size_t name_len;
    size_t file;     /* index into files */
    char sha256[65]; /* always present */
    char type[32];   /* "" when not recorded */
    bool has_shape, has_offset, has_nbytes;
    uint32_t n_dims;
    uint64_t shape[8];
    uint64_t offset, nbytes;
} mtensor;

typedef struct mfile {
    char *path; /* as recorded (UTF-8) */
    bool has_size, has_data_start;
    uint64_t size, data_start;
    char data_sha256[65], file_sha256[65]; /* "" when not recorded */
} mfile;

typedef struct manifest {
    mfile *files;
    size_t n_files;
    mtensor *tensors;
    size_t n_tensors;
} manifest;

/* Parse and validate a manifest document (len bytes, need not be
 * NUL-terminated). False with a one-line reason in err. */
bool manifest_parse(const char *text, size_t len, manifest *m, char *err, size_t errcap);
/* Read a manifest file (at most MANIFEST_MAX_BYTES) and parse it. */
bool manifest_load(const char *path, manifest *m, char *err, size_t errcap);
void manifest_free(manifest *m);

#endif
