#define _GNU_SOURCE
#include "mapbook_system.h"
#include <errno.h>
#include <sys/uio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifndef RWF_NOWAIT
#define RWF_NOWAIT 0x00000008
#endif

ssize_t mapbook_pread_cached(int fd, void *buffer, size_t count, off_t offset) {
#ifdef __linux__
    struct iovec vector = { buffer, count };
    return preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
#else
    errno = EAGAIN;
    return -1;
#endif
}

void mapbook_malloc_thresholds(int mmap_threshold, int trim_threshold) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, trim_threshold);
#endif
}
