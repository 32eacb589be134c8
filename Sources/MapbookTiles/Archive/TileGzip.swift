import CZlib

/// gzip (RFC 1952) compression of whole tiles and directories through zlib.
///
/// A stopgap of the tile archives until the MVT codec's `Gzip` (branch `mvt`) is on main: the
/// names match that one's (`hasMagic`, `compress`, `decompress`), so unifying means deleting
/// this file and renaming the calls. The output is deterministic and byte-identical to the
/// codec's: zlib writes the header with modification time 0, no name, and OS 3 on Unix.
enum TileGzip {
    /// Whether `bytes` start with the gzip magic number (1f 8b).
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Compresses `bytes` into a gzip member.
    ///
    /// The corresponding C functions are `deflateInit2_`, `deflate` and `deflateEnd`.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        // Window bits 15 + 16: a gzip wrapper instead of zlib's.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            fatalError("zlib could not initialise a deflate stream (out of memory)")
        }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        var input = bytes
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound guarantees room for the whole stream in one call.
        precondition(status == Z_STREAM_END, "zlib deflate did not finish within deflateBound (\(status))")
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// Decompresses one gzip member, refusing output past `limit` bytes.
    ///
    /// The corresponding C functions are `inflateInit2_`, `inflate` and `inflateEnd`.
    static func decompress(_ bytes: [UInt8], limit: Int = 64 << 20) throws(GzipError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw GzipError(message: "zlib could not initialise an inflate stream")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = bytes
        var failure: GzipError?
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            while true {
                let status: Int32 = chunk.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit {
                    failure = GzipError(message: "it expands to more than \(limit) bytes")
                    return
                }
                if status == Z_STREAM_END { return }
                if status == Z_BUF_ERROR && stream.avail_in == 0 {
                    failure = GzipError(message: "the gzip data ends early (truncated?)")
                    return
                }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                    failure = GzipError(message: "the gzip data is damaged (\(reason))")
                    return
                }
            }
        }
        if let failure { throw failure }
        return output
    }
}

/// Why gzip data could not be decompressed.
struct GzipError: Error, Sendable {
    var message: String
}
