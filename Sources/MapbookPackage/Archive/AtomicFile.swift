#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// A file written under a temporary name beside its destination, then fsynced and renamed.
///
/// A crash or an error never leaves a half-written file under the final name: until
/// `commit()` the destination is untouched, and an uncommitted file is removed when this
/// object goes away.
public final class AtomicFile {
    public let destination: String
    public let temporaryPath: String
    /// The open, writable descriptor of the temporary file.
    public let descriptor: Int32
    private var finished = false

    /// Creates the temporary file in the destination's directory.
    ///
    /// The file gets `permissions` when given, else the mode a plain create would (0666 minus
    /// umask). A secret (a credential) passes 0o600: `mkstemp` creates the file with at most
    /// that, so it is never readable by others, whatever the umask.
    ///
    /// The corresponding C function is `mkstemp`.
    public init(destination: String, permissions: mode_t? = nil) throws(ArchiveError) {
        self.destination = destination
        let directory = FileSystem.parent(of: destination)
        let base = FileSystem.lastComponent(destination)
        var template = Array("\(directory)/.\(base).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw ArchiveError(kind: .io(errno: errno), operation: "create a temporary file for", path: destination, message: FileSystem.errorMessage())
        }
        self.descriptor = fd
        self.temporaryPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        WorkFiles.register(temporaryPath)
        if let permissions {
            fchmod(fd, permissions)
        } else {
            // mkstemp makes the file 0600; give it the mode a plain create would (0666 minus umask).
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
        }
    }

    deinit {
        if !finished { discard() }
    }

    /// Writes all of `bytes` to the temporary file.
    ///
    /// The corresponding C function is `write`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ArchiveError) {
        try Self.writeAll(bytes, to: descriptor, path: temporaryPath)
    }

    /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes.
    ///
    /// The corresponding C function is `write`.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(ArchiveError) {
        let failure = FileSystem.writeAll(bytes, to: descriptor)
        if failure != 0 { throw ArchiveError(kind: .io(errno: failure), operation: "write", path: path, message: FileSystem.errorMessage(failure)) }
    }

    public func write(_ bytes: [UInt8]) throws(ArchiveError) {
        var failure: ArchiveError?
        bytes.withUnsafeBytes { raw in
            do throws(ArchiveError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Flushes the file to disk and renames it to the destination, replacing any file there.
    ///
    /// The corresponding C functions are `fsync`, `close` and `rename`.
    public func commit() throws(ArchiveError) {
        precondition(!finished, "AtomicFile committed twice")
        finished = true
        defer { WorkFiles.unregister(temporaryPath) }
        if fsync(descriptor) != 0 {
            let code = errno
            close(descriptor)
            unlink(temporaryPath)
            throw ArchiveError(kind: .io(errno: code), operation: "write", path: destination, message: "fsync failed: \(FileSystem.errorMessage(code))")
        }
        close(descriptor)
        if rename(temporaryPath, destination) != 0 {
            let code = errno
            unlink(temporaryPath)
            throw ArchiveError(kind: .io(errno: code), operation: "write", path: destination, message: "rename failed: \(FileSystem.errorMessage(code))")
        }
        // Make the rename itself durable.
        FileSystem.syncDirectory(FileSystem.parent(of: destination))
    }

    /// Closes and removes the temporary file; the destination is untouched.
    public func discard() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        unlink(temporaryPath)
        WorkFiles.unregister(temporaryPath)
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: [UInt8], to path: String) throws(ArchiveError) {
        let file = try AtomicFile(destination: path)
        try file.write(bytes)
        try file.commit()
    }
}
