/* keyhash.c - SipHash-1-3 (Aumasson and Bernstein, "SipHash: a fast
 * short-input PRF", 2012; 1-3 rounds as CPython and Rust use for their hash
 * tables) and the per-process key. See keyhash.h. */
#define _GNU_SOURCE
#include "common/keyhash.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

uint64_t siphash_cd(const keyhash_key *key, const void *data, size_t len, int c, int d)
{
    return keyhash_sip(key, data, len, c, d);
}

static keyhash_key process_key;
static keyhash_ml process_ml;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* The multilinear keys derived from a SipHash key. */
static void derive_ml(keyhash_ml *m, const keyhash_key *key)
{
    m->sip = *key;
    for (size_t i = 0; i < sizeof m->k / sizeof m->k[0]; i++) {
        uint64_t in[2] = {0x6d756c74696c696eull /* "multilin" */, (uint64_t)i};
        m->k[i] = keyhash_sip(key, in, sizeof in, 2, 4);
    }
}

/* Fill buf from the kernel; false when neither getrandom nor /dev/urandom
 * gives all the bytes. */
static int fill_random(uint8_t *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        got += (size_t)r;
    }
    if (got == n)
        return 1;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    return got == n;
}

static void init_key(void)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    process_key = (keyhash_key){0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
#else
    uint8_t b[16];
    if (!fill_random(b, sizeof b)) {
        /* No kernel randomness (a sandbox without /dev): the clock, the pid
         * and this code's address (ASLR) still differ between runs. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t a = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30;
        uint64_t p = (uint64_t)getpid() ^ (uint64_t)(uintptr_t)&process_key;
        keyhash_key k = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull};
        a = siphash_cd(&k, &a, sizeof a, 2, 4);
        p = siphash_cd(&k, &p, sizeof p, 2, 4);
        memcpy(b, &a, 8);
        memcpy(b + 8, &p, 8);
    }
    process_key.k0 = keyhash_load64(b);
    process_key.k1 = keyhash_load64(b + 8);
#endif
    derive_ml(&process_ml, &process_key);
}

const keyhash_key *keyhash_process_key(void)
{
    pthread_once(&key_once, init_key);
    return &process_key;
}

uint64_t keyhash(const void *data, size_t len)
{
    return keyhash_sip(keyhash_process_key(), data, len, 1, 3);
}

void keyhash_ml_init(keyhash_ml *m)
{
    *m = *keyhash_ml_process();
}

const keyhash_ml *keyhash_ml_process(void)
{
    pthread_once(&key_once, init_key);
    return &process_ml;
}
