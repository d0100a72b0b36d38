/* url_input.c - the public URL calls: fetch options, gguflint_open_url (a
 * remote file as a range-reader input, src/api/reader.c), its statistics,
 * and the listing of hf:// repositories. Credentials: the Hub token goes only
 * to the Hub endpoint's origin and extra headers only to the origin of the
 * URL opened; fetch.c keeps both from redirect targets elsewhere. */
#define _POSIX_C_SOURCE 200809L
#include "core/limits.h"
#include "common/alloc.h"
#include "hf.h"
#include "http.h"
#include "input/source.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { MAX_HEADERS = URL_MAX_HEADERS, MAX_HEADER_LEN = URL_MAX_HEADER_BYTES };

struct gguflint_fetch_options {
    net_options net;
    char *headers[MAX_HEADERS];
    size_t n_headers;
    char *endpoint;
    char *token; /* NULL: none */
};

struct url_source {
    struct net_curl *curl;
    net_file *file;
    char *url; /* as fetched (hf:// resolved) */
};

struct gguflint_url_list {
    char **urls;
    uint64_t *sizes;
    size_t n;
    uint64_t bytes, requests;
};

bool gguflint_url_supported(void)
{
    return true;
}

static char *dup_or_null(const char *s)
{
    return s && *s ? gl_strdup(s) : NULL;
}

gguflint_fetch_options *gguflint_fetch_options_new(void)
{
    gguflint_fetch_options *fo = gl_calloc(1, sizeof *fo);
    if (!fo)
        return NULL;
    net_options_default(&fo->net);
    const char *ep = getenv("HF_ENDPOINT");
    fo->endpoint = gl_strdup(ep && *ep ? ep : hf_default_endpoint);
    const char *tok = getenv("HF_TOKEN");
    fo->token = dup_or_null(tok);
    if (!fo->endpoint || (tok && *tok && !fo->token)) {
        gguflint_fetch_options_free(fo);
        return NULL;
    }
    return fo;
}

void gguflint_fetch_options_free(gguflint_fetch_options *fo)
{
    if (!fo)
        return;
    for (size_t i = 0; i < fo->n_headers; i++)
        gl_free(fo->headers[i]);
    gl_free(fo->endpoint);
    gl_free(fo->token);
    gl_free(fo);
}

/* Each setting: where it lives in net_options, whether it is 32 bits wide,
 * and the values it accepts (lo to hi). */
#define FIELD(f) offsetof(net_options, f), sizeof(((net_options *)0)->f) == 4
static const struct {
    size_t off;
    bool u32;
    uint64_t lo, hi;
} fetch_fields[] = {
    [GGUFLINT_FETCH_FIRST_RANGE] = {FIELD(first_range), URL_MIN_FIRST_READ, (uint64_t)1 << 30},
    [GGUFLINT_FETCH_MAX_BYTES] = {FIELD(max_fetch), URL_MIN_FIRST_READ, SIZE_MAX / 2},
    [GGUFLINT_FETCH_RETRIES] = {FIELD(retries), 0, 20},
    [GGUFLINT_FETCH_BACKOFF_MS] = {FIELD(backoff_ms), 0, 600000},
    [GGUFLINT_FETCH_CONNECT_TIMEOUT_MS] = {FIELD(connect_timeout_ms), 1, UINT32_MAX},
    [GGUFLINT_FETCH_TIMEOUT_MS] = {FIELD(stall_timeout_ms), 1, UINT32_MAX},
    [GGUFLINT_FETCH_MAX_REDIRECTS] = {FIELD(max_redirects), 0, 50},
    [GGUFLINT_FETCH_DEADLINE_MS] = {FIELD(deadline_ms), 0, UINT32_MAX},
    [GGUFLINT_FETCH_FILE_DEADLINE_MS] = {FIELD(file_deadline_ms), 0, UINT32_MAX},
};
#undef FIELD
_Static_assert(sizeof fetch_fields / sizeof fetch_fields[0] == GGUFLINT_FETCH_FILE_DEADLINE_MS + 1,
               "a row for every gguflint_fetch_setting");

int gguflint_fetch_set(gguflint_fetch_options *fo, gguflint_fetch_setting what, uint64_t v)
{
    if (!fo || (unsigned)what >= sizeof fetch_fields / sizeof fetch_fields[0] ||
        v < fetch_fields[what].lo || v > fetch_fields[what].hi)
        return GGUFLINT_E_ARG;
    char *field = (char *)&fo->net + fetch_fields[what].off;
    if (fetch_fields[what].u32) {
        uint32_t w = (uint32_t)v;
        memcpy(field, &w, sizeof w);
    } else {
        memcpy(field, &v, sizeof v);
    }
    return GGUFLINT_OK;
}

/* "Name: value": a token name, then printable ASCII (tabs allowed), so a
 * header can never end early or smuggle a second one. */
static bool valid_header(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > MAX_HEADER_LEN)
        return false;
    size_t i = 0;
    for (; i < n && s[i] != ':'; i++)
        if (!strchr("!#$%&'*+-.^_`|~", s[i]) && !(s[i] >= '0' && s[i] <= '9') &&
            !(s[i] >= 'a' && s[i] <= 'z') && !(s[i] >= 'A' && s[i] <= 'Z'))
            return false;
    if (i == 0 || i == n)
        return false;
    for (; i < n; i++)
        if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || (unsigned char)s[i] > 0x7E)
            return false;
    return true;
}

static bool valid_token(const char *t)
{
    for (; *t; t++)
        if ((unsigned char)*t <= 0x20 || (unsigned char)*t > 0x7E)
            return false;
    return true;
}

int gguflint_fetch_add_header(gguflint_fetch_options *fo, const char *line)
{
    if (!fo || !line || !valid_header(line) || fo->n_headers == MAX_HEADERS)
        return GGUFLINT_E_ARG;
    char *copy = gl_strdup(line);
    if (!copy)
        return GGUFLINT_E_NOMEM;
    fo->headers[fo->n_headers++] = copy;
    return GGUFLINT_OK;
}

int gguflint_fetch_set_cancel(gguflint_fetch_options *fo, const volatile int *flag)
{
    if (!fo)
        return GGUFLINT_E_ARG;
    fo->net.cancel = flag;
    return GGUFLINT_OK;
}

int gguflint_fetch_set_hub(gguflint_fetch_options *fo, const char *endpoint, const char *token)
{
    if (!fo)
        return GGUFLINT_E_ARG;
    if (endpoint && strncasecmp(endpoint, "http://", 7) != 0 &&
        strncasecmp(endpoint, "https://", 8) != 0)
        return GGUFLINT_E_ARG;
    if (token && *token && !valid_token(token))
        return GGUFLINT_E_ARG;
    if (endpoint) {
        char *e = gl_strdup(endpoint);
        if (!e)
            return GGUFLINT_E_NOMEM;
        gl_free(fo->endpoint);
        fo->endpoint = e;
    }
    if (token) {
        char *t = dup_or_null(token);
        if (*token && !t)
            return GGUFLINT_E_NOMEM;
        gl_free(fo->token);
        fo->token = t;
    }
    return GGUFLINT_OK;
}

/* The header lines for requests to `origin_url`: the extra headers, and the
 * Hub token when that is the Hub's origin. `auth` holds the token's line. */
static size_t origin_lines(const gguflint_fetch_options *fo, const char *origin_url,
                           const char **lines, char **auth, char *err, size_t errn)
{
    size_t n = 0;
    *auth = NULL;
    for (size_t i = 0; i < fo->n_headers; i++)
        lines[n++] = fo->headers[i];
    if (fo->token && net_same_origin(origin_url, fo->endpoint)) {
        if (!valid_token(fo->token)) {
            snprintf(err, errn, "HF_TOKEN holds a character that cannot be sent in a header");
            return (size_t)-1;
        }
        size_t len = strlen(fo->token) + 32;
        *auth = gl_malloc(len);
        if (!*auth) {
            snprintf(err, errn, "out of memory");
            return (size_t)-1;
        }
        snprintf(*auth, len, "Authorization: Bearer %s", fo->token);
        lines[n++] = *auth;
    }
    return n;
}

static void url_source_free(struct url_source *u)
{
    if (!u)
        return;
    net_close(u->file);
    net_curl_free(u->curl);
    gl_free(u->url);
    gl_free(u);
}

static int url_read_at(void *user, uint64_t off, void *buf, size_t len, char *err, size_t errn)
{
    struct url_source *u = user;
    net_status st = net_read_at(u->file, off, buf, len, err, errn);
    return st == NET_OK ? GGUFLINT_OK : st == NET_E_NOMEM ? GGUFLINT_E_NOMEM : GGUFLINT_E_IO;
}

static int fail(gguflint_ctx *ctx, int st, const char *detail)
{
    snprintf(ctx->error_detail, sizeof ctx->error_detail, "%s", detail);
    ctx->status = st;
    return st;
}

/* The URL to fetch for a kind-1 name: hf:// resolved against the endpoint. */
static char *resolve(const gguflint_fetch_options *fo, const char *url, char *err, size_t errn)
{
    if (strncmp(url, "hf://", 5) != 0) {
        char *u = gl_strdup(url);
        if (!u)
            snprintf(err, errn, "out of memory");
        return u;
    }
    hf_ref r;
    if (!hf_parse(url, &r, err, errn))
        return NULL;
    char *u = r.is_file ? hf_file_url(fo->endpoint, &r, r.path) : NULL;
    if (!r.is_file)
        snprintf(err, errn, "an hf:// repository or folder names several files: list it first");
    else if (!u)
        snprintf(err, errn, "out of memory");
    hf_ref_free(&r);
    return u;
}

int gguflint_open_url(gguflint_ctx *ctx, const char *url, const gguflint_fetch_options *fo)
{
    int st = ctx ? source_ready(ctx) : GGUFLINT_E_ARG;
    if (st != GGUFLINT_OK)
        return st;
    if (!url)
        return fail(ctx, GGUFLINT_E_ARG, "no URL");
    gguflint_fetch_options *own = NULL;
    if (!fo && !(fo = own = gguflint_fetch_options_new()))
        return fail(ctx, GGUFLINT_E_NOMEM, "out of memory");
    char err[256] = "";
    struct url_source *u = gl_calloc(1, sizeof *u);
    if (!u) {
        gguflint_fetch_options_free(own);
        return fail(ctx, GGUFLINT_E_NOMEM, "out of memory");
    }
    ctx->url = u; /* released by gguflint_free whatever happens next */
    ctx->url_free = url_source_free;
    if (gguflint_url_kind(url) != 1) {
        gguflint_fetch_options_free(own);
        return fail(ctx, GGUFLINT_E_ARG,
                    "not the URL of one file (http://, https:// or hf://...gguf)");
    }
    u->url = resolve(fo, url, err, sizeof err);
    if (!u->url) {
        gguflint_fetch_options_free(own);
        return fail(ctx, GGUFLINT_E_ARG, err);
    }
    const char *lines[MAX_HEADERS + 1];
    char *auth = NULL;
    size_t n = origin_lines(fo, u->url, lines, &auth, err, sizeof err);
    if (n == (size_t)-1) {
        gguflint_fetch_options_free(own);
        return fail(ctx, GGUFLINT_E_ARG, err);
    }
    net_options o = fo->net;
    o.origin_headers = lines;
    o.n_origin_headers = n;
    o.origin_url = u->url;
    u->curl = net_curl_new(err, sizeof err);
    net_status ns =
        u->curl ? net_open(u->url, &o, net_curl_transport(u->curl), &u->file, err, sizeof err)
                : NET_E_IO;
    gl_free(auth);
    uint64_t first = fo->net.first_range, cap = fo->net.max_fetch;
    gguflint_fetch_options_free(own);
    if (ns != NET_OK)
        return fail(ctx,
                    ns == NET_E_NOMEM ? GGUFLINT_E_NOMEM
                    : ns == NET_E_ARG ? GGUFLINT_E_ARG
                                      : GGUFLINT_E_IO,
                    err[0] ? err : "the request failed");
    if (!ctx->name) {
        /* the name checks read: the URL as given, without query or fragment */
        size_t len = strcspn(url, "?#");
        char *name = gl_strndup(url, len);
        if (!name || gguflint_set_name(ctx, name) != GGUFLINT_OK) {
            gl_free(name);
            return fail(ctx, GGUFLINT_E_NOMEM, "out of memory");
        }
        gl_free(name);
    }
    gguflint_reader r = GGUFLINT_READER_INIT;
    r.size = net_size(u->file);
    r.read_at = url_read_at;
    r.user = u;
    r.first_read = first;
    r.max_prefix = cap;
    return gguflint_open_reader(ctx, &r);
}

bool gguflint_fetch_stats(const gguflint_ctx *ctx, const char **url, uint64_t *bytes,
                          uint64_t *requests)
{
    if (!ctx || !ctx->url || !ctx->url->file)
        return false;
    uint64_t b, r;
    net_stats(ctx->url->file, &b, &r);
    if (url)
        *url = ctx->url->url;
    if (bytes)
        *bytes = b;
    if (requests)
        *requests = r;
    return true;
}

bool gguflint_fetch_ranges(const gguflint_ctx *ctx)
{
    return !ctx || !ctx->url || !ctx->url->file || net_ranges(ctx->url->file);
}

/* ---- listing ---- */

static bool list_add(gguflint_url_list *l, char *url, uint64_t size, size_t *cap)
{
    if (!url)
        return false;
    if (l->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        char **nu = gl_realloc(l->urls, nc * sizeof *nu);
        if (!nu) {
            gl_free(url);
            return false;
        }
        l->urls = nu;
        uint64_t *ns = gl_realloc(l->sizes, nc * sizeof *ns);
        if (!ns) {
            gl_free(url);
            return false;
        }
        l->sizes = ns;
        *cap = nc;
    }
    l->urls[l->n] = url;
    l->sizes[l->n] = size;
    l->n++;
    return true;
}

int gguflint_url_list_new(const char *ref, const gguflint_fetch_options *fo,
                          gguflint_url_list **out, char *err, size_t errn)
{
    if (!out)
        return GGUFLINT_E_ARG;
    *out = NULL;
    int kind = ref ? gguflint_url_kind(ref) : 0;
    if (kind == 0) {
        snprintf(err, errn, "not a URL");
        return GGUFLINT_E_ARG;
    }
    gguflint_url_list *l = gl_calloc(1, sizeof *l);
    if (!l)
        return GGUFLINT_E_NOMEM;
    size_t cap = 0;
    if (kind == 1) {
        if (!list_add(l, gl_strdup(ref), 0, &cap)) {
            gguflint_url_list_free(l);
            return GGUFLINT_E_NOMEM;
        }
        *out = l;
        return GGUFLINT_OK;
    }
    gguflint_fetch_options *own = NULL;
    if (!fo && !(fo = own = gguflint_fetch_options_new())) {
        gguflint_url_list_free(l);
        return GGUFLINT_E_NOMEM;
    }
    int st = GGUFLINT_OK;
    hf_ref r;
    struct net_curl *curl = NULL;
    char *auth = NULL;
    bool parsed = hf_parse(ref, &r, err, errn);
    if (!parsed) {
        st = GGUFLINT_E_ARG;
    } else {
        const char *lines[MAX_HEADERS + 1];
        size_t n = origin_lines(fo, fo->endpoint, lines, &auth, err, errn);
        curl = n == (size_t)-1 ? NULL : net_curl_new(err, errn);
        if (n == (size_t)-1) {
            st = GGUFLINT_E_ARG;
        } else if (!curl) {
            st = GGUFLINT_E_IO;
        } else {
            net_options o = fo->net;
            o.origin_headers = lines;
            o.n_origin_headers = n;
            hf_list hl;
            net_status ns = hf_list_repo(fo->endpoint, &r, &o, net_curl_transport(curl), &hl,
                                         &l->bytes, &l->requests, err, errn);
            if (ns != NET_OK) {
                st = ns == NET_E_NOMEM ? GGUFLINT_E_NOMEM : GGUFLINT_E_IO;
            } else {
                for (size_t i = 0; i < hl.n && st == GGUFLINT_OK; i++)
                    if (!list_add(l, hf_display(&r, hl.v[i].path), hl.v[i].size, &cap))
                        st = GGUFLINT_E_NOMEM;
                hf_list_free(&hl);
            }
        }
        hf_ref_free(&r);
    }
    gl_free(auth);
    net_curl_free(curl);
    gguflint_fetch_options_free(own);
    if (st != GGUFLINT_OK) {
        gguflint_url_list_free(l);
        return st;
    }
    *out = l;
    return GGUFLINT_OK;
}

size_t gguflint_url_list_count(const gguflint_url_list *l)
{
    return l ? l->n : 0;
}

const char *gguflint_url_list_get(const gguflint_url_list *l, size_t i)
{
    return l && i < l->n ? l->urls[i] : NULL;
}

uint64_t gguflint_url_list_size(const gguflint_url_list *l, size_t i)
{
    return l && i < l->n ? l->sizes[i] : 0;
}

void gguflint_url_list_stats(const gguflint_url_list *l, uint64_t *bytes, uint64_t *requests)
{
    if (bytes)
        *bytes = l ? l->bytes : 0;
    if (requests)
        *requests = l ? l->requests : 0;
}

void gguflint_url_list_free(gguflint_url_list *l)
{
    if (!l)
        return;
    gl_free_strings(l->urls, l->n);
    gl_free(l->sizes);
    gl_free(l);
}
