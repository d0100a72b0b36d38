/* lint_cmd.c - the lint command in its phases: the configuration file
 * (lint_config.c), the command line (lint_options.c), the list of inputs
 * (-r, files.c; URLs), linting on -j threads with output in input order
 * (runner.c) with, per file, the config's per-path ignores on the
 * normalised path, the baseline and the digest, then the reports (which
 * name the configuration used) and the closing notes. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "baseline.h"
#include "files.h"
#include "lint.h"
#include "runner.h"
#include "sha256.h"

#include "core/limits.h"
#include "gguflint_llama.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    char *out = cli_normalized(p, s->config_dir);
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
        gguflint_report_set_timestamp(o->rep, s->bom_time);
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

/* Phase 3: the inputs, in order: paths, directories under -r, URLs and
 * hf:// listings (a failed listing stays in the list under its own name,
 * with why in skip[i] and its status in skip_status[i]). */
typedef struct lint_inputs {
    file_list files;
    char **list_errors; /* per argument: why its hf:// listing failed */
    int *list_status;
    const char **skip; /* per file: a failed listing's reason, or NULL */
    int *skip_status;
    walk_errors unreadable; /* what the walk could not open or stat */
    bool lone_shards;       /* a shard of a bigger set forms a set by itself (GG410) */
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
                       &in->list_errors[i], &in->list_status[i], &in->unreadable))
            return EXIT_USAGE;
    if (!walk_errors_take(&in->files, &in->unreadable, s->allow_unreadable))
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
    walk_errors_mark((const char *const *)in->files.paths, in->files.n, &in->unreadable, in->skip,
                     in->skip_status);
    /* a shard alone on the command line is one file; under -r, in a listing
     * or among several inputs it is a set that lacks its other shards */
    in->lone_shards = s->recursive || in->files.n > 1 || gguflint_url_kind(argv[optind]) == 2;
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
    walk_errors_free(&in->unreadable);
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
            char *norm = cli_normalized(path, s->cwd); /* as the reports fingerprint it */
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
        /* the file was read whole (--deep): its digest, for the JSON report;
         * a CycloneDX BOM records it for every local file */
        bool json = false, bom = false;
        for (int k = 0; k < s->n_out; k++) {
            json |= s->out[k].fmt == GGUFLINT_FORMAT_JSON;
            bom |= s->out[k].fmt == GGUFLINT_FORMAT_CYCLONEDX;
        }
        if ((bom || (json && gguflint_options_get_deep(s->opt))) && gguflint_url_kind(path) == 0 &&
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
                            s->jobs_fixed, s->stdin_max, CLI_JOB_WINDOW_BYTES, in->skip,
                            in->skip_status, base, in->lone_shards);
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
        /* out of memory in any of the report's calls: the report lacks part
         * of its output, which must not pass for a whole one */
        int st = gguflint_report_end(s->out[k].rep, !s->quiet);
        if (st != GGUFLINT_OK) {
            fprintf(stderr, "gguflint: ");
            err_text(s->out[k].file ? s->out[k].file : "standard output");
            fprintf(stderr, ": the report is incomplete: %s\n", gguflint_strerror(st));
            rc = EXIT_USAGE;
        }
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
    settings *s = lint_settings_new();
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
    lint_scan_args(argc, argv, &fp);
    int rc = lint_load_config(s, &cfg, &found, &fp);
    if (rc == EXIT_CLEAN)
        rc = lint_parse_command_line(s, argc, argv, &fetch);
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
