/* lint_cmd.c - the lint command: options (from the command line over the
 * configuration file, when that file is trusted), the list of inputs (-r,
 * files.c; URLs), linting on -j threads with output in input order
 * (runner.c), the per-path ignores of the configuration file, and the
 * reports, which name the configuration used. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "common.h"
#include "baseline.h"
#include "config.h"
#include "files.h"
#include "runner.h"
#include "sha256.h"

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
    OPT_BASELINE,
    OPT_WRITE_BASELINE,
    OPT_HELP_URI
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
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"write-baseline", required_argument, NULL, OPT_WRITE_BASELINE},
    {"help-uri", required_argument, NULL, OPT_HELP_URI},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"isolated", no_argument, NULL, OPT_ISOLATED},
    {"recursive", no_argument, NULL, OPT_RECURSIVE},
    {"include", required_argument, NULL, OPT_INCLUDE},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
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
    const char *base_path;      /* --base MODEL */
    const char *baseline_path;  /* --baseline FILE */
    const char *write_baseline; /* --write-baseline FILE */
    const char *help_uri;       /* --help-uri URL (SARIF helpUri) */
    bool config_refused;        /* a discovered config was not applied (GG800) */
    char *cwd;                  /* the working directory (absolute), or NULL */
    char *config_dir;           /* the absolute folder of the config applied, or NULL */
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

/* A bad value of the config file: false, with "line N: ..." in err. */
static bool bad_value(char *err, size_t cap, int line, const char *key, const char *value,
                      const char *expected)
{
    snprintf(err, cap, "line %d: bad value '%.64s' for '%s'%s%s", line, value, key,
             expected ? ": " : "", expected ? expected : "");
    return false;
}

/* Check one [gguflint] value that names rules or a profile against the
 * library (scratch options), so a typo is reported with its line. */
static bool check_main_value(settings *s, const config_kv *kv, char *err, size_t cap)
{
    char bad[128];
    if (strcmp(kv->key, "profile") == 0)
        return gguflint_options_profile(s->probe, kv->value) == GGUFLINT_OK ||
               bad_value(err, cap, kv->line, kv->key, kv->value,
                         "unknown profile (ggml, spec, strict, security)");
    if (gguflint_options_select(s->probe, kv->value, true, bad, sizeof bad) != GGUFLINT_OK) {
        snprintf(err, cap, "line %d: unknown rule, prefix or family '%.64s' in '%s'", kv->line, bad,
                 kv->key);
        return false;
    }
    return true;
}

/* The config file's values become the defaults the command line overrides.
 * Every value is checked here, so an error names the file and the line. */
static bool apply_config_to(settings *s, config *cfg, char *err, size_t cap)
{
    for (size_t i = 0; i < cfg->n_main; i++) {
        const char *k = cfg->main[i].key;
        char *v = cfg->main[i].value;
        int line = cfg->main[i].line;
        bool b;
        if (strcmp(k, "format") == 0) {
            if (!parse_format(v, &s->fmt))
                return bad_value(err, cap, line, k, v, "text, json, sarif or github");
        } else if (strcmp(k, "fail-on") == 0) {
            int sev = gguflint_severity_parse(v);
            if (sev <= 0)
                return bad_value(err, cap, line, k, v, "error, warning or note");
            s->fail_on = (gguflint_severity)sev;
        } else if (strcmp(k, "deep") == 0 || strcmp(k, "quiet") == 0) {
            if (!parse_bool(v, &b))
                return bad_value(err, cap, line, k, v, "true or false");
            if (k[0] == 'd')
                gguflint_options_set_deep(s->opt, b);
            else
                s->quiet = b;
        } else {
            if (!check_main_value(s, &cfg->main[i], err, cap))
                return false;
            if (strcmp(k, "profile") == 0) {
                s->profile = v;
                continue;
            }
            int kind = strcmp(k, "select") == 0          ? OPT_SELECT
                       : strcmp(k, "extend-select") == 0 ? OPT_EXTEND
                                                         : OPT_IGNORE;
            if (add_rule_opt(s, kind, v, true) != EXIT_CLEAN)
                return bad_value(err, cap, line, k, v, "too many rule options");
        }
    }
    for (size_t i = 0; i < cfg->n_severity; i++) {
        const config_kv *kv = &cfg->severity[i];
        int sev = gguflint_severity_parse(kv->value);
        if (gguflint_rule_find(kv->key) < 0) {
            snprintf(err, cap, "line %d: unknown rule '%.64s' in [severity]", kv->line, kv->key);
            return false;
        }
        if (sev < 0) {
            snprintf(err, cap, "line %d: bad severity '%.64s' for %s (error, warning, note or off)",
                     kv->line, kv->value, kv->key);
            return false;
        }
        snprintf(s->sev_buf[i], sizeof s->sev_buf[i], "%s=%s", kv->key, kv->value);
        if (add_rule_opt(s, OPT_SEVERITY, s->sev_buf[i], true) != EXIT_CLEAN)
            return bad_value(err, cap, kv->line, kv->key, kv->value, "too many rule options");
    }
    for (size_t i = 0; i < cfg->n_limits; i++)
        if (!set_limit(s, opt_by_name(cfg->limits[i].key), cfg->limits[i].value))
            return bad_value(err, cap, cfg->limits[i].line, cfg->limits[i].key,
                             cfg->limits[i].value, "a number in range");
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        char bad[128];
        if (gguflint_options_select(s->probe, cfg->ignores[i].rules, false, bad, sizeof bad) !=
            GGUFLINT_OK) {
            snprintf(err, cap, "line %d: unknown rule '%s'", cfg->ignores[i].line, bad);
            return false;
        }
    }
    return true;
}

static int apply_config(settings *s, config *cfg)
{
    char err[320];
    return apply_config_to(s, cfg, err, sizeof err) ? EXIT_CLEAN : config_error(cfg, err);
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
                      size_t *found, const gguflint_fetch_options *fetch, char **error, int *status)
{
    int kind = gguflint_url_kind(arg);
    if (kind == 0)
        return files_add(files, arg, recursive, filter, found);
    if (kind == 1)
        return files_add(files, arg, false, NULL, found);
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
        return *error && files_add(files, arg, false, NULL, found);
    }
    bool ok = true;
    for (size_t i = 0; ok && i < gguflint_url_list_count(l); i++)
        ok = files_add(files, gguflint_url_list_get(l, i), false, NULL, found);
    gguflint_url_list_free(l);
    return ok;
}

/* gguflint_path_normalize into a malloc'd string, or NULL. */
static char *normalized(const char *path, const char *base)
{
    size_t n = gguflint_path_normalize(path, base, NULL, 0);
    char *out = malloc(n + 1);
    if (out)
        gguflint_path_normalize(path, base, out, n + 1);
    return out;
}

/* The path an [ignore:PATTERN] sees: lexically normalised and relative to
 * the folder of the config file when it lies below it (./models/x.gguf,
 * models//x.gguf and /repo/models/x.gguf are all models/x.gguf for
 * /repo/.gguflint.ini); a URL as it is. malloc'd, or NULL. */
static char *ignore_path(const settings *s, const char *path)
{
    const char *p = path;
    char *joined = NULL;
    if (gguflint_url_kind(path) == 0 && path[0] != '/' && s->cwd) {
        size_t n = strlen(s->cwd) + strlen(path) + 2;
        if ((joined = malloc(n)) != NULL) {
            snprintf(joined, n, "%s/%s", s->cwd, path);
            p = joined;
        }
    }
    char *out = normalized(p, s->config_dir);
    free(joined);
    return out;
}

/* A pattern matches the whole normalised path or a leading folder of it
 * (models matches models/a/x.gguf), or, without a '/', the base name. '*'
 * never crosses '/' (as in --include). */
static bool ignore_matches(const char *pattern, char *path)
{
    const char *base = strrchr(path, '/');
    if (fnmatch(pattern, path, FNM_PATHNAME) == 0 ||
        (!strchr(pattern, '/') && base && fnmatch(pattern, base + 1, FNM_PATHNAME) == 0))
        return true;
    bool hit = false; /* each leading folder: the path cut at each '/' in turn */
    for (char *slash = strchr(path + 1, '/'); slash && !hit; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        hit = fnmatch(pattern, path, FNM_PATHNAME) == 0;
        *slash = '/';
    }
    return hit;
}

/* `sel` is scratch options (any state): each ignore's rules are selected
 * into it from scratch. */
static void apply_ignores(const settings *s, config *cfg, gguflint_options *sel, gguflint_ctx *ctx,
                          const char *path)
{
    if (cfg->n_ignores == 0)
        return;
    char *norm = ignore_path(s, path);
    for (size_t i = 0; norm && i < cfg->n_ignores; i++) {
        config_ignore *ig = &cfg->ignores[i];
        if (!ignore_matches(ig->pattern, norm))
            continue;
        gguflint_options_default(sel); /* every field set, profile included */
        gguflint_options_clear(sel);
        if (gguflint_options_select(sel, ig->rules, true, NULL, 0) != GGUFLINT_OK)
            continue;
        for (size_t r = 0; r < gguflint_rule_count(); r++)
            if (gguflint_options_get_severity(sel, r) != GGUFLINT_OFF)
                ig->used += gguflint_suppress(ctx, r);
    }
    free(norm);
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
 * file or to standard output. At most one may go to standard output: two
 * would interleave, and silently keeping one lost the others. */
static int open_outputs(settings *s)
{
    if (s->n_out == 0)
        s->out[s->n_out++] = (output){s->fmt, NULL, NULL, NULL};
    if (s->write_baseline) { /* one more report, whatever the others are */
        if (s->n_out == CLI_MAX_OUTPUTS)
            return usage_error("at most %s reports", GGUFLINT_STRINGIFY(CLI_MAX_OUTPUTS));
        s->out[s->n_out++] = (output){GGUFLINT_FORMAT_BASELINE, s->write_baseline, NULL, NULL};
    }
    int to_stdout = 0;
    for (int k = 0; k < s->n_out; k++)
        to_stdout += !s->out[k].file;
    if (to_stdout > 1) /* each would interleave with the others: say so, drop none */
        return usage_error("%s", "several --format options write to standard output: give each "
                                 "but one an --output-file FILE");
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
        gguflint_report_set_base(o->rep, s->cwd);
        gguflint_report_set_help_uri(o->rep, s->help_uri);
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

/* ---- whether a discovered config loosens the security checks ---- */

/* The rules a discovered config may not loosen: those whose violation the
 * rule block ties to a weakness (a CWE) or scores (security-severity). */
static bool guards_security(size_t rule)
{
    const gguflint_rule_info *ri = gguflint_rule(rule);
    return ri && (ri->cwe > 0 || ri->security_severity);
}

/* What of t (a config applied to scratch settings) loosens the checks
 * against ref (the run without the config): a security rule lowered or off,
 * a limit that bounds hostile input raised, an [ignore:] exempting files
 * from a security rule. The first such setting into why; false when none. */
static bool loosened(settings *t, const gguflint_options *ref, const config *cfg, char *why,
                     size_t cap)
{
    for (size_t r = 0; r < gguflint_rule_count(); r++)
        if (guards_security(r) &&
            gguflint_options_get_severity(t->opt, r) < gguflint_options_get_severity(ref, r)) {
            snprintf(why, cap, "it lowers %s (%s) to %s", gguflint_rule(r)->id,
                     gguflint_rule(r)->slug,
                     gguflint_severity_name(gguflint_options_get_severity(t->opt, r)));
            return true;
        }
    static const char *const limit_names[] = {"max-string-len", "max-array-count", "max-kv-count",
                                              "max-tensor-count", "max-depth"};
    for (int l = 0; l < 5; l++)
        if (gguflint_options_get_limit(t->opt, (gguflint_limit)l) >
            gguflint_options_get_limit(ref, (gguflint_limit)l)) {
            snprintf(why, cap, "it raises %s", limit_names[l]);
            return true;
        }
    for (size_t i = 0; i < cfg->n_ignores; i++) {
        gguflint_options_default(t->probe);
        gguflint_options_clear(t->probe);
        if (gguflint_options_select(t->probe, cfg->ignores[i].rules, true, NULL, 0) != GGUFLINT_OK)
            continue;
        for (size_t r = 0; r < gguflint_rule_count(); r++)
            if (guards_security(r) && gguflint_options_get_severity(t->probe, r) != GGUFLINT_OFF) {
                snprintf(why, cap, "line %d: [ignore:%.64s] exempts files from %s",
                         cfg->ignores[i].line, cfg->ignores[i].pattern, gguflint_rule(r)->id);
                return true;
            }
    }
    return false;
}

/* Apply cfg to scratch settings and compare with the run without it (the
 * command line's profile, else ggml). A config that does not even apply is
 * not judged here: applying it for real reports its error. */
static bool config_loosens(config *cfg, const char *cli_profile, char *why, size_t cap)
{
    settings *t = calloc(1, sizeof *t);
    gguflint_options *ref = gguflint_options_new();
    bool loose = false;
    if (t && ref && (t->opt = gguflint_options_new()) && (t->probe = gguflint_options_new())) {
        char err[320];
        t->profile = "ggml";
        const char *profile = cli_profile ? cli_profile : "ggml";
        if (apply_config_to(t, cfg, err, sizeof err) &&
            gguflint_options_profile(ref, profile) == GGUFLINT_OK) {
            if (cli_profile)
                t->profile = cli_profile;
            loose = apply_rule_opts(t) == EXIT_CLEAN && loosened(t, ref, cfg, why, cap);
        }
    }
    if (t) {
        gguflint_options_free(t->opt);
        gguflint_options_free(t->probe);
    }
    free(t);
    gguflint_options_free(ref);
    return loose;
}

/* The absolute folder of a config path (lexically, from the working
 * directory), malloc'd, or NULL. */
static char *folder_of(const settings *s, const char *path)
{
    size_t n = strlen(path) + (s->cwd ? strlen(s->cwd) : 0) + 2;
    char *abs = malloc(n);
    if (!abs)
        return NULL;
    if (path[0] == '/' || !s->cwd)
        snprintf(abs, n, "%s", path);
    else
        snprintf(abs, n, "%s/%s", s->cwd, path);
    char *dir = normalized(abs, NULL);
    if (dir) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *(slash == dir ? slash + 1 : slash) = '\0';
    }
    free(abs);
    return dir;
}

/* Phase 1: the configuration file. --config FILE is the caller's and is
 * applied; --isolated reads none. A .gguflint.ini discovered from the
 * working directory upwards may have come with the inputs (a downloaded
 * snapshot), so it is not read under --profile security, and it is not
 * applied when it would loosen the security checks (config_loosens): then
 * the run says why on standard error and every file gets GG800. A config
 * inside a scanned folder is never discovered (only the working directory
 * and its parents are searched). */
static int load_config(settings *s, config *cfg, char **found, const first_pass *fp)
{
    const char *path = fp->isolated ? NULL : fp->config;
    bool discovered = false;
    if (!fp->isolated && !fp->config && (*found = config_find()) != NULL) {
        if (fp->profile && strcmp(fp->profile, "security") == 0) {
            fprintf(stderr, "gguflint: not reading ");
            err_text(*found);
            fprintf(stderr, ": --profile security reads only a --config FILE\n");
        } else {
            path = *found;
            discovered = true;
        }
    }
    if (!path)
        return EXIT_CLEAN;
    if (!config_load(cfg, path))
        return config_error(cfg, cfg->error[0] ? cfg->error : "cannot read");
    char why[256];
    if (discovered && config_loosens(cfg, fp->profile, why, sizeof why)) {
        fprintf(stderr, "gguflint: not applying ");
        err_text(path);
        fprintf(stderr, ": ");
        err_text(why);
        fprintf(stderr, "; a config found near the inputs may have come with them: name it with "
                        "--config to apply it (GG800)\n");
        config_free(cfg);
        memset(cfg, 0, sizeof *cfg);
        s->config_refused = true;
        return EXIT_CLEAN;
    }
    s->config_dir = folder_of(s, path);
    return apply_config(s, cfg);
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

/* Phase 2: the command line, over the config file's values. LINT_STOP
 * after --help and --version. */
enum { LINT_STOP = -1 };

static int parse_command_line(settings *s, int argc, char **argv, gguflint_fetch_options **fetch)
{
    int rc = EXIT_CLEAN;
    opterr = 0;
    optind = 1;
    int c, li;
    while ((c = getopt_long(argc, argv, "hqrj:", long_opts, &li)) != -1) {
        uint64_t v;
        switch (c) {
        case OPT_FETCH:
            rc = cli_fetch_option(fetch, long_opts[li].name, optarg);
            if (rc != EXIT_CLEAN)
                return rc;
            break;
        case OPT_FORMAT: {
            gguflint_format f;
            if (!parse_format(optarg, &f)) {
                rc = usage_error("unknown format '%s' (text, json, sarif, github)", optarg);
                return rc;
            }
            if (s->n_out == CLI_MAX_OUTPUTS) {
                rc =
                    usage_error("at most %s --format options", GGUFLINT_STRINGIFY(CLI_MAX_OUTPUTS));
                return rc;
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
                return rc;
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
                return rc;
            }
            break;
        case OPT_STATISTICS: s->statistics = true; break;
        case OPT_SELECT:
        case OPT_EXTEND:
        case OPT_IGNORE:
        case OPT_SEVERITY:
            rc = add_rule_opt(s, c, optarg, false);
            if (rc != EXIT_CLEAN)
                return rc;
            break;
        case OPT_FAIL_ON: {
            int sev = gguflint_severity_parse(optarg);
            if (sev <= 0) {
                rc = usage_error("--fail-on takes error, warning or note, got '%s'", optarg);
                return rc;
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
        case OPT_INCLUDE:
        case OPT_EXCLUDE: {
            const char **list = c == OPT_INCLUDE ? s->include : s->exclude;
            size_t *n = c == OPT_INCLUDE ? &s->n_include : &s->n_exclude;
            if (*n == CLI_MAX_RULE_OPTS) {
                rc = usage_error("too many --include/--exclude patterns (at most %s)",
                                 GGUFLINT_STRINGIFY(CLI_MAX_RULE_OPTS));
                return rc;
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
                return rc;
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
                return rc;
            }
            break;
        case OPT_VERSION: printf("gguflint %s\n", GGUFLINT_VERSION); return LINT_STOP;
        case 'h':
        case OPT_HELP:
            fputs(usage_text, stdout);
            fputs(usage_limits, stdout);
            return LINT_STOP;
        case OPT_BASELINE: s->baseline_path = optarg; break;
        case OPT_WRITE_BASELINE: s->write_baseline = optarg; break;
        case OPT_HELP_URI: s->help_uri = optarg; break;
        default: return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    gguflint_options_set_deep_jobs(s->opt, s->jobs);
    rc = apply_rule_opts(s);
    if (rc == EXIT_CLEAN && s->config_refused)
        gguflint_options_set_config_refused(s->opt, true);
    if (rc == EXIT_CLEAN && optind >= argc)
        rc = usage_error("%s", "no input files");
    return rc;
}

/* Phase 3: the inputs, in order: paths, directories under -r, URLs and
 * hf:// listings (a failed listing stays in the list under its own name,
 * with why in skip[i] and its status in skip_status[i]). */
typedef struct lint_inputs {
    file_list files;
    char **list_errors; /* per argument: why its hf:// listing failed */
    int *list_status;
    const char **skip; /* per file: a failed listing's reason, or NULL */
    int *skip_status;
} lint_inputs;

static int collect_inputs(settings *s, int argc, char **argv, const gguflint_fetch_options *fetch,
                          lint_inputs *in)
{
    in->list_errors = calloc((size_t)argc, sizeof *in->list_errors);
    in->list_status = calloc((size_t)argc, sizeof *in->list_status);
    if (!in->list_errors || !in->list_status)
        return EXIT_USAGE;
    file_filter filter = {s->include, s->n_include, s->exclude, s->n_exclude};
    size_t n_found = 0;
    for (int i = optind; i < argc; i++)
        if (!add_input(&in->files, argv[i], s->recursive, &filter, &n_found, fetch,
                       &in->list_errors[i], &in->list_status[i]))
            return EXIT_USAGE;
    if (s->recursive && !files_dedupe(&in->files))
        return EXIT_USAGE;
    if (in->files.n == 0) {
        /* only directories, and nothing in them: a scan that checked nothing
         * must not pass */
        fprintf(stderr, "gguflint: nothing to check: no GGUF file found under ");
        for (int i = optind; i < argc; i++) {
            err_text(argv[i]);
            fputs(i + 1 < argc ? ", " : "", stderr);
        }
        fprintf(stderr, " (files are recognised by their GGUF magic or a .gguf name)\n");
        return LINT_STOP - 1; /* reported: exit 2 without "out of memory" */
    }
    in->skip = calloc(in->files.n, sizeof *in->skip);
    in->skip_status = calloc(in->files.n, sizeof *in->skip_status);
    if (!in->skip || !in->skip_status)
        return EXIT_USAGE;
    for (size_t i = 0; i < in->files.n; i++)
        for (int a = optind; a < argc; a++)
            if (in->list_errors[a] && strcmp(in->files.paths[i], argv[a]) == 0) {
                in->skip[i] = in->list_errors[a];
                in->skip_status[i] = in->list_status[a];
            }
    return EXIT_CLEAN;
}

static void free_inputs(lint_inputs *in, int argc)
{
    for (int i = 0; in->list_errors && i < argc; i++)
        free(in->list_errors[i]);
    free(in->list_errors);
    free(in->list_status);
    free(in->skip);
    free(in->skip_status);
    files_free(&in->files);
}

/* Phase 4, one file: what went wrong reading it, the config's ignores, the
 * baseline, the digest, every report. Returns EXIT_FINDINGS when a finding
 * not in the baseline is at or above --fail-on, EXIT_USAGE when the file
 * could not be read, else EXIT_CLEAN. */
typedef struct lint_state {
    settings *s;
    config *cfg;
    baseline *bl; /* --baseline, or NULL */
    bool *flags;  /* scratch: baselined findings of the file */
    size_t n_flags;
} lint_state;

static int report_one(lint_state *L, const char *path, gguflint_ctx *ctx, int st, const char *skip)
{
    settings *s = L->s;
    if (skip) {
        fprintf(stderr, "gguflint: ");
        err_text(path);
        fprintf(stderr, ": %s: ", gguflint_strerror(st));
        err_text(skip);
        fprintf(stderr, "\n");
        for (int k = 0; k < s->n_out; k++)
            gguflint_report_failure(s->out[k].rep, path, st, skip);
        return EXIT_USAGE;
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
    int rc = st == GGUFLINT_OK ? EXIT_CLEAN : EXIT_USAGE;
    const bool *flags = NULL;
    char sha[65], *digest = NULL;
    if (st == GGUFLINT_OK) {
        apply_ignores(s, L->cfg, s->probe, ctx, path);
        size_t n = gguflint_finding_count(ctx);
        if (L->bl && n) {
            if (n > L->n_flags) {
                bool *g = realloc(L->flags, n * sizeof *g);
                if (!g)
                    return EXIT_USAGE;
                L->flags = g;
                L->n_flags = n;
            }
            size_t matched;
            char *norm = normalized(path, s->cwd); /* as the reports fingerprint it */
            if (!norm)
                return EXIT_USAGE;
            bool ok = baseline_match(L->bl, ctx, norm, L->flags, &matched);
            free(norm);
            if (!ok)
                return EXIT_USAGE;
            flags = L->flags;
        }
        for (size_t i = 0; i < n; i++)
            if ((!flags || !flags[i]) && gguflint_finding_get(ctx, i)->severity >= s->fail_on)
                rc = EXIT_FINDINGS;
        /* the file was read whole (--deep): its digest, for the JSON report */
        bool json = false;
        for (int k = 0; k < s->n_out; k++)
            json |= s->out[k].fmt == GGUFLINT_FORMAT_JSON;
        if (json && gguflint_options_get_deep(s->opt) && gguflint_url_kind(path) == 0 &&
            strcmp(path, "-") != 0 && sha256_file(path, sha))
            digest = sha;
    }
    for (int k = 0; k < s->n_out; k++)
        gguflint_report_file_ex(s->out[k].rep, path, ctx, st, flags, digest);
    return rc;
}

/* Phase 4: lint every input on -j threads, reporting in input order. */
static int lint_all(lint_state *L, lint_inputs *in, gguflint_ctx *base)
{
    settings *s = L->s;
    runner *rn = runner_new((const char *const *)in->files.paths, in->files.n, s->opt, s->jobs,
                            s->stdin_max, CLI_JOB_WINDOW_BYTES, in->skip, in->skip_status, base);
    if (!rn) {
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    for (int k = 0; k < s->n_out; k++)
        gguflint_report_set_config(s->out[k].rep, L->cfg->path);
    bool io_error = false, findings = false;
    for (size_t i = 0; i < in->files.n; i++) {
        int st;
        gguflint_ctx *ctx = runner_get(rn, i, &st);
        int one = report_one(L, in->files.paths[i], ctx, st, in->skip[i]);
        io_error |= one == EXIT_USAGE;
        findings |= one == EXIT_FINDINGS;
        runner_release(rn, i);
    }
    runner_free(rn);
    return io_error ? EXIT_USAGE : findings ? EXIT_FINDINGS : EXIT_CLEAN;
}

/* Phase 5: the baseline's gone entries, the summaries, closing the
 * reports, the ignores that suppressed nothing. */
static int finish(lint_state *L, int rc)
{
    settings *s = L->s;
    config *cfg = L->cfg;
    uint64_t gone = L->bl ? baseline_gone(L->bl) : 0;
    for (int k = 0; k < s->n_out; k++) {
        gguflint_report_set(s->out[k].rep, GGUFLINT_REPORT_BASELINE_GONE,
                            gone > INT32_MAX ? INT32_MAX : (int)gone);
        gguflint_report_end(s->out[k].rep, !s->quiet);
    }
    if (!close_outputs(s))
        rc = EXIT_USAGE;
    for (size_t i = 0; i < cfg->n_ignores; i++)
        if (cfg->ignores[i].used == 0) {
            fprintf(stderr, "gguflint: ");
            err_text(cfg->path);
            fprintf(stderr, ":%d: warning: unused ignore [ignore:", cfg->ignores[i].line);
            err_text(cfg->ignores[i].pattern);
            fprintf(stderr, "] rules = ");
            err_text(cfg->ignores[i].rules);
            fprintf(stderr, " (it suppressed nothing)\n");
        }
    return rc == EXIT_FINDINGS && s->exit_zero ? EXIT_CLEAN : rc;
}

static settings *settings_new(void)
{
    settings *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->opt = gguflint_options_new();
    s->probe = gguflint_options_new();
    s->cwd = getcwd(NULL, 0); /* NULL when it cannot be named: paths stay as given */
    if (!s->opt || !s->probe) {
        gguflint_options_free(s->opt);
        gguflint_options_free(s->probe);
        free(s->cwd);
        free(s);
        return NULL;
    }
    s->fmt = GGUFLINT_FORMAT_TEXT;
    s->color = COLOR_AUTO;
    s->fail_on = GGUFLINT_ERROR;
    s->stdin_max = LIMIT_DEFAULT_STDIN_BYTES;
    s->jobs = 1;
    s->profile = "ggml";
    return s;
}

static void settings_free(settings *s)
{
    close_outputs(s);
    gguflint_options_free(s->opt);
    gguflint_options_free(s->probe);
    free(s->cwd);
    free(s->config_dir);
    free(s);
}

int cmd_lint(int argc, char **argv)
{
    settings *s = settings_new();
    if (!s) {
        fprintf(stderr, "gguflint: out of memory\n");
        return EXIT_USAGE;
    }
    config cfg;
    memset(&cfg, 0, sizeof cfg);
    char *found = NULL;
    gguflint_fetch_options *fetch = NULL;
    lint_inputs in = {0};
    baseline bl = {0};
    lint_state L = {s, &cfg, NULL, NULL, 0};
    gguflint_ctx *base = NULL; /* --base: parsed once, shared read-only by every run */

    first_pass fp;
    scan_args(argc, argv, &fp);
    int rc = load_config(s, &cfg, &found, &fp);
    if (rc == EXIT_CLEAN)
        rc = parse_command_line(s, argc, argv, &fetch);
    if (rc == EXIT_CLEAN) {
        cli_set_fetch(fetch);
        rc = collect_inputs(s, argc, argv, fetch, &in);
        if (rc == EXIT_USAGE)
            fprintf(stderr, "gguflint: out of memory\n");
    }
    if (rc == EXIT_CLEAN && s->baseline_path) {
        rc = baseline_load(&bl, s->baseline_path) ? EXIT_CLEAN : EXIT_USAGE;
        L.bl = &bl;
    }
    if (rc == EXIT_CLEAN && s->base_path)
        rc = open_base(s, &base);
    if (rc == EXIT_CLEAN)
        rc = open_outputs(s);
    if (rc == EXIT_CLEAN)
        rc = finish(&L, lint_all(&L, &in, base));
    if (rc < 0) /* --help, --version: done; an empty scan: reported */
        rc = rc == LINT_STOP ? EXIT_CLEAN : EXIT_USAGE;
    settings_free(s);
    gguflint_free(base);
    free_inputs(&in, argc);
    cli_set_fetch(NULL);
    gguflint_fetch_options_free(fetch);
    baseline_free(&bl);
    free(L.flags);
    config_free(&cfg);
    free(found);
    return rc;
}
