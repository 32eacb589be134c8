#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// The file operations of the tile writers that throw their own error, over the shared ones.
extension FileSystem {
    /// Creates a new, empty folder beside `destination` named after it.
    ///
    /// The corresponding C function is `mkdtemp`.
    static func temporaryDirectory(besides destination: String) throws(TileArchiveError) -> String {
        var template = Array("\(parent(of: destination))/.\(lastComponent(destination)).tmp-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw TileArchiveError(kind: .io(errno: errno), operation: "create a temporary folder for", path: destination, message: errorMessage())
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
        let code = makeDirectory(path, mode: 0o755)
        if code != 0 {
            throw TileArchiveError(kind: .io(errno: code), operation: "create the folder", path: path, message: errorMessage(code))
        }
    }

    /// Writes `bytes` to a new file at `path`.
    ///
    /// The corresponding C functions are `open`, `write` and `close`.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws(TileArchiveError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TileArchiveError(kind: .io(errno: errno), operation: "create", path: path, message: errorMessage()) }
        defer { close(fd) }
        let failure = bytes.withUnsafeBytes { writeAll($0, to: fd) }
        if failure != 0 { throw TileArchiveError(kind: .io(errno: failure), operation: "write", path: path, message: errorMessage(failure)) }
    }

    /// Renames `source` to `destination`.
    ///
    /// The corresponding C function is `rename`.
    static func rename(_ source: String, to destination: String) throws(TileArchiveError) {
        if Glibc.rename(source, destination) != 0 {
            throw TileArchiveError(kind: .io(errno: errno), operation: "rename into place", path: destination, message: errorMessage())
        }
    }
}
