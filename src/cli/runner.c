/* runner.c - see runner.h. */
#define _POSIX_C_SOURCE 200809L
#include "runner.h"

#include "common.h"
#include "files.h"

#include "core/limits.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WAITING, TAKEN, DONE };

typedef struct job {
    const char *path;
    gguflint_ctx *ctx;
    int status; /* guarded_run's result; -1 when the file changed while read */
    int state;
    long set;                /* index of the first member of its split set, or -1 */
    long fam;                /* index of the first file of its model (same stem), or -1 */
    long set_next, fam_next; /* the next member of its set / family (input order), or -1 */
    size_t mem;              /* gguflint_memory_used of the finished context */
    bool skip;               /* not run: status says why */
} job;

struct runner {
    job *jobs;
    size_t n, next, released;
    uint64_t held, window; /* memory of finished, unreleased contexts; its bound */
    const gguflint_options *opt;
    const gguflint_ctx *base; /* --base: the model adapters are checked against, or NULL */
    uint64_t stdin_max;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    pthread_t *threads;
    unsigned started, n_threads; /* helpers running, and how many there may be */
    bool spawned, small_stack;   /* spawn_helpers ran; they need CLI_STACK_BYTES */
    /* adaptive (not --jobs-fixed): the calling thread lints in input order
     * and the helpers only take files once that pays (`go`) */
    /* the adaptive schedule (below): whether the helpers take files now;
     * the current phase (its start in wall and process CPU time, files
     * finished); when to try the helpers again, and the back-off */
    bool adaptive, go, stop;
    pthread_cond_t go_cv;
    size_t finished;
    uint64_t ph_t0, ph_cpu, ph_done, retry_at, backoff;
    uint64_t main_since; /* when the calling thread's current file started (0: none) */
    /* the calling thread's CPU clock, and what a helper saw of it on the
     * file that started at seen_since: a file is long by the CPU time it
     * took, not by the wall time a busy machine stretches it to */
    clockid_t main_clock;
    bool has_clock;
    uint64_t seen_since, seen_cpu;
};

/* Monotonic nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void run_job(runner *rn, job *j)
{
    if (j->skip)
        return;
    j->ctx = gguflint_new(rn->opt);
    if (j->ctx && rn->base)
        gguflint_set_base(j->ctx, rn->base); /* checked usable before the run started */
    j->status = j->ctx ? guarded_run(j->ctx, j->path, rn->stdin_max, NULL, NULL) : GGUFLINT_E_NOMEM;
    j->mem = gguflint_memory_used(j->ctx);
}

/* ---- the adaptive schedule (-j N without --jobs-fixed) ----
 *
 * The calling thread lints the files in input order itself; the helpers
 * take the next waiting files only while `go` is set. The run is cut into
 * phases of at least CLI_ADAPT_PHASE_NS, and each phase's process CPU time
 * says what a second thread can get: alone, a calling thread that gets
 * less than CLI_ADAPT_SOLO_PCT % of a CPU is on a busy machine (a helper
 * would only take CPU from it, and add hand-offs), else the helpers go when
 * the rest of the run would take longer than CLI_ADAPT_START_NS at the
 * phase's rate; with them, a phase whose threads got less than
 * CLI_ADAPT_GAIN_PCT % of a CPU together stops them again. After either
 * verdict against the helpers, they are tried again after a back-off that
 * doubles each time, up to CLI_ADAPT_BACKOFF_MAX_NS. The helper threads
 * are created the first time they go (spawn_helpers), so a run they never
 * join is a -j1 run; once they exist, a stopped helper also goes when the
 * calling thread's file has taken CLI_ADAPT_START_NS of its CPU time (big
 * files). All under rn->mu. */

/* Process CPU time in nanoseconds (every thread's). */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time in nanoseconds (0 when unknown). */
static uint64_t main_cpu_ns(const runner *rn)
{
    struct timespec ts;
    if (!rn->has_clock || clock_gettime(rn->main_clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Has the calling thread's current file (started at main_since, wall time
 * t now) taken CLI_ADAPT_START_NS of its CPU time (mu held)? Its clock is
 * sampled by the helpers' polls: the first poll that sees a file past
 * CLI_ADAPT_START_NS of wall time notes the clock, a later one compares.
 * On an idle machine the two agree; on a busy one the calling thread waits
 * for a CPU most of that time, and a helper would only take CPU from it. */
static bool main_file_long(runner *rn, uint64_t t)
{
    if (!rn->main_since || t - rn->main_since <= CLI_ADAPT_START_NS)
        return false;
    if (!rn->has_clock)
        return true;
    uint64_t c = main_cpu_ns(rn);
    if (rn->seen_since != rn->main_since) {
        rn->seen_since = rn->main_since;
        rn->seen_cpu = c;
        return false;
    }
    return c - rn->seen_cpu > CLI_ADAPT_START_NS;
}

static void back_off(runner *rn, uint64_t t)
{
    rn->backoff = rn->backoff ? rn->backoff * 2 : 4 * (uint64_t)CLI_ADAPT_PHASE_NS;
    if (rn->backoff > CLI_ADAPT_BACKOFF_MAX_NS)
        rn->backoff = CLI_ADAPT_BACKOFF_MAX_NS;
    rn->retry_at = t + rn->backoff;
}

static void *worker(void *arg);

/* Start the helpers (mu held; once). An adaptive run starts them only when
 * they are first let go: a thread that exists makes the whole process pay
 * for it (glibc's allocator and stdio lock once there are two), 3 % more CPU
 * time on gen_perf's v/ (1 000 small files) at -j2 on a busy machine where
 * the helper never took a file. */
static void spawn_helpers(runner *rn)
{
    if (rn->spawned)
        return;
    rn->spawned = true;
    rn->threads = rn->n_threads ? calloc(rn->n_threads, sizeof *rn->threads) : NULL;
    pthread_attr_t attr;
    bool sized = rn->small_stack && pthread_attr_init(&attr) == 0;
    if (sized && pthread_attr_setstacksize(&attr, CLI_STACK_BYTES) != 0) {
        pthread_attr_destroy(&attr);
        sized = false;
    }
    for (unsigned t = 0; t < rn->n_threads && rn->threads; t++)
        if (pthread_create(&rn->threads[rn->started], sized ? &attr : NULL, worker, rn) == 0)
            rn->started++;
    if (sized)
        pthread_attr_destroy(&attr);
}

/* A file finished at time t: count it, and at the end of a phase decide. */
static void adapt_tick(runner *rn, uint64_t t)
{
    rn->finished++;
    rn->ph_done++;
    uint64_t el = t - rn->ph_t0;
    if (!rn->adaptive || el < CLI_ADAPT_PHASE_NS)
        return;
    uint64_t cpu = cpu_ns(), used = cpu - rn->ph_cpu;
    size_t left = rn->n - rn->finished;
    if (!rn->go) {
        if (used * 100 < el * CLI_ADAPT_SOLO_PCT) {
            back_off(rn, t);
        } else if (t >= rn->retry_at && left > 0 &&
                   left * (el / rn->ph_done) > CLI_ADAPT_START_NS) {
            rn->go = true;
            spawn_helpers(rn);
            pthread_cond_broadcast(&rn->go_cv);
        }
    } else if (used * 100 < el * CLI_ADAPT_GAIN_PCT) {
        rn->go = false;
        back_off(rn, t);
    } else {
        rn->backoff = 0;
    }
    rn->ph_t0 = t;
    rn->ph_cpu = cpu;
    rn->ph_done = 0;
}

/* Job j is done (mu held). */
static void mark_done(runner *rn, job *j)
{
    j->state = DONE;
    rn->held += j->mem;
    adapt_tick(rn, rn->adaptive ? now_ns() : 0);
    pthread_cond_broadcast(&rn->changed);
}

/* The next waiting job the window lets start (mu held), or NULL when none
 * is waiting (*none) or the window is full. A job may start when the
 * finished contexts waiting for their turn hold less than the window, or
 * when it is the next one to be reported (so the run always moves on). */
static job *take_now(runner *rn, bool *none)
{
    while (rn->next < rn->n && rn->jobs[rn->next].state != WAITING)
        rn->next++;
    *none = rn->next >= rn->n;
    if (*none || (rn->next != rn->released && rn->held >= rn->window))
        return NULL;
    job *j = &rn->jobs[rn->next++];
    j->state = TAKEN;
    return j;
}

/* An adaptive helper may take a file (mu held): wait while the helpers are
 * stopped, unless the calling thread's file has taken CLI_ADAPT_START_NS of
 * its CPU time (main_file_long: the next file can start beside it). False
 * when the run is over. */
static bool helper_may_go(runner *rn)
{
    while (!rn->go && !rn->stop) {
        uint64_t t = now_ns();
        if (t >= rn->retry_at && main_file_long(rn, t)) {
            rn->go = true;
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += CLI_ADAPT_POLL_NS;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&rn->go_cv, &rn->mu, &ts);
    }
    return !rn->stop;
}

static void *worker(void *arg)
{
    runner *rn = arg;
    pthread_mutex_lock(&rn->mu);
    for (;;) {
        if (rn->adaptive && !helper_may_go(rn))
            break;
        bool none;
        job *j = take_now(rn, &none);
        if (none)
            break;
        if (!j) {
            pthread_cond_wait(&rn->changed, &rn->mu);
            continue;
        }
        pthread_mutex_unlock(&rn->mu);
        run_job(rn, j);
        pthread_mutex_lock(&rn->mu);
        mark_done(rn, j);
    }
    pthread_mutex_unlock(&rn->mu);
    return NULL;
}

/* Run job j, taken, on the calling thread (mu held, and held again on
 * return). */
static void run_here(runner *rn, job *j)
{
    j->state = TAKEN;
    rn->main_since = rn->adaptive ? now_ns() : 0;
    pthread_mutex_unlock(&rn->mu);
    run_job(rn, j);
    pthread_mutex_lock(&rn->mu);
    rn->main_since = 0;
    mark_done(rn, j);
}

/* Make sure job i is done: run it here if nobody took it, else wait; an
 * adaptive run lints the next waiting files meanwhile, so a helper that the
 * machine starves of CPU never holds the calling thread up by more than the
 * file it has. */
static void ensure_done(runner *rn, size_t i)
{
    job *j = &rn->jobs[i];
    pthread_mutex_lock(&rn->mu);
    while (j->state != DONE) {
        bool none;
        job *k = j->state == WAITING ? j : rn->adaptive ? take_now(rn, &none) : NULL;
        if (k)
            run_here(rn, k);
        else
            pthread_cond_wait(&rn->changed, &rn->mu);
    }
    pthread_mutex_unlock(&rn->mu);
}

/* ---- split sets and model families: grouped by sorting name keys ---- */

typedef struct set_key {
    char *key;
    size_t index;
} set_key;

static int key_cmp(const void *a, const void *b)
{
    const set_key *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

/* The family key of a path: its model-name stem (the same directory and
 * name without the quantisation tag and split suffix), false when none. */
static bool family_name(const char *path, char *key, size_t cap)
{
    size_t len = gguflint_model_stem(path, key, cap);
    return len > 0 && len < cap;
}

static bool split_key(const char *path, char *key, size_t cap, unsigned *count)
{
    unsigned no;
    return split_name(path, key, cap, &no, count);
}

/* Inputs whose key (split_key: shards named PREFIX-NNNNN-of-MMMMM.gguf with
 * one PREFIX; family_name: the quantisations and shards of one model) is
 * the same form a group whose members point at its first member (in
 * jobs[].set or jobs[].fam). With `lone`, a shard whose name says the set
 * has more than one file forms a set by itself (the others are missing).
 * False on NOMEM. */
static bool find_groups(job *jobs, size_t n, bool family, bool lone)
{
    set_key *keys = malloc((n ? n : 1) * sizeof *keys);
    if (!keys)
        return false;
    size_t m = 0;
    bool ok = true;
    char key[4096];
    bool *many = family ? NULL : calloc(n ? n : 1, sizeof *many); /* count > 1 in the name */
    if (!family && !many) {
        free(keys);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned count = 0;
        long *grp = family ? &jobs[i].fam : &jobs[i].set;
        *grp = -1;
        *(family ? &jobs[i].fam_next : &jobs[i].set_next) = -1;
        if (ok && !(family && jobs[i].skip) &&
            (family ? family_name(jobs[i].path, key, sizeof key)
                    : split_key(jobs[i].path, key, sizeof key, &count))) {
            if (many)
                many[i] = count > 1;
            size_t kl = strlen(key) + 1;
            keys[m].key = malloc(kl);
            if (!keys[m].key) {
                ok = false;
                continue;
            }
            memcpy(keys[m].key, key, kl);
            keys[m++].index = i;
        }
    }
    if (ok)
        qsort(keys, m, sizeof *keys, key_cmp);
    for (size_t a = 0; ok && a < m;) {
        size_t b = a + 1;
        while (b < m && strcmp(keys[a].key, keys[b].key) == 0)
            b++;
        if (b - a > 1 || (lone && many && many[keys[a].index]))
            for (size_t k = a; k < b; k++) { /* key_cmp: members in input order */
                job *jk = &jobs[keys[k].index];
                *(family ? &jk->fam : &jk->set) = (long)keys[a].index;
                *(family ? &jk->fam_next : &jk->set_next) =
                    k + 1 < b ? (long)keys[k + 1].index : -1;
            }
        a = b;
    }
    for (size_t k = 0; k < m; k++)
        free(keys[k].key);
    free(keys);
    free(many);
    return ok;
}

typedef struct set_call {
    gguflint_ctx **ctxs;
    size_t n;
} set_call;

static int call_check_set(void *arg)
{
    set_call *c = arg;
    return gguflint_check_set(c->ctxs, c->n);
}

static int call_check_family(void *arg)
{
    set_call *c = arg;
    return gguflint_check_family(c->ctxs, c->n);
}

static long group_next(const job *j, bool family)
{
    return family ? j->fam_next : j->set_next;
}

/* Every member of the group whose first member is `first` run, then the
 * group checked (gguflint_check_set, or gguflint_check_family) under the
 * SIGBUS guard: a file truncated while another is read makes the members
 * "changed while being read", not a crash. */
static void check_group(runner *rn, size_t first, bool family)
{
    /* the members are chained (find_groups): a group costs its size, not
     * a scan to the end of the run (20 000 lone shards were quadratic) */
    size_t m = 0;
    for (long k = (long)first; k >= 0; k = group_next(&rn->jobs[k], family))
        m++;
    gguflint_ctx **ctxs = calloc(m ? m : 1, sizeof *ctxs);
    if (!ctxs)
        return;
    size_t got = 0;
    for (long k = (long)first; k >= 0; k = group_next(&rn->jobs[k], family)) {
        ensure_done(rn, (size_t)k);
        if (rn->jobs[k].status == GGUFLINT_OK)
            ctxs[got++] = rn->jobs[k].ctx;
    }
    set_call c = {ctxs, got};
    if ((got > 1 || (got == 1 && !family)) &&
        guarded_call(family ? call_check_family : call_check_set, &c) < 0)
        for (long k = (long)first; k >= 0; k = group_next(&rn->jobs[k], family))
            if (rn->jobs[k].status == GGUFLINT_OK)
                rn->jobs[k].status = -1;
    free(ctxs);
}

runner *runner_new(const char *const *paths, size_t n, const gguflint_options *opt, unsigned jobs,
                   bool fixed, uint64_t stdin_max, uint64_t window_bytes, const char *const *skip,
                   const int *skip_status, const gguflint_ctx *base, bool lone_shards)
{
    runner *rn = calloc(1, sizeof *rn);
    if (!rn)
        return NULL;
    rn->jobs = calloc(n ? n : 1, sizeof *rn->jobs);
    if (!rn->jobs) {
        free(rn);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        rn->jobs[i].path = paths[i];
        if (skip && skip[i]) {
            rn->jobs[i].skip = true;
            rn->jobs[i].status = skip_status ? skip_status[i] : GGUFLINT_E_IO;
        }
    }
    if (!find_groups(rn->jobs, n, false, lone_shards) || !find_groups(rn->jobs, n, true, false)) {
        free(rn->jobs);
        free(rn);
        return NULL;
    }
    rn->n = n;
    rn->window = window_bytes;
    rn->opt = opt;
    rn->base = base;
    rn->stdin_max = stdin_max;
    pthread_mutex_init(&rn->mu, NULL);
    pthread_cond_init(&rn->changed, NULL);
    pthread_cond_init(&rn->go_cv, NULL);
    rn->ph_t0 = now_ns();
    rn->ph_cpu = cpu_ns();
    rn->has_clock = pthread_getcpuclockid(pthread_self(), &rn->main_clock) == 0;
    /* under a small stack limit the workers get the stack the command runs
     * on (cli_run_on_big_stack), not the limit */
    bool small = cli_stack_too_small();
    /* adaptive: jobs - 1 helpers beside the calling thread, none for one file */
    rn->adaptive = !fixed && jobs > 1;
    rn->n_threads = jobs <= 1 ? 0 : !rn->adaptive ? jobs : n > 1 ? jobs - 1 : 0;
    rn->small_stack = small;
    if (!rn->adaptive)
        spawn_helpers(rn); /* no other thread yet: the lock is not needed */
    return rn;
}

gguflint_ctx *runner_get(runner *rn, size_t i, int *status)
{
    job *j = &rn->jobs[i];
    if (j->set == (long)i)
        check_group(rn, i, false);
    if (j->fam == (long)i)
        check_group(rn, i, true);
    ensure_done(rn, i);
    *status = j->status;
    return j->ctx;
}

void runner_release(runner *rn, size_t i)
{
    job *j = &rn->jobs[i];
    gguflint_ctx *ctx = j->ctx; /* reported: no thread touches it again */
    j->ctx = NULL;
    gguflint_free(ctx); /* outside the lock: the helpers go on meanwhile */
    pthread_mutex_lock(&rn->mu);
    rn->held -= j->mem;
    j->mem = 0;
    rn->released = i + 1;
    pthread_cond_broadcast(&rn->changed);
    pthread_mutex_unlock(&rn->mu);
}

void runner_free(runner *rn)
{
    if (!rn)
        return;
    pthread_mutex_lock(&rn->mu); /* helpers still waiting to go: nothing is left */
    rn->stop = true;
    pthread_cond_broadcast(&rn->changed);
    pthread_cond_broadcast(&rn->go_cv);
    pthread_mutex_unlock(&rn->mu);
    for (unsigned t = 0; t < rn->started; t++)
        pthread_join(rn->threads[t], NULL);
    for (size_t i = 0; i < rn->n; i++)
        gguflint_free(rn->jobs[i].ctx);
    free(rn->threads);
    free(rn->jobs);
    pthread_mutex_destroy(&rn->mu);
    pthread_cond_destroy(&rn->changed);
    pthread_cond_destroy(&rn->go_cv);
    free(rn);
}
