/* main.c - the gguflint command line, built on the public API only.
 *
 *   gguflint [options] PATH...     lint files ('-' reads standard input)
 *   gguflint dump [--format F] PATH
 *   gguflint rules [--markdown]
 *   gguflint explain ID
 *
 * Exit status: 0 when nothing is at or above the fail level, 1 when something
 * is, 2 for usage, I/O or internal errors. */
#define _POSIX_C_SOURCE 200809L
#include "gguflint.h"

#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
    "usage: gguflint [options] PATH...      lint GGUF files ('-' = standard input)\n"
    "       gguflint dump [--format text|json] PATH\n"
    "       gguflint rules [--markdown]\n"
    "       gguflint explain ID|SLUG\n"
    "\n"
    "options:\n"
    "  --format FORMAT           text (default), json, sarif or github\n"
    "  --profile NAME            ggml (default: what llama.cpp accepts), spec (what\n"
    "                            docs/gguf.md allows), strict (canonical writer\n"
    "                            output), security (untrusted downloads)\n"
    "  --select LIST             check only these rules (ids, id prefixes like GG1,\n"
    "                            slugs, families container/kv/tensor/data, ALL)\n"
    "  --extend-select LIST      enable these rules in addition\n"
    "  --ignore LIST             do not check these rules\n"
    "  --severity RULE=LEVEL     override a rule's severity (error|warning|note|off)\n"
    "  --fail-on LEVEL           exit 1 when a finding is at or above LEVEL\n"
    "                            (error|warning|note; default error)\n"
    "  --exit-zero               exit 0 even when there are findings\n"
    "  --quiet                   no summary line\n"
    "  --deep                    also read data-section bytes (padding between tensors)\n"
    "  --max-string-len N        longest string accepted (default 1073741824)\n"
    "  --max-array-count N       most elements in one array (default 1073741824)\n"
    "  --max-kv-count N          most KVs declared (default 100000)\n"
    "  --max-tensor-count N      most tensors declared (default 10000000)\n"
    "  --max-depth N             deepest array nesting walked (default 4)\n"
    "  --max-findings-per-rule N findings kept per rule and file (default 100)\n"
    "  --stdin-max N             most bytes read from standard input (default 1 GiB)\n"
    "  --version, -h/--help\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "gguflint: ");
    const char *pct = strstr(fmt, "%s");
    fwrite(fmt, 1, pct ? (size_t)(pct - fmt) : strlen(fmt), stderr);
    if (pct) {
        gguflint_escape(gguflint_write_file, stderr, arg, strlen(arg));
        fputs(pct + 2, stderr);
    }
    fprintf(stderr, "\nTry 'gguflint --help'.\n");
    return EXIT_USAGE;
}

static bool parse_u64(const char *s, uint64_t *out)
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

static bool parse_format(const char *s, gguflint_format *f)
{
    if (strcmp(s, "text") == 0)
        *f = GGUFLINT_FORMAT_TEXT;
    else if (strcmp(s, "json") == 0)
        *f = GGUFLINT_FORMAT_JSON;
    else if (strcmp(s, "sarif") == 0)
        *f = GGUFLINT_FORMAT_SARIF;
    else if (strcmp(s, "github") == 0)
        *f = GGUFLINT_FORMAT_GITHUB;
    else
        return false;
    return true;
}

/* Print a path given on the command line safely (it may hold any bytes). */
static void err_path(const char *path)
{
    gguflint_escape(gguflint_write_file, stderr, path, strlen(path));
}

/* Files are mapped; if another process truncates one while it is read, the
 * read raises SIGBUS. The guard turns that into an I/O error for that file. */
static sigjmp_buf bus_jump;
static volatile sig_atomic_t bus_armed;

static void on_sigbus(int sig)
{
    (void)sig;
    if (bus_armed)
        siglongjmp(bus_jump, 1);
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

static void install_bus_guard(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* Open `path` (or stdin for "-") and run the checks; `then` (optional) runs
 * under the same guard, e.g. the dump that reads the mapping again. */
static int lint_one(gguflint_ctx *ctx, const char *path, uint64_t stdin_max,
                    void (*then)(gguflint_ctx *, void *), void *arg)
{
    if (sigsetjmp(bus_jump, 1) != 0) {
        bus_armed = 0;
        fprintf(stderr, "gguflint: ");
        err_path(path);
        fprintf(stderr, ": the file changed (shrank) while being read\n");
        return GGUFLINT_E_IO;
    }
    bus_armed = 1;
    int st = strcmp(path, "-") == 0 ? gguflint_read_stream(ctx, stdin, stdin_max)
                                    : gguflint_open_file(ctx, path);
    if (st == GGUFLINT_OK)
        st = gguflint_run(ctx);
    if (st == GGUFLINT_OK && then)
        then(ctx, arg);
    bus_armed = 0;
    return st;
}

static void report_status(const char *path, const gguflint_ctx *ctx, int st)
{
    fprintf(stderr, "gguflint: ");
    err_path(path);
    fprintf(stderr, ": %s", gguflint_strerror(st));
    const char *d = ctx ? gguflint_error_detail(ctx) : "";
    if (d && *d) {
        fprintf(stderr, ": ");
        gguflint_escape(gguflint_write_file, stderr, d, strlen(d));
    }
    fprintf(stderr, "\n");
}

static int cmd_rules(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--markdown") == 0) {
        gguflint_rules_markdown(gguflint_write_file, stdout);
        return EXIT_CLEAN;
    }
    if (argc > 1)
        return usage_error("rules: unknown argument '%s'", argv[1]);
    for (size_t i = 0; i < gguflint_rule_count(); i++) {
        const gguflint_rule_info *r = gguflint_rule(i);
        printf("%-6s %-28s %-10s %-8s %s\n", r->id, r->slug, r->family,
               gguflint_severity_name(r->default_severity), r->summary);
    }
    return EXIT_CLEAN;
}

static int cmd_explain(int argc, char **argv)
{
    if (argc != 2)
        return usage_error("%s", "explain takes one rule id or slug");
    int i = gguflint_rule_find(argv[1]);
    if (i < 0)
        return usage_error("unknown rule '%s'", argv[1]);
    gguflint_rule_explain((size_t)i, gguflint_write_file, stdout);
    return EXIT_CLEAN;
}

static void dump_then(gguflint_ctx *ctx, void *arg)
{
    gguflint_dump(ctx, *(gguflint_format *)arg, gguflint_write_file, stdout);
}

static int cmd_dump(int argc, char **argv)
{
    gguflint_format fmt = GGUFLINT_FORMAT_TEXT;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            if (!parse_format(argv[++i], &fmt))
                return usage_error("unknown format '%s'", argv[i]);
        } else if (strncmp(argv[i], "--format=", 9) == 0) {
            if (!parse_format(argv[i] + 9, &fmt))
                return usage_error("unknown format '%s'", argv[i] + 9);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage_error("dump: unknown option '%s'", argv[i]);
        } else if (path) {
            return usage_error("%s", "dump takes one path");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage_error("%s", "dump needs a path");
    if (fmt != GGUFLINT_FORMAT_TEXT && fmt != GGUFLINT_FORMAT_JSON)
        return usage_error("%s", "dump writes text or json");
    gguflint_ctx *ctx = gguflint_new(NULL);
    if (!ctx) {
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    int st = lint_one(ctx, path, 1ull << 30, dump_then, &fmt);
    if (st != GGUFLINT_OK) {
        report_status(path, ctx, st);
        gguflint_free(ctx);
        return EXIT_USAGE;
    }
    gguflint_free(ctx);
    return EXIT_CLEAN;
}

enum {
    OPT_FORMAT = 256, OPT_SELECT, OPT_EXTEND, OPT_IGNORE, OPT_SEVERITY, OPT_FAIL_ON,
    OPT_EXIT_ZERO, OPT_QUIET, OPT_DEEP, OPT_MAX_STRING, OPT_MAX_ARRAY, OPT_MAX_KV,
    OPT_MAX_TENSOR, OPT_MAX_DEPTH, OPT_MAX_FINDINGS, OPT_STDIN_MAX, OPT_VERSION, OPT_HELP,
    OPT_PROFILE
};

static const struct option long_opts[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"select", required_argument, NULL, OPT_SELECT},
    {"extend-select", required_argument, NULL, OPT_EXTEND},
    {"ignore", required_argument, NULL, OPT_IGNORE},
    {"severity", required_argument, NULL, OPT_SEVERITY},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    {"exit-zero", no_argument, NULL, OPT_EXIT_ZERO},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"deep", no_argument, NULL, OPT_DEEP},
    {"max-string-len", required_argument, NULL, OPT_MAX_STRING},
    {"max-array-count", required_argument, NULL, OPT_MAX_ARRAY},
    {"max-kv-count", required_argument, NULL, OPT_MAX_KV},
    {"max-tensor-count", required_argument, NULL, OPT_MAX_TENSOR},
    {"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
    {"max-findings-per-rule", required_argument, NULL, OPT_MAX_FINDINGS},
    {"stdin-max", required_argument, NULL, OPT_STDIN_MAX},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

typedef struct report_arg {
    gguflint_report *rep;
    const char *path;
} report_arg;

static void report_then(gguflint_ctx *ctx, void *arg)
{
    report_arg *ra = arg;
    gguflint_report_file(ra->rep, ra->path, ctx, GGUFLINT_OK);
}

static int cmd_lint(int argc, char **argv)
{
    gguflint_options opt;
    gguflint_options_default(&opt);
    gguflint_format fmt = GGUFLINT_FORMAT_TEXT;
    gguflint_severity fail_on = GGUFLINT_ERROR;
    bool exit_zero = false, quiet = false;
    uint64_t stdin_max = 1ull << 30;
    char bad[128];
    enum { MAX_RULE_OPTS = 64 };
    struct {
        int kind;
        char *arg;
    } rule_opts[MAX_RULE_OPTS];
    int n_rule_opts = 0;
    const char *profile = "ggml";
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "+hq", long_opts, NULL)) != -1) {
        uint64_t v = 0;
        switch (c) {
        case OPT_FORMAT:
            if (!parse_format(optarg, &fmt))
                return usage_error("unknown format '%s' (text, json, sarif, github)", optarg);
            break;
        /* Rule options are collected and applied after parsing, in a fixed
         * order whatever their order on the command line: --select, then
         * --extend-select, then --ignore, then --severity. */
        case OPT_SELECT:
        case OPT_EXTEND:
        case OPT_IGNORE:
        case OPT_SEVERITY:
            if (n_rule_opts == MAX_RULE_OPTS)
                return usage_error("too many rule options (at most %s)", "64");
            rule_opts[n_rule_opts].kind = c;
            rule_opts[n_rule_opts].arg = optarg;
            n_rule_opts++;
            break;
        case OPT_FAIL_ON: {
            int sev = gguflint_severity_parse(optarg);
            if (sev <= 0)
                return usage_error("--fail-on takes error, warning or note, got '%s'", optarg);
            fail_on = (gguflint_severity)sev;
            break;
        }
        case OPT_PROFILE: profile = optarg; break;
        case OPT_EXIT_ZERO: exit_zero = true; break;
        case 'q':
        case OPT_QUIET: quiet = true; break;
        case OPT_DEEP: opt.deep = true; break;
        case OPT_MAX_STRING:
        case OPT_MAX_ARRAY:
        case OPT_MAX_KV:
        case OPT_MAX_TENSOR:
        case OPT_MAX_DEPTH:
        case OPT_MAX_FINDINGS:
        case OPT_STDIN_MAX:
            if (!parse_u64(optarg, &v))
                return usage_error("expected a non-negative number, got '%s'", optarg);
            if ((c == OPT_MAX_DEPTH || c == OPT_MAX_FINDINGS) && (v == 0 || v > UINT32_MAX))
                return usage_error("value out of range: '%s'", optarg);
            if (c == OPT_MAX_STRING) opt.limits.max_string_len = v;
            if (c == OPT_MAX_ARRAY) opt.limits.max_array_count = v;
            if (c == OPT_MAX_KV) opt.limits.max_kv_count = v;
            if (c == OPT_MAX_TENSOR) opt.limits.max_tensor_count = v;
            if (c == OPT_MAX_DEPTH) opt.limits.max_depth = (uint32_t)v;
            if (c == OPT_MAX_FINDINGS) opt.limits.max_findings_per_rule = (uint32_t)v;
            if (c == OPT_STDIN_MAX) stdin_max = v;
            break;
        case OPT_VERSION: printf("gguflint %s\n", GGUFLINT_VERSION); return EXIT_CLEAN;
        case 'h':
        case OPT_HELP: fputs(usage_text, stdout); return EXIT_CLEAN;
        default:
            return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (gguflint_options_profile(&opt, profile) != GGUFLINT_OK)
        return usage_error("unknown profile '%s' (ggml, spec, strict, security)", profile);
    for (int pass = 0; pass < 4; pass++) {
        static const int order[4] = {OPT_SELECT, OPT_EXTEND, OPT_IGNORE, OPT_SEVERITY};
        bool cleared = false;
        for (int k = 0; k < n_rule_opts; k++) {
            if (rule_opts[k].kind != order[pass])
                continue;
            char *arg = rule_opts[k].arg;
            if (order[pass] == OPT_SEVERITY) {
                char *eq = strchr(arg, '=');
                if (!eq)
                    return usage_error("--severity takes RULE=LEVEL, got '%s'", arg);
                *eq = '\0';
                int sev = gguflint_severity_parse(eq + 1);
                if (sev < 0)
                    return usage_error("unknown severity '%s'", eq + 1);
                if (gguflint_options_set_severity(&opt, arg, (gguflint_severity)sev) !=
                    GGUFLINT_OK)
                    return usage_error("unknown rule '%s'", arg);
                continue;
            }
            if (order[pass] == OPT_SELECT && !cleared) {
                gguflint_options_clear(&opt);
                cleared = true;
            }
            if (gguflint_options_select(&opt, arg, order[pass] != OPT_IGNORE, bad, sizeof bad) !=
                GGUFLINT_OK)
                return usage_error("unknown rule, prefix or family '%s'", bad);
        }
    }
    if (optind >= argc)
        return usage_error("%s", "no input files");

    gguflint_report *rep = gguflint_report_new(fmt, gguflint_write_file, stdout);
    if (!rep) {
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    int rc = EXIT_CLEAN;
    bool io_error = false;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        gguflint_ctx *ctx = gguflint_new(&opt);
        if (!ctx) {
            fprintf(stderr, "gguflint: out of memory\n");
            io_error = true;
            break;
        }
        report_arg ra = {rep, path};
        int st = lint_one(ctx, path, stdin_max, report_then, &ra);
        if (st != GGUFLINT_OK) {
            report_status(path, ctx, st);
            gguflint_report_file(rep, path, ctx, st);
            io_error = true;
        } else if (gguflint_max_severity(ctx) >= fail_on) {
            rc = EXIT_FINDINGS;
        }
        gguflint_free(ctx);
    }
    gguflint_report_end(rep, !quiet);
    gguflint_report_free(rep);
    fflush(stdout);
    if (io_error)
        return EXIT_USAGE;
    return exit_zero ? EXIT_CLEAN : rc;
}

int main(int argc, char **argv)
{
    install_bus_guard();
    if (argc >= 2 && strcmp(argv[1], "dump") == 0)
        return cmd_dump(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "rules") == 0)
        return cmd_rules(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "explain") == 0)
        return cmd_explain(argc - 1, argv + 1);
    return cmd_lint(argc, argv);
}
