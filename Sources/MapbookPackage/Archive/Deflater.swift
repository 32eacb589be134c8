import CZlib

/// One whole input through a zlib deflate stream in a single call, written once for the gzip
/// tiles and the PNG files.
public enum Deflater {
    /// Compresses `bytes` with `stream` (set up by the caller with `deflateInit2_`, reset if
    /// reused) into `output`, grown to zlib's bound when smaller; returns how many bytes of
    /// `output` the compressed data fills.
    ///
    /// The corresponding C functions are `deflateBound` and `deflate`.
    public static func finish(_ stream: inout z_stream, _ bytes: [UInt8], into output: inout [UInt8]) -> Int {
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        var produced = 0
        bytes.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                let result = deflate(&stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "zlib deflate did not finish (\(result)) in a deflateBound-sized buffer")
                produced = target.count - Int(stream.avail_out)
            }
        }
        return produced
    }
}
