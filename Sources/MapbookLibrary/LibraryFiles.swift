import MapbookPackage
import MapbookSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file operations the device library needs, with errors that name the file.
enum LibraryFiles {

    /// The permission bits of the file at `path`.
    ///
    /// The corresponding C function is `stat`.
    static func permissions(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Creates `path` and any missing parents, each 0700 as the XDG base directory
    /// specification asks of data folders.
    ///
    /// The corresponding C function is `mkdir`.
    static func makeDirectories(_ path: String) throws(LibraryError) {
        if FileSystem.kind(path) == .directory { return }
        let parent = FileSystem.parent(of: path)
        if parent != path && parent != "." && parent != "/" { try makeDirectories(parent) }
        let code = FileSystem.makeDirectory(path, mode: 0o700)
        if code != 0 {
            throw LibraryError(kind: .io(errno: code), path: path, message: "cannot create the folder: \(FileSystem.errorMessage(code)); check the permissions of its parent or set MAPBOOK_HOME")
        }
        guard FileSystem.kind(path) == .directory else {
            throw LibraryError(kind: .notAFolder, path: path, message: "is not a folder; move it away or set MAPBOOK_HOME to another place for the library")
        }
    }

    /// Reads a small file whole; nil when it does not exist.
    ///
    /// The corresponding C functions are `open`, `read` and `close`.
    static func read(_ path: String, limit: Int = 1 << 20) throws(LibraryError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be read: \(FileSystem.errorMessage())")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be read: \(FileSystem.errorMessage())")
            }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > limit {
                throw LibraryError(kind: .notALibraryFile, path: path, message: "is larger than \(limit) bytes, far more than the library writes: it is not one of its files")
            }
        }
    }

    /// Removes a file or link; a missing one is fine. Returns whether something was removed.
    ///
    /// The corresponding C function is `unlink`.
    @discardableResult
    static func remove(_ path: String) throws(LibraryError) -> Bool {
        if unlink(path) == 0 { return true }
        if errno == ENOENT { return false }
        throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be removed: \(FileSystem.errorMessage())")
    }

    /// Renames `source` to `destination`, replacing it.
    ///
    /// The corresponding C function is `rename`.
    static func rename(_ source: String, to destination: String) throws(LibraryError) {
        if Glibc.rename(source, destination) != 0 {
            throw LibraryError(kind: .io(errno: errno), path: destination, message: "cannot be renamed into place from '\(source)': \(FileSystem.errorMessage())")
        }
    }

    /// Reads the file at `path` in chunks, from the start.
    ///
    /// The corresponding C functions are `open`, `read` and `close`.
    static func forEachChunk(of path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be opened: \(FileSystem.errorMessage())") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress!, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be read: \(FileSystem.errorMessage())")
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
    }

    /// The SHA-256 of the file at `path`, lowercase hex, and its length.
    static func sha256(of path: String) throws -> (hex: String, size: Int64) {
        var digest = SHA256Digest()
        var size: Int64 = 0
        try forEachChunk(of: path) { chunk in
            digest.update(chunk)
            size += Int64(chunk.count)
        }
        return (digest.finalizeHex(), size)
    }

    /// Copies the file at `source` to `destination` through a temporary file beside it, then
    /// renames it into place: the destination is never half-written.
    static func copy(_ source: String, to destination: String) throws {
        let file = try AtomicFile(destination: destination)
        try forEachChunk(of: source) { chunk in try file.write(chunk) }
        try file.commit()
    }

    /// Flushes a file another process wrote (a download) to disk before it is renamed into
    /// the library, so a crash cannot leave the new name over data still in memory.
    ///
    /// The corresponding C function is `fsync`.
    static func sync(_ path: String) throws(LibraryError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be opened: \(FileSystem.errorMessage())") }
        defer { close(fd) }
        if fsync(fd) != 0 { throw LibraryError(kind: .io(errno: errno), path: path, message: "cannot be flushed to disk: \(FileSystem.errorMessage())") }
    }
}
