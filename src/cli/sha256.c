/* sha256.c - see sha256.h. libcrypto's soname is libcrypto.so.3 for OpenSSL
 * 3 (Debian 12 and later); the digest calls used here (EVP_MD_CTX_new,
 * EVP_DigestInit_ex, EVP_sha256, EVP_DigestUpdate, EVP_DigestFinal_ex,
 * EVP_MD_CTX_free) exist with the same signatures since OpenSSL 1.1, so
 * libcrypto.so.1.1 is tried too. Loaded once per process (pthread_once),
 * read-only after. */
#define _POSIX_C_SOURCE 200809L
#include "sha256.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The calls, declared here rather than through openssl/evp.h, so nothing in
 * the program refers to libcrypto's symbols by name. */
typedef struct crypto_api {
    void *(*md_ctx_new)(void);
    void (*md_ctx_free)(void *);
    const void *(*sha256)(void);
    int (*init)(void *, const void *, void *);
    int (*update)(void *, const void *, size_t);
    int (*final)(void *, unsigned char *, unsigned int *);
} crypto_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static crypto_api api;
static const crypto_api *loaded;
static char why[200] = "libcrypto could not be loaded";

/* dlsym's object pointer to a function pointer: copied, as POSIX allows. */
static bool sym(void *lib, const char *name, void *fp, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p) {
        snprintf(why, sizeof why, "libcrypto lacks %s", name);
        return false;
    }
    memcpy(fp, &p, size);
    return true;
}

static void load(void)
{
    static const char *const names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why,
                 "libcrypto (OpenSSL) could not be loaded for SHA-256 (install libssl3): %s",
                 dlerror());
        return;
    }
#define SYM(field, name) sym(lib, name, &api.field, sizeof api.field)
    bool ok = SYM(md_ctx_new, "EVP_MD_CTX_new") && SYM(md_ctx_free, "EVP_MD_CTX_free") &&
              SYM(sha256, "EVP_sha256") && SYM(init, "EVP_DigestInit_ex") &&
              SYM(update, "EVP_DigestUpdate") && SYM(final, "EVP_DigestFinal_ex");
#undef SYM
    if (!ok) {
        dlclose(lib);
        return;
    }
    loaded = &api;
}

const char *sha256_error(void)
{
    return why;
}

sha256 *sha256_new(void)
{
    pthread_once(&once, load);
    if (!loaded)
        return NULL;
    void *md = loaded->md_ctx_new();
    if (md && loaded->init(md, loaded->sha256(), NULL) != 1) {
        loaded->md_ctx_free(md);
        md = NULL;
    }
    if (!md)
        snprintf(why, sizeof why, "out of memory");
    return md;
}

bool sha256_update(sha256 *d, const void *p, size_t n)
{
    return d && loaded->update(d, p, n) == 1;
}

bool sha256_hex(sha256 *d, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[64];
    unsigned int len = 0;
    if (!d)
        return false;
    bool ok = loaded->final(d, md, &len) == 1 && len == 32;
    loaded->md_ctx_free(d);
    for (unsigned i = 0; ok && i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    if (ok)
        out[64] = '\0';
    return ok;
}

void sha256_free(sha256 *d)
{
    if (d)
        loaded->md_ctx_free(d);
}

bool sha256_file(const char *path, char out[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    sha256 *d = sha256_new();
    static _Thread_local unsigned char buf[1 << 16];
    bool ok = d != NULL;
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, f)) > 0)
        ok = sha256_update(d, buf, n);
    ok = ok && !ferror(f);
    fclose(f);
    if (!ok) {
        sha256_free(d);
        return false;
    }
    return sha256_hex(d, out);
}
