/* transport_curl.c - the HTTP transport over libcurl: one GET per call, no
 * redirect following (fetch.c decides where to go and what to send there),
 * http and https only, TLS peer and host verification always on, no content
 * decoding, a connect timeout and a stall timeout (no byte for N ms). An
 * instance keeps a few idle easy handles so consecutive requests of one file
 * reuse their connection; it is safe to use from several threads. */
#define _POSIX_C_SOURCE 200809L
#include "curl_dl.h"
#include "common/alloc.h"
#include "http.h"

#include "core/limits.h"
#include "gguflint.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { IDLE_HANDLES = URL_IDLE_HANDLES };

struct net_curl {
    net_transport t;
    const curl_api *c;
    pthread_mutex_t mu;
    CURL *idle[IDLE_HANDLES];
    int n_idle;
};

typedef struct call {
    const net_sink *sink;
    bool aborted, stalled;
    uint32_t stall_ms;
    curl_off_t last_now;     /* bytes seen at the last progress */
    struct timespec last_at; /* when they changed */
    uint64_t deadline_ms;    /* net_now_ms() at which the request ends; 0: none */
    const volatile int *cancel;
    bool late, cancelled;
    bool body_seen; /* a body byte arrived: the headers are over */
} call;

static size_t on_header(char *p, size_t size, size_t n, void *user)
{
    call *c = user;
    size_t len = size * n;
    if (!c->sink->header(c->sink->user, p, len)) {
        c->aborted = true;
        return 0;
    }
    return len;
}

static size_t on_write(char *p, size_t size, size_t n, void *user)
{
    call *c = user;
    size_t len = size * n;
    c->body_seen = true;
    if (!c->sink->body(c->sink->user, (const uint8_t *)p, len)) {
        c->aborted = true;
        return 0;
    }
    return len;
}

static uint64_t ms_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t ms = (int64_t)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
    return ms > 0 ? (uint64_t)ms : 0;
}

/* The stall timeout: no byte in either direction for stall_ms ends the call.
 * libcurl calls this at least about once a second while idle. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal;
    (void)ultotal;
    call *c = user;
    if (c->cancel && (*c->cancel != 0)) {
        c->cancelled = true;
        return 1;
    }
    if (c->deadline_ms && net_now_ms() >= c->deadline_ms) {
        c->late = true;
        return 1;
    }
    curl_off_t now = dlnow + ulnow;
    if (now != c->last_now) {
        c->last_now = now;
        clock_gettime(CLOCK_MONOTONIC, &c->last_at);
        return 0;
    }
    if (ms_since(&c->last_at) >= c->stall_ms) {
        c->stalled = true;
        return 1;
    }
    return 0;
}

/* libcurl ends a response whose header line goes on past its limit with
 * CURLE_TOO_LARGE (8.6 on) or, before, CURLE_OUT_OF_MEMORY: while the headers
 * are still coming that is the server's endless line, not memory. */
static bool header_too_long(CURLcode rc, const call *c)
{
    if ((int)rc == 100) /* CURLE_TOO_LARGE */
        return true;
    return rc == CURLE_OUT_OF_MEMORY && !c->body_seen;
}

static net_tstatus map_code(CURLcode rc)
{
    switch (rc) {
    case CURLE_OK: return NET_T_OK;
    case CURLE_OPERATION_TIMEDOUT: return NET_T_TIMEOUT;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT: return NET_T_CONNECT;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED: return NET_T_TLS;
    case CURLE_PARTIAL_FILE: return NET_T_PARTIAL;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return NET_T_PROTOCOL;
    case CURLE_OUT_OF_MEMORY: return NET_T_NOMEM;
    default: return NET_T_OTHER;
    }
}

static CURL *take(struct net_curl *tr)
{
    CURL *h = NULL;
    pthread_mutex_lock(&tr->mu);
    if (tr->n_idle > 0)
        h = tr->idle[--tr->n_idle];
    pthread_mutex_unlock(&tr->mu);
    if (h)
        tr->c->easy_reset(h); /* options back to defaults; connections are kept */
    else
        h = tr->c->easy_init();
    return h;
}

static void give_back(struct net_curl *tr, CURL *h)
{
    pthread_mutex_lock(&tr->mu);
    if (tr->n_idle < IDLE_HANDLES) {
        tr->idle[tr->n_idle++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&tr->mu);
    if (h)
        tr->c->easy_cleanup(h);
}

static bool set_options(const curl_api *api, CURL *h, const net_request *rq, call *c,
                        struct curl_slist *hl, char *errbuf)
{
    long connect_ms = rq->connect_timeout_ms ? (long)rq->connect_timeout_ms
                                             : LIMIT_DEFAULT_FETCH_CONNECT_TIMEOUT_S * 1000L;
    bool ok = true;
#define SET(opt, val) ok = ok && api->easy_setopt(h, opt, val) == CURLE_OK
    SET(CURLOPT_URL, rq->url);
    SET(CURLOPT_HTTPGET, 1L);
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_FOLLOWLOCATION, 0L);
    /* http and https only: the string form since 7.85, the bitmask before */
    if (ok && api->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK)
        SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    SET(CURLOPT_HTTP_CONTENT_DECODING, 0L);
    SET(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
    SET(CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    SET(CURLOPT_TCP_KEEPALIVE, 1L);
    SET(CURLOPT_BUFFERSIZE, 256L * 1024L);
    SET(CURLOPT_USERAGENT, "gguflint/" GGUFLINT_VERSION);
    SET(CURLOPT_HTTPHEADER, hl);
    SET(CURLOPT_HEADERFUNCTION, on_header);
    SET(CURLOPT_HEADERDATA, (void *)c);
    SET(CURLOPT_WRITEFUNCTION, on_write);
    SET(CURLOPT_WRITEDATA, (void *)c);
    SET(CURLOPT_NOPROGRESS, 0L);
    SET(CURLOPT_XFERINFOFUNCTION, on_progress);
    SET(CURLOPT_XFERINFODATA, (void *)c);
    SET(CURLOPT_ERRORBUFFER, errbuf);
#undef SET
    return ok;
}

static net_tstatus perform(void *self, const net_request *rq, const net_sink *sink, char *err,
                           size_t err_size)
{
    struct net_curl *tr = self;
    const curl_api *api = tr->c;
    struct curl_slist *hl = NULL;
    for (size_t i = 0; rq->headers && rq->headers[i]; i++) {
        struct curl_slist *n = api->slist_append(hl, rq->headers[i]);
        if (!n) {
            api->slist_free_all(hl);
            return NET_T_NOMEM;
        }
        hl = n;
    }
    CURL *h = take(tr);
    if (!h) {
        api->slist_free_all(hl);
        return NET_T_NOMEM;
    }
    call c = {sink,
              false,
              false,
              rq->stall_timeout_ms ? rq->stall_timeout_ms : LIMIT_DEFAULT_FETCH_TIMEOUT_S * 1000u,
              -1,
              {0, 0},
              rq->deadline_ms,
              rq->cancel,
              false,
              false,
              false};
    clock_gettime(CLOCK_MONOTONIC, &c.last_at);
    char errbuf[CURL_ERROR_SIZE] = "";
    net_tstatus st;
    if (!set_options(api, h, rq, &c, hl, errbuf)) {
        snprintf(err, err_size, "libcurl refused an option");
        st = NET_T_OTHER;
    } else {
        CURLcode rc = api->easy_perform(h);
        if (c.aborted)
            st = NET_T_ABORTED;
        else if (c.cancelled) {
            st = NET_T_TIMEOUT;
            snprintf(err, err_size, "cancelled");
        } else if (c.late) {
            st = NET_T_TIMEOUT;
            snprintf(err, err_size, "the deadline passed (--deadline)");
        } else if (c.stalled) {
            st = NET_T_TIMEOUT;
            snprintf(err, err_size, "no data for %u ms", (unsigned)c.stall_ms);
        } else {
            st = map_code(rc);
            if (st != NET_T_OK && header_too_long(rc, &c)) {
                st = NET_T_PROTOCOL;
                snprintf(err, err_size,
                         "a response header line longer than libcurl takes (about 100 KB)");
            } else if (st != NET_T_OK) {
                snprintf(err, err_size, "%s", errbuf[0] ? errbuf : api->easy_strerror(rc));
            }
        }
    }
    /* the error buffer is on this stack frame: detach it before reuse */
    api->easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    give_back(tr, h);
    api->slist_free_all(hl);
    return st;
}

struct net_curl *net_curl_new(char *err, size_t err_size)
{
    const curl_api *c = curl_dl(err, err_size);
    if (!c)
        return NULL;
    struct net_curl *tr = gl_calloc(1, sizeof *tr);
    if (!tr) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    tr->c = c;
    pthread_mutex_init(&tr->mu, NULL);
    tr->t.perform = perform;
    tr->t.self = tr;
    return tr;
}

const net_transport *net_curl_transport(struct net_curl *tr)
{
    return tr ? &tr->t : NULL;
}

void net_curl_free(struct net_curl *tr)
{
    if (!tr)
        return;
    for (int i = 0; i < tr->n_idle; i++)
        tr->c->easy_cleanup(tr->idle[i]);
    pthread_mutex_destroy(&tr->mu);
    gl_free(tr);
}
