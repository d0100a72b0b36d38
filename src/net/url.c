/* url.c - the URL questions of the range reader, answered by libcurl's URL
 * API rather than by a parser of our own: resolving a redirect's Location
 * against the URL that sent it, keeping to http and https, and telling whether
 * two URLs share an origin (scheme, host and port), which decides where
 * credentials may go. */
#include "curl_dl.h"
#include "common/alloc.h"
#include "http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void say(char *err, size_t n, const char *what)
{
    if (err && n)
        snprintf(err, n, "%s", what);
}

/* Scheme of a parsed URL is http or https. */
static bool web_scheme(const curl_api *c, CURLU *u)
{
    char *scheme = NULL;
    bool ok = c->url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK && scheme &&
              (strcasecmp(scheme, "http") == 0 || strcasecmp(scheme, "https") == 0);
    c->free(scheme);
    return ok;
}

char *net_url_resolve(const char *base, const char *ref, char *err, size_t err_size)
{
    const curl_api *c = curl_dl(err, err_size);
    if (!c)
        return NULL;
    CURLU *u = c->url();
    if (!u) {
        say(err, err_size, "out of memory");
        return NULL;
    }
    char *out = NULL;
    /* the base must itself be absolute; the reference may be relative */
    if (c->url_set(u, CURLUPART_URL, base, 0) != CURLUE_OK ||
        c->url_set(u, CURLUPART_URL, ref, 0) != CURLUE_OK) {
        say(err, err_size, "not a valid URL");
    } else if (!web_scheme(c, u)) {
        say(err, err_size, "not an http:// or https:// URL");
    } else {
        char *s = NULL;
        if (c->url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && s) {
            out = gl_strdup(s);
            if (!out)
                say(err, err_size, "out of memory");
        } else {
            say(err, err_size, "not a valid URL");
        }
        c->free(s);
    }
    c->url_cleanup(u);
    return out;
}

/* "scheme://host:port" of an absolute URL into buf (lower-cased scheme and
 * host, default port filled in); false when it does not parse. */
static bool origin_of(const char *url, char *buf, size_t cap)
{
    const curl_api *c = curl_dl(NULL, 0);
    CURLU *u = c ? c->url() : NULL;
    if (!u)
        return false;
    char *scheme = NULL, *host = NULL, *port = NULL;
    bool ok = c->url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
              c->url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
              c->url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
              c->url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
    if (ok) {
        int n = snprintf(buf, cap, "%s://%s:%s", scheme, host, port);
        ok = n > 0 && (size_t)n < cap;
        for (char *p = buf; ok && *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
    }
    c->free(scheme);
    c->free(host);
    c->free(port);
    c->url_cleanup(u);
    return ok;
}

bool net_same_origin(const char *a, const char *b)
{
    char oa[512], ob[512];
    return a && b && origin_of(a, oa, sizeof oa) && origin_of(b, ob, sizeof ob) &&
           strcmp(oa, ob) == 0;
}

bool net_is_https(const char *url)
{
    return url && strncasecmp(url, "https://", 8) == 0;
}
