/* lint_cmd.c - the lint command: options (from the command line over the
 * configuration file, when that file is trusted), the list of inputs (-r,
 * files.c; URLs), linting on -j threads with output in input order
 * (runner.c), the per-path ignores of the configuration file, and the
 * reports, which name the configuration used. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "common.h"
#include "config.h"
#include "files.h"
#include "runner.h"

#include "core/limits.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_FORMAT = 256,
    OPT_SELECT,
    OPT_EXTEND,
    OPT_IGNORE,
    OPT_SEVERITY,
    OPT_FAIL_ON,
    OPT_EXIT_ZERO,
    OPT_QUIET,
    OPT_DEEP,
    OPT_MAX_STRING,
    OPT_MAX_ARRAY,
    OPT_MAX_KV,
    OPT_MAX_TENSOR,
    OPT_MAX_DEPTH,
    OPT_MAX_FINDINGS,
    OPT_STDIN_MAX,
    OPT_VERSION,
    OPT_HELP,
    OPT_PROFILE,
    OPT_CONFIG,
    OPT_ISOLATED,
    OPT_RECURSIVE,
    OPT_JOBS,
    OPT_HEADER_ONLY,
    OPT_FETCH,
    OPT_OUTPUT_FILE,
    OPT_COLOR,
    OPT_STATISTICS,
    OPT_INCLUDE,
    OPT_EXCLUDE,
    OPT_BASE,
    OPT_ALLOW_UNREADABLE
};

static const struct option long_opts[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output-file", required_argument, NULL, OPT_OUTPUT_FILE},
    {"color", required_argument, NULL, OPT_COLOR},
    {"statistics", no_argument, NULL, OPT_STATISTICS},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"select", required_argument, NULL, OPT_SELECT},
    {"extend-select", required_argument, NULL, OPT_EXTEND},
    {"ignore", required_argument, NULL, OPT_IGNORE},
    {"severity", required_argument, NULL, OPT_SEVERITY},
    {"fail-on", required_argument, NULL, OPT_FAIL_ON},
    {"exit-zero", no_argument, NULL, OPT_EXIT_ZERO},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"deep", no_argument, NULL, OPT_DEEP},
    {"header-only", no_argument, NULL, OPT_HEADER_ONLY},
    {"base", required_argument, NULL, OPT_BASE},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"isolated", no_argument, NULL, OPT_ISOLATED},
    {"recursive", no_argument, NULL, OPT_RECURSIVE},
    {"include", required_argument, NULL, OPT_INCLUDE},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"allow-unreadable", no_argument, NULL, OPT_ALLOW_UNREADABLE},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"max-string-len", required_argument, NULL, OPT_MAX_STRING},
    {"max-array-count", required_argument, NULL, OPT_MAX_ARRAY},
    {"max-kv-count", required_argument, NULL, OPT_MAX_KV},
    {"max-tensor-count", required_argument, NULL, OPT_MAX_TENSOR},
    {"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
    {"max-findings-per-rule", required_argument, NULL, OPT_MAX_FINDINGS},
    {"stdin-max", required_argument, NULL, OPT_STDIN_MAX},
    {"max-fetch", required_argument, NULL, OPT_FETCH},
    {"fetch-first-range", required_argument, NULL, OPT_FETCH},
    {"header", required_argument, NULL, OPT_FETCH},
    {"timeout", required_argument, NULL, OPT_FETCH},
    {"connect-timeout", required_argument, NULL, OPT_FETCH},
    {"retries", required_argument, NULL, OPT_FETCH},
    {"deadline", required_argument, NULL, OPT_FETCH},
    {"file-deadline", required_argument, NULL, OPT_FETCH},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* ---- settings: defaults, then the config file, then the command line ---- */

typedef struct rule_opt {
    int kind;  /* OPT_SELECT, OPT_EXTEND, OPT_IGNORE, OPT_SEVERITY */
    char *arg; /* RULES, or RULE=LEVEL for severities */
    bool from_config;
} rule_opt;

/* One report of the run: a format and where it goes (NULL: standard output).
 * One lint pass feeds every output, so text on the terminal and SARIF in a
 * file cost one run. */
typedef struct output {
    gguflint_format fmt;
    const char *file;
    FILE *fp;
    gguflint_report *rep;
} output;

enum { COLOR_AUTO = -1, COLOR_NEVER = 0, COLOR_ALWAYS = 1 };

typedef struct settings {
    gguflint_options *opt;
    gguflint_format fmt; /* the config file's format: the default output's */
    output out[CLI_MAX_OUTPUTS];
    int n_out;
    int color;
    bool statistics;
    gguflint_severity fail_on;
    bool exit_zero, quiet, recursive;
    uint64_t stdin_max;
    unsigned jobs;
    const char *profile;
    gguflint_options *probe; /* scratch: checking and applying ignore lists */
    rule_opt rules[CLI_MAX_RULE_OPTS];
    int n_rules;
    char sev_buf[CONFIG_MAX_ITEMS][160]; /* RULE=LEVEL strings built from [severity] */
    const char *include[CLI_MAX_RULE_OPTS], *exclude[CLI_MAX_RULE_OPTS]; /* -r globs */
    size_t n_include, n_exclude;
    const char *base_path; /* --base MODEL */
    bool allow_unreadable; /* -r: what the walk cannot read is a warning, not an error */
} settings;

static int add_rule_opt(settings *s, int kind, char *arg, bool from_config)
{
    if (s->n_rules == CLI_MAX_RULE_OPTS)
        return usage_error("too many rule options (at most %s)",
                           GGUFLINT_STRINGIFY(CLI_MAX_RULE_OPTS));
    s->rules[s->n_rules++] = (rule_opt){kind, arg, from_config};
    return EXIT_CLEAN;
}

static bool set(settings *s, gguflint_limit limit, uint64_t v)
{
    return gguflint_options_set_limit(s->opt, limit, v) == GGUFLINT_OK;
}

/* Apply one limit option by name; returns false when the value is bad. */
static bool set_limit(settings *s, int which, const char *value)
{
    uint64_t v;
    if (!parse_u64(value, &v))
        return false;
    if ((which == OPT_MAX_DEPTH || which == OPT_MAX_FINDINGS) && v == 0)
        return false;
    switch (which) {
    case OPT_MAX_STRING: return set(s, GGUFLINT_LIMIT_STRING_LEN, v);
    case OPT_MAX_ARRAY: return set(s, GGUFLINT_LIMIT_ARRAY_COUNT, v);
    case OPT_MAX_KV: return set(s, GGUFLINT_LIMIT_KV_COUNT, v);
    case OPT_MAX_TENSOR: return set(s, GGUFLINT_LIMIT_TENSOR_COUNT, v);
    case OPT_MAX_DEPTH: return set(s, GGUFLINT_LIMIT_DEPTH, v);
    case OPT_MAX_FINDINGS: return set(s, GGUFLINT_LIMIT_FINDINGS_PER_RULE, v);
    case OPT_STDIN_MAX: s->stdin_max = v; return true;
    default: return false;
    }
}

static int opt_by_name(const char *name)
{
    for (size_t i = 0; long_opts[i].name; i++)
        if (strcmp(long_opts[i].name, name) == 0)
            return long_opts[i].val;
    return -1;
}

static bool parse_bool(const char *v, bool *out)
{
    if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0)
        *out = true;
    else if (strcmp(v, "false") == 0 || strcmp(v, "no") == 0 || strcmp(v, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

static int config_error(const config *cfg, const char *what)
{
    fprintf(stderr, "gguflint: ");
    err_text(cfg->path ? cfg->path : "config");
    fprintf(stderr, ": ");
    err_text(what);
    fprintf(stderr, "\n");
    return EXIT_USAGE;
}

/* The config file's values become the defaults the command line overrides. */
static int apply_config(settings *s, config *cfg)
{
    for (size_t i = 0; i < cfg->n_main; i++) {
        const char *k = cfg->main[i].key;
        char *v = cfg->main[i].value;
        char msg[256];
        snprintf(msg, sizeof msg, "line %d: bad value for '%s'", cfg->main[i].line, k);
        bool b;
        if (strcmp(k, "profile") == 0) {
            s->profile = v;
        } else if (strcmp(k, "format") == 0) {
            if (!parse_format(v, &s->fmt))
                return config_error(cfg, msg);
        } else if (strcmp(k, "fail-on") == 0) {
            int sev = gguflint_severity_parse(v);
            if (sev <= 0)
                return config_error(cfg, msg);
            s->fail_on = (gguflint_severity)sev;
        } else if (strcmp(k, "deep") == 0) {
            if (!parse_bool(v, &b))
                return config_error(cfg, msg);
            gguflint_options_set_deep(s->opt, b);
        } else if (strcmp(k, "quiet") == 0) {
            if (!parse_bool(v, &b))
                return config_error(cfg, msg);
            s->quiet = b;
        } else {
            int kind = strcmp(k, "select") == 0          ? OPT_SELECT
                       : strcmp(k, "extend-select") == 0 ? OPT_EXTEND
                                                         : OPT_IGNORE;
            int rc = add_rule_opt(s, kind, v, true);
            if (rc != EXIT_CLEAN)
                return rc;
        }
    }
    for (size_t i = 0; i < cfg->n_severity; i++) {
        snprintf(s->sev_buf[i], sizeof s->sev_buf[i], "%s=%s", cfg->severity[i].key,
                 cfg->severity[i].value);
        int rc = add_rule_opt(s, OPT_SEVERITY, s->sev_buf[i], true);
        if (rc != EXIT_CLEAN)
            return rc;
    }
    for (size_t i = 0; i < cfg->n_limits; i++) {
        if (!set_limit(s, opt_by_name(cfg->limits[i].key), cfg->limits[i].value)) {
            char msg[256];
            snprintf(msg, sizeof msg, "line %d: bad value for '%s'", cfg->limits[i].line,
                     cfg->limits[i].key);
            return config_error(cfg, msg);
        }
    }
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        char bad[128];
        if (gguflint_options_select(s->probe, cfg->ignores[i].rules, false, bad, sizeof bad) !=
            GGUFLINT_OK) {
            char msg[256];
            snprintf(msg, sizeof msg, "line %d: unknown rule '%s'", cfg->ignores[i].line, bad);
            return config_error(cfg, msg);
        }
    }
    return EXIT_CLEAN;
}

/* Profile, then select, extend-select, ignore, severity; a --select on the
 * command line replaces the config file's select. */
static int apply_rule_opts(settings *s)
{
    if (gguflint_options_profile(s->opt, s->profile) != GGUFLINT_OK)
        return usage_error("unknown profile '%s' (ggml, spec, strict, security)", s->profile);
    bool cli_select = false;
    for (int k = 0; k < s->n_rules; k++)
        if (s->rules[k].kind == OPT_SELECT && !s->rules[k].from_config)
            cli_select = true;
    static const int order[4] = {OPT_SELECT, OPT_EXTEND, OPT_IGNORE, OPT_SEVERITY};
    char bad[128];
    for (int pass = 0; pass < 4; pass++) {
        bool cleared = false;
        for (int k = 0; k < s->n_rules; k++) {
            rule_opt *r = &s->rules[k];
            if (r->kind != order[pass] || (r->kind == OPT_SELECT && cli_select && r->from_config))
                continue;
            if (r->kind == OPT_SEVERITY) {
                char buf[256];
                snprintf(buf, sizeof buf, "%s", r->arg);
                char *eq = strchr(buf, '=');
                if (!eq)
                    return usage_error("--severity takes RULE=LEVEL, got '%s'", r->arg);
                *eq = '\0';
                int sev = gguflint_severity_parse(eq + 1);
                if (sev < 0)
                    return usage_error("unknown severity '%s'", eq + 1);
                if (gguflint_options_set_severity(s->opt, buf, (gguflint_severity)sev) !=
                    GGUFLINT_OK)
                    return usage_error("unknown rule '%s'", buf);
                continue;
            }
            if (r->kind == OPT_SELECT && !cleared) {
                gguflint_options_clear(s->opt);
                cleared = true;
            }
            if (gguflint_options_select(s->opt, r->arg, r->kind != OPT_IGNORE, bad, sizeof bad) !=
                GGUFLINT_OK)
                return usage_error("unknown rule, prefix or family '%s'", bad);
        }
    }
    return EXIT_CLEAN;
}

/* One input of the command line: a path (or a directory with -r), the URL
 * of a file, or an hf:// repository or folder, which is listed now and
 * replaced by its .gguf files. A listing that fails stays in the list under
 * its own name with the reason in *error (and the status in *status).
 * False on NOMEM. */
static bool add_input(file_list *files, const char *arg, bool recursive, const file_filter *filter,
                      size_t *found, const gguflint_fetch_options *fetch, char **error, int *status,
                      walk_errors *unreadable)
{
    int kind = gguflint_url_kind(arg);
    if (kind == 0)
        return files_add(files, arg, recursive, filter, found, unreadable);
    if (kind == 1)
        return files_add(files, arg, false, NULL, found, unreadable);
    gguflint_url_list *l = NULL;
    char err[256] = "";
    int st = gguflint_url_list_new(arg, fetch, &l, err, sizeof err);
    if (st == GGUFLINT_E_NOMEM)
        return false;
    if (st == GGUFLINT_OK && gguflint_url_list_count(l) == 0) {
        snprintf(err, sizeof err, "no .gguf file in this repository or folder");
        st = GGUFLINT_E_IO;
    }
    if (st != GGUFLINT_OK) {
        gguflint_url_list_free(l);
        *status = st;
        *error = strdup(err[0] ? err : "the listing failed");
        return *error && files_add(files, arg, false, NULL, found, unreadable);
    }
    bool ok = true;
    for (size_t i = 0; ok && i < gguflint_url_list_count(l); i++)
        ok = files_add(files, gguflint_url_list_get(l, i), false, NULL, found, unreadable);
    gguflint_url_list_free(l);
    return ok;
}

static bool path_matches(const char *pattern, const char *path)
{
    const char *base = strrchr(path, '/');
    return fnmatch(pattern, path, 0) == 0 || (base && fnmatch(pattern, base + 1, 0) == 0);
}

/* `sel` is scratch options (any state): each ignore's rules are selected
 * into it from scratch. */
static void apply_ignores(config *cfg, gguflint_options *sel, gguflint_ctx *ctx, const char *path)
{
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        config_ignore *ig = &cfg->ignores[i];
        if (!path_matches(ig->pattern, path))
            continue;
        gguflint_options_default(sel); /* every field set, profile included */
        gguflint_options_clear(sel);
        if (gguflint_options_select(sel, ig->rules, true, NULL, 0) != GGUFLINT_OK)
            continue;
        for (size_t r = 0; r < gguflint_rule_count(); r++)
            if (gguflint_options_get_severity(sel, r) != GGUFLINT_OFF)
                ig->used += gguflint_suppress(ctx, r);
    }
}

/* Colour for a text report: --color, else on a terminal unless NO_COLOR is
 * set to anything non-empty (no-color.org). */
static bool want_color(const settings *s, const output *o)
{
    if (s->color != COLOR_AUTO)
        return s->color == COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR");
    return !o->file && !(no && *no) && isatty(STDOUT_FILENO);
}

/* The reports: the default one when no --format was given, each to its
 * file or to standard output. Of the formats given without an
 * --output-file only the last writes to standard output (as a single
 * --format always did: the last one wins); the earlier ones are dropped. */
static int open_outputs(settings *s)
{
    if (s->n_out == 0)
        s->out[s->n_out++] = (output){s->fmt, NULL, NULL, NULL};
    int last_stdout = -1, kept = 0;
    for (int k = 0; k < s->n_out; k++)
        if (!s->out[k].file)
            last_stdout = k;
    for (int k = 0; k < s->n_out; k++)
        if (s->out[k].file || k == last_stdout)
            s->out[kept++] = s->out[k];
    s->n_out = kept;
    for (int k = 0; k < s->n_out; k++) {
        output *o = &s->out[k];
        o->fp = o->file ? fopen(o->file, "w") : stdout;
        if (!o->fp) {
            fprintf(stderr, "gguflint: ");
            err_text(o->file);
            fprintf(stderr, ": cannot write: %s\n", strerror(errno));
            return EXIT_USAGE;
        }
        o->rep = gguflint_report_new(o->fmt, gguflint_write_file, o->fp);
        if (!o->rep || (s->statistics && gguflint_report_set(o->rep, GGUFLINT_REPORT_STATISTICS,
                                                             1) != GGUFLINT_OK)) {
            fprintf(stderr, "gguflint: out of memory\n");
            return EXIT_USAGE;
        }
        gguflint_report_set(o->rep, GGUFLINT_REPORT_COLOR, want_color(s, o));
    }
    return EXIT_CLEAN;
}

/* Free the reports and close the files; false when a write failed. Safe to
 * call twice. */
static bool close_outputs(settings *s)
{
    bool ok = true;
    for (int k = 0; k < s->n_out; k++) {
        output *o = &s->out[k];
        gguflint_report_free(o->rep);
        o->rep = NULL;
        if (!o->fp)
            continue;
        bool failed = fflush(o->fp) != 0 || ferror(o->fp);
        if (o->fp != stdout && fclose(o->fp) != 0)
            failed = true;
        if (failed) {
            fprintf(stderr, "gguflint: ");
            err_text(o->file ? o->file : "standard output");
            fprintf(stderr, ": write error\n");
            ok = false;
        }
        o->fp = NULL;
    }
    return ok;
}

/* ---- which configuration file is trusted ---- */

/* What the command line says before it is applied (a first getopt pass):
 * the config file asked for, --isolated, the profile and -r. */
typedef struct first_pass {
    const char *config, *profile;
    bool isolated, recursive;
} first_pass;

static void scan_args(int argc, char **argv, first_pass *fp)
{
    memset(fp, 0, sizeof *fp);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "hqrj:", long_opts, NULL)) != -1) {
        if (c == OPT_CONFIG)
            fp->config = optarg;
        else if (c == OPT_ISOLATED)
            fp->isolated = true;
        else if (c == OPT_PROFILE)
            fp->profile = optarg;
        else if (c == 'r' || c == OPT_RECURSIVE)
            fp->recursive = true;
    }
}

/* True when `dir` (a real path) is `root` or below it. */
static bool inside(const char *dir, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return true;
    return strncmp(dir, root, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* A discovered .gguflint.ini (found from the working directory upwards, not
 * named by --config) is not trusted when the run is --profile security (only
 * --config FILE counts there), nor when it lies inside a directory scanned
 * with -r: a downloaded model folder can ship one that turns every rule off.
 * Returns why it is not read, or NULL to read it. Call right after
 * scan_args (the inputs are argv[optind..]). */
static const char *untrusted(const char *found, const first_pass *fp, int argc, char **argv)
{
    if (fp->profile && strcmp(fp->profile, "security") == 0)
        return "--profile security reads only a --config FILE";
    if (!fp->recursive)
        return NULL;
    char *cfg = realpath(found, NULL);
    if (!cfg)
        return "it cannot be resolved";
    char *slash = strrchr(cfg, '/');
    if (slash)
        *(slash == cfg ? slash + 1 : slash) = '\0';
    const char *why = NULL;
    for (int i = optind; i < argc && !why; i++) {
        char *root = realpath(argv[i], NULL);
        if (root && inside(cfg, root))
            why = "it is inside a directory scanned with -r (a downloaded folder can ship one)";
        free(root);
    }
    free(cfg);
    return why;
}

/* --base MODEL: read the base model once, metadata only and with every rule
 * off (its own findings are not reported: give it as an input to lint it),
 * and make sure it can serve. A base that cannot be read or is not a model
 * is a usage error (exit 2): no adapter could be checked against it. */
static int open_base(const settings *s, gguflint_ctx **out)
{
    gguflint_options *o = gguflint_options_copy(s->opt);
    gguflint_ctx *base = NULL;
    if (o) {
        gguflint_options_clear(o);
        gguflint_options_set_deep(o, false);
        base = gguflint_new(o);
        gguflint_options_free(o);
    }
    if (!base) {
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    int st = guarded_run(base, s->base_path, s->stdin_max, NULL, NULL);
    const char *why = st == GGUFLINT_OK ? gguflint_base_problem(base) : NULL;
    if (st != GGUFLINT_OK || why) {
        fprintf(stderr, "gguflint: --base ");
        err_text(s->base_path);
        if (st < 0)
            fprintf(stderr, ": the file changed (shrank) while being read\n");
        else if (st != GGUFLINT_OK) {
            fprintf(stderr, ": %s", gguflint_strerror(st));
            const char *d = gguflint_error_detail(base);
            if (d && *d) {
                fprintf(stderr, ": ");
                err_text(d);
            }
            fprintf(stderr, "\n");
        } else {
            fprintf(stderr, ": not usable as a base model: %s\n", why);
        }
        gguflint_free(base);
        return EXIT_USAGE;
    }
    *out = base;
    return EXIT_CLEAN;
}

int cmd_lint(int argc, char **argv)
{
    settings *s = calloc(1, sizeof *s);
    if (!s)
        return EXIT_USAGE;
    s->opt = gguflint_options_new();
    s->probe = gguflint_options_new();
    if (!s->opt || !s->probe) {
        gguflint_options_free(s->opt);
        gguflint_options_free(s->probe);
        free(s);
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    s->fmt = GGUFLINT_FORMAT_TEXT;
    s->color = COLOR_AUTO;
    s->fail_on = GGUFLINT_ERROR;
    s->stdin_max = LIMIT_DEFAULT_STDIN_BYTES;
    s->jobs = 1;
    s->profile = "ggml";
    config cfg;
    memset(&cfg, 0, sizeof cfg);
    file_list files = {0};
    walk_errors unreadable = {0};
    gguflint_fetch_options *fetch = NULL;
    char **list_errors = NULL; /* per input of files: why its hf:// listing failed */
    int *list_status = NULL;
    gguflint_ctx *base = NULL; /* --base: parsed once, shared read-only by every run */
    int rc = EXIT_CLEAN;

    /* The config file first (its values are defaults the command line
     * overrides); a first pass over the arguments says which one to trust. */
    first_pass fp;
    scan_args(argc, argv, &fp);
    const char *config_path = fp.isolated ? NULL : fp.config;
    char *found = NULL;
    if (!fp.isolated && !fp.config && (found = config_find()) != NULL) {
        const char *why = untrusted(found, &fp, argc, argv);
        if (why) {
            fprintf(stderr, "gguflint: not reading ");
            err_text(found);
            fprintf(stderr, ": %s\n", why);
        } else {
            config_path = found;
        }
    }
    if (config_path) {
        if (!config_load(&cfg, config_path)) {
            rc = config_error(&cfg, cfg.error[0] ? cfg.error : "cannot read");
            goto done;
        }
        rc = apply_config(s, &cfg);
        if (rc != EXIT_CLEAN)
            goto done;
    }

    opterr = 0;
    optind = 1;
    int c, li;
    while ((c = getopt_long(argc, argv, "hqrj:", long_opts, &li)) != -1) {
        uint64_t v;
        switch (c) {
        case OPT_FETCH:
            rc = cli_fetch_option(&fetch, long_opts[li].name, optarg);
            if (rc != EXIT_CLEAN)
                goto done;
            break;
        case OPT_FORMAT: {
            gguflint_format f;
            if (!parse_format(optarg, &f)) {
                rc = usage_error("unknown format '%s' (text, json, sarif, github)", optarg);
                goto done;
            }
            if (s->n_out == CLI_MAX_OUTPUTS) {
                rc =
                    usage_error("at most %s --format options", GGUFLINT_STRINGIFY(CLI_MAX_OUTPUTS));
                goto done;
            }
            s->out[s->n_out++] = (output){f, NULL, NULL, NULL};
            break;
        }
        case OPT_OUTPUT_FILE:
            /* the file of the --format before it (or of the default format) */
            if (s->n_out == 0)
                s->out[s->n_out++] = (output){s->fmt, NULL, NULL, NULL};
            if (s->out[s->n_out - 1].file) {
                rc = usage_error("--output-file '%s' follows another --output-file: give a "
                                 "--format before each",
                                 optarg);
                goto done;
            }
            s->out[s->n_out - 1].file = optarg;
            break;
        case OPT_COLOR:
            if (strcmp(optarg, "auto") == 0)
                s->color = COLOR_AUTO;
            else if (strcmp(optarg, "never") == 0)
                s->color = COLOR_NEVER;
            else if (strcmp(optarg, "always") == 0)
                s->color = COLOR_ALWAYS;
            else {
                rc = usage_error("--color takes never, always or auto, got '%s'", optarg);
                goto done;
            }
            break;
        case OPT_STATISTICS: s->statistics = true; break;
        case OPT_SELECT:
        case OPT_EXTEND:
        case OPT_IGNORE:
        case OPT_SEVERITY:
            rc = add_rule_opt(s, c, optarg, false);
            if (rc != EXIT_CLEAN)
                goto done;
            break;
        case OPT_FAIL_ON: {
            int sev = gguflint_severity_parse(optarg);
            if (sev <= 0) {
                rc = usage_error("--fail-on takes error, warning or note, got '%s'", optarg);
                goto done;
            }
            s->fail_on = (gguflint_severity)sev;
            break;
        }
        case OPT_PROFILE: s->profile = optarg; break;
        case OPT_EXIT_ZERO: s->exit_zero = true; break;
        case 'q':
        case OPT_QUIET: s->quiet = true; break;
        case OPT_DEEP: gguflint_options_set_deep(s->opt, true); break;
        case OPT_HEADER_ONLY: gguflint_options_set_header_only(s->opt, true); break;
        case OPT_BASE: s->base_path = optarg; break;
        case 'r':
        case OPT_RECURSIVE: s->recursive = true; break;
        case OPT_ALLOW_UNREADABLE: s->allow_unreadable = true; break;
        case OPT_INCLUDE:
        case OPT_EXCLUDE: {
            const char **list = c == OPT_INCLUDE ? s->include : s->exclude;
            size_t *n = c == OPT_INCLUDE ? &s->n_include : &s->n_exclude;
            if (*n == CLI_MAX_RULE_OPTS) {
                rc = usage_error("too many --include/--exclude patterns (at most %s)",
                                 GGUFLINT_STRINGIFY(CLI_MAX_RULE_OPTS));
                goto done;
            }
            list[(*n)++] = optarg;
            break;
        }
        case 'j':
        case OPT_JOBS:
            if (!parse_u64(optarg, &v) || v == 0 || v > CLI_MAX_JOBS) {
                rc = usage_error(
                    "-j takes a number from 1 to " GGUFLINT_STRINGIFY(CLI_MAX_JOBS) ", got '%s'",
                    optarg);
                goto done;
            }
            s->jobs = (unsigned)v;
            break;
        case OPT_CONFIG:
        case OPT_ISOLATED: break; /* handled above */
        case OPT_MAX_STRING:
        case OPT_MAX_ARRAY:
        case OPT_MAX_KV:
        case OPT_MAX_TENSOR:
        case OPT_MAX_DEPTH:
        case OPT_MAX_FINDINGS:
        case OPT_STDIN_MAX:
            if (!set_limit(s, c, optarg)) {
                rc = usage_error("bad or out-of-range number '%s'", optarg);
                goto done;
            }
            break;
        case OPT_VERSION: printf("gguflint %s\n", GGUFLINT_VERSION); goto done;
        case 'h':
        case OPT_HELP:
            fputs(usage_text, stdout);
            fputs(usage_limits, stdout);
            goto done;
        default: rc = usage_error("unknown or incomplete option '%s'", argv[optind - 1]); goto done;
        }
    }
    gguflint_options_set_deep_jobs(s->opt, s->jobs);
    rc = apply_rule_opts(s);
    if (rc != EXIT_CLEAN)
        goto done;
    if (optind >= argc) {
        rc = usage_error("%s", "no input files");
        goto done;
    }
    cli_set_fetch(fetch);
    list_errors = calloc((size_t)argc, sizeof *list_errors);
    list_status = calloc((size_t)argc, sizeof *list_status);
    if (!list_errors || !list_status) {
        fprintf(stderr, "gguflint: out of memory\n");
        rc = EXIT_USAGE;
        goto done;
    }
    file_filter filter = {s->include, s->n_include, s->exclude, s->n_exclude};
    size_t n_found = 0;
    for (int i = optind; i < argc; i++) {
        if (!add_input(&files, argv[i], s->recursive, &filter, &n_found, fetch, &list_errors[i],
                       &list_status[i], &unreadable)) {
            fprintf(stderr, "gguflint: out of memory\n");
            rc = EXIT_USAGE;
            goto done;
        }
    }
    if (!walk_errors_take(&files, &unreadable, s->allow_unreadable)) {
        fprintf(stderr, "gguflint: out of memory\n");
        rc = EXIT_USAGE;
        goto done;
    }
    if (s->recursive && !files_dedupe(&files)) {
        fprintf(stderr, "gguflint: out of memory\n");
        rc = EXIT_USAGE;
        goto done;
    }
    if (files.n == 0) {
        /* only directories, and nothing in them: a scan that checked nothing
         * must not pass */
        fprintf(stderr, "gguflint: nothing to check: no GGUF file found under ");
        for (int i = optind; i < argc; i++) {
            err_text(argv[i]);
            fputs(i + 1 < argc ? ", " : "", stderr);
        }
        fprintf(stderr, " (files are recognised by their GGUF magic or a .gguf name)\n");
        rc = EXIT_USAGE;
        goto done;
    }
    rc = EXIT_CLEAN;
    if (s->base_path) {
        rc = open_base(s, &base);
        if (rc != EXIT_CLEAN)
            goto done;
    }

    rc = open_outputs(s);
    if (rc != EXIT_CLEAN)
        goto done;
    /* a failed listing stands in the list as its reference */
    const char **skip = calloc(files.n ? files.n : 1, sizeof *skip);
    int *skip_status = calloc(files.n ? files.n : 1, sizeof *skip_status);
    runner *rn = NULL;
    if (skip && skip_status) {
        for (size_t i = 0; i < files.n; i++)
            for (int a = optind; a < argc; a++)
                if (list_errors[a] && strcmp(files.paths[i], argv[a]) == 0) {
                    skip[i] = list_errors[a];
                    skip_status[i] = list_status[a];
                }
        walk_errors_mark((const char *const *)files.paths, files.n, &unreadable, skip, skip_status);
        rn = runner_new((const char *const *)files.paths, files.n, s->opt, s->jobs, s->stdin_max,
                        CLI_JOB_WINDOW_BYTES, skip, skip_status, base,
                        s->recursive || files.n > 1 || gguflint_url_kind(argv[optind]) == 2);
    }
    if (!rn) {
        free(skip);
        free(skip_status);
        fprintf(stderr, "gguflint: out of memory\n");
        rc = EXIT_USAGE;
        goto done;
    }
    for (int k = 0; k < s->n_out; k++)
        gguflint_report_set_config(s->out[k].rep, cfg.path);

    bool io_error = false;
    for (size_t i = 0; i < files.n; i++) {
        const char *path = files.paths[i];
        int st;
        gguflint_ctx *ctx = runner_get(rn, i, &st);
        if (skip[i]) {
            fprintf(stderr, "gguflint: ");
            err_text(path);
            fprintf(stderr, ": %s: ", gguflint_strerror(st));
            err_text(skip[i]);
            fprintf(stderr, "\n");
            for (int k = 0; k < s->n_out; k++)
                gguflint_report_failure(s->out[k].rep, path, st, skip[i]);
            io_error = true;
            runner_release(rn, i);
            continue;
        }
        if (st < 0) {
            fprintf(stderr, "gguflint: ");
            err_text(path);
            fprintf(stderr, ": the file changed (shrank) while being read\n");
            st = GGUFLINT_E_IO;
        } else if (st != GGUFLINT_OK) {
            report_status(path, ctx, st);
        }
        uint64_t fetched;
        if (ctx && !gguflint_fetch_ranges(ctx) && gguflint_fetch_stats(ctx, NULL, &fetched, NULL)) {
            fprintf(stderr, "gguflint: ");
            err_text(path);
            fprintf(stderr,
                    ": note: the server ignores Range requests: %llu bytes were downloaded "
                    "from the start of the file (at most --max-fetch)\n",
                    (unsigned long long)fetched);
        }
        if (st == GGUFLINT_OK) {
            apply_ignores(&cfg, s->probe, ctx, path);
            if (gguflint_max_severity(ctx) >= s->fail_on)
                rc = EXIT_FINDINGS;
        } else {
            io_error = true;
        }
        for (int k = 0; k < s->n_out; k++)
            gguflint_report_file(s->out[k].rep, path, ctx, st);
        runner_release(rn, i);
    }
    runner_free(rn);
    free(skip);
    free(skip_status);
    for (int k = 0; k < s->n_out; k++)
        gguflint_report_end(s->out[k].rep, !s->quiet);
    if (!close_outputs(s))
        io_error = true;
    for (size_t i = 0; i < cfg.n_ignores; i++)
        if (cfg.ignores[i].used == 0) {
            fprintf(stderr, "gguflint: ");
            err_text(cfg.path);
            fprintf(stderr, ":%d: warning: unused ignore [ignore:", cfg.ignores[i].line);
            err_text(cfg.ignores[i].pattern);
            fprintf(stderr, "] rules = ");
            err_text(cfg.ignores[i].rules);
            fprintf(stderr, " (it suppressed nothing)\n");
        }
    if (io_error)
        rc = EXIT_USAGE;
    else if (s->exit_zero)
        rc = EXIT_CLEAN;
done:
    close_outputs(s);
    gguflint_free(base);
    for (int i = 0; list_errors && i < argc; i++)
        free(list_errors[i]);
    free(list_errors);
    free(list_status);
    cli_set_fetch(NULL);
    gguflint_fetch_options_free(fetch);
    files_free(&files);
    walk_errors_free(&unreadable);
    config_free(&cfg);
    free(found);
    gguflint_options_free(s->opt);
    gguflint_options_free(s->probe);
    free(s);
    return rc;
}
