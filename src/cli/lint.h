/* lint.h - what the phases of the lint command share (lint_cmd.c runs
 * them): the option ids, the settings a run is made of (defaults, then the
 * configuration file, then the command line), and the functions of
 * lint_options.c (the command line) and lint_config.c (the configuration
 * file and whether a discovered one is applied). Uses only the public API. */
#ifndef GGUFLINT_CLI_LINT_H
#define GGUFLINT_CLI_LINT_H

#include "common.h"
#include "config.h"

#include "core/limits.h"

#include <stdio.h>

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
    OPT_LLAMA_BUILD,
    OPT_FETCH,
    OPT_OUTPUT_FILE,
    OPT_COLOR,
    OPT_STATISTICS,
    OPT_INCLUDE,
    OPT_EXCLUDE,
    OPT_BASE,
    OPT_BASELINE,
    OPT_WRITE_BASELINE,
    OPT_HELP_URI,
    OPT_BOM_TIMESTAMP,
    OPT_ALLOW_UNREADABLE,
    OPT_DEEP_READ,
    OPT_JOBS_FIXED
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
    bool jobs_fixed; /* --jobs-fixed: every -j worker from the start (runner.c) */
    const char *profile;
    gguflint_options *probe; /* scratch: checking and applying ignore lists */
    rule_opt rules[CLI_MAX_RULE_OPTS];
    int n_rules;
    char sev_buf[CONFIG_MAX_ITEMS][160]; /* RULE=LEVEL strings built from [severity] */
    const char *include[CLI_MAX_RULE_OPTS], *exclude[CLI_MAX_RULE_OPTS]; /* -r globs */
    size_t n_include, n_exclude;
    const char *base_path;      /* --base MODEL */
    bool allow_unreadable;      /* -r: what the walk cannot read is a warning, not an error */
    const char *baseline_path;  /* --baseline FILE */
    const char *write_baseline; /* --write-baseline FILE */
    const char *help_uri;       /* --help-uri URL (SARIF helpUri) */
    int64_t bom_time;           /* --bom-timestamp / SOURCE_DATE_EPOCH, or -1: none */
    bool bom_time_set;          /* --bom-timestamp was given (SOURCE_DATE_EPOCH not read) */
    bool config_refused;        /* a discovered config was not applied (GG800) */
    char *cwd;                  /* the working directory (absolute), or NULL */
    char *config_dir;           /* the absolute folder of the config applied, or NULL */
} settings;

/* What the command line says before it is applied (a first getopt pass):
 * the config file asked for, --isolated, the profile and -r. */
typedef struct first_pass {
    const char *config, *profile;
    bool isolated, recursive;
} first_pass;

/* What lint_parse_command_line returns after --help and --version. */
enum { LINT_STOP = -1 };

/* ---- lint_options.c ---- */

/* New settings with every default (NULL when out of memory). */
settings *lint_settings_new(void);
/* A --select/--extend-select/--ignore/--severity value, from the command
 * line or the config file; a usage error when there are too many. */
int lint_add_rule_opt(settings *s, int kind, char *arg, bool from_config);
/* Apply one limit option (an OPT_MAX_* id); false when the value is bad. */
bool lint_set_limit(settings *s, int which, const char *value);
/* The option id of a long option's name, or -1. */
int lint_opt_by_name(const char *name);
bool lint_parse_bool(const char *v, bool *out);
/* Profile, then select, extend-select, ignore, severity into s->opt. */
int lint_apply_rule_opts(settings *s);
/* The first pass over the arguments (which config, which profile). */
void lint_scan_args(int argc, char **argv, first_pass *fp);
/* Phase 2: the command line over the config file's values (LINT_STOP after
 * --help and --version); the inputs are argv[optind..] after it. */
int lint_parse_command_line(settings *s, int argc, char **argv, gguflint_fetch_options **fetch);

/* ---- lint_config.c ---- */

/* Phase 1: the configuration file, read into cfg and applied to s unless
 * it is not trusted (*found: the discovered path, to free). */
int lint_load_config(settings *s, config *cfg, char **found, const first_pass *fp);

#endif
