import CArchive

/// Writes a ZIP archive whose entries are all stored (uncompressed), through libarchive.
///
/// Entries go out in the order they are added. libarchive switches to ZIP64 records by itself
/// when an entry passes 4 GiB or the archive passes 65,535 entries. Each entry's timestamp is
/// the one given, so the same entries and times give the same bytes; libarchive writes the
/// MS-DOS time fields in the process's local time zone, so byte-identical output across
/// machines also needs the same `TZ` (the `mapbook` command runs in UTC).
///
/// Does not compress anything: packages are read in place by offset (DESIGN.md section 5).
public final class ZipWriter {
    private var archive: OpaquePointer?
    /// The archive's path, for messages.
    public let path: String
    private var open = false
    private var remaining: Int64 = 0
    private var currentName = ""

    /// Starts an archive on `descriptor`, which stays owned by the caller.
    ///
    /// The corresponding C functions are `archive_write_new`, `archive_write_set_format_zip`
    /// and `archive_write_open_fd`.
    public init(descriptor: Int32, path: String) throws(ArchiveError) {
        self.path = path
        guard let a = archive_write_new() else {
            throw ArchiveError(kind: .outOfMemory, operation: "write", path: path, message: "libarchive could not allocate a writer")
        }
        archive = a
        func check(_ status: Int32, _ what: String) throws(ArchiveError) {
            guard status == ARCHIVE_OK else {
                let message = archive_error_string(a).map { String(cString: $0) } ?? "status \(status)"
                archive_write_free(a)
                archive = nil
                throw ArchiveError(kind: .libarchive, operation: "write", path: path, message: "\(what): \(message)")
            }
        }
        try check(archive_write_set_format_zip(a), "cannot select the ZIP format")
        try check(archive_write_set_options(a, "zip:compression=store,zip:hdrcharset=UTF-8"), "cannot select stored entries")
        // Write in 1 MiB blocks, and do not pad the last one: a ZIP ends at its end record.
        try check(archive_write_set_bytes_per_block(a, 1 << 20), "cannot set the block size")
        try check(archive_write_set_bytes_in_last_block(a, 1), "cannot disable padding")
        try check(archive_write_open_fd(a, descriptor), "cannot open the output")
        open = true
    }

    deinit {
        if let archive {
            if open { archive_write_close(archive) }
            archive_write_free(archive)
        }
    }

    private func failure(_ what: String) -> ArchiveError {
        let message = archive.flatMap { archive_error_string($0) }.map { String(cString: $0) } ?? "unknown error"
        return ArchiveError(kind: .libarchive, operation: "write", path: path, message: "\(what): \(message)")
    }

    /// Starts a regular-file entry of exactly `size` bytes, to be given with `write(_:)`.
    ///
    /// The corresponding C functions are `archive_entry_new` and `archive_write_header`.
    public func beginEntry(name: String, size: Int64, modificationTime: Int64) throws(ArchiveError) {
        guard let archive, open else { throw ArchiveError(kind: .closed, operation: "write", path: path, message: "the archive is closed") }
        guard remaining == 0 else {
            throw ArchiveError(kind: .sourceChanged, operation: "write", path: path, message: "entry '\(currentName)' is \(remaining) bytes short")
        }
        guard let entry = archive_entry_new() else { throw failure("cannot allocate an entry") }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_filetype(entry, 0o100000)  // AE_IFREG, a cast macro Swift cannot import
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_size(entry, size)
        archive_entry_set_mtime(entry, time_t(modificationTime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        guard archive_write_header(archive, entry) == ARCHIVE_OK else { throw failure("cannot add entry '\(name)'") }
        remaining = size
        currentName = name
    }

    /// Appends bytes to the current entry.
    ///
    /// The corresponding C function is `archive_write_data`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        guard let archive, open else { throw ArchiveError(kind: .closed, operation: "write", path: path, message: "the archive is closed") }
        guard Int64(bytes.count) <= remaining else {
            throw ArchiveError(kind: .sourceChanged, operation: "write", path: path, message: "entry '\(currentName)' got more bytes than its declared size (did the source change while packaging?)")
        }
        var done = 0
        while done < bytes.count {
            let n = archive_write_data(archive, bytes.baseAddress! + done, bytes.count - done)
            guard n > 0 else { throw failure("cannot write entry '\(currentName)'") }
            done += n
        }
        remaining -= Int64(bytes.count)
    }

    public func write(_ bytes: [UInt8]) throws(ArchiveError) {
        var failure: ArchiveError?
        bytes.withUnsafeBytes { raw in
            do throws(ArchiveError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes the central directory and end records.
    ///
    /// The corresponding C function is `archive_write_close`.
    public func close() throws(ArchiveError) {
        guard let archive, open else { return }
        guard remaining == 0 else {
            throw ArchiveError(kind: .sourceChanged, operation: "write", path: path, message: "entry '\(currentName)' is \(remaining) bytes short (did the source change while packaging?)")
        }
        open = false
        guard archive_write_close(archive) == ARCHIVE_OK else { throw failure("cannot finish the archive") }
    }
}
