/* common.c - see common.h. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "gguflint: ");
    const char *pct = strstr(fmt, "%s");
    fwrite(fmt, 1, pct ? (size_t)(pct - fmt) : strlen(fmt), stderr);
    if (pct) {
        err_text(arg ? arg : "");
        fputs(pct + 2, stderr);
    }
    fprintf(stderr, "\nTry 'gguflint --help'.\n");
    return EXIT_USAGE;
}

bool parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool parse_bom_time(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    if (strcmp(s, "none") == 0) {
        *out = -1;
        return true;
    }
    if (strcmp(s, "now") == 0) {
        time_t t = time(NULL);
        *out = t < 0 ? 0 : (int64_t)t;
        return true;
    }
    int64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > INT64_C(253402300799) / 10)
            return false;
        v = v * 10 + (*p - '0');
    }
    if (v > INT64_C(253402300799))
        return false;
    *out = v;
    return true;
}

bool parse_format(const char *s, gguflint_format *f)
{
    static const struct {
        const char *name;
        gguflint_format fmt;
    } formats[] = {
        {"text", GGUFLINT_FORMAT_TEXT},         {"json", GGUFLINT_FORMAT_JSON},
        {"sarif", GGUFLINT_FORMAT_SARIF},       {"github", GGUFLINT_FORMAT_GITHUB},
        {"baseline", GGUFLINT_FORMAT_BASELINE}, {"cyclonedx", GGUFLINT_FORMAT_CYCLONEDX}};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(s, formats[i].name) == 0) {
            *f = formats[i].fmt;
            return true;
        }
    return false;
}

bool cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return true;
    return false;
}

/* Whether arg is one of the options that take a value (as a separate word). */
static bool takes_value(const char *arg, const char *const *with_value)
{
    for (size_t k = 0; with_value[k]; k++)
        if (strcmp(arg, with_value[k]) == 0)
            return true;
    return false;
}

int cli_options_first(int *argcp, char **argv, const char *const *with_value)
{
    int argc = *argcp;
    /* a stable partition, in place: options (with their values) keep their
     * order, then "--" when there is one, then the operands in theirs */
    char **tmp = malloc((size_t)(argc > 0 ? argc : 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    int n = 0, end = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            end = i;
            break;
        }
    for (int i = 1; i < end; i++) {
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            continue;
        tmp[n++] = argv[i];
        if (takes_value(argv[i], with_value) && i + 1 < end)
            tmp[n++] = argv[++i];
    }
    int first = n + 1;
    for (int i = 1; i < end; i++) {
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            tmp[n++] = argv[i];
        else if (takes_value(argv[i], with_value) && i + 1 < end)
            i++;
    }
    for (int i = end + (end < argc); i < argc; i++) /* after "--": operands, "--" dropped */
        tmp[n++] = argv[i];
    memcpy(argv + 1, tmp, (size_t)n * sizeof *tmp);
    argv[1 + n] = NULL; /* within the original argv: argv[argc] is NULL */
    *argcp = 1 + n;
    free(tmp);
    return first;
}

/* gguflint_path_normalize into a malloc'd string, or NULL. */
char *cli_normalized(const char *path, const char *base)
{
    size_t n = gguflint_path_normalize(path, base, NULL, 0);
    char *out = malloc(n + 1);
    if (out)
        gguflint_path_normalize(path, base, out, n + 1);
    return out;
}

void err_text(const char *s)
{
    gguflint_escape(gguflint_write_file, stderr, s, strlen(s));
}

void path_error(const char *path, const char *what)
{
    fprintf(stderr, "gguflint: ");
    err_text(path);
    fprintf(stderr, ": %s\n", what);
}

gguflint_ctx *cli_new_ctx(void)
{
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx)
        fprintf(stderr, "gguflint: out of memory\n");
    return ctx;
}

void report_status(const char *path, const gguflint_ctx *ctx, int st)
{
    if (st < 0) {
        path_error(path, "the file changed (shrank) while being read");
        return;
    }
    fprintf(stderr, "gguflint: ");
    err_text(path);
    fprintf(stderr, ": %s", gguflint_strerror(st));
    const char *d = ctx ? gguflint_error_detail(ctx) : "";
    if (d && *d) {
        fprintf(stderr, ": ");
        err_text(d);
    }
    fprintf(stderr, "\n");
}

/* Files are mapped; if another process truncates one while it is read, the
 * read raises SIGBUS in the reading thread. Each thread keeps its own jump
 * buffer, armed only while it runs the library on a file. */
static _Thread_local sigjmp_buf bus_jump;
static _Thread_local volatile sig_atomic_t bus_armed;

static void on_sigbus(int sig)
{
    if (bus_armed)
        siglongjmp(bus_jump, 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

void install_bus_guard(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static const gguflint_fetch_options *fetch_opts;

void cli_set_fetch(const gguflint_fetch_options *fo)
{
    fetch_opts = fo;
}

/* Seconds (a decimal number, fractions allowed) as milliseconds, >= 1. */
static bool parse_seconds(const char *s, uint64_t *ms)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v > 0) || v > 86400.0)
        return false;
    *ms = (uint64_t)(v * 1000.0 + 0.5);
    if (*ms == 0)
        *ms = 1;
    return true;
}

int cli_fetch_option(gguflint_fetch_options **fo, const char *name, const char *value)
{
    if (!*fo && !(*fo = gguflint_fetch_options_new())) {
        if (!gguflint_url_supported())
            return usage_error("--%s: this gguflint was built without URL support", name);
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    uint64_t v;
    int st;
    if (strcmp(name, "header") == 0) {
        st = gguflint_fetch_add_header(*fo, value);
        if (st != GGUFLINT_OK)
            return usage_error("--header takes 'Name: value' in printable ASCII (at most 32), "
                               "got '%s'",
                               value);
        return EXIT_CLEAN;
    }
    if (strcmp(name, "timeout") == 0 || strcmp(name, "connect-timeout") == 0 ||
        strcmp(name, "deadline") == 0 || strcmp(name, "file-deadline") == 0) {
        if (!parse_seconds(value, &v))
            return usage_error("bad number of seconds '%s'", value);
        st = gguflint_fetch_set(*fo,
                                name[0] == 't'   ? GGUFLINT_FETCH_TIMEOUT_MS
                                : name[0] == 'c' ? GGUFLINT_FETCH_CONNECT_TIMEOUT_MS
                                : name[0] == 'd' ? GGUFLINT_FETCH_DEADLINE_MS
                                                 : GGUFLINT_FETCH_FILE_DEADLINE_MS,
                                v);
    } else {
        gguflint_fetch_setting what = GGUFLINT_FETCH_FIRST_RANGE;
        if (strcmp(name, "max-fetch") == 0)
            what = GGUFLINT_FETCH_MAX_BYTES;
        else if (strcmp(name, "retries") == 0)
            what = GGUFLINT_FETCH_RETRIES;
        st = parse_u64(value, &v) ? gguflint_fetch_set(*fo, what, v) : GGUFLINT_E_ARG;
    }
    if (st != GGUFLINT_OK)
        return usage_error("bad or out-of-range value '%s'", value);
    return EXIT_CLEAN;
}

int guarded_run(gguflint_ctx *ctx, const char *path, uint64_t stdin_max,
                void (*then)(gguflint_ctx *, void *), void *arg)
{
    if (sigsetjmp(bus_jump, 1) != 0) {
        bus_armed = 0;
        return -1; /* the caller reports "changed while being read" */
    }
    bus_armed = 1;
    int st = strcmp(path, "-") == 0         ? gguflint_read_stream(ctx, stdin, stdin_max)
             : gguflint_url_kind(path) == 1 ? gguflint_open_url(ctx, path, fetch_opts)
                                            : gguflint_open_file(ctx, path);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st == GGUFLINT_OK && then)
        then(ctx, arg);
    bus_armed = 0;
    return st;
}

int guarded_call(int (*fn)(void *), void *arg)
{
    if (sigsetjmp(bus_jump, 1) != 0) {
        bus_armed = 0;
        return -1;
    }
    bus_armed = 1;
    int r = fn(arg);
    bus_armed = 0;
    return r;
}

bool cli_stack_too_small(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
           rl.rlim_cur < CLI_STACK_BYTES;
}

typedef struct big_call {
    int (*fn)(int, char **);
    int argc;
    char **argv;
    int rc;
} big_call;

static void *big_main(void *arg)
{
    big_call *c = arg;
    c->rc = c->fn(c->argc, c->argv);
    return NULL;
}

int cli_run_on_big_stack(int (*fn)(int, char **), int argc, char **argv)
{
    big_call c = {fn, argc, argv, EXIT_USAGE};
    pthread_attr_t attr;
    pthread_t t;
    if (!cli_stack_too_small() || pthread_attr_init(&attr) != 0)
        return fn(argc, argv);
    bool ok = pthread_attr_setstacksize(&attr, CLI_STACK_BYTES) == 0 &&
              pthread_create(&t, &attr, big_main, &c) == 0;
    pthread_attr_destroy(&attr);
    if (!ok)
        return fn(argc, argv); /* no memory for it: try on this stack */
    pthread_join(t, NULL);
    return c.rc;
}

int cli_each_path(int first, int argc, char **argv, bool banners,
                  int (*one)(const char *path, void *arg), void *arg)
{
    int rc = EXIT_CLEAN;
    for (int i = first; i < argc; i++) {
        if (banners && argc - first > 1) {
            printf("%s==> ", i > first ? "\n" : "");
            gguflint_escape(gguflint_write_file, stdout, argv[i], strlen(argv[i]));
            printf(" <==\n");
        }
        fflush(stdout);
        int r = one(argv[i], arg);
        if (r > rc)
            rc = r;
    }
    return rc;
}
