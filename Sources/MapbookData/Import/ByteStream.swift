#if canImport(Glibc)
import Glibc
import MapbookSupport
#endif

/// A file read forward in fixed-size chunks, one byte at a time, so a parser can walk a file
/// of any size with bounded memory.
///
/// Not Sendable: one reader. Closes the descriptor in `deinit`.
final class ByteStream {
    let path: String
    private let fd: Int32
    // The buffer and the cursor live behind pointers, not in stored `var`s: the parser reads
    // them once per byte, and Swift checks exclusive access to a class's stored properties at
    // run time on every access, which cost a tenth of an import. Owned and freed here.
    private let buffer: UnsafeMutablePointer<UInt8>
    private let cursor: UnsafeMutablePointer<Int>
    private var start: Int {
        @inline(__always) get { cursor[0] }
        @inline(__always) set { cursor[0] = newValue }
    }
    private var end: Int {
        @inline(__always) get { cursor[1] }
        @inline(__always) set { cursor[1] = newValue }
    }
    private var atEnd = false
    /// Bytes consumed before the current buffer, for offsets in messages.
    private(set) var consumedBefore: Int64 = 0
    /// 1-based line of the next byte (counted by the parser as it skips whitespace).
    var line = 1

    static let chunkSize = 1 << 20

    /// Opens `path`. The corresponding C function is `open`.
    init(path: String) throws(DataError) {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw DataError(path: path, message: "cannot open: \(FileSystem.errorMessage())")
        }
        buffer = .allocate(capacity: Self.chunkSize)
        cursor = .allocate(capacity: 2)
        cursor.initialize(repeating: 0, count: 2)
    }

    deinit {
        close(fd)
        buffer.deallocate()
        cursor.deallocate()
    }

    /// Goes back to the first byte.
    func rewind() {
        lseek(fd, 0, SEEK_SET)
        start = 0
        end = 0
        atEnd = false
        consumedBefore = 0
        line = 1
    }

    var offset: Int64 { consumedBefore + Int64(start) }

    private func refill() throws(DataError) -> Bool {
        if atEnd { return false }
        consumedBefore += Int64(end)
        start = 0
        end = 0
        let n = read(fd, buffer, Self.chunkSize)
        if n < 0 { throw DataError(path: path, message: "cannot read: \(FileSystem.errorMessage())") }
        if n == 0 {
            atEnd = true
            return false
        }
        end = n
        return true
    }

    /// The next byte without consuming it, or nil at the end of the file.
    @inline(__always) func peek() throws(DataError) -> UInt8? {
        if start < end { return buffer[start] }
        return try refill() ? buffer[start] : nil
    }

    /// Consumes and returns the next byte, or nil at the end of the file.
    @inline(__always) func next() throws(DataError) -> UInt8? {
        if start < end {
            defer { start += 1 }
            return buffer[start]
        }
        guard try refill() else { return nil }
        defer { start += 1 }
        return buffer[start]
    }

    /// Skips JSON whitespace, counting lines.
    @inline(__always) func skipWhitespace() throws(DataError) {
        while true {
            while start < end {
                let b = buffer[start]
                if b == 0x20 || b == 0x09 || b == 0x0D {
                    start += 1
                } else if b == 0x0A {
                    line += 1
                    start += 1
                } else {
                    return
                }
            }
            guard try refill() else { return }
        }
    }

    /// Reads the first bytes of the file (for sniffing), then rewinds.
    func prefix(_ count: Int) throws(DataError) -> [UInt8] {
        rewind()
        var out: [UInt8] = []
        while out.count < count, let b = try next() { out.append(b) }
        rewind()
        return out
    }
}
