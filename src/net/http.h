/* http.h - the HTTP layer of URL inputs, below the library's range-reader
 * input: a transport that performs exactly one request (libcurl in
 * transport_curl.c, a scripted fake in the fuzz harness and the unit tests),
 * the parsing of a response's status line and headers (http_parse.c), and a
 * remote file read by byte ranges (fetch.c) with redirects, retries, origin-only
 * credentials and change detection. Everything a server sends is hostile:
 * lengths, ranges, sizes and URLs are checked before use, nothing is allocated
 * from a declared size beyond the caller's cap. Internal to the library. */
#ifndef GGUFLINT_NET_HTTP_H
#define GGUFLINT_NET_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- transport: one request, no redirect following ---- */

typedef struct net_request {
    const char *url;             /* http:// or https:// */
    const char *const *headers;  /* complete "Name: value" lines, NULL-terminated */
    uint32_t connect_timeout_ms; /* 0: the transport's default */
    uint32_t stall_timeout_ms;   /* no byte for this long ends the request; 0: default */
    uint64_t deadline_ms;        /* net_now_ms() past which the request ends; 0: none */
    const volatile int *cancel;  /* non-zero ends the request (NULL: none) */
} net_request;

/* Milliseconds of CLOCK_MONOTONIC: the clock of every deadline. */
uint64_t net_now_ms(void);

/* The transport calls these in order: every header line of the response (the
 * status line first, each line as received, CRLF included), then the body in
 * pieces. A callback returning false ends the transfer; the transport then
 * returns NET_T_ABORTED. */
typedef struct net_sink {
    bool (*header)(void *user, const char *line, size_t len);
    bool (*body)(void *user, const uint8_t *data, size_t len);
    void *user;
} net_sink;

typedef enum net_tstatus {
    NET_T_OK = 0,   /* the whole response was received */
    NET_T_ABORTED,  /* a sink callback asked to stop */
    NET_T_TIMEOUT,  /* connect or stall timeout, the deadline, or cancelled */
    NET_T_CONNECT,  /* could not resolve or connect */
    NET_T_TLS,      /* TLS handshake or certificate verification failed */
    NET_T_PARTIAL,  /* the connection closed before the announced body ended */
    NET_T_PROTOCOL, /* a malformed response (bad status line, bad chunking ...) */
    NET_T_NOMEM,
    NET_T_OTHER
} net_tstatus;

typedef struct net_transport {
    /* Perform one GET. `err` receives a one-line reason on failure. Must be
     * safe to call from several threads at once. */
    net_tstatus (*perform)(void *self, const net_request *rq, const net_sink *sink, char *err,
                           size_t err_size);
    void *self;
} net_transport;

/* The libcurl transport (transport_curl.c): thread-safe, TLS verification
 * always on, http and https only, never follows redirects. An instance keeps
 * idle connections for the requests made through it. NULL (reason in err)
 * when libcurl cannot be loaded or memory is short. */
struct net_curl;
struct net_curl *net_curl_new(char *err, size_t err_size);
const net_transport *net_curl_transport(struct net_curl *tr);
void net_curl_free(struct net_curl *tr);

/* ---- response parsing (http_parse.c) ---- */

enum { NET_ETAG_MAX = 256, NET_DATE_MAX = 64, NET_URL_MAX = 8192 };

typedef struct net_range {
    bool unsatisfied;     /* "bytes (star)/TOTAL" */
    uint64_t first, last; /* inclusive */
    bool total_known;
    uint64_t total;
} net_range;

typedef struct net_response {
    int status; /* 0 until a status line was read */
    bool bad;   /* a header that must not be trusted (see bad_why) */
    const char *bad_why;
    bool has_content_range;
    net_range cr;
    bool has_content_length;
    uint64_t content_length;
    bool encoded; /* a Content-Encoding other than identity */
    bool has_etag, weak_etag;
    char etag[NET_ETAG_MAX];
    char last_modified[NET_DATE_MAX];
    bool has_location;
    char location[NET_URL_MAX];
    bool has_next_link; /* Link: <...>; rel="next" */
    char next_link[NET_URL_MAX];
    long retry_after_s; /* -1 when absent or not delta-seconds */
    bool headers_done;
} net_response;

void net_response_init(net_response *r);
/* Feed one header line (status line included). A status line starts a new
 * response (1xx interim responses are discarded this way). */
void net_response_line(net_response *r, const char *line, size_t len);

/* Parse "bytes FIRST-LAST/TOTAL", "bytes FIRST-LAST/(star)" or "bytes (star)/TOTAL".
 * Decimal only, no overflow, FIRST <= LAST, LAST < TOTAL. */
bool net_parse_content_range(const char *v, size_t n, net_range *out);
/* Decimal u64 with no sign, no spaces, no overflow. */
bool net_parse_u64(const char *s, size_t n, uint64_t *out);

/* ---- URLs (url.c, over libcurl's URL API) ---- */

/* Resolve `ref` (absolute or relative, e.g. a Location header) against
 * `base`; only http and https results are accepted. Returns a malloc'd URL
 * or NULL (reason in err). */
char *net_url_resolve(const char *base, const char *ref, char *err, size_t err_size);
/* True when both URLs have the same scheme, host (case-insensitive) and port. */
bool net_same_origin(const char *a, const char *b);
/* True for an https:// URL (case-insensitive scheme). */
bool net_is_https(const char *url);

/* ---- a remote file read by ranges (fetch.c) ---- */

typedef struct net_options {
    uint64_t first_range;       /* bytes asked for by the first request */
    uint64_t max_fetch;         /* cap on one response body (metadata, API pages) */
    uint32_t retries;           /* extra attempts after 429 / 5xx */
    uint32_t backoff_ms;        /* first retry delay, doubled each time */
    uint32_t max_retry_after_s; /* a larger Retry-After is clamped to this */
    uint32_t max_redirects;
    uint32_t connect_timeout_ms;
    uint32_t stall_timeout_ms;
    uint32_t deadline_ms;       /* one request, retries and waits included; 0: none */
    uint32_t file_deadline_ms;  /* every request of one net_file; 0: none */
    const volatile int *cancel; /* set non-zero: every request ends soon (NULL: none) */
    /* Lines "Name: value" sent only to the origin (scheme, host and port) of
     * `origin_url` below, never to a redirect target elsewhere. */
    const char *const *origin_headers;
    size_t n_origin_headers;
    /* The origin those headers belong to; NULL: the URL opened. */
    const char *origin_url;
} net_options;

void net_options_default(net_options *o);

typedef struct net_file net_file;

typedef enum net_status {
    NET_OK = 0,
    NET_E_IO = 1, /* transport failure, HTTP error, bad or inconsistent response */
    NET_E_NOMEM = 3,
    NET_E_ARG = 5
} net_status;

/* Open `url`: the first request (a range of o->first_range bytes) learns the
 * total size, the validator (ETag or Last-Modified) and the effective URL
 * after redirects, and keeps the bytes it received. A server that ignores
 * Range is read up to o->max_fetch: a body that ends within the cap is the
 * whole file; otherwise only that prefix is kept (net_whole is false and
 * net_read_at past it fails clearly). On failure *out is NULL and `err` says why. */
net_status net_open(const char *url, const net_options *o, const net_transport *t, net_file **out,
                    char *err, size_t err_size);
/* Exactly `len` bytes at `off`, or a failure with its reason. Thread-safe. */
net_status net_read_at(net_file *f, uint64_t off, void *buf, size_t len, char *err,
                       size_t err_size);
uint64_t net_size(const net_file *f);
/* Bytes of [0, size) available without a request (the first response's body). */
uint64_t net_cached(const net_file *f);
/* False when the server ignores Range (only the cached prefix can be read). */
bool net_ranges(const net_file *f);
/* Body bytes received and requests made so far (redirects and retries included). */
void net_stats(net_file *f, uint64_t *bytes, uint64_t *requests);
void net_close(net_file *f);

/* One GET of a small document (an API page): the body (malloc'd, at most
 * o->max_fetch bytes, NUL-terminated) and the parsed response. Follows
 * redirects and retries like net_open. Adds to *bytes / *requests. */
net_status net_get(const char *url, const net_options *o, const net_transport *t,
                   const char *const *extra_headers, uint8_t **body, size_t *body_len,
                   net_response *resp, uint64_t *bytes, uint64_t *requests, char *err,
                   size_t err_size);

#endif
