/* driver.c - llama.cpp's real loaders as a test oracle (ci/loader-oracle.sh).
 *
 * Linked against a CPU-only static build of ../shared/llama.cpp (never part
 * of gguflint). Reads requests from standard input, one per line, fields
 * separated by tabs:
 *
 *   model  PATH                  llama_model_load_from_file, n_gpu_layers = 0
 *   decode PATH                  the same, then a 16-token context and the
 *                                decode of one token (the graph build and
 *                                run that a load alone never reaches)
 *   lora   BASE  ADAPTER         the base model, then llama_adapter_lora_init
 *   mmproj TEXT  MMPROJ  WARMUP  the text model, then mtmd_init_from_file
 *                                with warmup 1 (mtmd's default) or 0
 *
 * and answers each with one line on standard output:
 *
 *   OK
 *   FAIL    <the loader's last error message>
 *   SIGNAL  <signal name>  <the last message before it>
 *   TIMEOUT <the last message>
 *
 * Each request runs in a child process (fork after the backend is
 * initialised once) with an address-space limit and a CPU-time alarm, so a
 * crash, an abort or a hang of the loader is a verdict, not the end of the
 * run. The child's log lines and its standard error go through a pipe to
 * the parent, which keeps the most telling line as the message: the model
 * loader's "error loading model" reason, else the last error line that is
 * not a generic "failed to load", else ggml's abort text. */
#define _GNU_SOURCE
#include "llama.h"
#include "mtmd.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINE_MAX_LEN 8192
#define MSG_MAX 4096

static unsigned timeout_s = 20;
static int verbose; /* --verbose 1: copy every child line to standard error */
static unsigned long long as_limit = 4ull << 30;

static void on_log(enum ggml_log_level level, const char *text, void *user)
{
    (void)user;
    /* Everything at warning or above reaches the parent; debug and info
     * lines are dropped, continuation lines follow their level. */
    static enum ggml_log_level last = GGML_LOG_LEVEL_INFO;
    if (level != GGML_LOG_LEVEL_CONT)
        last = level;
    if (last >= GGML_LOG_LEVEL_WARN) {
        if (level != GGML_LOG_LEVEL_CONT)
            fputs(last == GGML_LOG_LEVEL_ERROR ? "E: " : "W: ", stderr);
        fputs(text, stderr);
    }
}

static struct llama_model *load_model(const char *path)
{
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    return llama_model_load_from_file(path, mp);
}

static int run_child(char **f, int n)
{
    if (strcmp(f[0], "model") == 0 && n >= 2) {
        struct llama_model *m = load_model(f[1]);
        if (!m)
            return 1;
        llama_model_free(m);
        return 0;
    }
    if (strcmp(f[0], "decode") == 0 && n >= 2) {
        struct llama_model *m = load_model(f[1]);
        if (!m)
            return 1;
        struct llama_context_params cp = llama_context_default_params();
        cp.n_ctx = 16;
        cp.n_batch = 16;
        cp.n_ubatch = 16;
        cp.n_seq_max = 1;
        cp.n_threads = 1;
        cp.n_threads_batch = 1;
        struct llama_context *c = llama_init_from_model(m, cp);
        if (!c) {
            fputs("E: ORACLE: llama_init_from_model failed\n", stderr);
            return 1;
        }
        llama_token tok = 1;
        int rc = llama_decode(c, llama_batch_get_one(&tok, 1));
        if (rc != 0)
            fprintf(stderr, "E: ORACLE: llama_decode returned %d\n", rc);
        llama_free(c);
        llama_model_free(m);
        return rc != 0;
    }
    if (strcmp(f[0], "lora") == 0 && n >= 3) {
        struct llama_model *m = load_model(f[1]);
        if (!m) {
            fputs("E: ORACLE: the base model did not load\n", stderr);
            return 3;
        }
        struct llama_adapter_lora *a = llama_adapter_lora_init(m, f[2]);
        if (!a)
            return 1;
        llama_model_free(m);
        return 0;
    }
    if (strcmp(f[0], "mmproj") == 0 && n >= 4) {
        struct llama_model *m = load_model(f[1]);
        if (!m) {
            fputs("E: ORACLE: the text model did not load\n", stderr);
            return 3;
        }
        struct mtmd_context_params cp = mtmd_context_params_default();
        cp.use_gpu = false;
        cp.n_threads = 1;
        cp.print_timings = false;
        cp.warmup = strcmp(f[3], "1") == 0;
        mtmd_context *c = mtmd_init_from_file(f[2], m, cp);
        if (!c)
            return 1;
        mtmd_free(c);
        llama_model_free(m);
        return 0;
    }
    fputs("E: ORACLE: bad request\n", stderr);
    return 2;
}

/* The last line that looks like an error: "E: " lines first, then any line
 * of ggml's abort output ("GGML_ASSERT", "error"), else the last line. */
static void pick_message(char *buf, size_t len, char *out, size_t cap)
{
    const char *best = NULL, *last = NULL;
    size_t best_len = 0, last_len = 0;
    int best_rank = 0;
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && buf[j] != '\n')
            j++;
        const char *s = buf + i;
        size_t l = j - i;
        if (l > 0) {
            int rank = 0;
            if (memmem(s, l, "error loading model", 19) || memmem(s, l, "clip_init: failed", 17))
                rank = 4; /* the model or clip loader's own reason */
            else if (l > 3 && memcmp(s, "E: ", 3) == 0 && !memmem(s, l, "ailed to load", 13))
                rank = 3;
            else if (memmem(s, l, "GGML_ASSERT", 11) || memmem(s, l, "GGML_ABORT", 10) ||
                     memmem(s, l, "error", 5) || memmem(s, l, "terminate called", 16))
                rank = 2;
            if (rank >= best_rank && rank > 0) {
                best = s;
                best_len = l;
                best_rank = rank;
            }
            last = s;
            last_len = l;
        }
        i = j + 1;
    }
    if (!best) {
        best = last;
        best_len = last_len;
    }
    size_t k = 0;
    for (size_t t = 0; best && t < best_len && k + 1 < cap; t++) {
        unsigned char c = (unsigned char)best[t];
        out[k++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    out[k] = '\0';
}

static void serve(char *line)
{
    char *f[8];
    int n = 0;
    for (char *p = line; n < 8;) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = '\0';
        p = t + 1;
    }
    int fds[2];
    if (pipe(fds) != 0) {
        printf("FAIL\tORACLE: pipe: %s\n", strerror(errno));
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        printf("FAIL\tORACLE: fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        dup2(fds[1], 1);
        close(fds[1]);
        struct rlimit rl = {as_limit, as_limit};
        setrlimit(RLIMIT_AS, &rl);
        struct rlimit core = {0, 0};
        setrlimit(RLIMIT_CORE, &core);
        alarm(timeout_s);
        int rc = run_child(f, n);
        fflush(stderr);
        _exit(rc);
    }
    close(fds[1]);
    static char buf[1 << 20];
    size_t len = 0;
    for (;;) {
        ssize_t r = read(fds[0], buf + len, sizeof buf - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (len == sizeof buf) {
            /* Keep the second half: the last messages matter. */
            memmove(buf, buf + sizeof buf / 2, sizeof buf / 2);
            len = sizeof buf / 2;
        }
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    char msg[MSG_MAX];
    if (verbose)
        fwrite(buf, 1, len, stderr);
    pick_message(buf, len, msg, sizeof msg);
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        if (sig == SIGALRM)
            printf("TIMEOUT\t%s\n", msg);
        else
            printf("SIGNAL\tSIG%s\t%s\n", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", msg);
    } else if (WEXITSTATUS(st) == 0) {
        printf("OK\n");
    } else {
        printf("FAIL\t%s\n", msg);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--timeout") == 0)
            timeout_s = (unsigned)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--verbose") == 0)
            verbose = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--as-limit-mb") == 0)
            as_limit = strtoull(argv[i + 1], NULL, 10) << 20;
    }
    llama_log_set(on_log, NULL);
    mtmd_log_set(on_log, NULL);
    llama_backend_init();
    static char line[LINE_MAX_LEN];
    while (fgets(line, sizeof line, stdin)) {
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
            line[--l] = '\0';
        if (l == 0)
            continue;
        serve(line);
    }
    llama_backend_free();
    return 0;
}
