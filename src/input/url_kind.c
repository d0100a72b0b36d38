/* url_kind.c - what an input name is (a path, the URL of one file, an hf://
 * repository to list), the same in every build; and, in a build without URL
 * support (no libcurl headers or libjansson: GGUFLINT_URL=OFF), the URL calls
 * as stubs that say so. With URL support they are in src/net/url_input.c. */
#define _POSIX_C_SOURCE 200809L
#include "input/source.h"

#include <string.h>
#include <strings.h>

int gguflint_url_kind(const char *name)
{
    if (!name)
        return 0;
    if (strncasecmp(name, "http://", 7) == 0 || strncasecmp(name, "https://", 8) == 0)
        return 1;
    if (strncmp(name, "hf://", 5) != 0)
        return 0;
    /* hf://ORG/REPO[@REV]/PATH.gguf is one file; anything else a listing */
    size_t n = strcspn(name, "?#");
    while (n > 5 && name[n - 1] == '/')
        n--;
    return n >= 10 && strncasecmp(name + n - 5, ".gguf", 5) == 0 ? 1 : 2;
}

#ifndef GGUFLINT_HAVE_URL

static const char no_url[] = "this gguflint was built without URL support (libcurl's headers "
                             "and libjansson were not found)";

bool gguflint_url_supported(void)
{
    return false;
}

gguflint_fetch_options *gguflint_fetch_options_new(void)
{
    return NULL;
}

void gguflint_fetch_options_free(gguflint_fetch_options *fo)
{
    (void)fo;
}

int gguflint_fetch_set(gguflint_fetch_options *fo, gguflint_fetch_setting what, uint64_t value)
{
    (void)fo;
    (void)what;
    (void)value;
    return GGUFLINT_E_ARG;
}

int gguflint_fetch_add_header(gguflint_fetch_options *fo, const char *line)
{
    (void)fo;
    (void)line;
    return GGUFLINT_E_ARG;
}

int gguflint_fetch_set_hub(gguflint_fetch_options *fo, const char *endpoint, const char *token)
{
    (void)fo;
    (void)endpoint;
    (void)token;
    return GGUFLINT_E_ARG;
}

int gguflint_fetch_set_cancel(gguflint_fetch_options *fo, const volatile int *flag)
{
    (void)fo;
    (void)flag;
    return GGUFLINT_E_ARG;
}

int gguflint_open_url(gguflint_ctx *ctx, const char *url, const gguflint_fetch_options *fo)
{
    (void)url;
    (void)fo;
    int st = ctx ? source_ready(ctx) : GGUFLINT_E_ARG;
    if (st != GGUFLINT_OK)
        return st;
    snprintf(ctx->error_detail, sizeof ctx->error_detail, "%s", no_url);
    ctx->status = GGUFLINT_E_ARG;
    return ctx->status;
}

bool gguflint_fetch_stats(const gguflint_ctx *ctx, const char **url, uint64_t *bytes,
                          uint64_t *requests)
{
    (void)ctx;
    (void)url;
    (void)bytes;
    (void)requests;
    return false;
}

bool gguflint_fetch_ranges(const gguflint_ctx *ctx)
{
    (void)ctx;
    return true;
}

int gguflint_url_list_new(const char *ref, const gguflint_fetch_options *fo,
                          gguflint_url_list **out, char *err, size_t err_size)
{
    (void)ref;
    (void)fo;
    if (out)
        *out = NULL;
    if (err && err_size)
        snprintf(err, err_size, "%s", no_url);
    return GGUFLINT_E_ARG;
}

size_t gguflint_url_list_count(const gguflint_url_list *l)
{
    (void)l;
    return 0;
}

const char *gguflint_url_list_get(const gguflint_url_list *l, size_t i)
{
    (void)l;
    (void)i;
    return NULL;
}

uint64_t gguflint_url_list_size(const gguflint_url_list *l, size_t i)
{
    (void)l;
    (void)i;
    return 0;
}

void gguflint_url_list_stats(const gguflint_url_list *l, uint64_t *bytes, uint64_t *requests)
{
    (void)l;
    if (bytes)
        *bytes = 0;
    if (requests)
        *requests = 0;
}

void gguflint_url_list_free(gguflint_url_list *l)
{
    (void)l;
}

#endif
