import CZlib
import MapbookPackage

/// Gzip (RFC 1952) for tiles, through zlib: `.vtpk` bundles and most servers store MVT gzipped.
public enum Gzip {
    /// The most bytes a tile may inflate to unless a caller says otherwise: 64 MiB, far above
    /// any real tile (the Mapbox and Esri limits are 500 KB to a few MB) and small enough that a
    /// decompression bomb cannot exhaust memory.
    public static let defaultInflateLimit = 64 * 1024 * 1024

    /// Whether `bytes` start with the gzip magic `1f 8b`.
    ///
    /// Unambiguous for MVT: a tile's first byte is a protobuf key, and `1f` would be field 3
    /// with wire type 7, which does not exist.
    public static func hasMagic(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Compresses `bytes` as one gzip member with a fixed header: no name, no comment,
    /// modification time 0 and OS 3 (Unix), so the same input gives the same bytes everywhere.
    ///
    /// The deflate data is zlib's at `level` (0 to 9). For many small inputs (a tiler's tiles)
    /// keep one `Compressor` instead: setting a deflate stream up costs more than a small tile.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        Compressor(level: level).compress(bytes)
    }

    /// A gzip writer with one reused zlib stream; every tile writer compresses through it, so
    /// byte-identical builds never depend on how zlib was built. Not Sendable: one per thread.
    public final class Compressor {
        private var stream = z_stream()
        private let extraFlags: UInt8
        private var output: [UInt8] = []

        /// The corresponding C function is `deflateInit2_`.
        public init(level: Int32 = 6) {
            // Negative window bits: raw deflate; the gzip header and trailer are written here,
            // so that they do not depend on the zlib build's idea of the operating system.
            let status = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            precondition(status == Z_OK, "zlib deflateInit2 failed (\(status)): out of memory")
            // XFL as zlib sets it: 2 for the best compression, 4 for the fastest.
            extraFlags = level == 9 ? 2 : (level == 1 ? 4 : 0)
        }

        deinit { deflateEnd(&stream) }

        /// One gzip member holding `bytes`.
        ///
        /// The corresponding C functions are `deflateReset` and `crc32`.
        public func compress(_ bytes: [UInt8]) -> [UInt8] {
            deflateReset(&stream)
            let produced = Deflater.finish(&stream, bytes, into: &output)
            var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, extraFlags, 3]
            out.reserveCapacity(10 + produced + 8)
            out += output[0..<produced]
            let crc = bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            let size = UInt32(truncatingIfNeeded: bytes.count)
            for value in [crc, size] {
                for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
            }
            return out
        }
    }

    /// Inflates gzip data (one member or several, one after another), refusing to produce more
    /// than `limit` bytes.
    ///
    /// Never sizes a buffer by the trailer's length field: the output grows by doubling, up to
    /// the limit. The corresponding C functions are `inflateInit2_`, `inflate` and
    /// `inflateReset`.
    public static func decompress(_ bytes: UnsafeRawBufferPointer, limit: Int = defaultInflateLimit, source: String) throws(MVTError) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: gzip wrapper only, with its CRC-32 and length checked by zlib.
        guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw MVTError(kind: .damagedGzip, source: source, message: "cannot initialise zlib to inflate the tile")
        }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: min(max(bytes.count * 4, 1 << 16), limit + 1))
        var produced = 0
        var consumed = 0
        while true {
            let (status, read, wrote) = output.withUnsafeMutableBytes { out in
                stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.advanced(by: consumed).assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(bytes.count - consumed)
                stream.next_out = out.baseAddress!.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count - produced)
                let before = (stream.avail_in, stream.avail_out)
                let status = inflate(&stream, Z_NO_FLUSH)
                return (status, Int(before.0 - stream.avail_in), Int(before.1 - stream.avail_out))
            }
            consumed += read
            produced += wrote
            if produced > limit {
                let size = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
                throw MVTError(kind: .decompressionBomb, source: source, message: "its gzip data inflates to more than \(size), the limit for one tile (a decompression bomb?)")
            }
            switch status {
            case Z_STREAM_END:
                // Another member may follow (RFC 1952 2.2); anything else after the end is damage.
                guard consumed < bytes.count else {
                    output.removeLast(output.count - produced)
                    return output
                }
                guard bytes[consumed] == 0x1F else {
                    throw MVTError(kind: .trailingData, source: source, message: "\(bytes.count - consumed) bytes that are not gzip follow the gzip data")
                }
                inflateReset(&stream)
            case Z_OK, Z_BUF_ERROR:
                if stream.avail_out == 0 {
                    // Full: double the buffer, but to no more than one byte past the limit.
                    var grown = [UInt8](repeating: 0, count: min(output.count * 2, limit + 1))
                    output.withUnsafeBytes { old in
                        grown.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: old[0..<produced])) }
                    }
                    output = grown
                } else if consumed == bytes.count {
                    throw MVTError(kind: .truncatedGzip, source: source, message: "its gzip data ends early (truncated?)")
                } else if status == Z_BUF_ERROR {
                    throw MVTError(kind: .damagedGzip, source: source, message: "zlib made no progress inflating the gzip data")
                }
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw MVTError(kind: .damagedGzip, source: source, message: "its gzip data is damaged (\(reason))")
            }
        }
    }

    public static func decompress(_ bytes: [UInt8], limit: Int = defaultInflateLimit, source: String) throws(MVTError) -> [UInt8] {
        try withRawBytes(bytes) { (raw) throws(MVTError) in try decompress(raw, limit: limit, source: source) }
    }
}
