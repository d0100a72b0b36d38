/* test_net.c - the HTTP layer of URL inputs without a network: response and
 * header parsing at their edges, and the range reader (fetch.c) driven by the
 * scripted transport, one test per behaviour of the fault matrix that can be
 * scripted exactly (ranges, the first response, servers ignoring Range,
 * redirects and where credentials go, retries, 416, a file that changes,
 * truncated and over-long bodies, compressed bodies, short ranges), plus
 * hf:// parsing and the repository listing with its pagination. The same
 * faults against real sockets are in test_remote.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#ifdef GGUFLINT_HAVE_URL
#include "net/hf.h"
#include "net/http.h"
#include "net/script.h"

/* ------------------------------------------------------------------ helpers */

typedef ex_buf buf;

static void resp(buf *b, const char *headers, const void *body, size_t body_len, uint8_t ctl)
{
    ex_buf_put(b, headers, strlen(headers));
    ex_buf_put(b, "\r\n\r\n", 4);
    ex_buf_put(b, body, body_len);
    uint8_t sep[5] = {'\n', '=', '=', ctl, '\n'};
    ex_buf_put(b, sep, sizeof sep);
}

/* A 206 for [first, last] of `file` (total `total`), with optional extra headers. */
static void part(buf *b, const uint8_t *file, uint64_t first, uint64_t last, uint64_t total,
                 const char *extra)
{
    char h[512];
    snprintf(h, sizeof h, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %llu-%llu/%llu%s%s",
             (unsigned long long)first, (unsigned long long)last, (unsigned long long)total,
             extra && *extra ? "\r\n" : "", extra ? extra : "");
    resp(b, h, file + first, (size_t)(last - first + 1), 0x18);
}

static uint8_t *pattern(size_t n)
{
    uint8_t *p = malloc(n);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 131u + (i >> 8));
    return p;
}

static net_options opts(void)
{
    net_options o;
    net_options_default(&o);
    o.first_range = 1000;
    o.max_fetch = 1u << 20;
    o.backoff_ms = 0;
    o.max_retry_after_s = 0;
    return o;
}

static bool sent(const net_script *s, size_t req, const char *line)
{
    return req < s->n_requests && strstr(s->requests[req].headers, line) != NULL;
}

/* ---------------------------------------------------------- parsing edges */

static void test_content_range(void **state)
{
    net_range r;
    static const char *good[] = {
        "bytes 0-0/1", "bytes 5-9/10", "bytes 0-99/*", "bytes */0",
        "bytes 18446744073709551613-18446744073709551614/18446744073709551615"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(net_parse_content_range(good[i], strlen(good[i]), &r));
    assert_true(net_parse_content_range("bytes 5-9/10", 12, &r));
    assert_int_equal(r.first, 5);
    assert_int_equal(r.last, 9);
    assert_true(r.total_known);
    assert_int_equal(r.total, 10);
    static const char *bad[] = {"bytes 9-5/10",
                                "bytes 0-10/10",
                                "bytes -1-5/10",
                                "bytes 0-5",
                                "bytes 0-5/",
                                "bytes 0-5/x",
                                "items 0-5/10",
                                "bytes 0-18446744073709551616/*",
                                "bytes +1-5/10",
                                "bytes 1 -5/10",
                                "bytes */*",
                                "bytes 0-5/10 ",
                                "",
                                "bytes ",
                                "bytes 1-1/1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(net_parse_content_range(bad[i], strlen(bad[i]), &r));
}

static void feed(net_response *r, const char *lines)
{
    const char *p = lines;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);
        net_response_line(r, p, n);
        p += n;
    }
}

static void test_headers(void **state)
{
    net_response r;
    net_response_init(&r);
    feed(&r,
         "HTTP/1.1 100 Continue\r\n\r\nHTTP/2 206\r\ncontent-RANGE: bytes 0-3/4\r\n"
         "ETag:  W/\"x\" \r\nLast-Modified: Tue, 01 Jan 2030 00:00:00 GMT\r\n"
         "Link: <https://h/a?cursor=1>; rel=\"prev\", <https://h/a?cursor=2>; rel=\"next last\"\r\n"
         "Retry-After: 7\r\n\r\n");
    assert_int_equal(r.status, 206);
    assert_false(r.bad);
    assert_true(r.has_content_range);
    assert_true(r.has_etag);
    assert_true(r.weak_etag);
    assert_string_equal(r.etag, "W/\"x\"");
    assert_string_equal(r.last_modified, "Tue, 01 Jan 2030 00:00:00 GMT");
    assert_true(r.has_next_link);
    assert_string_equal(r.next_link, "https://h/a?cursor=2");
    assert_int_equal(r.retry_after_s, 7);
    assert_true(r.headers_done);

    static const char *bad[] = {
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n",
        "HTTP/1.1 206 OK\r\nContent-Range: bytes 0-3/4\r\nContent-Range: bytes 0-3/4\r\n",
        "HTTP/1.1 200 OK\r\nETag: \"a\"\r\nETag: \"b\"\r\n",
        "HTTP/1.1 200 OK\r\nETag: \"a\x01\"\r\n",
        "HTTP/1.1 302 Found\r\nLocation: /a\r\nLocation: /b\r\n",
        "HTTP/1.1 302 Found\r\nLocation: \r\n",
        "HTTP/1.1 2x6 Partial\r\n",
        "HTTP/1.1 20\r\n",
        "HTTP/1.1 099 Low\r\n",
        "HTTP/1.1 200 OK\r\nLink: <a>; rel=next, <b>; rel=next\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        net_response_init(&r);
        feed(&r, bad[i]);
        assert_true(r.bad);
        assert_non_null(r.bad_why);
    }
    /* an identical repeated Content-Length is allowed; identity is not an encoding */
    net_response_init(&r);
    feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-length: 5\r\n"
             "Content-Encoding: identity\r\nRetry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n");
    assert_false(r.bad);
    assert_false(r.encoded);
    assert_int_equal(r.retry_after_s, -1);
    net_response_init(&r);
    feed(&r, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n");
    assert_true(r.encoded);
}

static void test_url_helpers(void **state)
{
    char err[128];
    char *u = net_url_resolve("http://127.0.0.1:8080/a/b.gguf", "../c.gguf", err, sizeof err);
    assert_non_null(u);
    assert_string_equal(u, "http://127.0.0.1:8080/c.gguf");
    free(u);
    u = net_url_resolve("http://127.0.0.1:8080/a/b.gguf", "//127.0.0.1:9/x", err, sizeof err);
    assert_non_null(u);
    assert_string_equal(u, "http://127.0.0.1:9/x");
    free(u);
    assert_null(net_url_resolve("http://127.0.0.1/a", "file:///etc/passwd", err, sizeof err));
    assert_null(net_url_resolve("http://127.0.0.1/a", "ftp://127.0.0.1/x", err, sizeof err));
    assert_null(net_url_resolve("http://127.0.0.1/a", "gopher://x/", err, sizeof err));
    assert_true(net_same_origin("http://127.0.0.1/a", "HTTP://127.0.0.1:80/b"));
    assert_true(net_same_origin("https://Example.org/a", "https://example.org:443/"));
    assert_false(net_same_origin("http://127.0.0.1:80/a", "http://127.0.0.1:81/a"));
    assert_false(net_same_origin("http://127.0.0.1/a", "https://127.0.0.1/a"));
    assert_false(net_same_origin("http://a.example/", "http://b.example/"));
}

/* ------------------------------------------------------------- the reader */

/* Serve the responses of `b` and open the test URL with the test options
 * (which must succeed). */
static net_file *open_scripted(const buf *b, net_script *s)
{
    net_script_init(s, b->p, b->len);
    net_options o = opts();
    net_file *f = NULL;
    char err[256] = "";
    assert_int_equal(net_open("http://127.0.0.1/m.gguf", &o, &s->t, &f, err, sizeof err), NET_OK);
    return f;
}

static void test_open_small_file(void **state)
{
    uint8_t *file = pattern(500);
    buf b = {0};
    part(&b, file, 0, 499, 500, "ETag: \"v1\"");
    net_script s;
    net_file *f = open_scripted(&b, &s);
    char err[256] = "";
    assert_int_equal(net_size(f), 500);
    assert_int_equal(net_cached(f), 500);
    assert_true(net_ranges(f));
    uint8_t got[500];
    assert_int_equal(net_read_at(f, 0, got, 500, err, sizeof err), NET_OK);
    assert_memory_equal(got, file, 500);
    uint64_t bytes, reqs;
    net_stats(f, &bytes, &reqs);
    assert_int_equal(reqs, 1);
    assert_int_equal(bytes, 500);
    assert_true(sent(&s, 0, "Range: bytes=0-999"));
    assert_false(sent(&s, 0, "If-Range"));
    /* past the end: refused without a request */
    assert_int_equal(net_read_at(f, 400, got, 101, err, sizeof err), NET_E_IO);
    assert_int_equal(s.performed, 1);
    net_close(f);
    free(b.p);
    free(file);
}

static void test_ranges_and_if_range(void **state)
{
    uint8_t *file = pattern(5000);
    buf b = {0};
    part(&b, file, 0, 999, 5000, "ETag: \"v1\"\r\nLast-Modified: Mon, 01 Jan 2024 00:00:00 GMT");
    part(&b, file, 1000, 2999, 5000, "ETag: \"v1\"");
    net_script s;
    net_file *f = open_scripted(&b, &s);
    char err[256] = "";
    assert_int_equal(net_size(f), 5000);
    assert_int_equal(net_cached(f), 1000);
    uint8_t got[3000];
    assert_int_equal(net_read_at(f, 0, got, 3000, err, sizeof err), NET_OK);
    assert_memory_equal(got, file, 3000);
    assert_true(sent(&s, 1, "Range: bytes=1000-2999"));
    assert_true(sent(&s, 1, "If-Range: \"v1\""));
    uint64_t bytes, reqs;
    net_stats(f, &bytes, &reqs);
    assert_int_equal(reqs, 2);
    assert_int_equal(bytes, 3000);
    net_close(f);
    free(b.p);
    free(file);
}

static void test_weak_etag_uses_date(void **state)
{
    uint8_t *file = pattern(3000);
    buf b = {0};
    part(&b, file, 0, 999, 3000, "ETag: W/\"v1\"\r\nLast-Modified: Mon, 01 Jan 2024 00:00:00 GMT");
    part(&b, file, 1000, 1999, 3000, "ETag: W/\"v1\"");
    net_script s;
    net_file *f = open_scripted(&b, &s);
    char err[256] = "";
    uint8_t got[1000];
    assert_int_equal(net_read_at(f, 1000, got, 1000, err, sizeof err), NET_OK);
    assert_true(sent(&s, 1, "If-Range: Mon, 01 Jan 2024 00:00:00 GMT"));
    net_close(f);
    free(b.p);
    free(file);
}

/* Open `script`, then read [off, off+len); returns the read's status and the error. */
static net_status open_read(const buf *b, uint64_t off, size_t len, char *err, size_t errn,
                            net_script *s)
{
    net_script_init(s, b->p, b->len);
    net_options o = opts();
    net_file *f;
    err[0] = '\0';
    net_status st = net_open("http://127.0.0.1/m.gguf", &o, &s->t, &f, err, errn);
    if (st != NET_OK)
        return st;
    uint8_t *out = malloc(len ? len : 1);
    st = net_read_at(f, off, out, len, err, errn);
    free(out);
    net_close(f);
    return st;
}

static void test_changed_between_requests(void **state)
{
    uint8_t *file = pattern(3000);
    char err[256];
    net_script s;
    /* the first 1000 bytes, then a second answer that shows a new file: a
     * whole response (headers, and that many bytes of the file as the body)
     * or the part [1000, last] of a file of `total` bytes */
    const struct {
        const char *what;
        const char *first_hdr; /* headers of the first part */
        const char *whole;     /* NULL: the second answer is a part */
        size_t whole_len;
        uint64_t last, total;
        const char *part_hdr;
        const char *want; /* in the error */
    } cases[] = {
        {"If-Range failed: the server sends the whole new file", "ETag: \"v1\"",
         "HTTP/1.1 200 OK\r\nETag: \"v2\"\r\nContent-Length: 3000", 3000, 0, 0, NULL,
         "changed between requests"},
        {"a server that ignores If-Range but shows the new ETag", "ETag: \"v1\"", NULL, 0, 1499,
         3000, "ETag: \"v2\"", "changed between requests"},
        {"no validator at all: the total size changed", NULL, NULL, 0, 1499, 2999, NULL,
         "changed between requests"},
        {"shrunk: 416", NULL, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */900", 0,
         0, 0, NULL, "416"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        buf b = {0};
        part(&b, file, 0, 999, 3000, cases[i].first_hdr);
        if (cases[i].whole)
            resp(&b, cases[i].whole, file, cases[i].whole_len, 0);
        else
            part(&b, file, 1000, cases[i].last, cases[i].total, cases[i].part_hdr);
        assert_int_equal(open_read(&b, 1000, 500, err, sizeof err, &s), NET_E_IO);
        if (!strstr(err, cases[i].want))
            fail_msg("%s: '%s' does not mention '%s'", cases[i].what, err, cases[i].want);
        free(b.p);
    }
    free(file);
}

static void test_bad_ranges(void **state)
{
    uint8_t *file = pattern(3000);
    char err[256];
    net_script s;
    struct {
        const char *second; /* headers of the second response */
        size_t body;        /* its body length (from file + 1000) */
        uint8_t ctl;
        const char *want; /* in the error */
    } cases[] = {
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1001-1500/3000", 500, 0, "asked for"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1600/3000", 601, 0, "asked for"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1499/3000", 400, 0, "truncated"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1499/3000", 600, 0, "longer"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1499/*", 500, 0, "changed"},
        {"HTTP/1.1 206 P", 500, 0, "Content-Range"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1499/3000\r\nContent-Encoding: gzip", 500, 0,
         "compressed"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1499/3000", 200, 4, "closed"},
        {"HTTP/1.1 206 P\r\nContent-Range: bytes 1000-1499/3000", 10, 1, "timed out"},
        {"HTTP/1.1 404 Not Found", 0, 0, "HTTP 404"},
        {"HTTP/1.1 200 OK", 500, 0, "stopped honouring Range"},
        {"HTTP/1.1 302 Found", 0, 0, "no Location"},
        {"garbage", 0, 0, "no HTTP status line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        buf b = {0};
        part(&b, file, 0, 999, 3000, NULL);
        resp(&b, cases[i].second, file + 1000, cases[i].body, cases[i].ctl);
        assert_int_equal(open_read(&b, 1000, 500, err, sizeof err, &s), NET_E_IO);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: '%s' does not mention '%s'", i, err, cases[i].want);
        free(b.p);
    }
    free(file);
}

static void test_short_ranges_continue(void **state)
{
    uint8_t *file = pattern(3000);
    buf b = {0};
    part(&b, file, 0, 999, 3000, "ETag: \"v1\"");
    part(&b, file, 1000, 1099, 3000, "ETag: \"v1\"");
    part(&b, file, 1100, 1499, 3000, "ETag: \"v1\"");
    net_script s;
    char err[256];
    assert_int_equal(open_read(&b, 1000, 500, err, sizeof err, &s), NET_OK);
    assert_int_equal(s.performed, 3);
    assert_true(sent(&s, 2, "Range: bytes=1100-1499"));
    free(b.p);
    /* a server that answers one byte at a time is given up on */
    b = (buf){0};
    part(&b, file, 0, 999, 3000, NULL);
    for (uint64_t i = 1000; i < 1100; i++)
        part(&b, file, i, i, 3000, NULL);
    assert_int_equal(open_read(&b, 1000, 100, err, sizeof err, &s), NET_E_IO);
    assert_non_null(strstr(err, "shorter than asked"));
    free(b.p);
    /* ranges capped at 64 KiB are followed to the end */
    uint8_t *big = pattern(300000);
    b = (buf){0};
    part(&b, big, 0, 999, 300000, NULL);
    for (uint64_t i = 1000; i < 300000; i += 65536)
        part(&b, big, i, i + 65535 < 299999 ? i + 65535 : 299999, 300000, NULL);
    assert_int_equal(open_read(&b, 1000, 299000, err, sizeof err, &s), NET_OK);
    assert_int_equal(s.performed, 6);
    free(big);
    free(b.p);
    free(file);
}

static void test_server_ignores_range(void **state)
{
    uint8_t *file = pattern(3000);
    char err[256];
    net_script s;
    net_options o = opts();
    net_file *f;
    /* the whole file fits under the cap: everything is readable, one request */
    buf b = {0};
    resp(&b, "HTTP/1.1 200 OK\r\nContent-Length: 3000", file, 3000, 0x10);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_OK);
    assert_false(net_ranges(f));
    assert_int_equal(net_size(f), 3000);
    uint8_t got[3000];
    assert_int_equal(net_read_at(f, 0, got, 3000, err, sizeof err), NET_OK);
    assert_memory_equal(got, file, 3000);
    assert_int_equal(s.performed, 1);
    net_close(f);
    free(b.p);
    /* larger than the cap: the prefix up to the cap is kept, the rest refused */
    o.max_fetch = 1200;
    b = (buf){0};
    resp(&b, "HTTP/1.1 200 OK\r\nContent-Length: 3000", file, 3000, 0x10);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_OK);
    assert_int_equal(net_size(f), 3000);
    assert_int_equal(net_cached(f), 1200);
    assert_int_equal(net_read_at(f, 100, got, 1100, err, sizeof err), NET_OK);
    assert_int_equal(net_read_at(f, 1100, got, 200, err, sizeof err), NET_E_IO);
    assert_non_null(strstr(err, "ignores Range"));
    net_close(f);
    free(b.p);
    /* larger than the cap and no Content-Length: nothing usable */
    b = (buf){0};
    resp(&b, "HTTP/1.1 200 OK", file, 3000, 0x10);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
    assert_non_null(strstr(err, "--max-fetch"));
    free(b.p);
    free(file);
}

static void test_empty_file_416(void **state)
{
    buf b = {0};
    resp(&b, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */0", "", 0, 0);
    net_script s;
    net_script_init(&s, b.p, b.len);
    net_options o = opts();
    net_file *f;
    char err[256];
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_OK);
    assert_int_equal(net_size(f), 0);
    net_close(f);
    free(b.p);
    /* a 416 for a non-empty file on the first request is an error */
    b = (buf){0};
    resp(&b, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */10", "", 0, 0);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
    assert_non_null(strstr(err, "416"));
    free(b.p);
}

static void test_redirects_and_credentials(void **state)
{
    uint8_t *file = pattern(3000);
    static const char *const secret[] = {"Authorization: Bearer s3cret"};
    net_options o = opts();
    o.origin_headers = secret;
    o.n_origin_headers = 1;
    char err[256];
    net_file *f;
    net_script s;
    /* origin -> same origin -> another host (CDN); ranges then go to the CDN */
    buf b = {0};
    resp(&b, "HTTP/1.1 302 Found\r\nLocation: /b/m.gguf", "", 0, 0);
    resp(&b, "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9999/cdn?sig=1", "", 0,
         0);
    part(&b, file, 0, 999, 3000, "ETag: \"v1\"");
    part(&b, file, 1000, 1999, 3000, "ETag: \"v1\"");
    net_script_init(&s, b.p, b.len);
    s.secret = secret[0];
    s.secret_origin = "http://127.0.0.1:8000/";
    assert_int_equal(net_open("http://127.0.0.1:8000/a/m.gguf", &o, &s.t, &f, err, sizeof err),
                     NET_OK);
    uint8_t got[1000];
    assert_int_equal(net_read_at(f, 1000, got, 1000, err, sizeof err), NET_OK);
    assert_memory_equal(got, file + 1000, 1000);
    assert_int_equal(s.performed, 4);
    assert_false(s.leaked);
    assert_true(sent(&s, 0, "Authorization: Bearer s3cret"));
    assert_true(sent(&s, 1, "Authorization: Bearer s3cret"));
    assert_string_equal(s.requests[1].url, "http://127.0.0.1:8000/b/m.gguf");
    assert_false(sent(&s, 2, "Authorization"));
    assert_string_equal(s.requests[3].url, "http://127.0.0.1:9999/cdn?sig=1");
    assert_false(sent(&s, 3, "Authorization"));
    uint64_t bytes, reqs;
    net_stats(f, &bytes, &reqs);
    assert_int_equal(reqs, 4);
    net_close(f);
    free(b.p);

    /* an expired CDN link: start again from the origin, token included */
    b = (buf){0};
    resp(&b, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9999/cdn", "", 0, 0);
    part(&b, file, 0, 999, 3000, NULL);
    resp(&b, "HTTP/1.1 403 Forbidden", "expired", 7, 0);
    resp(&b, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9999/cdn2", "", 0, 0);
    part(&b, file, 1000, 1999, 3000, NULL);
    net_script_init(&s, b.p, b.len);
    s.secret = secret[0];
    s.secret_origin = "http://127.0.0.1:8000/";
    assert_int_equal(net_open("http://127.0.0.1:8000/a/m.gguf", &o, &s.t, &f, err, sizeof err),
                     NET_OK);
    assert_int_equal(net_read_at(f, 1000, got, 1000, err, sizeof err), NET_OK);
    assert_false(s.leaked);
    assert_true(sent(&s, 3, "Authorization: Bearer s3cret"));
    net_close(f);
    free(b.p);

    /* refused redirects: https -> http, to another scheme, a loop */
    const char *refused[] = {"HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1/x",
                             "HTTP/1.1 301 Moved\r\nLocation: file:///etc/passwd",
                             "HTTP/1.1 301 Moved\r\nLocation: ftp://127.0.0.1/x"};
    const char *why[] = {"https to plain http", "refused", "refused"};
    for (size_t i = 0; i < 3; i++) {
        b = (buf){0};
        resp(&b, refused[i], "", 0, 0);
        net_script_init(&s, b.p, b.len);
        assert_int_equal(net_open("https://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
        assert_non_null(strstr(err, why[i]));
        free(b.p);
    }
    b = (buf){0};
    for (int i = 0; i < 20; i++)
        resp(&b, "HTTP/1.1 302 Found\r\nLocation: /loop", "", 0, 0);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
    assert_non_null(strstr(err, "too many redirects"));
    assert_int_equal(s.performed, 11);
    free(b.p);
    free(file);
}

static void test_retries(void **state)
{
    uint8_t *file = pattern(500);
    net_options o = opts();
    char err[256];
    net_file *f;
    net_script s;
    buf b = {0};
    resp(&b, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 0", "busy", 4, 0);
    resp(&b, "HTTP/1.1 429 Too Many Requests", "", 0, 0);
    part(&b, file, 0, 499, 500, NULL);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_OK);
    uint64_t bytes, reqs;
    net_stats(f, &bytes, &reqs);
    assert_int_equal(reqs, 3);
    net_close(f);
    free(b.p);
    /* retries exhausted: the last status and the server's words */
    b = (buf){0};
    for (int i = 0; i < 4; i++)
        resp(&b, "HTTP/1.1 502 Bad Gateway", "upstream \x1b[31mdown\n", 20, 0);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
    assert_int_equal(s.performed, 4);
    assert_non_null(strstr(err, "HTTP 502"));
    assert_non_null(strstr(err, "upstream ?[31mdown"));
    for (const char *p = err; *p; p++)
        assert_true((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7F);
    free(b.p);
    /* 404 is not retried */
    b = (buf){0};
    resp(&b, "HTTP/1.1 404 Not Found", "Entry not found", 15, 0);
    resp(&b, "HTTP/1.1 404 Not Found", "", 0, 0);
    net_script_init(&s, b.p, b.len);
    assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
    assert_int_equal(s.performed, 1);
    assert_string_equal(err, "HTTP 404 Not Found: Entry not found");
    free(b.p);
    free(file);
}

static void test_transport_failures(void **state)
{
    const char *want[] = {"timed out", "could not connect", "TLS", "closed before", "malformed"};
    for (uint8_t k = 1; k <= 5; k++) {
        buf b = {0};
        resp(&b, "HTTP/1.1 206 P\r\nContent-Range: bytes 0-9/10", "0123456789", 10, k);
        net_script s;
        net_script_init(&s, b.p, b.len);
        net_options o = opts();
        net_file *f;
        char err[256];
        assert_int_equal(net_open("http://127.0.0.1/m", &o, &s.t, &f, err, sizeof err), NET_E_IO);
        assert_non_null(strstr(err, want[k - 1]));
        free(b.p);
    }
}

/* ------------------------------------------------------------------ hf:// */

static void test_hf_parse(void **state)
{
    hf_ref r;
    char err[256];
    assert_true(hf_parse("hf://org/repo", &r, err, sizeof err));
    assert_string_equal(r.org, "org");
    assert_string_equal(r.repo, "repo");
    assert_string_equal(r.rev, "main");
    assert_null(r.path);
    assert_false(r.is_file);
    hf_ref_free(&r);
    assert_true(
        hf_parse("hf://Org-1/Re.po_2@refs%2Fpr%2F3/sub dir/M-Q4_K_M.GGUF", &r, err, sizeof err));
    assert_string_equal(r.rev, "refs%2Fpr%2F3");
    assert_string_equal(r.path, "sub dir/M-Q4_K_M.GGUF");
    assert_true(r.is_file);
    char *u = hf_file_url("http://127.0.0.1:1/", &r, r.path);
    assert_string_equal(u, "http://127.0.0.1:1/Org-1/Re.po_2/resolve/refs%2Fpr%2F3/sub%20dir/"
                           "M-Q4_K_M.GGUF");
    free(u);
    u = hf_display(&r, r.path);
    assert_string_equal(u, "hf://Org-1/Re.po_2@refs%2Fpr%2F3/sub dir/M-Q4_K_M.GGUF");
    free(u);
    hf_ref_free(&r);
    assert_true(hf_parse("hf://org/repo@v1/folder/", &r, err, sizeof err));
    assert_string_equal(r.path, "folder");
    assert_false(r.is_file);
    hf_ref_free(&r);
    static const char *bad[] = {"hf://",
                                "hf://org",
                                "hf://org/",
                                "hf:///repo",
                                "hf://o/r@",
                                "hf://o/r@a/b@c/../x.gguf",
                                "hf://o/r/../x.gguf",
                                "hf://o/r/a//x.gguf",
                                "hf://o/r/./x.gguf",
                                "hf://o/r@v?x/m.gguf",
                                "hf://o/r@%zz/m.gguf",
                                "hf://o/r/a\x1b/m.gguf",
                                "hf://../r",
                                "hf://o/r/a\\b.gguf",
                                "https://o/r",
                                "hf://o p/r"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (hf_parse(bad[i], &r, err, sizeof err))
            fail_msg("'%s' accepted", bad[i]);
    }
}

static void test_hf_listing(void **state)
{
    static const char *const secret[] = {"Authorization: Bearer hf_x"};
    net_options o = opts();
    o.origin_headers = secret;
    o.n_origin_headers = 1;
    buf b = {0};
    const char *p1 = "[{\"type\":\"directory\",\"path\":\"q\"},"
                     "{\"type\":\"file\",\"path\":\"q/m-00002-of-00002.gguf\",\"size\":10},"
                     "{\"type\":\"file\",\"path\":\"README.md\",\"size\":5},"
                     "{\"type\":\"file\",\"path\":\"q/m-00001-of-00002.gguf\",\"size\":20}]";
    const char *p2 = "[{\"type\":\"file\",\"path\":\"a.GGUF\",\"size\":30,\"lfs\":{\"size\":30}}]";
    const char *sha = "{\"id\":\"o/r\",\"sha\":\"0123456789abcdef0123456789abcdef01234567\"}";
    resp(&b, "HTTP/1.1 200 OK", sha, strlen(sha), 0);
    resp(&b,
         "HTTP/1.1 200 OK\r\nLink: </api/models/o/r/tree/x?recursive=true&cursor=x>; "
         "rel=\"next\"",
         p1, strlen(p1), 0);
    resp(&b, "HTTP/1.1 200 OK", p2, strlen(p2), 0);
    net_script s;
    net_script_init(&s, b.p, b.len);
    s.secret = secret[0];
    s.secret_origin = "http://127.0.0.1:7/";
    hf_ref r;
    char err[256];
    assert_true(hf_parse("hf://o/r", &r, err, sizeof err));
    hf_list l;
    uint64_t bytes = 0, reqs = 0;
    assert_int_equal(
        hf_list_repo("http://127.0.0.1:7", &r, &o, &s.t, &l, &bytes, &reqs, err, sizeof err),
        NET_OK);
    /* pinned: the listing and every file are of that commit */
    assert_string_equal(r.rev, "0123456789abcdef0123456789abcdef01234567");
    assert_int_equal(l.n, 3);
    assert_string_equal(l.v[0].path, "a.GGUF");
    assert_string_equal(l.v[1].path, "q/m-00001-of-00002.gguf");
    assert_int_equal(l.v[1].size, 20);
    assert_string_equal(l.v[2].path, "q/m-00002-of-00002.gguf");
    assert_int_equal(reqs, 3);
    assert_string_equal(s.requests[0].url, "http://127.0.0.1:7/api/models/o/r/revision/main");
    assert_string_equal(s.requests[1].url, "http://127.0.0.1:7/api/models/o/r/tree/"
                                           "0123456789abcdef0123456789abcdef01234567"
                                           "?recursive=true");
    assert_string_equal(s.requests[2].url,
                        "http://127.0.0.1:7/api/models/o/r/tree/x?recursive=true&cursor=x");
    assert_true(sent(&s, 0, "Authorization: Bearer hf_x"));
    assert_true(sent(&s, 1, "Accept: application/json"));
    assert_false(s.leaked);
    hf_list_free(&l);
    free(b.p);
    hf_ref_free(&r);

    /* listings that keep the revision as given, or fail with a reason: the
     * responses (the first one, when there is one, answers the revision
     * call), the reference, the status and the revision or the error */
    const struct {
        const char *what;
        const char *status1, *body1; /* NULL: no first response */
        const char *status2, *body2;
        const char *ref;
        net_status st;
        const char *rev; /* NET_OK: the revision listed ... */
        size_t n;        /* ... and the number of files */
        const char *err; /* else: in the error message ... */
        bool whole;      /* ... and all of it */
    } cases[] = {
        {"a revision answer without a commit leaves the revision as given", "HTTP/1.1 200 OK", "{}",
         "HTTP/1.1 200 OK", p2, "hf://o/r@v1", NET_OK, "v1", 1, NULL, false},
        {"a Hub (or mirror) without the revision call: listed as given", "HTTP/1.1 404 Not Found",
         "", "HTTP/1.1 200 OK", p2, "hf://o/r@v1", NET_OK, "v1", 1, NULL, false},
        {"... and a repository that does not exist still fails, at the listing",
         "HTTP/1.1 404 Not Found", "", "HTTP/1.1 404 Not Found", "Repository not found", "hf://o/r",
         NET_E_IO, NULL, 0, "HTTP 404 Not Found: Repository not found", true},
        /* a next link to another host, a hostile path, not JSON, no size, no access */
        {"a next link to another host", "HTTP/1.1 200 OK", sha,
         "HTTP/1.1 200 OK\r\nLink: <http://127.0.0.1:8/next>; rel=\"next\"", "[]", "hf://o/r",
         NET_E_IO, NULL, 0, "another host", false},
        {"a hostile path", "HTTP/1.1 200 OK", sha, "HTTP/1.1 200 OK",
         "[{\"type\":\"file\",\"path\":\"../x.gguf\",\"size\":1}]", "hf://o/r", NET_E_IO, NULL, 0,
         "'..'", false},
        {"not JSON", "HTTP/1.1 200 OK", sha, "HTTP/1.1 200 OK", "{\"error\":\"x\"}", "hf://o/r",
         NET_E_IO, NULL, 0, "not a JSON array", false},
        {"no size", "HTTP/1.1 200 OK", sha, "HTTP/1.1 200 OK",
         "[{\"type\":\"file\",\"path\":\"x.gguf\"}]", "hf://o/r", NET_E_IO, NULL, 0,
         "without a path or size", false},
        {"no access", NULL, NULL, "HTTP/1.1 401 Unauthorized",
         "{\"error\":\"Invalid credentials\"}", "hf://o/r", NET_E_IO, NULL, 0, "HTTP 401", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        b = (buf){0};
        if (cases[i].status1)
            resp(&b, cases[i].status1, cases[i].body1, strlen(cases[i].body1), 0);
        resp(&b, cases[i].status2, cases[i].body2, strlen(cases[i].body2), 0);
        net_script_init(&s, b.p, b.len);
        assert_true(hf_parse(cases[i].ref, &r, err, sizeof err));
        net_status st =
            hf_list_repo("http://127.0.0.1:7", &r, &o, &s.t, &l, &bytes, &reqs, err, sizeof err);
        if (st != cases[i].st)
            fail_msg("%s: status %d (%s)", cases[i].what, (int)st, err);
        if (st == NET_OK) {
            assert_string_equal(r.rev, cases[i].rev);
            assert_int_equal(l.n, cases[i].n);
            hf_list_free(&l);
        } else if (cases[i].whole ? strcmp(err, cases[i].err) != 0 : !strstr(err, cases[i].err)) {
            fail_msg("%s: '%s'", cases[i].what, err);
        }
        free(b.p);
        hf_ref_free(&r);
    }
}

/* gguflint_fetch_set accepts each setting's range, both ends included, and
 * nothing outside it, nor an unknown setting or NULL options. */
static void test_fetch_set_ranges(void **state)
{
    (void)state;
    static const struct {
        gguflint_fetch_setting what;
        uint64_t lo, hi;
    } rows[] = {
        {GGUFLINT_FETCH_FIRST_RANGE, 64, (uint64_t)1 << 30},
        {GGUFLINT_FETCH_MAX_BYTES, 64, SIZE_MAX / 2},
        {GGUFLINT_FETCH_RETRIES, 0, 20},
        {GGUFLINT_FETCH_BACKOFF_MS, 0, 600000},
        {GGUFLINT_FETCH_CONNECT_TIMEOUT_MS, 1, UINT32_MAX},
        {GGUFLINT_FETCH_TIMEOUT_MS, 1, UINT32_MAX},
        {GGUFLINT_FETCH_MAX_REDIRECTS, 0, 50},
        {GGUFLINT_FETCH_DEADLINE_MS, 0, UINT32_MAX},
        {GGUFLINT_FETCH_FILE_DEADLINE_MS, 0, UINT32_MAX},
    };
    gguflint_fetch_options *fo = gguflint_fetch_options_new();
    assert_non_null(fo);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_int_equal(gguflint_fetch_set(fo, rows[i].what, rows[i].lo), GGUFLINT_OK);
        assert_int_equal(gguflint_fetch_set(fo, rows[i].what, rows[i].hi), GGUFLINT_OK);
        assert_int_equal(gguflint_fetch_set(fo, rows[i].what, rows[i].hi + 1), GGUFLINT_E_ARG);
        if (rows[i].lo)
            assert_int_equal(gguflint_fetch_set(fo, rows[i].what, rows[i].lo - 1), GGUFLINT_E_ARG);
    }
    assert_int_equal(gguflint_fetch_set(fo, (gguflint_fetch_setting)9, 1), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_fetch_set(fo, (gguflint_fetch_setting)-1, 1), GGUFLINT_E_ARG);
    assert_int_equal(gguflint_fetch_set(NULL, GGUFLINT_FETCH_RETRIES, 1), GGUFLINT_E_ARG);
    gguflint_fetch_options_free(fo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content_range),
        cmocka_unit_test(test_headers),
        cmocka_unit_test(test_url_helpers),
        cmocka_unit_test(test_open_small_file),
        cmocka_unit_test(test_ranges_and_if_range),
        cmocka_unit_test(test_weak_etag_uses_date),
        cmocka_unit_test(test_changed_between_requests),
        cmocka_unit_test(test_bad_ranges),
        cmocka_unit_test(test_short_ranges_continue),
        cmocka_unit_test(test_server_ignores_range),
        cmocka_unit_test(test_empty_file_416),
        cmocka_unit_test(test_redirects_and_credentials),
        cmocka_unit_test(test_retries),
        cmocka_unit_test(test_transport_failures),
        cmocka_unit_test(test_hf_parse),
        cmocka_unit_test(test_hf_listing),
        cmocka_unit_test(test_fetch_set_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without libcurl */

static void test_no_url_support(void **state)
{
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_no_url_support)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
