/* manifest.c - reading a tensor manifest with libjansson (see manifest.h).
 * jansson parses with a bounded depth (no stack exhaustion) and rejects
 * invalid UTF-8; duplicate object keys are refused (two "sha256" fields would
 * let a manifest say two things). Every value is type-checked here, so the
 * verifier only ever sees validated fields. */
#define _POSIX_C_SOURCE 200809L
#include "manifest.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return false;
}

static bool is_hex64(const char *s, size_t n)
{
    if (n != 64)
        return false;
    for (size_t i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* An optional non-negative integer field; false when present but not one. */
static bool opt_u64(json_t *obj, const char *key, bool *has, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    *has = v != NULL;
    if (!v)
        return true;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

/* An optional SHA-256 field into out ("" when absent); false when bad. */
static bool opt_sha(json_t *obj, const char *key, char out[65])
{
    json_t *v = json_object_get(obj, key);
    out[0] = '\0';
    if (!v)
        return true;
    if (!json_is_string(v) || !is_hex64(json_string_value(v), json_string_length(v)))
        return false;
    memcpy(out, json_string_value(v), 65);
    return true;
}

static bool read_tensor(json_t *t, size_t file, mtensor *mt, const char *where, char *err,
                        size_t cap)
{
    memset(mt, 0, sizeof *mt);
    mt->file = file;
    if (!json_is_object(t))
        return fail(err, cap, "%s is not an object", where);
    json_t *name = json_object_get(t, "name"), *hex = json_object_get(t, "name_hex");
    if (!json_is_string(name))
        return fail(err, cap, "%s has no \"name\" string", where);
    const char *src = json_string_value(name);
    size_t n = json_string_length(name);
    if (hex) {
        /* the exact bytes of a name that is not UTF-8 */
        if (!json_is_string(hex) || json_string_length(hex) % 2 != 0)
            return fail(err, cap, "%s: \"name_hex\" is not an even-length hex string", where);
        n = json_string_length(hex) / 2;
        mt->name = malloc(n ? n : 1);
        if (!mt->name)
            return fail(err, cap, "out of memory");
        const char *h = json_string_value(hex);
        for (size_t i = 0; i < n; i++) {
            int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
            if (a < 0 || b < 0)
                return fail(err, cap, "%s: \"name_hex\" is not hex", where);
            mt->name[i] = (uint8_t)(a << 4 | b);
        }
    } else {
        mt->name = malloc(n ? n : 1);
        if (!mt->name)
            return fail(err, cap, "out of memory");
        memcpy(mt->name, src, n);
    }
    mt->name_len = n;
    json_t *sha = json_object_get(t, "sha256");
    if (!json_is_string(sha) || !is_hex64(json_string_value(sha), json_string_length(sha)))
        return fail(err, cap, "%s has no \"sha256\" of 64 lowercase hex digits", where);
    memcpy(mt->sha256, json_string_value(sha), 65);
    json_t *type = json_object_get(t, "type");
    if (type) {
        if (!json_is_string(type) || json_string_length(type) >= sizeof mt->type)
            return fail(err, cap, "%s: \"type\" is not a type name", where);
        memcpy(mt->type, json_string_value(type), json_string_length(type) + 1);
    }
    if (!opt_u64(t, "offset", &mt->has_offset, &mt->offset) ||
        !opt_u64(t, "nbytes", &mt->has_nbytes, &mt->nbytes))
        return fail(err, cap, "%s: \"offset\" and \"nbytes\" must be non-negative integers", where);
    json_t *shape = json_object_get(t, "shape");
    if (shape) {
        size_t k = json_array_size(shape);
        if (!json_is_array(shape) || k > 8)
            return fail(err, cap, "%s: \"shape\" is not an array of at most 8 dims", where);
        for (size_t d = 0; d < k; d++) {
            json_t *v = json_array_get(shape, d);
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                return fail(err, cap, "%s: \"shape\" holds a non-integer", where);
            mt->shape[d] = (uint64_t)json_integer_value(v);
        }
        mt->has_shape = true;
        mt->n_dims = (uint32_t)k;
    }
    return true;
}

bool manifest_parse(const char *text, size_t len, manifest *m, char *err, size_t errcap)
{
    memset(m, 0, sizeof *m);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
    if (!root)
        return fail(err, errcap, "not a gguflint manifest: line %d column %d: %.120s", je.line,
                    je.column, je.text);
    bool ok = false;
    json_t *files = json_object_get(root, "files"), *alg = json_object_get(root, "algorithm");
    json_t *sv = json_object_get(root, "schema_version");
    if (!json_is_object(root) || !json_is_integer(sv) || json_integer_value(sv) != 1 ||
        !json_is_array(files)) {
        fail(err, errcap, "not a gguflint manifest (schema_version 1 with a \"files\" array)");
        goto done;
    }
    if (alg && !(json_is_string(alg) && strcmp(json_string_value(alg), "sha256") == 0)) {
        fail(err, errcap, "unsupported manifest algorithm (only sha256)");
        goto done;
    }
    size_t nf = json_array_size(files), nt = 0;
    for (size_t i = 0; i < nf; i++) {
        json_t *tl = json_object_get(json_array_get(files, i), "tensors");
        if (!json_is_array(tl)) {
            fail(err, errcap, "files[%zu] has no \"tensors\" array", i);
            goto done;
        }
        nt += json_array_size(tl);
    }
    m->files = calloc(nf ? nf : 1, sizeof *m->files);
    m->tensors = calloc(nt ? nt : 1, sizeof *m->tensors);
    if (!m->files || !m->tensors) {
        fail(err, errcap, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nf; i++) {
        json_t *f = json_array_get(files, i), *path = json_object_get(f, "path");
        mfile *mf = &m->files[m->n_files++];
        if (!json_is_string(path)) {
            fail(err, errcap, "files[%zu] has no \"path\" string", i);
            goto done;
        }
        size_t pl = json_string_length(path);
        mf->path = malloc(pl + 1);
        if (!mf->path) {
            fail(err, errcap, "out of memory");
            goto done;
        }
        memcpy(mf->path, json_string_value(path), pl + 1);
        if (!opt_u64(f, "size", &mf->has_size, &mf->size) ||
            !opt_u64(f, "data_start", &mf->has_data_start, &mf->data_start) ||
            !opt_sha(f, "data_sha256", mf->data_sha256) ||
            !opt_sha(f, "file_sha256", mf->file_sha256)) {
            fail(err, errcap, "files[%zu]: a size, offset or digest field is malformed", i);
            goto done;
        }
        json_t *tl = json_object_get(f, "tensors");
        for (size_t k = 0; k < json_array_size(tl); k++) {
            char where[64];
            snprintf(where, sizeof where, "files[%zu].tensors[%zu]", i, k);
            if (!read_tensor(json_array_get(tl, k), i, &m->tensors[m->n_tensors++], where, err,
                             errcap))
                goto done;
        }
    }
    ok = true;
done:
    json_decref(root);
    if (!ok)
        manifest_free(m);
    return ok;
}

bool manifest_load(const char *path, manifest *m, char *err, size_t errcap)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(err, errcap, "cannot read the manifest");
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ||
        (uint64_t)sb.st_size > MANIFEST_MAX_BYTES) {
        fclose(f);
        return fail(err, errcap, "the manifest is not a regular file of at most %u MiB",
                    MANIFEST_MAX_BYTES >> 20);
    }
    size_t n = (size_t)sb.st_size;
    char *text = malloc(n ? n : 1);
    if (!text) {
        fclose(f);
        return fail(err, errcap, "out of memory");
    }
    size_t got = n ? fread(text, 1, n, f) : 0;
    fclose(f);
    if (got != n) {
        free(text);
        return fail(err, errcap, "cannot read the manifest");
    }
    bool ok = manifest_parse(text, n, m, err, errcap);
    free(text);
    return ok;
}

void manifest_free(manifest *m)
{
    for (size_t i = 0; i < m->n_files; i++)
        free(m->files[i].path);
    for (size_t i = 0; i < m->n_tensors; i++)
        free(m->tensors[i].name);
    free(m->files);
    free(m->tensors);
    memset(m, 0, sizeof *m);
}
