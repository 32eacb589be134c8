#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookSupport

/// The partial download file, open for writing at its end.
final class PartialFile {
    let path: String
    private var descriptor: Int32

    /// Opens (creating) `path` and cuts it to `length` bytes: what is kept is what a range
    /// request continues.
    ///
    /// The corresponding C functions are `open` and `ftruncate`.
    init(path: String, truncateTo length: Int64) throws {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw PortalClientError(.transfer, url: path, message: "cannot write the download: \(FileSystem.errorMessage())")
        }
        guard ftruncate(descriptor, off_t(length)) == 0, lseek(descriptor, off_t(length), SEEK_SET) >= 0 else {
            let message = FileSystem.errorMessage()
            Glibc.close(descriptor)
            descriptor = -1
            throw PortalClientError(.transfer, url: path, message: "cannot prepare the download file: \(message)")
        }
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Writes all of `bytes`.
    ///
    /// The corresponding C function is `write`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                throw PortalClientError(.transfer, url: path, message: "cannot write the download: \(FileSystem.errorMessage()); free some space and run the command again to resume")
            }
            done += n
        }
    }

    /// Flushes the file to disk and closes it.
    ///
    /// The corresponding C functions are `fsync` and `close`.
    func close() throws {
        defer {
            Glibc.close(descriptor)
            descriptor = -1
        }
        guard fsync(descriptor) == 0 else {
            throw PortalClientError(.transfer, url: path, message: "cannot flush the download to disk: \(FileSystem.errorMessage())")
        }
    }
}
