/* sha256.h - SHA-256 for `gguflint hash`, through OpenSSL's libcrypto loaded
 * with dlopen the first time a digest is needed (hash, and lint --deep for
 * the JSON report's "sha256"; a plain lint never loads it): a
 * statically linked libcrypto brought ~16 000 relocations to every start of
 * the program (more than half of the start-up's instructions), a dynamically
 * linked one millions of instructions of symbol resolution. */
#ifndef GGUFLINT_CLI_SHA256_H
#define GGUFLINT_CLI_SHA256_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sha256 sha256;

/* A new digest, or NULL: out of memory, or libcrypto could not be loaded
 * (sha256_error says which). */
sha256 *sha256_new(void);
/* Add n bytes; false on failure (the digest is then unusable). */
bool sha256_update(sha256 *d, const void *p, size_t n);
/* The lowercase hex digest into out (65 bytes), and free d; false on
 * failure or when d is NULL (d is freed anyway). */
bool sha256_hex(sha256 *d, char out[65]);
void sha256_free(sha256 *d);
/* The SHA-256 of a whole file (read in 64 KiB pieces) into out; false when
 * it cannot be read or libcrypto is missing. For lint --deep's JSON. */
bool sha256_file(const char *path, char out[65]);
/* Why the last sha256_new failed, for messages. */
const char *sha256_error(void);

#endif
