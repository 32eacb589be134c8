#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file open for reading at offsets; closed when the last reference goes.
final class FileReader {
    let path: String
    private let descriptor: Int32

    /// The corresponding C function is `open`.
    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PortalClientError(.usage, url: path, message: "cannot open the file: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        close(descriptor)
    }

    /// Up to `count` bytes at `offset`; fewer only at the end of the file.
    ///
    /// The corresponding C function is `pread`.
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw PortalClientError(.transfer, url: path, message: "cannot read the file: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(count - done)
        return bytes
    }
}
