#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

/// A temporary file the tiler writes while it works (its features, its sorted runs): made in
/// the folder the tile set goes to, so free space is judged where the output goes, and
/// unlinked at once, so nothing is left behind whatever happens.
final class TilerWorkFile {
    let directory: String
    /// What the file holds, for messages ("feature", "sort").
    let purpose: String
    private let descriptor: Int32
    /// Bytes appended so far.
    private(set) var size: Int64 = 0
    private var mapping: UnsafeMutableRawPointer?
    private var mappedSize = 0

    init(in directory: String, purpose: String) throws {
        self.directory = directory
        self.purpose = purpose
        let (fd, error) = FileSystem.makeUnlinkedFile("\(directory)/.mapbook-tiler-\(purpose)-XXXXXX")
        guard fd >= 0 else {
            throw TileArchiveError(
                kind: .io(errno: error), operation: "create the tiler's temporary \(purpose) file in", path: directory, message: FileSystem.errorMessage(error))
        }
        descriptor = fd
    }

    deinit {
        if let mapping { munmap(mapping, mappedSize) }
        close(descriptor)
    }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        let error = FileSystem.writeAll(bytes, to: descriptor)
        guard error == 0 else { throw failure("write", error) }
        size += Int64(bytes.count)
    }

    /// Fills `buffer` from `offset`; the bytes must have been appended.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
        let (done, error) = FileSystem.readAll(into: buffer, from: descriptor, at: offset)
        guard error == 0, done == buffer.count else { throw failure("read back", error != 0 ? error : EIO) }
    }

    /// The whole file mapped read-only; nil when it is empty. Pages it touches count as the
    /// process's memory until `release` gives them back (they stay in the page cache).
    ///
    /// The corresponding C function is `mmap`.
    func map() throws -> UnsafeRawPointer? {
        if let mapping { return UnsafeRawPointer(mapping) }
        guard size > 0 else { return nil }
        let address = mmap(nil, Int(size), PROT_READ, MAP_SHARED, descriptor, 0)
        guard let address, address != MAP_FAILED else { throw failure("map", errno) }
        mapping = address
        mappedSize = Int(size)
        return UnsafeRawPointer(address)
    }

    /// Drops the mapped pages of `range` (bytes) from the process; they are read again from the
    /// page cache (or the disk) when touched.
    ///
    /// The corresponding C function is `madvise`.
    func release(_ range: Range<Int>? = nil) {
        guard let mapping else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let range = range ?? 0..<mappedSize
        let start = range.lowerBound / page * page
        let end = min(range.upperBound, mappedSize)
        guard end > start else { return }
        madvise(mapping + start, end - start, MADV_DONTNEED)
    }

    private func failure(_ operation: String, _ error: Int32) -> TileArchiveError {
        TileArchiveError(
            kind: .io(errno: error), operation: "\(operation) the tiler's temporary \(purpose) file in", path: directory, message: FileSystem.errorMessage(error))
    }
}
