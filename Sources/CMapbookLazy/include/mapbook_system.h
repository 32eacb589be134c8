#ifndef MAPBOOK_SYSTEM_H
#define MAPBOOK_SYSTEM_H

#include <stddef.h>
#include <sys/types.h>

// What Swift's Glibc module leaves out: functions glibc declares only under _GNU_SOURCE or in
// headers the module does not include (<malloc.h>).

/// Reads up to `count` bytes at `offset` of `fd` into `buffer` only as far as the page cache
/// holds them: `preadv2` with `RWF_NOWAIT` (Linux 4.14). Returns the bytes read, or -1 with
/// errno EAGAIN when the first page would need the disk (or another error).
ssize_t mapbook_pread_cached(int fd, void *buffer, size_t count, off_t offset);

/// Sets glibc's malloc to serve blocks under `mmap_threshold` bytes from its heaps (not
/// `mmap`) and to return freed memory to the system only past `trim_threshold` bytes.
void mapbook_malloc_thresholds(int mmap_threshold, int trim_threshold);

#endif
