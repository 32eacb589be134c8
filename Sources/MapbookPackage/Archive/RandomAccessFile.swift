#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// The bytes of a file that is not on this machine (a package in an object store), read by
/// ranged requests: a `RandomAccessFile` over them reads a package in place as it reads a
/// local one.
public protocol RemoteBytes: Sendable {
    /// What messages call the file (`s3://bucket/key`).
    var name: String { get }
    var size: Int64 { get }
    /// Reads exactly `buffer.count` bytes at `offset`; called from any thread, blocking.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiveError)
}

/// A file opened read-only for positioned reads (`pread`), shared by every range read from it;
/// or a remote file's bytes read the same way (`RemoteBytes`).
///
/// The descriptor is closed when the last reference goes away. `pread` keeps no file position,
/// so concurrent reads from several tasks are safe.
public final class RandomAccessFile: @unchecked Sendable {
    public let path: String
    public let size: Int64
    private let descriptor: Int32
    /// The remote file read instead of a descriptor, if any.
    public let remote: (any RemoteBytes)?

    /// A remote file, read through `bytes`.
    public init(remote bytes: any RemoteBytes) {
        path = bytes.name
        size = bytes.size
        descriptor = -1
        remote = bytes
    }

    /// Opens `path` for reading.
    ///
    /// The corresponding C functions are `open` and `fstat`.
    public init(path: String) throws(ArchiveError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ArchiveError(kind: .io(errno: errno), operation: "open", path: path, message: FileSystem.errorMessage())
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw ArchiveError(kind: .io(errno: code), operation: "open", path: path, message: FileSystem.errorMessage(code))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw ArchiveError(kind: .notARegularFile, operation: "open", path: path, message: "not a regular file")
        }
        self.descriptor = fd
        self.size = Int64(info.st_size)
        remote = nil
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Maps `length` bytes at `offset` read-only into memory, for structures read in place
    /// whose pages the kernel loads as they are touched.
    ///
    /// The corresponding C function is `mmap`.
    public func map(offset: Int64, length: Int) throws(ArchiveError) -> MappedBytes {
        guard offset >= 0, length >= 0, offset <= size, Int64(length) <= size - offset else {
            throw ArchiveError(kind: .truncated, operation: "map", path: path, message: "bytes \(offset)..<\(offset + Int64(length)) lie past the end of the file (\(size) bytes; truncated?)")
        }
        if length == 0 { return MappedBytes(base: nil, mappedLength: 0, skip: 0) }
        if remote != nil {
            // Nothing to map: the bytes are read into memory of their own, freed the same way.
            let base = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
            do throws(ArchiveError) {
                try read(into: UnsafeMutableRawBufferPointer(start: base, count: length), at: offset)
            } catch {
                base.deallocate()
                throw error
            }
            return MappedBytes(allocated: base, length: length)
        }
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let start = offset / page * page
        let skip = Int(offset - start)
        guard let base = mmap(nil, length + skip, PROT_READ, MAP_PRIVATE, descriptor, off_t(start)), base != MAP_FAILED else {
            throw ArchiveError(kind: .io(errno: errno), operation: "map", path: path, message: FileSystem.errorMessage())
        }
        return MappedBytes(base: base, mappedLength: length + skip, skip: skip)
    }

    /// Reads exactly `count` bytes at `offset` into `buffer`.
    ///
    /// The corresponding C function is `pread`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(ArchiveError) {
        if let remote { return try remote.read(into: buffer, at: offset) }
        let (done, failure) = FileSystem.readAll(into: buffer, from: descriptor, at: offset)
        if failure != 0 { throw ArchiveError(kind: .io(errno: failure), operation: "read", path: path, message: FileSystem.errorMessage(failure)) }
        if done < buffer.count {
            throw ArchiveError(
                kind: .truncated, operation: "read", path: path,
                message: "file ends at byte \(offset + Int64(done)), \(buffer.count - done) bytes short of what was expected (truncated?)")
        }
    }

    /// Reads exactly `count` bytes at `offset`.
    public func read(at offset: Int64, count: Int) throws(ArchiveError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset >= 0, offset <= size, Int64(count) <= size - offset else {
            throw ArchiveError(
                kind: .truncated, operation: "read", path: path,
                message: "bytes \(offset)..<\(offset + Int64(count)) lie past the end of the file (\(size) bytes; truncated?)")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var failure: ArchiveError?
        bytes.withUnsafeMutableBytes { buffer in
            do throws(ArchiveError) { try read(into: buffer, at: offset) } catch { failure = error }
        }
        if let failure { throw failure }
        return bytes
    }

}

/// Bytes of a file mapped into memory; unmapped when the last reference goes.
public final class MappedBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer?
    private let mappedLength: Int
    /// Memory allocated and read into (a remote file's), not mapped.
    private let allocated: Bool
    /// The mapped bytes asked for (the mapping itself starts at a page boundary before them).
    public let bytes: UnsafeRawBufferPointer

    init(base: UnsafeMutableRawPointer?, mappedLength: Int, skip: Int) {
        self.base = base
        self.mappedLength = mappedLength
        allocated = false
        bytes = base.map { UnsafeRawBufferPointer(start: $0 + skip, count: mappedLength - skip) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
    }

    init(allocated base: UnsafeMutableRawPointer, length: Int) {
        self.base = base
        mappedLength = length
        allocated = true
        bytes = UnsafeRawBufferPointer(start: base, count: length)
    }

    deinit {
        guard let base else { return }
        if allocated { base.deallocate() } else { munmap(base, mappedLength) }
    }

    /// Calls `body` with the bytes, this mapping kept until it returns: Swift may release an
    /// object after its last use, so `mapped.bytes` passed on alone can outlive the mapping.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(self) {} }
        return try body(bytes)
    }
}

/// A contiguous byte range of a file: a whole file, or a stored entry of an archive.
public struct ByteRange: Sendable {
    public let file: RandomAccessFile
    public let offset: Int64
    public let length: Int64

    public init(file: RandomAccessFile, offset: Int64 = 0, length: Int64? = nil) {
        self.file = file
        self.offset = offset
        self.length = length ?? (file.size - offset)
    }

    /// Reads `count` bytes at `position` relative to the start of the range.
    public func read(at position: Int64, count: Int) throws(ArchiveError) -> [UInt8] {
        guard position >= 0, count >= 0, position <= length, Int64(count) <= length - position else {
            throw ArchiveError(
                kind: .damaged, operation: "read", path: file.path,
                message: "bytes \(position)..<\(position + Int64(count)) lie outside a range of \(length) bytes")
        }
        return try file.read(at: offset + position, count: count)
    }

    /// The whole range as bytes.
    public func readAll() throws(ArchiveError) -> [UInt8] {
        guard length <= Int64(Int.max) else {
            throw ArchiveError(kind: .tooLarge, operation: "read", path: file.path, message: "range too large to hold in memory")
        }
        return try read(at: 0, count: Int(length))
    }

    /// The whole range mapped into memory (`RandomAccessFile.map`).
    public func mapped() throws(ArchiveError) -> MappedBytes {
        guard length <= Int64(Int.max) else {
            throw ArchiveError(kind: .tooLarge, operation: "map", path: file.path, message: "range too large to map")
        }
        return try file.map(offset: offset, length: Int(length))
    }

    /// A sub-range, relative to this one.
    public func slice(offset position: Int64, length count: Int64) -> ByteRange {
        ByteRange(file: file, offset: offset + position, length: count)
    }

    /// Calls `body` with consecutive chunks of at most `chunkSize` bytes covering the range.
    public func forEachChunk(chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var buffer = [UInt8](repeating: 0, count: Int(min(Int64(chunkSize), max(length, 1))))
        var position: Int64 = 0
        while position < length {
            let n = Int(min(Int64(buffer.count), length - position))
            try buffer.withUnsafeMutableBytes { raw in
                let chunk = UnsafeMutableRawBufferPointer(rebasing: raw[0..<n])
                try file.read(into: chunk, at: offset + position)
                try body(UnsafeRawBufferPointer(chunk))
            }
            position += Int64(n)
        }
    }
}
