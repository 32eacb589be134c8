// A read-only SQLite VFS that presents a byte range of a file as a whole database file.
//
// Packages store their GeoPackages and search indexes uncompressed, so each is a contiguous
// byte range of the package (DESIGN.md section 5). This VFS shifts every read by the range's
// offset and reports the range's length as the file size; everything else (opening the real
// file, time, randomness) is delegated to the default VFS. The database must be opened with
// `immutable=1`, so SQLite takes no locks and never looks for a journal, WAL or shm file.
//
// A range can also lie in a file that is not on this machine (a package in an object store):
// opened with `source=N`, its reads go to the reader `mapbook_vfs_set_reader` installed, which
// reads `length` bytes at `offset` of source N (ranged requests, cached by the caller).

#include "mapbook_vfs.h"

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

const char *const mapbook_vfs_name = "mapbook-range";

typedef struct RangeFile {
    sqlite3_file base;        // must come first: SQLite sees a RangeFile as a sqlite3_file
    sqlite3_file *real;       // the underlying file, opened by the default VFS
    sqlite3_int64 offset;     // where the database starts in the real file
    sqlite3_int64 length;     // how many bytes belong to it
    sqlite3_int64 source;     // a remote source's number, or 0 for a file read through `real`
} RangeFile;

static mapbook_vfs_reader remote_reader = 0;

void mapbook_vfs_set_reader(mapbook_vfs_reader reader) {
    remote_reader = reader;
}

static sqlite3_vfs range_vfs;

static int range_close(sqlite3_file *file) {
    RangeFile *p = (RangeFile *)file;
    int rc = SQLITE_OK;
    if (p->real && p->real->pMethods) {
        rc = p->real->pMethods->xClose(p->real);
    }
    return rc;
}

static int range_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    RangeFile *p = (RangeFile *)file;
    if (offset < 0 || amount < 0) return SQLITE_IOERR_READ;
    if (offset >= p->length) {
        memset(buffer, 0, (size_t)amount);
        return SQLITE_IOERR_SHORT_READ;
    }
    sqlite3_int64 available = p->length - offset;
    int wanted = amount;
    if ((sqlite3_int64)wanted > available) wanted = (int)available;
    int rc;
    if (p->source > 0) {
        rc = remote_reader && remote_reader(p->source, buffer, wanted, p->offset + offset) == 0 ? SQLITE_OK : SQLITE_IOERR_READ;
    } else {
        rc = p->real->pMethods->xRead(p->real, buffer, wanted, p->offset + offset);
    }
    if (rc != SQLITE_OK) return rc;
    if (wanted < amount) {
        // SQLite requires the unread tail to be zeroed on a short read.
        memset((char *)buffer + wanted, 0, (size_t)(amount - wanted));
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

static int range_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    (void)file; (void)buffer; (void)amount; (void)offset;
    return SQLITE_READONLY;
}

static int range_truncate(sqlite3_file *file, sqlite3_int64 size) {
    (void)file; (void)size;
    return SQLITE_READONLY;
}

static int range_sync(sqlite3_file *file, int flags) {
    (void)file; (void)flags;
    return SQLITE_OK;
}

static int range_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    *size = ((RangeFile *)file)->length;
    return SQLITE_OK;
}

static int range_lock(sqlite3_file *file, int level) {
    (void)file; (void)level;
    return SQLITE_OK;
}

static int range_check_reserved_lock(sqlite3_file *file, int *out) {
    (void)file;
    *out = 0;
    return SQLITE_OK;
}

static int range_file_control(sqlite3_file *file, int op, void *arg) {
    (void)file; (void)op; (void)arg;
    return SQLITE_NOTFOUND;
}

static int range_sector_size(sqlite3_file *file) {
    (void)file;
    return 4096;
}

static int range_device_characteristics(sqlite3_file *file) {
    (void)file;
    return SQLITE_IOCAP_IMMUTABLE;
}

static const sqlite3_io_methods range_io_methods = {
    1,                                   // iVersion: no shared memory, no mmap
    range_close,
    range_read,
    range_write,
    range_truncate,
    range_sync,
    range_file_size,
    range_lock,
    range_lock,                          // xUnlock: nothing to release
    range_check_reserved_lock,
    range_file_control,
    range_sector_size,
    range_device_characteristics,
    0, 0, 0, 0, 0, 0,
};

static sqlite3_vfs *default_vfs(void) {
    return (sqlite3_vfs *)range_vfs.pAppData;
}

static int range_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags,
                      int *out_flags) {
    (void)vfs;
    RangeFile *p = (RangeFile *)file;
    memset(p, 0, sizeof(*p));
    // Only the main database is a range. Temporary files (sorts and indexes that spill
    // out of memory, temp databases) are ordinary files of the default VFS, which fit in
    // our larger file object.
    if (name == 0 || (flags & SQLITE_OPEN_MAIN_DB) == 0) {
        return default_vfs()->xOpen(default_vfs(), name, file, flags, out_flags);
    }
    if (flags & (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) {
        if ((flags & SQLITE_OPEN_READONLY) == 0) return SQLITE_READONLY;
    }
    sqlite3_int64 offset = sqlite3_uri_int64(name, "offset", -1);
    sqlite3_int64 length = sqlite3_uri_int64(name, "length", -1);
    if (offset < 0 || length < 0) return SQLITE_CANTOPEN;

    sqlite3_int64 source = sqlite3_uri_int64(name, "source", 0);
    if (source > 0) {
        if (remote_reader == 0) return SQLITE_CANTOPEN;
        p->source = source;
        p->offset = offset;
        p->length = length;
        p->base.pMethods = &range_io_methods;
        if (out_flags) *out_flags = SQLITE_OPEN_READONLY;
        return SQLITE_OK;
    }

    p->real = (sqlite3_file *)&p[1];
    int real_flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
    int rc = default_vfs()->xOpen(default_vfs(), name, p->real, real_flags, out_flags);
    if (rc != SQLITE_OK) {
        p->real = 0;
        return rc;
    }
    sqlite3_int64 real_size = 0;
    rc = p->real->pMethods->xFileSize(p->real, &real_size);
    if (rc != SQLITE_OK || offset > real_size || length > real_size - offset) {
        p->real->pMethods->xClose(p->real);
        p->real = 0;
        return rc != SQLITE_OK ? rc : SQLITE_CANTOPEN;
    }
    p->offset = offset;
    p->length = length;
    p->base.pMethods = &range_io_methods;
    if (out_flags) *out_flags = SQLITE_OPEN_READONLY;
    return SQLITE_OK;
}

static int range_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs; (void)name; (void)sync_dir;
    return SQLITE_READONLY;
}

static int range_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs; (void)name; (void)flags;
    // No journal, WAL or shm file ever exists beside a range.
    *out = 0;
    return SQLITE_OK;
}

static int range_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return default_vfs()->xFullPathname(default_vfs(), name, size, out);
}

static int range_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return default_vfs()->xRandomness(default_vfs(), size, out);
}

static int range_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return default_vfs()->xSleep(default_vfs(), microseconds);
}

static int range_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return default_vfs()->xCurrentTime(default_vfs(), out);
}

static int range_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return default_vfs()->xGetLastError(default_vfs(), size, out);
}

static int register_result = SQLITE_OK;
static pthread_once_t register_once = PTHREAD_ONCE_INIT;

static void register_vfs(void) {
    sqlite3_vfs *base = sqlite3_vfs_find(0);
    if (base == 0) {
        register_result = SQLITE_ERROR;
        return;
    }
    memset(&range_vfs, 0, sizeof(range_vfs));
    range_vfs.iVersion = 1;
    range_vfs.szOsFile = (int)sizeof(RangeFile) + base->szOsFile;
    range_vfs.mxPathname = base->mxPathname;
    range_vfs.zName = mapbook_vfs_name;
    range_vfs.pAppData = base;
    range_vfs.xOpen = range_open;
    range_vfs.xDelete = range_delete;
    range_vfs.xAccess = range_access;
    range_vfs.xFullPathname = range_full_pathname;
    range_vfs.xDlOpen = 0;
    range_vfs.xDlError = 0;
    range_vfs.xDlSym = 0;
    range_vfs.xDlClose = 0;
    range_vfs.xRandomness = range_randomness;
    range_vfs.xSleep = range_sleep;
    range_vfs.xCurrentTime = range_current_time;
    range_vfs.xGetLastError = range_get_last_error;
    register_result = sqlite3_vfs_register(&range_vfs, 0);
}

int mapbook_vfs_register(void) {
    pthread_once(&register_once, register_vfs);
    return register_result;
}
