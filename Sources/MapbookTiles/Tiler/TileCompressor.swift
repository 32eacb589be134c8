import CZlib

/// Gzip with one reused zlib stream: setting a deflate stream up allocates some 256 KB, which
/// would cost more than compressing a small tile. One per worker thread; not Sendable.
final class TileCompressor {
    private var stream = z_stream()
    private var output: [UInt8] = []

    init() {
        // windowBits 15 + 16: a gzip wrapper with no name and mtime 0, so output is deterministic.
        let status = deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status)): out of memory")
    }

    deinit { deflateEnd(&stream) }

    func gzip(_ input: [UInt8]) -> [UInt8] {
        deflateReset(&stream)
        let bound = Int(deflateBound(&stream, uLong(input.count))) + 32
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        var produced = 0
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                let status = deflate(&stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "zlib deflate did not finish (\(status)) with a bound-sized buffer")
                produced = target.count - Int(stream.avail_out)
            }
        }
        return Array(output[0..<produced])
    }
}
