/* test_net_trailers.c - the response parser after the final response's
 * headers (issue 25): a chunked body's trailer lines reach the header
 * callback, and must neither reset the parsed status line (a trailer that
 * looks like "HTTP/1.1 200 OK") nor replace Content-Range or ETag. An interim
 * 1xx response is still followed by the final one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "expect.h"

#ifdef GGUFLINT_HAVE_URL
#include "net/http.h"

static void feed(net_response *r, const char *line)
{
    net_response_line(r, line, strlen(line));
}

static void test_trailers_are_ignored(void **state)
{
    net_response r;
    net_response_init(&r);
    feed(&r, "HTTP/1.1 206 Partial Content\r\n");
    feed(&r, "Content-Range: bytes 0-9/100\r\n");
    feed(&r, "ETag: \"a\"\r\n");
    feed(&r, "\r\n");
    assert_true(r.headers_done);
    /* trailers */
    feed(&r, "HTTP/1.1 200 OK\r\n");
    feed(&r, "Content-Range: bytes 50-59/100\r\n");
    feed(&r, "ETag: \"b\"\r\n");
    feed(&r, "\r\n");
    assert_int_equal(r.status, 206);
    assert_true(r.has_content_range);
    assert_int_equal(r.cr.first, 0);
    assert_int_equal(r.cr.last, 9);
    assert_string_equal(r.etag, "\"a\"");
    assert_false(r.bad);
}

static void test_interim_response_then_final(void **state)
{
    net_response r;
    net_response_init(&r);
    feed(&r, "HTTP/1.1 100 Continue\r\n");
    feed(&r, "\r\n");
    feed(&r, "HTTP/1.1 206 Partial Content\r\n");
    feed(&r, "Content-Range: bytes 0-9/100\r\n");
    feed(&r, "\r\n");
    assert_int_equal(r.status, 206);
    assert_int_equal(r.cr.last, 9);
}
#endif

int main(void)
{
#ifdef GGUFLINT_HAVE_URL
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trailers_are_ignored),
        cmocka_unit_test(test_interim_response_then_final),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
#else
    return 77; /* no URL support in this build */
#endif
}
