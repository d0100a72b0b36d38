/* fetch.c - a remote file read by byte ranges over a transport (http.h).
 *
 * net_open makes the first request (a range of first_range bytes): it learns
 * the total size from Content-Range, the validator (a strong ETag, else
 * Last-Modified) and the URL the redirects end at, and keeps the bytes it got.
 * net_read_at asks for exactly the bytes wanted, with If-Range, and accepts
 * only a 206 whose Content-Range starts where asked, ends inside the request,
 * carries the same total and whose body has exactly that length; a 200 to a
 * ranged request means the file changed (If-Range) or the server stopped
 * honouring ranges, and is an error, never a mixed read. Redirects are
 * followed here (not by the transport) for http and https only, never from
 * https down to http, and the caller's origin headers (credentials) go only to
 * the origin's scheme, host and port. 429 and 5xx are retried with doubling
 * delays (Retry-After honoured up to a cap). Every failure leaves a one-line
 * reason; server text in it is reduced to printable ASCII. */
#define _POSIX_C_SOURCE 200809L
#include "http.h"
#include "common/alloc.h"

#include "core/limits.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Short answers to a range are asked again (limits in core/limits.h). */
enum { MAX_ORIGIN_HEADERS = URL_MAX_HEADERS, ERRBODY_MAX = 160 };

void net_options_default(net_options *o)
{
    *o = (net_options){
        .first_range = LIMIT_DEFAULT_FETCH_FIRST_RANGE,
        .max_fetch = LIMIT_DEFAULT_FETCH_MAX_BYTES,
        .retries = LIMIT_DEFAULT_FETCH_RETRIES,
        .backoff_ms = LIMIT_DEFAULT_FETCH_BACKOFF_MS,
        .max_retry_after_s = URL_MAX_RETRY_AFTER_S,
        .max_redirects = LIMIT_DEFAULT_FETCH_MAX_REDIRECTS,
        .connect_timeout_ms = LIMIT_DEFAULT_FETCH_CONNECT_TIMEOUT_S * 1000u,
        .stall_timeout_ms = LIMIT_DEFAULT_FETCH_TIMEOUT_S * 1000u,
        .deadline_ms = LIMIT_DEFAULT_FETCH_DEADLINE_S * 1000u,
        .file_deadline_ms = LIMIT_DEFAULT_FETCH_FILE_DEADLINE_S * 1000u,
    };
}

uint64_t net_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct net_file {
    net_options o;
    const net_transport *t;
    char *url;    /* as opened */
    char *origin; /* whose origin the origin headers belong to */
    char **hdrs;  /* copies of the origin headers */
    size_t n_hdrs;
    char *data_url; /* where the redirects led; guarded by mu */
    uint64_t size;
    bool ranges;   /* the server honours Range */
    uint8_t *head; /* the first response's body: [0, head_len) */
    uint64_t head_len;
    char if_range[NET_ETAG_MAX]; /* validator sent in If-Range, or "" */
    bool has_etag;
    char etag[NET_ETAG_MAX]; /* the first response's ETag (weak or strong) */
    pthread_mutex_t mu;
    uint64_t bytes, requests;
    uint64_t deadline; /* net_now_ms() past which no request of this file runs; 0: none */
};

/* ---- one exchange: redirects and retries ---- */

typedef enum mode { MODE_OPEN, MODE_RANGE, MODE_DOC } mode;

typedef struct xfer {
    mode mode;
    uint64_t want_first, want_last; /* the range asked for (OPEN, RANGE) */
    uint64_t max_body;              /* DOC and 200-in-OPEN: growth cap */
    net_response resp;
    bool started; /* the body's destination was chosen */
    enum { DST_DISCARD, DST_FIXED, DST_GROW, DST_ERRBODY } dst;
    uint8_t *buf; /* FIXED: the caller's; GROW: owned */
    uint64_t cap, len;
    bool own_buf;
    bool overflow; /* more body than the destination takes */
    bool nomem;
    uint64_t received; /* body bytes of this response */
    char errbody[ERRBODY_MAX];
    size_t errbody_len;
} xfer;

typedef struct env {
    const net_options *o;
    const net_transport *t;
    const char *origin; /* origin headers go only here */
    const char *const *hdrs;
    size_t n_hdrs;
    const char *const *extra; /* sent everywhere (NULL-terminated), e.g. Accept */
    const char *if_range;     /* "" or a validator */
    pthread_mutex_t *mu;      /* guards the counters, or NULL */
    uint64_t *bytes, *requests;
    uint64_t file_deadline; /* the net_file's, or 0 */
} env;

static void say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
}

static bool on_header(void *user, const char *line, size_t len)
{
    xfer *x = user;
    net_response_line(&x->resp, line, len);
    return true;
}

/* Choose where the body goes once the status and headers are known. */
static bool start_body(xfer *x)
{
    const net_response *r = &x->resp;
    x->started = true;
    if (r->status < 200 || r->status >= 300) {
        x->dst = DST_ERRBODY;
        return true;
    }
    if (r->bad || r->encoded)
        return false; /* refused after the exchange, with the reason */
    if (x->mode == MODE_DOC || (x->mode == MODE_OPEN && r->status == 200)) {
        x->dst = DST_GROW;
        x->own_buf = true;
        return true;
    }
    if (r->status != 206 || !r->has_content_range || r->cr.unsatisfied ||
        r->cr.first != x->want_first || r->cr.last > x->want_last)
        return false; /* checked and explained after the exchange */
    uint64_t n = r->cr.last - r->cr.first + 1;
    if (x->mode == MODE_OPEN) {
        /* n <= first_range: bounded by our own request, not by the server */
        x->buf = gl_malloc(n ? (size_t)n : 1);
        if (!x->buf) {
            x->nomem = true;
            return false;
        }
        x->own_buf = true;
    }
    x->dst = DST_FIXED;
    x->cap = n;
    return true;
}

static bool on_body(void *user, const uint8_t *data, size_t n)
{
    xfer *x = user;
    x->received += n;
    if (!x->started && !start_body(x))
        return false;
    switch (x->dst) {
    case DST_DISCARD: return true;
    case DST_ERRBODY: {
        size_t room = sizeof x->errbody - 1 - x->errbody_len;
        size_t k = n < room ? n : room;
        memcpy(x->errbody + x->errbody_len, data, k);
        x->errbody_len += k;
        return x->errbody_len < sizeof x->errbody - 1;
    }
    case DST_FIXED:
        if (n > x->cap - x->len) {
            x->overflow = true;
            return false;
        }
        memcpy(x->buf + x->len, data, n);
        x->len += n;
        return true;
    case DST_GROW: {
        uint64_t keep = n;
        if (keep > x->max_body - x->len) {
            keep = x->max_body - x->len;
            x->overflow = true;
        }
        if (keep > x->cap - x->len) {
            uint64_t nc = x->cap ? x->cap : 1u << 16;
            while (nc - x->len < keep)
                nc *= 2;
            if (nc > x->max_body)
                nc = x->max_body;
            uint8_t *nb = gl_realloc(x->buf, (size_t)nc + 1);
            if (!nb) {
                x->nomem = true;
                return false;
            }
            x->buf = nb;
            x->cap = nc;
        }
        memcpy(x->buf + x->len, data, (size_t)keep);
        x->len += keep;
        return !x->overflow;
    }
    }
    return false;
}

static void xfer_reset(xfer *x)
{
    if (x->own_buf)
        gl_free(x->buf);
    mode m = x->mode;
    uint64_t f = x->want_first, l = x->want_last, mb = x->max_body;
    uint8_t *fixed = x->own_buf ? NULL : x->buf;
    memset(x, 0, sizeof *x);
    x->mode = m;
    x->want_first = f;
    x->want_last = l;
    x->max_body = mb;
    x->buf = fixed;
    net_response_init(&x->resp);
}

static void count(const env *e, uint64_t bytes)
{
    if (e->mu)
        pthread_mutex_lock(e->mu);
    *e->requests += 1;
    *e->bytes += bytes;
    if (e->mu)
        pthread_mutex_unlock(e->mu);
}

/* Sleep `ms` in slices of at most 100 ms; false when cancelled meanwhile. */
static bool sleep_ms(uint64_t ms, const volatile int *cancel)
{
    while (ms > 0) {
        if (cancel && (*cancel != 0))
            return false;
        uint64_t k = ms < 100 ? ms : 100;
        struct timespec ts = {0, (long)k * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
        ms -= k;
    }
    return !(cancel && (*cancel != 0));
}

/* The earlier of two deadlines (0: none). */
static uint64_t earlier(uint64_t a, uint64_t b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

static const char *transport_what(net_tstatus ts)
{
    switch (ts) {
    case NET_T_TIMEOUT: return "timed out";
    case NET_T_CONNECT: return "could not connect";
    case NET_T_TLS: return "TLS failure";
    case NET_T_PARTIAL: return "the connection closed before the body ended (truncated response)";
    case NET_T_PROTOCOL: return "malformed HTTP response";
    case NET_T_NOMEM: return "out of memory";
    default: return "transfer failed";
    }
}

static bool is_redirect(int s)
{
    return s == 301 || s == 302 || s == 303 || s == 307 || s == 308;
}

static const char *reason(int s);

/* Perform the request of `x` from `url`, following redirects and retrying
 * 429/5xx. On NET_OK, x holds the final response and *final the URL that gave
 * it (malloc'd). Any other status leaves the reason in err. */
static net_status exchange(const env *e, const char *url, xfer *x, char **final, char *err,
                           size_t errn)
{
    const net_options *o = e->o;
    char *cur = gl_strdup(url);
    if (!cur)
        return NET_E_NOMEM;
    char range[64], ifr[NET_ETAG_MAX + 16];
    snprintf(range, sizeof range, "Range: bytes=%llu-%llu", (unsigned long long)x->want_first,
             (unsigned long long)x->want_last);
    snprintf(ifr, sizeof ifr, "If-Range: %s", e->if_range ? e->if_range : "");
    uint64_t deadline =
        earlier(o->deadline_ms ? net_now_ms() + o->deadline_ms : 0, e->file_deadline);
    for (uint32_t attempt = 0;; attempt++) {
        uint32_t hops = 0;
        for (;;) {
            const char *lines[2 * MAX_ORIGIN_HEADERS + 8];
            size_t nl = 0;
            lines[nl++] = "Accept-Encoding: identity";
            if (x->mode != MODE_DOC) {
                lines[nl++] = range;
                if (e->if_range && e->if_range[0])
                    lines[nl++] = ifr;
            }
            for (size_t i = 0; e->extra && e->extra[i] && nl < MAX_ORIGIN_HEADERS + 4; i++)
                lines[nl++] = e->extra[i];
            if (e->n_hdrs && net_same_origin(cur, e->origin))
                for (size_t i = 0; i < e->n_hdrs && i < MAX_ORIGIN_HEADERS; i++)
                    lines[nl++] = e->hdrs[i];
            lines[nl] = NULL;
            if (deadline && net_now_ms() >= deadline) {
                say(err, errn, "timed out: the %s deadline passed (--%s)",
                    deadline == e->file_deadline ? "file's" : "request's",
                    deadline == e->file_deadline ? "file-deadline" : "deadline");
                gl_free(cur);
                return NET_E_IO;
            }
            net_request rq = {cur,      lines,    o->connect_timeout_ms, o->stall_timeout_ms,
                              deadline, o->cancel};
            net_sink sink = {on_header, on_body, x};
            xfer_reset(x);
            char terr[200] = "";
            net_tstatus ts = e->t->perform(e->t->self, &rq, &sink, terr, sizeof terr);
            count(e, x->received);
            if (x->nomem || ts == NET_T_NOMEM) {
                gl_free(cur);
                say(err, errn, "%s", "out of memory");
                return NET_E_NOMEM;
            }
            if (ts != NET_T_OK && ts != NET_T_ABORTED) {
                if (err && errn)
                    snprintf(err, errn, "%s%s%s", transport_what(ts), terr[0] ? ": " : "", terr);
                gl_free(cur);
                return NET_E_IO;
            }
            if (x->resp.status == 0) {
                say(err, errn, "%s", "the server sent no HTTP status line");
                gl_free(cur);
                return NET_E_IO;
            }
            if (!is_redirect(x->resp.status))
                break;
            if (x->resp.bad || !x->resp.has_location) {
                say(err, errn, "a redirect with %s",
                    x->resp.bad ? x->resp.bad_why : "no Location header");
                gl_free(cur);
                return NET_E_IO;
            }
            if (++hops > o->max_redirects) {
                say(err, errn, "%s", "too many redirects");
                gl_free(cur);
                return NET_E_IO;
            }
            char rerr[96];
            char *next = net_url_resolve(cur, x->resp.location, rerr, sizeof rerr);
            if (!next) {
                say(err, errn, "a redirect to a URL that is refused: %s", rerr);
                gl_free(cur);
                return NET_E_IO;
            }
            if (net_is_https(cur) && !net_is_https(next)) {
                say(err, errn, "%s", "a redirect from https to plain http was refused");
                gl_free(next);
                gl_free(cur);
                return NET_E_IO;
            }
            gl_free(cur);
            cur = next;
        }
        int s = x->resp.status;
        if ((s == 429 || (s >= 500 && s <= 599)) && attempt < o->retries) {
            uint64_t ms;
            if (x->resp.retry_after_s >= 0) {
                uint64_t ra = (uint64_t)x->resp.retry_after_s;
                ms = (ra > o->max_retry_after_s ? o->max_retry_after_s : ra) * 1000u;
            } else {
                ms = (uint64_t)o->backoff_ms << (attempt < 16 ? attempt : 16);
                if (ms > 60000)
                    ms = 60000;
            }
            if (deadline && net_now_ms() + ms >= deadline) {
                say(err, errn,
                    "%s: the server asks to wait %llu ms before retrying, past the %s deadline "
                    "(--%s)",
                    reason(s), (unsigned long long)ms,
                    deadline == e->file_deadline ? "file's" : "request's",
                    deadline == e->file_deadline ? "file-deadline" : "deadline");
                gl_free(cur);
                return NET_E_IO;
            }
            if (!sleep_ms(ms, o->cancel)) {
                say(err, errn, "%s", "cancelled");
                gl_free(cur);
                return NET_E_IO;
            }
            continue;
        }
        *final = cur;
        return NET_OK;
    }
}

static const char *reason(int s)
{
    switch (s) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized: the file needs a token (HF_TOKEN or an Authorization header)";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 410: return "Gone";
    case 416: return "Range Not Satisfiable";
    case 429: return "Too Many Requests (retries exhausted)";
    case 500: return "Internal Server Error (retries exhausted)";
    case 502: return "Bad Gateway (retries exhausted)";
    case 503: return "Service Unavailable (retries exhausted)";
    case 504: return "Gateway Timeout (retries exhausted)";
    default: return s >= 500 ? "server error (retries exhausted)" : "unexpected status";
    }
}

/* "HTTP 404 Not Found: <the start of the server's message>" */
static void http_error(const xfer *x, char *err, size_t errn)
{
    if (!err || !errn)
        return;
    char body[ERRBODY_MAX];
    size_t k = 0;
    for (size_t i = 0; i < x->errbody_len && k + 1 < sizeof body; i++) {
        unsigned char c = (unsigned char)x->errbody[i];
        body[k++] = c >= 0x20 && c < 0x7F ? (char)c : c == '\n' || c == '\t' ? ' ' : '?';
    }
    while (k && body[k - 1] == ' ')
        k--;
    body[k] = '\0';
    snprintf(err, errn, "HTTP %d %s%s%s", x->resp.status, reason(x->resp.status), k ? ": " : "",
             body);
}

/* ---- the remote file ---- */

net_status net_open(const char *url, const net_options *o, const net_transport *t, net_file **out,
                    char *err, size_t errn)
{
    *out = NULL;
    if (!url || !o || !t || o->first_range == 0 || o->max_fetch == 0) {
        say(err, errn, "%s", "bad arguments");
        return NET_E_ARG;
    }
    char rerr[96];
    char *canon = net_url_resolve(url, url, rerr, sizeof rerr);
    if (!canon) {
        say(err, errn, "%s", rerr);
        return NET_E_ARG;
    }
    net_file *f = gl_calloc(1, sizeof *f);
    if (!f) {
        gl_free(canon);
        return NET_E_NOMEM;
    }
    f->o = *o;
    f->o.origin_headers = NULL;
    f->o.origin_url = NULL;
    f->deadline = o->file_deadline_ms ? net_now_ms() + o->file_deadline_ms : 0;
    f->t = t;
    f->url = canon;
    pthread_mutex_init(&f->mu, NULL);
    f->origin = gl_strdup(o->origin_url ? o->origin_url : canon);
    size_t nh = o->n_origin_headers < MAX_ORIGIN_HEADERS ? o->n_origin_headers : MAX_ORIGIN_HEADERS;
    f->hdrs = gl_calloc(nh ? nh : 1, sizeof *f->hdrs);
    bool ok = f->origin && f->hdrs;
    for (size_t i = 0; ok && i < nh; i++) {
        f->hdrs[i] = gl_strdup(o->origin_headers[i]);
        ok = f->hdrs[i] != NULL;
        f->n_hdrs = i + 1;
    }
    if (!ok) {
        net_close(f);
        return NET_E_NOMEM;
    }

    xfer x;
    memset(&x, 0, sizeof x);
    x.mode = MODE_OPEN;
    x.want_first = 0;
    x.want_last = o->first_range - 1;
    x.max_body = o->max_fetch;
    env e = {&f->o,      t,
             f->origin,  (const char *const *)f->hdrs,
             f->n_hdrs,  NULL,
             "",         &f->mu,
             &f->bytes,  &f->requests,
             f->deadline};
    char *final = NULL;
    net_status st = exchange(&e, f->url, &x, &final, err, errn);
    if (st != NET_OK) {
        xfer_reset(&x);
        net_close(f);
        return st;
    }
    f->data_url = final;
    const net_response *r = &x.resp;
    const char *why = NULL;
    if (r->status == 206 || r->status == 200) {
        if (r->bad)
            why = r->bad_why;
        else if (r->encoded)
            why = "a compressed body (Content-Encoding) where raw bytes were asked for";
    }
    if (why) {
        say(err, errn, "the server sent %s", why);
    } else if (r->status == 206) {
        if (!r->has_content_range || r->cr.unsatisfied)
            why = "a 206 response without a usable Content-Range";
        else if (!r->cr.total_known)
            why = "a Content-Range without the file's total size";
        else if (r->cr.first != 0 || r->cr.last > x.want_last)
            why = "a Content-Range other than the range asked for";
        else if (x.overflow)
            why = "a body longer than its Content-Range";
        else if (x.len != r->cr.last + 1)
            why = "a truncated body (shorter than its Content-Range)";
        if (why) {
            say(err, errn, "the server sent %s", why);
        } else {
            f->size = r->cr.total;
            f->ranges = true;
        }
    } else if (r->status == 200) {
        /* the server ignores Range: keep what fits under the cap */
        if (x.overflow && !r->has_content_length)
            why = "the server ignores Range requests, sends no Content-Length, and the file is "
                  "larger than the fetch cap (--max-fetch)";
        else if (r->has_content_length && !x.overflow && x.len != r->content_length)
            why = "the server ignores Range requests and its body length differs from its "
                  "Content-Length";
        else if (r->has_content_length && x.len > r->content_length)
            why = "the server ignores Range requests and sends more than its Content-Length";
        if (why) {
            say(err, errn, "%s", why);
        } else {
            f->size = r->has_content_length ? r->content_length : x.len;
            f->ranges = false;
        }
    } else if (r->status == 416 && !r->bad && r->has_content_range && r->cr.unsatisfied &&
               r->cr.total == 0) {
        f->size = 0; /* an empty file: the range 0- cannot be satisfied */
        f->ranges = true;
    } else {
        http_error(&x, err, errn);
        why = "http";
    }
    if (why) {
        xfer_reset(&x);
        net_close(f);
        return NET_E_IO;
    }
    if (r->has_etag) {
        f->has_etag = true;
        memcpy(f->etag, r->etag, sizeof f->etag);
        if (!r->weak_etag)
            memcpy(f->if_range, r->etag, sizeof f->if_range);
    }
    if (!f->if_range[0] && r->last_modified[0])
        memcpy(f->if_range, r->last_modified, sizeof r->last_modified);
    f->head = x.buf;
    f->head_len = x.len < f->size ? x.len : f->size;
    *out = f;
    return NET_OK;
}

/* One ranged request for [off, off + len); *got receives the bytes that
 * arrived (a server may answer a shorter range). */
static net_status read_range(net_file *f, uint64_t off, uint8_t *buf, size_t len, uint64_t *got,
                             char *err, size_t errn)
{
    bool from_origin = false;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        char *url = gl_strdup(f->data_url ? f->data_url : f->url);
        pthread_mutex_unlock(&f->mu);
        if (!url)
            return NET_E_NOMEM;
        xfer x;
        memset(&x, 0, sizeof x);
        x.mode = MODE_RANGE;
        x.want_first = off;
        x.want_last = off + len - 1;
        x.buf = buf;
        env e = {&f->o,     f->t,         f->origin,   (const char *const *)f->hdrs,
                 f->n_hdrs, NULL,         f->if_range, &f->mu,
                 &f->bytes, &f->requests, f->deadline};
        char *final = NULL;
        net_status st = exchange(&e, url, &x, &final, err, errn);
        bool redirected_before = strcmp(url, f->url) != 0;
        gl_free(url);
        if (st != NET_OK)
            return st;
        const net_response *r = &x.resp;
        int s = r->status;
        /* A signed redirect target may expire: start again from the URL given. */
        if (redirected_before && !from_origin && (s == 401 || s == 403 || s == 404 || s == 410)) {
            gl_free(final);
            pthread_mutex_lock(&f->mu);
            gl_free(f->data_url);
            f->data_url = NULL;
            pthread_mutex_unlock(&f->mu);
            from_origin = true;
            continue;
        }
        pthread_mutex_lock(&f->mu);
        gl_free(f->data_url);
        f->data_url = final;
        pthread_mutex_unlock(&f->mu);
        char what[160];
        const char *why = NULL;
        if (s == 206) {
            if (r->bad)
                why = r->bad_why;
            else if (r->encoded)
                why = "a compressed body (Content-Encoding) where raw bytes were asked for";
            else if (!r->has_content_range || r->cr.unsatisfied)
                why = "a 206 response without a usable Content-Range";
            else if (r->cr.first != off || r->cr.last > off + len - 1) {
                snprintf(what, sizeof what, "bytes %llu-%llu when bytes %llu-%llu were asked for",
                         (unsigned long long)r->cr.first, (unsigned long long)r->cr.last,
                         (unsigned long long)off, (unsigned long long)(off + len - 1));
                why = what;
            } else if (!r->cr.total_known || r->cr.total != f->size) {
                snprintf(err, errn,
                         "the file changed between requests: its size is now %s (it was %llu)",
                         r->cr.total_known ? "different" : "unknown", (unsigned long long)f->size);
                return NET_E_IO;
            } else if (f->has_etag && r->has_etag && strcmp(r->etag, f->etag) != 0) {
                say(err, errn, "%s",
                    "the file changed between requests: its ETag is not the one first seen");
                return NET_E_IO;
            } else if (x.overflow)
                why = "a body longer than its Content-Range";
            else if (x.len != r->cr.last - r->cr.first + 1)
                why = "a truncated body (shorter than its Content-Range)";
            if (why) {
                say(err, errn, "the server sent %s", why);
                return NET_E_IO;
            }
            *got = x.len;
            return NET_OK;
        }
        if (s == 200) {
            say(err, errn, "%s",
                f->if_range[0]
                    ? "the file changed between requests (the server answered If-Range with "
                      "the whole new file)"
                    : "the server stopped honouring Range requests (200 instead of 206)");
            return NET_E_IO;
        }
        if (s == 416) {
            say(err, errn, "%s",
                "HTTP 416 Range Not Satisfiable: the file is shorter than it was (it changed "
                "between requests)");
            return NET_E_IO;
        }
        http_error(&x, err, errn);
        return NET_E_IO;
    }
}

net_status net_read_at(net_file *f, uint64_t off, void *out, size_t len, char *err, size_t errn)
{
    uint8_t *buf = out;
    if (!f || (!buf && len))
        return NET_E_ARG;
    if (len == 0)
        return NET_OK;
    if (off > f->size || len > f->size - off) {
        say(err, errn, "%s", "a read past the end of the remote file");
        return NET_E_IO;
    }
    if (off < f->head_len) {
        uint64_t n = f->head_len - off < len ? f->head_len - off : len;
        memcpy(buf, f->head + off, (size_t)n);
        off += n;
        buf += n;
        len -= (size_t)n;
    }
    if (len == 0)
        return NET_OK;
    if (!f->ranges) {
        if (err && errn)
            snprintf(err, errn,
                     "the server ignores Range requests: only the first %llu bytes (the fetch "
                     "cap) could be read, byte %llu is needed",
                     (unsigned long long)f->head_len, (unsigned long long)off);
        return NET_E_IO;
    }
    for (unsigned tiny = 0; len > 0;) {
        uint64_t got = 0;
        net_status st = read_range(f, off, buf, len, &got, err, errn);
        if (st != NET_OK)
            return st;
        off += got;
        buf += got;
        len -= (size_t)got;
        if (len > 0 && got < URL_MIN_PROGRESS && ++tiny > URL_MAX_TINY_ANSWERS) {
            say(err, errn, "%s", "the server keeps answering with ranges far shorter than asked");
            return NET_E_IO;
        }
    }
    return NET_OK;
}

uint64_t net_size(const net_file *f)
{
    return f ? f->size : 0;
}

uint64_t net_cached(const net_file *f)
{
    return f ? f->head_len : 0;
}

bool net_ranges(const net_file *f)
{
    return f && f->ranges;
}

void net_stats(net_file *f, uint64_t *bytes, uint64_t *requests)
{
    pthread_mutex_lock(&f->mu);
    if (bytes)
        *bytes = f->bytes;
    if (requests)
        *requests = f->requests;
    pthread_mutex_unlock(&f->mu);
}

void net_close(net_file *f)
{
    if (!f)
        return;
    gl_free_strings(f->hdrs, f->n_hdrs);
    gl_free(f->url);
    gl_free(f->origin);
    gl_free(f->data_url);
    gl_free(f->head);
    pthread_mutex_destroy(&f->mu);
    gl_free(f);
}

net_status net_get(const char *url, const net_options *o, const net_transport *t,
                   const char *const *extra, uint8_t **body, size_t *body_len, net_response *resp,
                   uint64_t *bytes, uint64_t *requests, char *err, size_t errn)
{
    *body = NULL;
    *body_len = 0;
    size_t nh = o->n_origin_headers < MAX_ORIGIN_HEADERS ? o->n_origin_headers : MAX_ORIGIN_HEADERS;
    xfer x;
    memset(&x, 0, sizeof x);
    x.mode = MODE_DOC;
    x.max_body = o->max_fetch;
    env e = {o,
             t,
             o->origin_url ? o->origin_url : url,
             o->origin_headers,
             nh,
             extra,
             NULL,
             NULL,
             bytes,
             requests,
             0};
    char *final = NULL;
    net_status st = exchange(&e, url, &x, &final, err, errn);
    if (st != NET_OK) {
        xfer_reset(&x);
        return st;
    }
    gl_free(final);
    *resp = x.resp;
    const char *why = NULL;
    if (x.resp.status != 200) {
        http_error(&x, err, errn);
        xfer_reset(&x);
        return NET_E_IO;
    }
    if (x.resp.bad)
        why = x.resp.bad_why;
    else if (x.resp.encoded)
        why = "a compressed body (Content-Encoding)";
    else if (x.overflow)
        why = "a response larger than the fetch cap";
    if (why) {
        say(err, errn, "the server sent %s", why);
        xfer_reset(&x);
        return NET_E_IO;
    }
    if (!x.buf) {
        x.buf = gl_malloc(1);
        if (!x.buf)
            return NET_E_NOMEM;
    }
    x.buf[x.len] = '\0';
    *body = x.buf;
    *body_len = (size_t)x.len;
    return NET_OK;
}
