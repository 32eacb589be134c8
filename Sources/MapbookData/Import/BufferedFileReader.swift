import MapbookPackage

/// Positioned reads from a file through one fixed-size buffer, so reading records one after
/// another costs one `pread` per buffer rather than one per record.
///
/// Memory stays at the buffer's size whatever the file's: a read larger than the buffer goes
/// straight to the file. Not Sendable: the buffer belongs to one reader.
final class BufferedFileReader {
    let file: RandomAccessFile
    /// The name used in errors: the path, or `archive.zip[entry]`.
    let displayPath: String
    private var buffer: [UInt8] = []
    private var bufferStart: Int64 = 0
    private let bufferSize: Int

    var size: Int64 { file.size }

    init(path: String, displayPath: String, bufferSize: Int = 256 << 10) throws(DataError) {
        do {
            file = try RandomAccessFile(path: path)
        } catch {
            throw DataError(kind: .file(error.kind), path: displayPath, message: "cannot open: \(error.message)")
        }
        self.displayPath = displayPath
        self.bufferSize = bufferSize
    }

    /// Exactly `count` bytes at `offset`; throws when they are not all in the file.
    func read(at offset: Int64, count: Int) throws(DataError) -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset >= 0, offset <= size, Int64(count) <= size - offset else {
            throw DataError(
                kind: .truncated, path: displayPath,
                message: "bytes \(offset)..<\(offset + Int64(count)) lie past the end of the file (\(size) bytes; truncated?)")
        }
        let end = offset + Int64(count)
        if offset >= bufferStart, end <= bufferStart + Int64(buffer.count) {
            let from = Int(offset - bufferStart)
            return Array(buffer[from..<from + count])
        }
        do {
            if count >= bufferSize {
                return try file.read(at: offset, count: count)
            }
            bufferStart = offset
            buffer = try file.read(at: offset, count: Int(min(Int64(bufferSize), size - offset)))
        } catch {
            throw DataError(kind: .file(error.kind), path: displayPath, message: error.message)
        }
        return Array(buffer[0..<count])
    }

    /// The whole file, for the small side files (`.prj`, `.cpg`); nil when it is larger than `limit`.
    func readAll(limit: Int) throws(DataError) -> [UInt8]? {
        guard size <= Int64(limit) else { return nil }
        return try read(at: 0, count: Int(size))
    }
}

/// Little- and big-endian fields of shapefile and DBF headers (the shapefile mixes both:
/// ESRI Shapefile Technical Description, July 1998, "Organization of the Main File").
extension Array where Element == UInt8 {
    @inline(__always) func int32LE(_ at: Int) -> Int32 {
        Int32(bitPattern: UInt32(self[at]) | UInt32(self[at + 1]) << 8 | UInt32(self[at + 2]) << 16 | UInt32(self[at + 3]) << 24)
    }

    @inline(__always) func int32BE(_ at: Int) -> Int32 {
        Int32(bitPattern: UInt32(self[at]) << 24 | UInt32(self[at + 1]) << 16 | UInt32(self[at + 2]) << 8 | UInt32(self[at + 3]))
    }

    @inline(__always) func uint16LE(_ at: Int) -> UInt16 {
        UInt16(self[at]) | UInt16(self[at + 1]) << 8
    }

    @inline(__always) func uint32LE(_ at: Int) -> UInt32 {
        UInt32(bitPattern: int32LE(at))
    }

    @inline(__always) func doubleLE(_ at: Int) -> Double {
        Double(bitPattern: UInt64(uint32LE(at)) | UInt64(uint32LE(at + 4)) << 32)
    }
}
