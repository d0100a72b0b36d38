/* transport_script.c - a transport that replays scripted responses instead
 * of talking to a network: the fetch harness feeds fuzzer bytes through it and
 * the unit tests script exact server behaviour with it. It also records each
 * request (URL and header lines) and checks, on every request, the
 * credential rule: a header line marked secret may only ever be sent to the
 * secret's origin.
 *
 * Script: responses one after another, each
 *     header lines (the status line first), an empty line, the body,
 *     (an empty line followed by "HTTP/" continues the headers, as after an
 *     interim 1xx response)
 *     then "\n==" and one control byte and "\n"
 * The control byte's low 3 bits pick the transport's result (0 complete,
 * 1 timeout, 2 connect failure, 3 TLS failure, 4 connection closed early,
 * 5 malformed response, other: complete) and its next 3 bits the size of the
 * body slices handed to the sink (1 << (2 * k) bytes, k = 0 gives one piece). A
 * missing final separator ends the last body at the end of the script. When
 * the script is used up, a request fails to connect. */
#define _POSIX_C_SOURCE 200809L
#include "script.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next "\n==" CTL "\n" separator at or after p, or NULL. */
static const uint8_t *find_sep(const uint8_t *p, const uint8_t *end)
{
    for (; end - p >= 5; p++)
        if (p[0] == '\n' && p[1] == '=' && p[2] == '=' && p[4] == '\n')
            return p;
    return NULL;
}

static bool record(net_script *s, const net_request *rq)
{
    if (s->n_requests == NET_SCRIPT_MAX_REQUESTS)
        return true; /* keep running, stop recording */
    net_script_request *r = &s->requests[s->n_requests];
    snprintf(r->url, sizeof r->url, "%s", rq->url);
    r->headers[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; rq->headers && rq->headers[i]; i++) {
        int n = snprintf(r->headers + used, sizeof r->headers - used, "%s\n", rq->headers[i]);
        if (n < 0 || (size_t)n >= sizeof r->headers - used)
            break;
        used += (size_t)n;
    }
    s->n_requests++;
    return true;
}

/* The credential rule, checked on every request the fetch layer makes. */
static void check_secret(net_script *s, const net_request *rq)
{
    if (!s->secret || !s->secret_origin)
        return;
    for (size_t i = 0; rq->headers && rq->headers[i]; i++)
        if (strcmp(rq->headers[i], s->secret) == 0 && !net_same_origin(rq->url, s->secret_origin))
            s->leaked = true;
}

static net_tstatus perform(void *self, const net_request *rq, const net_sink *sink, char *err,
                           size_t err_size)
{
    net_script *s = self;
    record(s, rq);
    check_secret(s, rq);
    s->performed++;
    if ((rq->cancel && (*rq->cancel != 0)) ||
        (rq->deadline_ms && net_now_ms() >= rq->deadline_ms)) {
        snprintf(err, err_size, "%s",
                 rq->cancel && (*rq->cancel != 0) ? "cancelled" : "the deadline passed");
        return NET_T_TIMEOUT;
    }
    const uint8_t *p = s->pos, *end = s->data + s->len;
    if (!p || p >= end) {
        snprintf(err, err_size, "the script has no more responses");
        return NET_T_CONNECT;
    }
    const uint8_t *sep = find_sep(p, end);
    const uint8_t *rend = sep ? sep : end;
    uint8_t ctl = sep ? sep[3] : 0;
    s->pos = sep ? sep + 5 : end;

    /* header lines up to and including the empty line */
    const uint8_t *q = p;
    bool body_started = false;
    while (q < rend) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(rend - q));
        const uint8_t *le = nl ? nl + 1 : rend;
        bool empty = (le - q == 1) || (le - q == 2 && q[0] == '\r');
        if (!sink->header(sink->user, (const char *)q, (size_t)(le - q)))
            return NET_T_ABORTED;
        q = le;
        /* an interim (1xx) response is followed by the final one's headers */
        if (empty && !(rend - q >= 5 && memcmp(q, "HTTP/", 5) == 0)) {
            body_started = true;
            break;
        }
    }
    unsigned k = (ctl >> 3) & 7;
    size_t slice = k ? (size_t)1 << (2 * k) : (size_t)-1;
    while (body_started && q < rend) {
        size_t n = (size_t)(rend - q) < slice ? (size_t)(rend - q) : slice;
        if (!sink->body(sink->user, q, n))
            return NET_T_ABORTED;
        q += n;
    }
    switch (ctl & 7) {
    case 1: snprintf(err, err_size, "scripted timeout"); return NET_T_TIMEOUT;
    case 2: snprintf(err, err_size, "scripted connect failure"); return NET_T_CONNECT;
    case 3: snprintf(err, err_size, "scripted TLS failure"); return NET_T_TLS;
    case 4: snprintf(err, err_size, "scripted early close"); return NET_T_PARTIAL;
    case 5: snprintf(err, err_size, "scripted protocol error"); return NET_T_PROTOCOL;
    default: return NET_T_OK;
    }
}

void net_script_init(net_script *s, const uint8_t *data, size_t len)
{
    memset(s, 0, sizeof *s);
    s->data = data;
    s->len = len;
    s->pos = data;
    s->t.perform = perform;
    s->t.self = s;
}
