/* script.h - the scripted transport (transport_script.c): replays responses
 * written in a small text-and-bytes format, records the requests made, and
 * flags any secret header sent outside its origin. For the fetch fuzz harness
 * and the unit tests. Internal to the library. */
#ifndef GGUFLINT_NET_SCRIPT_H
#define GGUFLINT_NET_SCRIPT_H

#include "http.h"

enum { NET_SCRIPT_MAX_REQUESTS = 64 };

typedef struct net_script_request {
    char url[512];
    char headers[1024]; /* the header lines sent, each followed by '\n' */
} net_script_request;

typedef struct net_script {
    net_transport t; /* pass &s->t to the fetch layer */
    const uint8_t *data, *pos;
    size_t len;
    /* the credential rule: `secret` (a whole header line) may go only to
     * `secret_origin`; `leaked` is set when it went anywhere else */
    const char *secret, *secret_origin;
    bool leaked;
    size_t performed;                                     /* requests made */
    net_script_request requests[NET_SCRIPT_MAX_REQUESTS]; /* the first ones */
    size_t n_requests;
} net_script;

/* Replay `data` (borrowed, must outlive the script). Not thread-safe. */
void net_script_init(net_script *s, const uint8_t *data, size_t len);

#endif
