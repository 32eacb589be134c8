#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the tile writers need, with errors that name the file.
enum FileSystem {
    static func errorMessage(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// The size of the open file `descriptor`.
    ///
    /// The corresponding C function is `fstat`.
    static func size(of descriptor: Int32) -> Int64 {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// What is at `path`: nil when nothing is.
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

    enum Kind { case file, directory, other }

    /// The folder holding `path`.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func lastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed.split(separator: "/").last.map(String.init) ?? String(trimmed)
    }

    /// Creates a new, empty folder beside `destination` named after it.
    ///
    /// The corresponding C function is `mkdtemp`.
    static func temporaryDirectory(besides destination: String) throws(TileArchiveError) -> String {
        var template = Array("\(parent(of: destination))/.\(lastComponent(destination)).tmp-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw TileArchiveError(operation: "create a temporary folder for", path: destination, message: errorMessage())
        }
        return String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
    }

    /// Gives a folder made by `mkdtemp` (0700) the mode a plain `mkdir` would: 0777 minus umask.
    ///
    /// The corresponding C functions are `umask` and `chmod`.
    static func setDefaultDirectoryMode(_ path: String) {
        let mask = umask(0)
        umask(mask)
        chmod(path, 0o777 & ~mask)
    }

    /// Creates `path` as a folder if it is not one already.
    ///
    /// The corresponding C function is `mkdir`.
    static func makeDirectory(_ path: String) throws(TileArchiveError) {
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw TileArchiveError(operation: "create the folder", path: path, message: errorMessage())
        }
    }

    /// Removes a file, or a folder and everything in it; missing paths are fine.
    ///
    /// The corresponding C functions are `opendir`, `readdir`, `unlink` and `rmdir`.
    static func removeTree(_ path: String) {
        guard let kind = kind(path) else { return }
        if kind == .directory, let dir = opendir(path) {
            var children: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != "." && name != ".." { children.append(name) }
            }
            closedir(dir)
            for child in children { removeTree(path + "/" + child) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Writes `bytes` to a new file at `path`.
    ///
    /// The corresponding C functions are `open`, `write` and `close`.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(TileArchiveError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TileArchiveError(operation: "create", path: path, message: errorMessage()) }
        defer { close(fd) }
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    failure = n == 0 ? EIO : errno
                    return
                }
                done += n
            }
        }
        if failure != 0 { throw TileArchiveError(operation: "write", path: path, message: errorMessage(failure)) }
    }

    /// Renames `source` to `destination`.
    ///
    /// The corresponding C function is `rename`.
    static func rename(_ source: String, to destination: String) throws(TileArchiveError) {
        if Glibc.rename(source, destination) != 0 {
            throw TileArchiveError(operation: "rename into place", path: destination, message: errorMessage())
        }
    }
}
