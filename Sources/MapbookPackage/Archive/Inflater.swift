import CZlib

/// Raw deflate decompression (RFC 1951) through zlib, with an output cap.
enum Inflater {
    static func inflate(_ data: ByteRange, path: String, limit: Int64, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var stream = z_stream()
        // Negative window bits: raw deflate, no zlib header, as in ZIP.
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ArchiveError(kind: .outOfMemory, operation: "read entry", path: path, message: "cannot initialise zlib")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: 1 << 18)
        var produced: Int64 = 0
        var finished = false
        try data.forEachChunk(chunkSize: 1 << 18) { input in
            guard !finished else { return }
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            repeat {
                let status: Int32 = output.withUnsafeMutableBytes { out in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(out.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let n = output.count - Int(stream.avail_out)
                if n > 0 {
                    produced += Int64(n)
                    if produced > limit {
                        throw ArchiveError(kind: .zipBomb, operation: "read entry", path: path, message: "it inflates to more than \(limit) bytes, more than it declares or is allowed (a ZIP bomb?)")
                    }
                    try output.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                }
                if status == Z_STREAM_END {
                    finished = true
                    return
                }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    let reason = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                    throw ArchiveError(kind: .damaged, operation: "read entry", path: path, message: "its deflate data is damaged (\(reason))")
                }
                if status == Z_BUF_ERROR && stream.avail_in == 0 { break }
            } while stream.avail_out == 0 || stream.avail_in > 0
        }
        if !finished {
            throw ArchiveError(kind: .truncated, operation: "read entry", path: path, message: "its deflate data ends early (truncated?)")
        }
    }
}
