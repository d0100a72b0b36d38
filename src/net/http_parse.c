/* http_parse.c - reading an HTTP response's status line and the few headers
 * the range reader acts on (Content-Range, Content-Length, Content-Encoding,
 * ETag, Last-Modified, Location, Link rel="next", Retry-After). Every value
 * comes from a server we do not trust: numbers are decimal without sign or
 * overflow, ranges must be ordered and inside their total, and a value the
 * reader would send back (an ETag or a date in If-Range) must be printable
 * ASCII so it can never inject a header. A header that fails these tests marks
 * the response bad, and the fetch layer refuses it with the reason. */
#include "http.h"

#include <string.h>

void net_response_init(net_response *r)
{
    memset(r, 0, sizeof *r);
    r->retry_after_s = -1;
}

static void mark_bad(net_response *r, const char *why)
{
    if (!r->bad) {
        r->bad = true;
        r->bad_why = why;
    }
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool net_parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        if (__builtin_mul_overflow(v, 10u, &v) ||
            __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
            return false;
    }
    *out = v;
    return true;
}

/* Position of the first `c` in s[0, n), or n. */
static size_t find(const char *s, size_t n, char c)
{
    const char *p = memchr(s, c, n);
    return p ? (size_t)(p - s) : n;
}

bool net_parse_content_range(const char *v, size_t n, net_range *r)
{
    memset(r, 0, sizeof *r);
    if (n < 6 || memcmp(v, "bytes ", 6) != 0)
        return false;
    v += 6;
    n -= 6;
    size_t slash = find(v, n, '/');
    if (slash == n)
        return false;
    const char *tot = v + slash + 1;
    size_t tn = n - slash - 1;
    if (slash == 1 && v[0] == '*') {
        uint64_t total;
        if (!net_parse_u64(tot, tn, &total))
            return false;
        r->unsatisfied = true;
        r->total_known = true;
        r->total = total;
        return true;
    }
    size_t dash = find(v, slash, '-');
    uint64_t first, last;
    if (dash == slash || !net_parse_u64(v, dash, &first) ||
        !net_parse_u64(v + dash + 1, slash - dash - 1, &last) || first > last)
        return false;
    r->first = first;
    r->last = last;
    if (!(tn == 1 && tot[0] == '*')) {
        uint64_t total;
        if (!net_parse_u64(tot, tn, &total) || last >= total)
            return false;
        r->total_known = true;
        r->total = total;
    }
    return true;
}

static bool name_is(const char *name, size_t n, const char *want)
{
    size_t wn = strlen(want);
    if (n != wn)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != want[i])
            return false;
    }
    return true;
}

/* Printable ASCII (space allowed), the only bytes we ever echo in a request. */
static bool printable(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7E)
            return false;
    return true;
}

static bool copy_field(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap || !printable(v, n))
        return false;
    memcpy(dst, v, n);
    dst[n] = '\0';
    return true;
}

static void trim(const char **v, size_t *n)
{
    while (*n && (**v == ' ' || **v == '\t')) {
        (*v)++;
        (*n)--;
    }
    while (*n && ((*v)[*n - 1] == ' ' || (*v)[*n - 1] == '\t'))
        (*n)--;
}

/* Does this link-param list (after the <URI>) hold rel="next" (or a rel
 * list containing next)? Parameters are separated by ';'. */
static bool rel_is_next(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t semi = i + find(p + i, n - i, ';');
        const char *prm = p + i;
        size_t pn = semi - i;
        trim(&prm, &pn);
        size_t eq = find(prm, pn, '=');
        if (eq < pn) {
            const char *k = prm, *v = prm + eq + 1;
            size_t kn = eq, vn = pn - eq - 1;
            trim(&k, &kn);
            trim(&v, &vn);
            if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
                v++;
                vn -= 2;
            }
            if (name_is(k, kn, "rel")) {
                /* a space-separated list of relation types */
                size_t j = 0;
                while (j < vn) {
                    size_t sp = j + find(v + j, vn - j, ' ');
                    if (name_is(v + j, sp - j, "next"))
                        return true;
                    j = sp + 1;
                }
            }
        }
        i = semi + 1;
    }
    return false;
}

/* Link: <url>; rel="next", <url>; rel="last". A URI holds no '>' and no ','
 * inside angle brackets is taken as a separator, so scan bracket by bracket. */
static void parse_link(net_response *r, const char *v, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t lt = i + find(v + i, n - i, '<');
        if (lt >= n)
            return;
        size_t gt = lt + 1 + find(v + lt + 1, n - lt - 1, '>');
        if (gt >= n)
            return;
        size_t end = gt + 1 + find(v + gt + 1, n - gt - 1, ',');
        if (rel_is_next(v + gt + 1, end - gt - 1)) {
            if (r->has_next_link)
                mark_bad(r, "two Link rel=\"next\" targets");
            else if (!copy_field(r->next_link, sizeof r->next_link, v + lt + 1, gt - lt - 1))
                mark_bad(r, "a Link target that is too long or not printable ASCII");
            else
                r->has_next_link = true;
        }
        i = end + 1;
    }
}

static void header(net_response *r, const char *name, size_t nn, const char *v, size_t vn)
{
    if (name_is(name, nn, "content-range")) {
        if (r->has_content_range)
            mark_bad(r, "two Content-Range headers");
        else if (!net_parse_content_range(v, vn, &r->cr))
            mark_bad(r, "a malformed Content-Range");
        else
            r->has_content_range = true;
    } else if (name_is(name, nn, "content-length")) {
        uint64_t cl;
        if (!net_parse_u64(v, vn, &cl))
            mark_bad(r, "a malformed Content-Length");
        else if (r->has_content_length && cl != r->content_length)
            mark_bad(r, "two different Content-Length headers");
        else {
            r->has_content_length = true;
            r->content_length = cl;
        }
    } else if (name_is(name, nn, "content-encoding")) {
        if (!name_is(v, vn, "identity"))
            r->encoded = true;
    } else if (name_is(name, nn, "etag")) {
        bool weak = vn >= 2 && v[0] == 'W' && v[1] == '/';
        if (r->has_etag)
            mark_bad(r, "two ETag headers");
        else if (vn == 0 || !copy_field(r->etag, sizeof r->etag, v, vn))
            mark_bad(r, "an ETag that is empty, too long or not printable ASCII");
        else {
            r->has_etag = true;
            r->weak_etag = weak;
        }
    } else if (name_is(name, nn, "last-modified")) {
        if (!copy_field(r->last_modified, sizeof r->last_modified, v, vn))
            r->last_modified[0] = '\0'; /* unusable as a validator, not an error */
    } else if (name_is(name, nn, "location")) {
        if (r->has_location)
            mark_bad(r, "two Location headers");
        else if (vn == 0 || !copy_field(r->location, sizeof r->location, v, vn))
            mark_bad(r, "a Location that is empty, too long or not printable ASCII");
        else
            r->has_location = true;
    } else if (name_is(name, nn, "link")) {
        parse_link(r, v, vn);
    } else if (name_is(name, nn, "retry-after")) {
        uint64_t s;
        if (net_parse_u64(v, vn, &s))
            r->retry_after_s = s > 86400 ? 86400 : (long)s;
    }
}

void net_response_line(net_response *r, const char *line, size_t len)
{
    /* after the final response's headers, lines are a chunked body's
     * trailers: ignored (a trailer must not reset the status or replace
     * Content-Range) */
    if (r->headers_done && r->status >= 200)
        return;
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len >= 5 && memcmp(line, "HTTP/", 5) == 0) {
        /* HTTP/1.1 206 Partial Content, HTTP/2 200 */
        net_response_init(r);
        size_t sp = find(line, len, ' ');
        if (sp + 4 > len || !is_digit(line[sp + 1]) || !is_digit(line[sp + 2]) ||
            !is_digit(line[sp + 3]) || (sp + 4 < len && line[sp + 4] != ' ')) {
            r->status = 0;
            mark_bad(r, "a malformed status line");
            return;
        }
        r->status = (line[sp + 1] - '0') * 100 + (line[sp + 2] - '0') * 10 + (line[sp + 3] - '0');
        if (r->status < 100)
            mark_bad(r, "a status code below 100");
        return;
    }
    if (len == 0) {
        r->headers_done = true;
        return;
    }
    if (r->status == 0 || line[0] == ' ' || line[0] == '\t')
        return; /* before a status line, or an obsolete folded line: ignored */
    size_t colon = find(line, len, ':');
    if (colon == len || colon == 0)
        return;
    const char *v = line + colon + 1;
    size_t vn = len - colon - 1;
    trim(&v, &vn);
    header(r, line, colon, v, vn);
}
