#ifndef MAPBOOK_VFS_H
#define MAPBOOK_VFS_H

/// Registers the read-only "mapbook-range" SQLite VFS (idempotent, thread-safe).
///
/// A database opened with this VFS is a byte range of a larger file, such as a GeoPackage
/// stored uncompressed inside a package ZIP. Open it with a URI filename:
///
///     file:/path/to/Package.mmpk?vfs=mapbook-range&offset=1234&length=5678&immutable=1
///
/// `offset` and `length` give the range in bytes. Writes fail with SQLITE_READONLY.
/// Returns SQLITE_OK or the error of `sqlite3_vfs_register`.
int mapbook_vfs_register(void);

/// Reads `amount` bytes at `offset` of remote source `source` into `buffer`; 0 on success.
/// Called from any thread SQLite runs on.
typedef int (*mapbook_vfs_reader)(long long source, void *buffer, int amount, long long offset);

/// Installs the reader of databases opened with `source=N` in their URI (a range of a file
/// that is not on this machine). Set once, before such a database is opened.
void mapbook_vfs_set_reader(mapbook_vfs_reader reader);

/// The name the VFS is registered under: "mapbook-range".
extern const char *const mapbook_vfs_name;

#endif
