/* curl_dl.c - see curl_dl.h. libcurl's soname has been libcurl.so.4 since
 * 2006 (7.16); the URL API this layer uses needs 7.62 or later, which the
 * presence of curl_url_set checks. Loaded once per process, read-only after. */
#define _POSIX_C_SOURCE 200809L
#include "curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static curl_api api;
static const curl_api *loaded;
static char why[160];

/* dlsym's object pointer to a function pointer: copied, as POSIX allows. */
static int sym(void *lib, const char *name, void *fp, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p) {
        snprintf(why, sizeof why, "libcurl lacks %s (7.62 or later is needed)", name);
        return 0;
    }
    memcpy(fp, &p, size);
    return 1;
}

static void load(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, sizeof why, "libcurl could not be loaded (install libcurl4 to read URLs): %s",
                 dlerror());
        return;
    }
#define SYM(field, name) sym(lib, name, &api.field, sizeof api.field)
    int ok = SYM(global_init, "curl_global_init") && SYM(easy_init, "curl_easy_init") &&
             SYM(easy_setopt, "curl_easy_setopt") && SYM(easy_perform, "curl_easy_perform") &&
             SYM(easy_cleanup, "curl_easy_cleanup") && SYM(easy_reset, "curl_easy_reset") &&
             SYM(easy_strerror, "curl_easy_strerror") && SYM(slist_append, "curl_slist_append") &&
             SYM(slist_free_all, "curl_slist_free_all") && SYM(url, "curl_url") &&
             SYM(url_set, "curl_url_set") && SYM(url_get, "curl_url_get") &&
             SYM(url_cleanup, "curl_url_cleanup") && SYM(free, "curl_free");
#undef SYM
    if (!ok) {
        dlclose(lib);
        return;
    }
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(why, sizeof why, "libcurl could not be initialised");
        return; /* the library stays loaded: it may have half-initialised state */
    }
    loaded = &api;
}

const curl_api *curl_dl(char *err, size_t err_size)
{
    pthread_once(&once, load);
    if (!loaded && err && err_size)
        snprintf(err, err_size, "%s", why);
    return loaded;
}
