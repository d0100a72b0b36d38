/* hf.c - Hugging Face Hub references: hf://ORG/REPO[@REV][/PATH].
 *
 * A PATH ending in .gguf names one file, fetched from
 * ENDPOINT/ORG/REPO/resolve/REV/PATH. Without a PATH (or with a folder) the
 * reference names the repository's .gguf files, listed through
 * ENDPOINT/api/models/ORG/REPO/tree/REV[/PATH]?recursive=true, page by page
 * (Link rel="next", same origin only), parsed with libjansson, at the commit
 * ENDPOINT/api/models/ORG/REPO/revision/REV names (its "sha"), so the files
 * listed - the shards of a set - are all of one commit even if a branch moves
 * while they are read. Names are
 * checked against the Hub's character sets, and every path that comes back
 * from the API is checked again before it becomes part of a URL: no empty,
 * "." or ".." segment, no control byte; everything outside the unreserved
 * set is percent-encoded. Listings are bounded in pages, entries and bytes. */
#define _POSIX_C_SOURCE 200809L
#include "common/alloc.h"
#include "hf.h"

#include "common/sbuf.h"
#include "core/limits.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    HF_MAX_PAGES = URL_API_MAX_PAGES,
    HF_MAX_FILES = URL_API_MAX_FILES,
    HF_PAGE_MAX = URL_API_PAGE_BYTES,
    HF_PATH_MAX = URL_API_MAX_PATH
};

const char hf_default_endpoint[] = "https://huggingface.co";

static void say(char *err, size_t n, const char *msg)
{
    if (err && n)
        snprintf(err, n, "%s", msg);
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

static bool hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* An organisation or repository name: the Hub's [A-Za-z0-9._-], at most 96
 * bytes, not "." or "..", no "--" tricks needed beyond that. */
static bool valid_name(const char *s, size_t n)
{
    if (n == 0 || n > HF_NAME_MAX)
        return false;
    if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char(s[i]))
            return false;
    return true;
}

/* A revision: a branch, tag or commit; '/' inside it written as %2F. */
static bool valid_rev(const char *s, size_t n)
{
    if (n == 0 || n > HF_REV_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            if (i + 2 >= n || !hex(s[i + 1]) || !hex(s[i + 2]))
                return false;
            i += 2;
        } else if (!name_char(s[i]) && s[i] != '~') {
            return false;
        }
    }
    return true;
}

bool hf_valid_path(const char *p, size_t n)
{
    if (n == 0 || n > HF_PATH_MAX || p[0] == '/')
        return false;
    size_t seg = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || p[i] == '/') {
            size_t len = i - seg;
            if (len == 0 || (len == 1 && p[seg] == '.') ||
                (len == 2 && p[seg] == '.' && p[seg + 1] == '.'))
                return false;
            seg = i + 1;
            continue;
        }
        unsigned char c = (unsigned char)p[i];
        if (c < 0x20 || c == 0x7F || c == '\\')
            return false;
    }
    return true;
}

static bool ends_gguf(const char *p, size_t n)
{
    return n >= 5 && strncasecmp(p + n - 5, ".gguf", 5) == 0;
}

bool hf_parse(const char *s, hf_ref *r, char *err, size_t errn)
{
    memset(r, 0, sizeof *r);
    if (!s || strncmp(s, "hf://", 5) != 0) {
        say(err, errn, "not an hf:// reference");
        return false;
    }
    const char *p = s + 5;
    size_t on = strcspn(p, "/"), rn = p[on] == '/' ? strcspn(p + on + 1, "@/") : 0;
    if (p[on] != '/' || !valid_name(p, on) || !valid_name(p + on + 1, rn)) {
        say(err, errn,
            "expected hf://ORG/REPO[@REV][/PATH] with ORG and REPO made of "
            "letters, digits, '-', '_' and '.'");
        return false;
    }
    memcpy(r->org, p, on);
    memcpy(r->repo, p + on + 1, rn);
    p += on + 1 + rn;
    if (*p == '@') {
        p++;
        size_t vn = strcspn(p, "/");
        if (!valid_rev(p, vn)) {
            say(err, errn,
                "a revision after '@' is a branch, tag or commit ('/' written as "
                "%2F)");
            return false;
        }
        memcpy(r->rev, p, vn);
        p += vn;
    } else {
        memcpy(r->rev, "main", 5);
    }
    if (*p == '/')
        p++;
    size_t pn = strlen(p);
    while (pn > 0 && p[pn - 1] == '/')
        pn--; /* "hf://org/repo/" and "hf://org/repo/folder/" name folders */
    if (pn > 0) {
        if (!hf_valid_path(p, pn)) {
            say(err, errn,
                "the path inside the repository has an empty, '.' or '..' part, "
                "or a control character");
            return false;
        }
        r->path = gl_strndup(p, pn);
        if (!r->path) {
            say(err, errn, "out of memory");
            return false;
        }
    }
    r->is_file = pn > 0 && ends_gguf(p, pn);
    return true;
}

void hf_ref_free(hf_ref *r)
{
    gl_free(r->path);
    r->path = NULL;
}

/* Append s[0, n), percent-encoding what is not unreserved (keeping '/' when
 * keep_slash). */
static void put_encoded(sbuf *b, const char *s, size_t n, bool keep_slash)
{
    static const char hx[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (name_char(c) || c == '~' || (keep_slash && c == '/')) {
            sb_put(b, &c, 1);
        } else {
            unsigned char u = (unsigned char)c;
            char e[3] = {'%', hx[u >> 4], hx[u & 15]};
            sb_put(b, e, 3);
        }
    }
}

/* The string built, or NULL (and nothing to free) when memory ran out. */
static char *finish(sbuf *b)
{
    if (b->failed) {
        sb_free(b);
        return NULL;
    }
    return b->data;
}

/* ENDPOINT PREFIX org/repo SEP rev: the endpoint (when given) without its
 * trailing slashes; the revision is already checked (unreserved and %XX
 * only). */
static void put_repo(sbuf *b, const char *endpoint, const char *prefix, const hf_ref *r,
                     const char *sep)
{
    if (endpoint) {
        size_t n = strlen(endpoint);
        while (n > 0 && endpoint[n - 1] == '/')
            n--;
        sb_put(b, endpoint, n);
    }
    sb_puts(b, prefix);
    sb_puts(b, r->org);
    sb_puts(b, "/");
    sb_puts(b, r->repo);
    sb_puts(b, sep);
    sb_puts(b, r->rev);
}

char *hf_file_url(const char *endpoint, const hf_ref *r, const char *path)
{
    sbuf b = {0};
    put_repo(&b, endpoint, "/", r, "/resolve/");
    sb_puts(&b, "/");
    put_encoded(&b, path, strlen(path), true);
    return finish(&b);
}

char *hf_display(const hf_ref *r, const char *path)
{
    sbuf b = {0};
    put_repo(&b, NULL, "hf://", r, "@");
    sb_puts(&b, "/");
    sb_puts(&b, path);
    return finish(&b);
}

static char *revision_url(const char *endpoint, const hf_ref *r)
{
    sbuf b = {0};
    put_repo(&b, endpoint, "/api/models/", r, "/revision/");
    return finish(&b);
}

static bool is_commit(const char *s, size_t n)
{
    if (n != 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* Replace r->rev by the commit it names now (left as is when the answer
 * names none, or when the endpoint does not answer this call). */
static net_status pin_revision(const char *endpoint, hf_ref *r, const net_options *o,
                               const net_transport *t, uint64_t *bytes, uint64_t *requests,
                               char *err, size_t errn)
{
    char *url = revision_url(endpoint, r);
    if (!url)
        return NET_E_NOMEM;
    static const char *const accept[] = {"Accept: application/json", NULL};
    uint8_t *body = NULL;
    size_t len = 0;
    net_response *resp = gl_malloc(sizeof *resp);
    if (resp)
        net_response_init(resp);
    net_status st = resp ? net_get(url, o, t, accept, &body, &len, resp, bytes, requests, err, errn)
                         : NET_E_NOMEM;
    /* A Hub (or mirror) without this call: list the revision as given. A
     * repository or revision that does not exist fails the listing next. */
    bool unsupported = st == NET_E_IO && resp &&
                       (resp->status == 404 || resp->status == 405 || resp->status == 501);
    gl_free(resp);
    gl_free(url);
    if (unsupported) {
        if (err && errn)
            err[0] = '\0';
        return NET_OK;
    }
    if (st != NET_OK)
        return st;
    json_error_t je;
    json_t *root = json_loadb((const char *)body, len, 0, &je);
    gl_free(body);
    json_t *sha = json_object_get(root, "sha");
    if (json_is_string(sha) && is_commit(json_string_value(sha), json_string_length(sha)))
        memcpy(r->rev, json_string_value(sha), 41);
    json_decref(root);
    return NET_OK;
}

static char *tree_url(const char *endpoint, const hf_ref *r)
{
    sbuf b = {0};
    put_repo(&b, endpoint, "/api/models/", r, "/tree/");
    if (r->path) {
        sb_puts(&b, "/");
        put_encoded(&b, r->path, strlen(r->path), true);
    }
    sb_puts(&b, "?recursive=true");
    return finish(&b);
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const hf_entry *)a)->path, ((const hf_entry *)b)->path);
}

void hf_list_free(hf_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        gl_free(l->v[i].path);
    gl_free(l->v);
    memset(l, 0, sizeof *l);
}

/* Take the .gguf files of one page (a JSON array of tree entries). */
static net_status take_page(hf_list *l, const uint8_t *body, size_t len, char *err, size_t errn)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)body, len, 0, &je);
    if (!root || !json_is_array(root)) {
        json_decref(root);
        say(err, errn, "the Hub's tree listing is not a JSON array");
        return NET_E_IO;
    }
    net_status st = NET_OK;
    size_t i;
    json_t *e;
    json_array_foreach(root, i, e)
    {
        json_t *type = json_object_get(e, "type"), *path = json_object_get(e, "path"),
               *size = json_object_get(e, "size");
        if (!json_is_string(type) || strcmp(json_string_value(type), "file") != 0)
            continue;
        if (!json_is_string(path) || !json_is_integer(size) || json_integer_value(size) < 0) {
            say(err, errn, "the Hub's tree listing has a file entry without a path or size");
            st = NET_E_IO;
            break;
        }
        const char *p = json_string_value(path);
        size_t pn = json_string_length(path);
        if (!ends_gguf(p, pn))
            continue;
        if (pn != strlen(p) || !hf_valid_path(p, pn)) {
            say(err, errn,
                "the Hub's tree listing has a path with an empty, '.' or '..' "
                "part or a control character");
            st = NET_E_IO;
            break;
        }
        if (l->n == HF_MAX_FILES) {
            say(err, errn, "the repository lists more than 100000 .gguf files");
            st = NET_E_IO;
            break;
        }
        if (l->n == l->cap) {
            size_t nc = l->cap ? l->cap * 2 : 16;
            hf_entry *nv = gl_realloc(l->v, nc * sizeof *nv);
            if (!nv) {
                st = NET_E_NOMEM;
                break;
            }
            l->v = nv;
            l->cap = nc;
        }
        char *copy = gl_strndup(p, pn);
        if (!copy) {
            st = NET_E_NOMEM;
            break;
        }
        l->v[l->n++] = (hf_entry){copy, (uint64_t)json_integer_value(size)};
    }
    json_decref(root);
    return st;
}

net_status hf_list_repo(const char *endpoint, hf_ref *r, const net_options *o,
                        const net_transport *t, hf_list *out, uint64_t *bytes, uint64_t *requests,
                        char *err, size_t errn)
{
    memset(out, 0, sizeof *out);
    net_options po = *o;
    if (po.max_fetch > HF_PAGE_MAX)
        po.max_fetch = HF_PAGE_MAX;
    po.origin_url = endpoint;
    net_status st = pin_revision(endpoint, r, &po, t, bytes, requests, err, errn);
    if (st != NET_OK)
        return st;
    char *url = tree_url(endpoint, r);
    if (!url)
        return NET_E_NOMEM;
    static const char *const accept[] = {"Accept: application/json", NULL};
    for (unsigned page = 0; url; page++) {
        if (page == HF_MAX_PAGES) {
            say(err, errn, "the Hub's tree listing has more than 1000 pages");
            st = NET_E_IO;
            break;
        }
        uint8_t *body = NULL;
        size_t len = 0;
        net_response *resp = gl_malloc(sizeof *resp);
        if (!resp) {
            st = NET_E_NOMEM;
            break;
        }
        st = net_get(url, &po, t, accept, &body, &len, resp, bytes, requests, err, errn);
        if (st == NET_OK)
            st = take_page(out, body, len, err, errn);
        gl_free(body);
        char *next = NULL;
        if (st == NET_OK && resp->has_next_link) {
            char rerr[96];
            next = net_url_resolve(url, resp->next_link, rerr, sizeof rerr);
            if (!next || !net_same_origin(next, endpoint)) {
                say(err, errn,
                    "the Hub's next-page link points to another host or is not "
                    "a valid URL");
                st = NET_E_IO;
                gl_free(next);
                next = NULL;
            }
        }
        gl_free(resp);
        gl_free(url);
        url = next;
        if (st != NET_OK)
            break;
    }
    gl_free(url);
    if (st != NET_OK) {
        hf_list_free(out);
        return st;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, entry_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (kept > 0 && strcmp(out->v[kept - 1].path, out->v[i].path) == 0) {
            gl_free(out->v[i].path); /* a page boundary repeated an entry */
            continue;
        }
        out->v[kept++] = out->v[i];
    }
    out->n = kept;
    return NET_OK;
}
