// driver.cpp - the estimate oracle's probe: load a model with llama.cpp's
// own loader (CPU only), create a context and print the buffer sizes
// llama.cpp reports, as one JSON line:
//
//   driver MODEL N_CTX N_BATCH N_UBATCH TYPE_K TYPE_V
//
// {"ok":true,"model_size":B (llama_model_size: the tensors' bytes),
//  "model_buf":B, "context":B (memory module: KV + recurrent state),
//  "compute":B (llama_get_memory_breakdown, exact bytes), "k":MiB, "v":MiB,
//  "r":MiB, "s":MiB, "output":MiB (from llama.cpp's log lines, 2 decimals)}
// Failures print {"ok":false,"error":"..."}; a crash while the context is
// made prints {"ok":false,"partial":true,...} with the K, V, R, S figures of
// the log lines written before it. Part of ci/estimate-oracle.sh.
#include "llama.h"
#include "llama-ext.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

static double g_k, g_v, g_r, g_s, g_out;
static std::string g_last;

static double after(const char *line, const char *pat)
{
    const char *p = strstr(line, pat);
    if (!p)
        return -1;
    p = strchr(p + strlen(pat), ':');
    return p ? atof(p + 1) : -1;
}

static void on_log(enum ggml_log_level level, const char *text, void *)
{
    if (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN)
        g_last = text;
    double x;
    if (strstr(text, "llama_kv_cache: size =") || strstr(text, "llama_kv_cache: size=")) {
        if ((x = after(text, "K (")) >= 0)
            g_k += x;
        if ((x = after(text, "V (")) >= 0)
            g_v += x;
    }
    if (strstr(text, "llama_memory_recurrent: size =")) {
        if ((x = after(text, "R (")) >= 0)
            g_r += x;
        if ((x = after(text, "S (")) >= 0)
            g_s += x;
    }
    const char *o = strstr(text, "output buffer size =");
    if (o)
        g_out += atof(o + strlen("output buffer size ="));
}

// {"ok":false,"error":WHAT: the last error line, quotes and controls dropped}
static void fail(const char *what)
{
    std::string m;
    for (char ch : g_last)
        if (ch != '"' && ch != '\\' && (unsigned char)ch >= 0x20)
            m += ch;
    printf("{\"ok\":false,\"error\":\"%s: %s\"}\n", what, m.c_str());
}

// llama.cpp crashed after making its memory (a generated model can lack an
// optional tensor only the graph needs): what its log lines said so far.
static void on_crash(int sig)
{
    printf("{\"ok\":false,\"partial\":true,\"error\":\"signal %d in context creation\","
           "\"k\":%.2f,\"v\":%.2f,\"r\":%.2f,\"s\":%.2f}\n",
           sig, g_k, g_v, g_r, g_s);
    fflush(stdout);
    _exit(3);
}

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: driver MODEL N_CTX N_BATCH N_UBATCH TYPE_K TYPE_V\n");
        return 2;
    }
    llama_log_set(on_log, nullptr);
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model *m = llama_model_load_from_file(argv[1], mp);
    if (!m) {
        fail("load");
        return 1;
    }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)atoi(argv[2]);
    cp.n_batch = (uint32_t)atoi(argv[3]);
    cp.n_ubatch = (uint32_t)atoi(argv[4]);
    cp.type_k = (ggml_type)atoi(argv[5]);
    cp.type_v = (ggml_type)atoi(argv[6]);
    cp.n_seq_max = 1;
    cp.swa_full = false; // as llama-server and llama-cli run by default
    cp.n_threads = cp.n_threads_batch = 1;
    signal(SIGSEGV, on_crash);
    signal(SIGABRT, on_crash);
    llama_context *c = llama_init_from_model(m, cp);
    signal(SIGSEGV, SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    if (!c) {
        fail("context");
        llama_model_free(m);
        return 1;
    }
    size_t model_buf = 0, context = 0, compute = 0;
    for (const auto &it : llama_get_memory_breakdown(c)) {
        model_buf += it.second.model;
        context += it.second.context;
        compute += it.second.compute;
    }
    printf("{\"ok\":true,\"model_size\":%llu,\"model_buf\":%zu,\"context\":%zu,\"compute\":%zu,"
           "\"k\":%.2f,\"v\":%.2f,\"r\":%.2f,\"s\":%.2f,\"output\":%.2f}\n",
           (unsigned long long)llama_model_size(m), model_buf, context, compute, g_k, g_v, g_r,
           g_s, g_out);
    llama_free(c);
    llama_model_free(m);
    llama_backend_free();
    return 0;
}
