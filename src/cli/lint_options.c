/* lint_options.c - the lint command's options: the option table, the
 * settings' defaults, rule options in their fixed order, limits, and the
 * command line (phase 2 of lint_cmd.c). */
#define _POSIX_C_SOURCE 200809L
#include "lint.h"

#include "gguflint_llama.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    {"llama-build", required_argument, NULL, OPT_LLAMA_BUILD},
    {"base", required_argument, NULL, OPT_BASE},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"write-baseline", required_argument, NULL, OPT_WRITE_BASELINE},
    {"help-uri", required_argument, NULL, OPT_HELP_URI},
    {"bom-timestamp", required_argument, NULL, OPT_BOM_TIMESTAMP},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"isolated", no_argument, NULL, OPT_ISOLATED},
    {"recursive", no_argument, NULL, OPT_RECURSIVE},
    {"include", required_argument, NULL, OPT_INCLUDE},
    {"exclude", required_argument, NULL, OPT_EXCLUDE},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"jobs-fixed", no_argument, NULL, OPT_JOBS_FIXED},
    {"deep-read", required_argument, NULL, OPT_DEEP_READ},
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
    {"allow-unreadable", no_argument, NULL, OPT_ALLOW_UNREADABLE},
    {"version", no_argument, NULL, OPT_VERSION},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

int lint_add_rule_opt(settings *s, int kind, char *arg, bool from_config)
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
bool lint_set_limit(settings *s, int which, const char *value)
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

int lint_opt_by_name(const char *name)
{
    for (size_t i = 0; long_opts[i].name; i++)
        if (strcmp(long_opts[i].name, name) == 0)
            return long_opts[i].val;
    return -1;
}

bool lint_parse_bool(const char *v, bool *out)
{
    if (strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0)
        *out = true;
    else if (strcmp(v, "false") == 0 || strcmp(v, "no") == 0 || strcmp(v, "0") == 0)
        *out = false;
    else
        return false;
    return true;
}

/* Profile, then select, extend-select, ignore, severity; a --select on the
 * command line replaces the config file's select. */
int lint_apply_rule_opts(settings *s)
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

void lint_scan_args(int argc, char **argv, first_pass *fp)
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

int lint_parse_command_line(settings *s, int argc, char **argv, gguflint_fetch_options **fetch)
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
                rc = usage_error(
                    "unknown format '%s' (text, json, sarif, github, baseline, cyclonedx)", optarg);
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
            rc = lint_add_rule_opt(s, c, optarg, false);
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
        case OPT_JOBS_FIXED: s->jobs_fixed = true; break;
        case OPT_DEEP_READ:
            /* the mapping is read in place only on a thread the SIGBUS guard
             * covers (guarded_run): the library decides, this allows it */
            if (strcmp(optarg, "mmap") != 0 && strcmp(optarg, "pread") != 0)
                return usage_error("--deep-read takes mmap or pread, got '%s'", optarg);
            gguflint_options_set_deep_map(s->opt, optarg[0] == 'm');
            break;
        case OPT_LLAMA_BUILD:
            if (gguflint_options_set_llama_build(s->opt, optarg) != GGUFLINT_OK)
                return usage_error("--llama-build takes bNNNN or YYYY-MM-DD, got '%s'", optarg);
            break;
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
            if (!lint_set_limit(s, c, optarg)) {
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
        case OPT_BOM_TIMESTAMP:
            if (!parse_bom_time(optarg, &s->bom_time))
                return usage_error("--bom-timestamp takes now, none or seconds since 1970, "
                                   "got '%s'",
                                   optarg);
            s->bom_time_set = true;
            break;
        default: return usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    gguflint_options_set_deep_jobs(s->opt, s->jobs);
    /* reproducible builds' convention: the time to record instead of now */
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    if (!s->bom_time_set && epoch && *epoch &&
        (epoch[strspn(epoch, "0123456789")] || !parse_bom_time(epoch, &s->bom_time)))
        return usage_error("SOURCE_DATE_EPOCH must be seconds since 1970, got '%s'", epoch);
    rc = lint_apply_rule_opts(s);
    if (rc == EXIT_CLEAN && s->config_refused)
        gguflint_options_set_config_refused(s->opt, true);
    if (rc == EXIT_CLEAN && optind >= argc)
        rc = usage_error("%s", "no input files");
    return rc;
}

settings *lint_settings_new(void)
{
    settings *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->fmt = GGUFLINT_FORMAT_TEXT;
    s->color = COLOR_AUTO;
    s->fail_on = GGUFLINT_ERROR;
    s->stdin_max = LIMIT_DEFAULT_STDIN_BYTES;
    s->jobs = 1;
    s->profile = "ggml";
    s->opt = gguflint_options_new();
    s->probe = gguflint_options_new();
    s->cwd = getcwd(NULL, 0); /* NULL when it cannot be named: paths stay as given */
    s->bom_time = -1;
    /* every lint runs under guarded_run's SIGBUS guard: --deep may read a
     * mapped file in place (--deep-read pread: the copy, the reference).
     * Set on the options once they exist (set before, on NULL, it was lost
     * and the default read was the copy) */
    if (s->opt && s->probe && gguflint_options_set_deep_map(s->opt, true) == GGUFLINT_OK)
        return s;
    gguflint_options_free(s->opt);
    gguflint_options_free(s->probe);
    free(s->cwd);
    free(s);
    return NULL;
}
