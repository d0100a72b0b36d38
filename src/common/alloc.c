/* alloc.c - the allocation home (alloc.h) and gguflint_set_allocator: the
 * three functions of the allocator in use, set once by the caller before any
 * other call, the C library's by default. */
#define _POSIX_C_SOURCE 200809L
#include "common/alloc.h"

#include "gguflint.h"

#include <stdlib.h>
#include <string.h>

static void *std_malloc(void *user, size_t n)
{
    (void)user;
    return malloc(n);
}

static void *std_realloc(void *user, void *p, size_t n)
{
    (void)user;
    return realloc(p, n);
}

static void std_free(void *user, void *p)
{
    (void)user;
    free(p);
}

/* Set-once process state (gguflint.h: gguflint_set_allocator is not
 * thread-safe against any other call). */
static gguflint_malloc_fn a_malloc = std_malloc;
static gguflint_realloc_fn a_realloc = std_realloc;
static gguflint_free_fn a_free = std_free;
static void *a_user;

int gguflint_set_allocator(gguflint_malloc_fn m, gguflint_realloc_fn r, gguflint_free_fn f,
                           void *user)
{
    if (!m && !r && !f) {
        a_malloc = std_malloc;
        a_realloc = std_realloc;
        a_free = std_free;
        a_user = NULL;
        return GGUFLINT_OK;
    }
    if (!m || !r || !f)
        return GGUFLINT_E_ARG;
    a_malloc = m;
    a_realloc = r;
    a_free = f;
    a_user = user;
    return GGUFLINT_OK;
}

void *gl_malloc(size_t n)
{
    return a_malloc(a_user, n ? n : 1);
}

void *gl_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    /* the C library's own calloc knows when its block is fresh from the
     * kernel (a large one is mapped, already zero) and skips the memset: the
     * token index of a vocabulary is megabytes of it (issue 28) */
    const size_t total = n * size;
    if (a_malloc == std_malloc)
        return calloc(total ? total : 1, 1);
    void *p = gl_malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *gl_realloc(void *p, size_t n)
{
    if (!p)
        return gl_malloc(n);
    return a_realloc(a_user, p, n ? n : 1);
}

void gl_free(void *p)
{
    if (p)
        a_free(a_user, p);
}

void gl_free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        gl_free(v[i]);
    gl_free(v);
}

char *gl_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *c = gl_malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = 0;
    }
    return c;
}

void *gl_process_malloc(size_t n)
{
    return malloc(n ? n : 1);
}

void *gl_process_calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

void gl_process_free(void *p)
{
    free(p);
}

char *gl_strdup(const char *s)
{
    return gl_strndup(s, SIZE_MAX);
}
