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

/// The name the VFS is registered under: "mapbook-range".
extern const char *const mapbook_vfs_name;

#endif
