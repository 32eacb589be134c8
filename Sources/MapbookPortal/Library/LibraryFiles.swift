import MapbookPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file operations the device library needs, with errors that name the file.
enum LibraryFiles {
    static func errorMessage(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    enum Kind { case file, directory, other }

    /// What is at `path`, without following a link (a link is `.other`); nil when nothing is.
    ///
    /// The corresponding C function is `lstat`.
    static func kind(_ path: String) -> Kind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        default: return .other
        }
    }

    /// The size of the file at `path`, nil when there is none.
    ///
    /// The corresponding C function is `lstat`.
    static func size(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// The permission bits of the file at `path`.
    ///
    /// The corresponding C function is `stat`.
    static func permissions(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The names in a folder, sorted, without `.` and `..`; none when it does not exist.
    ///
    /// The corresponding C functions are `opendir` and `readdir`.
    static func names(in folder: String) -> [String] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Creates `path` and any missing parents, each 0700 as the XDG base directory
    /// specification asks of data folders.
    ///
    /// The corresponding C function is `mkdir`.
    static func makeDirectories(_ path: String) throws(LibraryError) {
        if kind(path) == .directory { return }
        let parent = parent(of: path)
        if parent != path && parent != "." && parent != "/" { try makeDirectories(parent) }
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw LibraryError(path: path, message: "cannot create the folder: \(errorMessage()); check the permissions of its parent or set MAPBOOK_HOME")
        }
        guard kind(path) == .directory else {
            throw LibraryError(path: path, message: "is not a folder; move it away or set MAPBOOK_HOME to another place for the library")
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Reads a small file whole; nil when it does not exist.
    ///
    /// The corresponding C functions are `open`, `read` and `close`.
    static func read(_ path: String, limit: Int = 1 << 20) throws(LibraryError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw LibraryError(path: path, message: "cannot be read: \(errorMessage())")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError(path: path, message: "cannot be read: \(errorMessage())")
            }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > limit {
                throw LibraryError(path: path, message: "is larger than \(limit) bytes, far more than the library writes: it is not one of its files")
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
        throw LibraryError(path: path, message: "cannot be removed: \(errorMessage())")
    }

    /// Renames `source` to `destination`, replacing it.
    ///
    /// The corresponding C function is `rename`.
    static func rename(_ source: String, to destination: String) throws(LibraryError) {
        if Glibc.rename(source, destination) != 0 {
            throw LibraryError(path: destination, message: "cannot be renamed into place from '\(source)': \(errorMessage())")
        }
    }

    /// Makes the renames and removals in `folder` durable.
    ///
    /// The corresponding C function is `fsync`.
    static func syncDirectory(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Reads the file at `path` in chunks, from the start.
    ///
    /// The corresponding C functions are `open`, `read` and `close`.
    static func forEachChunk(of path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw LibraryError(path: path, message: "cannot be opened: \(errorMessage())") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress!, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw LibraryError(path: path, message: "cannot be read: \(errorMessage())")
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
        guard fd >= 0 else { throw LibraryError(path: path, message: "cannot be opened: \(errorMessage())") }
        defer { close(fd) }
        if fsync(fd) != 0 { throw LibraryError(path: path, message: "cannot be flushed to disk: \(errorMessage())") }
    }
}
