#if canImport(Glibc)
import Glibc
#endif

/// The POSIX file operations every room needs, written once: what is at a path, its parent and
/// name, the names in a folder, removing a tree, durable renames, and errno's text.
package enum FileSystem {
    package enum Kind: Sendable { case file, directory, other }

    /// The text of an errno value, for messages.
    ///
    /// The corresponding C function is `strerror`.
    package static func errorMessage(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// What is at `path`, without following a link (a link is `.other`); nil when nothing is.
    ///
    /// The corresponding C function is `lstat`.
    package static func kind(_ path: String) -> Kind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        default: return .other
        }
    }

    /// Whether the open file `descriptor` is a regular file (not a folder or a device), after
    /// any links its path went through.
    ///
    /// The corresponding C function is `fstat`.
    package static func isRegularFile(_ descriptor: Int32) -> Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// The size of the open file `descriptor`, 0 when it cannot be read.
    ///
    /// The corresponding C function is `fstat`.
    package static func size(of descriptor: Int32) -> Int64 {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// The size of the file at `path` (a link's own size), nil when there is none.
    ///
    /// The corresponding C function is `lstat`.
    package static func size(_ path: String) -> Int64? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// The folder holding `path` (`.` for a bare name, `/` for a name at the root).
    package static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// The last name of `path`, trailing slashes ignored.
    package static func lastComponent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return trimmed.split(separator: "/").last.map(String.init) ?? String(trimmed)
    }

    /// Makes the folder `path` with `mode` (less the umask) unless something is there already;
    /// returns 0, or the errno of the failure. Does not make missing parents, and does not
    /// check that what is there is a folder.
    ///
    /// The corresponding C function is `mkdir`.
    package static func makeDirectory(_ path: String, mode: mode_t) -> Int32 {
        mkdir(path, mode) == 0 || errno == EEXIST ? 0 : errno
    }

    /// The names in a folder, sorted, without `.` and `..`; none when it cannot be read.
    ///
    /// The corresponding C functions are `opendir` and `readdir`.
    package static func names(in folder: String) -> [String] {
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

    /// Removes a file, or a folder and everything in it; links are removed, never followed;
    /// a missing path is fine.
    ///
    /// The corresponding C functions are `lstat`, `unlink` and `rmdir`.
    package static func removeTree(_ path: String) {
        guard let kind = kind(path) else { return }
        if kind == .directory {
            for child in names(in: path) { removeTree(path + "/" + child) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Makes the renames and removals in `folder` durable.
    ///
    /// The corresponding C function is `fsync`.
    package static func syncDirectory(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    /// Opens a new file named after `template` (a path ending in `XXXXXX`) and removes its
    /// name at once: the file lives while the descriptor is open and nothing is left behind,
    /// whatever happens to the process. Returns the descriptor, or -1 and the errno.
    ///
    /// The corresponding C functions are `mkstemp` and `unlink`.
    package static func makeUnlinkedFile(_ template: String) -> (descriptor: Int32, error: Int32) {
        var name = Array(template.utf8CString)
        let fd = name.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return (-1, errno) }
        name.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return (fd, 0)
    }

    /// Reads into all of `buffer` from `descriptor` at `offset`, retrying short and interrupted
    /// reads; returns how many bytes were read (fewer only at the end of the file) and 0, or
    /// the errno of the failure.
    ///
    /// The corresponding C function is `pread`.
    package static func readAll(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32, at offset: Int64) -> (count: Int, error: Int32) {
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                return (done, errno)
            }
            if n == 0 { break }
            done += n
        }
        return (done, 0)
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; returns
    /// 0, or the errno of the failure.
    ///
    /// The corresponding C function is `write`.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
        var done = 0
        while done < bytes.count {
            let n = write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            done += n
        }
        return 0
    }

    /// Writes all of `text` to `descriptor` (stdout, stderr, a pipe); returns 0, or the errno
    /// of the failure (a closed pipe simply ends the output).
    @discardableResult
    package static func writeAll(_ text: String, to descriptor: Int32) -> Int32 {
        Array(text.utf8).withUnsafeBytes { writeAll($0, to: descriptor) }
    }
}
