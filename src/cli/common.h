/* common.h - helpers shared by the CLI commands: exit codes, usage errors,
 * number and format parsing, safe printing of paths, and running the library
 * on one file under a SIGBUS guard. Uses only the public API. */
#ifndef GGUFLINT_CLI_COMMON_H
#define GGUFLINT_CLI_COMMON_H

#include "gguflint.h"

#include <stdbool.h>
#include <stdint.h>

enum { EXIT_CLEAN = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2 };

extern const char usage_text[], usage_limits[];

/* Print "gguflint: " + fmt with its one %s replaced by `arg` (escaped), and a
 * hint; returns EXIT_USAGE. */
int usage_error(const char *fmt, const char *arg);
bool parse_u64(const char *s, uint64_t *out);
bool parse_format(const char *s, gguflint_format *f);
/* The BOM's timestamp (--bom-timestamp, SOURCE_DATE_EPOCH): "none" (-1),
 * "now", or decimal seconds since the epoch up to 9999-12-31T23:59:59Z. */
bool parse_bom_time(const char *s, int64_t *out);
/* True when -h or --help is among the arguments (before a "--"). */
bool cli_wants_help(int argc, char **argv);
/* Move the options of argv[1..argc) (and the values of those listed in
 * with_value, a NULL-terminated list such as {"-o", "--format", NULL})
 * before the operands, keeping both orders, so a subcommand that reads
 * options first accepts them after its paths too; a "--" ends the options
 * (it is dropped, and the operands after it stay operands, even "-x").
 * Returns the index of the first operand (*argc when there is none), or -1
 * when out of memory; *argc shrinks by one when a "--" was dropped. */
int cli_options_first(int *argc, char **argv, const char *const *with_value);
/* one(argv[i], arg) for the operands argv[first..argc), with a "==> PATH <=="
 * line (escaped) before each when `banners` and there are several; returns
 * the worst (highest) exit status. */
int cli_each_path(int first, int argc, char **argv, bool banners,
                  int (*one)(const char *path, void *arg), void *arg);
/* gguflint_path_normalize(path, base) into a malloc'd string, or NULL. */
char *cli_normalized(const char *path, const char *base);
/* Write untrusted text (a path, a detail) escaped to stderr. */
void err_text(const char *s);
/* "gguflint: PATH: what" on stderr. */
void path_error(const char *path, const char *what);
/* "gguflint: PATH: status: detail" on stderr; for the guard's -1 (see
 * guarded_run) "the file changed (shrank) while being read". */
void report_status(const char *path, const gguflint_ctx *ctx, int st);
/* gguflint_new(NULL); NULL after "gguflint: out of memory" on stderr. */
gguflint_ctx *cli_new_ctx(void);

/* The fetch options URL inputs use (set once by a command before it starts
 * threads; NULL: the library's defaults). */
void cli_set_fetch(const gguflint_fetch_options *fo);
/* Parse a fetch option of the command line (--max-fetch, --fetch-first-range,
 * --header, --timeout, --connect-timeout, --retries) into *fo, creating it
 * on first use. Returns EXIT_CLEAN or a usage error. */
int cli_fetch_option(gguflint_fetch_options **fo, const char *name, const char *value);

/* Install the process-wide SIGBUS handler (once, from main). */
void install_bus_guard(void);
/* Open `path` (standard input for "-", a URL for http://, https:// and
 * hf://...gguf), run the checks, then call `then`
 * (optional) - all under a per-thread SIGBUS guard: a file truncated by
 * another process while it is read becomes GGUFLINT_E_IO. */
int guarded_run(gguflint_ctx *ctx, const char *path, uint64_t stdin_max,
                void (*then)(gguflint_ctx *, void *), void *arg);

/* Call fn(arg) under the same guard (for work on contexts that are already
 * open, such as a split set's check): -1 when a mapped file shrank under it. */
int guarded_call(int (*fn)(void *), void *arg);

/* The stack a command runs on: when the process's limit (ulimit -s) is
 * below it, threads get this much. */
#define CLI_STACK_BYTES ((size_t)8 << 20)
/* True when RLIMIT_STACK is below CLI_STACK_BYTES (ulimit -s 64 in some
 * sandboxes: the arch checks alone keep tables of some 10 KB on the stack). */
bool cli_stack_too_small(void);
/* fn(argc, argv), on a thread with CLI_STACK_BYTES of stack when the main
 * thread's is too small (else here). */
int cli_run_on_big_stack(int (*fn)(int, char **), int argc, char **argv);

int cmd_lint(int argc, char **argv);
int cmd_hash(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_estimate(int argc, char **argv);

#endif
