/* pread_full.h - pread until the bytes asked for are read; header only (the
 * CLI includes it too). The includer defines _POSIX_C_SOURCE first. */
#ifndef GGUFLINT_COMMON_PREAD_FULL_H
#define GGUFLINT_COMMON_PREAD_FULL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

/* Read len bytes at off from fd, continuing after short reads, until they
 * are all read, the end of the file or an error: the bytes read. */
static inline size_t pread_full(int fd, void *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t g = pread(fd, (uint8_t *)buf + got, len - got, (off_t)(off + got));
        if (g <= 0)
            break;
        got += (size_t)g;
    }
    return got;
}

#endif
