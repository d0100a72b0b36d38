/* curl_dl.h - libcurl, loaded when the first URL is opened (curl_dl.c). The
 * library has no link-time dependency on libcurl: a program that never opens
 * a URL never loads it (or the ~30 libraries it pulls in), so the CLI starts
 * as fast as before URL support. The header's own prototypes give each
 * pointer its exact type. Internal to the library. */
#ifndef GGUFLINT_NET_CURL_DL_H
#define GGUFLINT_NET_CURL_DL_H

/* the bitmask CURLOPT_PROTOCOLS is the fallback for libcurl before 7.85 */
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>
#include <stddef.h>

typedef struct curl_api {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_reset) *easy_reset;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
    __typeof__(curl_url) *url;
    __typeof__(curl_url_set) *url_set;
    __typeof__(curl_url_get) *url_get;
    __typeof__(curl_url_cleanup) *url_cleanup;
    __typeof__(curl_free) *free;
} curl_api;

/* The loaded and initialised libcurl (curl_global_init done once), or NULL
 * with the reason in err when it cannot be loaded. Thread-safe. */
const curl_api *curl_dl(char *err, size_t err_size);

#endif
