import CZlib
import MapbookPackage

/// PNG files (ISO/IEC 15948) written from Cairo's premultiplied ARGB32 pixels, fast.
///
/// Cairo's own writer goes through libpng with its defaults: every row tried with all five
/// filters and zlib at level 6, which took half of a 1024 x 768 map view's time
/// (docs/PERFORMANCE.md, "The viewer"). Here each row is filtered with Sub or Up, whichever
/// leaves smaller numbers (maps are flat areas and straight edges, which both turn into zeros),
/// and zlib compresses at level 3. An opaque image is written as RGB, else as RGBA, colours
/// un-premultiplied as PNG wants them.
enum PNGEncoder {
    /// The zlib level: 3 is several times faster than 6 on maps, for files a few percent larger.
    static let level: Int32 = 3

    /// The PNG file of `height` rows of `width` ARGB32 words, `stride` bytes apart.
    ///
    /// `patchable` compresses each row on its own (`deflatedByRows`), for images a package
    /// carries, so a new version's thumbnail costs a patch of its changed rows.
    ///
    /// The corresponding C functions are `deflateInit2_`, `deflateEnd` and `crc32`.
    static func encode(_ data: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, patchable: Bool = false) -> [UInt8] {
        func word(_ x: Int, _ y: Int) -> UInt32 {
            UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        }
        var opaque = true
        rows: for y in 0..<height {
            for x in 0..<width where word(x, y) >> 24 != 255 {
                opaque = false
                break rows
            }
        }
        let channels = opaque ? 3 : 4
        let rowLength = width * channels
        // The pixels as PNG samples, then filtered row by row into `filtered`.
        var samples = [UInt8](repeating: 0, count: rowLength * height)
        samples.withUnsafeMutableBufferPointer { out in
            var i = 0
            for y in 0..<height {
                for x in 0..<width {
                    let w = word(x, y)
                    let a = w >> 24
                    var r = (w >> 16) & 0xFF, g = (w >> 8) & 0xFF, b = w & 0xFF
                    if a != 255 && a != 0 {
                        r = (r * 255 + a / 2) / a
                        g = (g * 255 + a / 2) / a
                        b = (b * 255 + a / 2) / a
                    }
                    out[i] = UInt8(truncatingIfNeeded: r)
                    out[i + 1] = UInt8(truncatingIfNeeded: g)
                    out[i + 2] = UInt8(truncatingIfNeeded: b)
                    if channels == 4 { out[i + 3] = UInt8(truncatingIfNeeded: a) }
                    i += channels
                }
            }
        }
        var filtered = [UInt8](repeating: 0, count: (rowLength + 1) * height)
        samples.withUnsafeBufferPointer { s in
            filtered.withUnsafeMutableBufferPointer { f in
                for y in 0..<height {
                    let row = y * rowLength, out = y * (rowLength + 1)
                    // Sub: each byte less the same channel of the pixel to its left.
                    var subCost = 0, upCost = 0
                    for i in 0..<rowLength {
                        let sub = s[row + i] &- (i >= channels ? s[row + i - channels] : 0)
                        subCost += Int(Int8(bitPattern: sub).magnitude)
                        if y > 0 { upCost += Int(Int8(bitPattern: s[row + i] &- s[row + i - rowLength]).magnitude) }
                    }
                    let useUp = y > 0 && upCost < subCost
                    f[out] = useUp ? 2 : 1
                    for i in 0..<rowLength {
                        f[out + 1 + i] = useUp ? s[row + i] &- s[row + i - rowLength] : s[row + i] &- (i >= channels ? s[row + i - channels] : 0)
                    }
                }
            }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        for value in [UInt32(width), UInt32(height)] { header += bigEndian(value) }
        header += [8, opaque ? 2 : 6, 0, 0, 0]
        chunk("IHDR", header, into: &png)
        chunk("IDAT", patchable ? deflatedByRows(filtered, rowLength: rowLength + 1) : deflated(filtered), into: &png)
        chunk("IEND", [], into: &png)
        return png
    }

    /// `bytes` as a zlib stream (RFC 1950), as IDAT holds it.
    private static func deflated(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status)): out of memory")
        defer { deflateEnd(&stream) }
        var out: [UInt8] = []
        let produced = Deflater.finish(&stream, bytes, into: &out)
        out.removeSubrange(produced...)
        return out
    }

    /// `bytes` as a zlib stream in which every row of `rowLength` bytes starts afresh: a full
    /// flush after each (no match reaches back past it), then empty stored blocks (5 bytes
    /// each, valid deflate) until the row's bytes are a multiple of 3 long. An unchanged row
    /// of a redrawn image is then the same bytes at an offset the same modulo 3, so it is
    /// also the same text in the base64 data URIs of the package's `.info` and maps, and an
    /// entry patch (`EntryPatch`) of any of the three carries only the changed rows.
    ///
    /// The corresponding C functions are `deflateInit2_`, `deflate` and `deflateEnd`.
    static func deflatedByRows(_ bytes: [UInt8], rowLength: Int) -> [UInt8] {
        var stream = z_stream()
        let status = deflateInit2_(&stream, 9, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status)): out of memory")
        defer { deflateEnd(&stream) }
        // The zlib header's 2 bytes come first; rows are aligned from there.
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(rowLength))) + 64)
        func run(_ input: ArraySlice<UInt8>, _ flush: Int32) {
            input.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                repeat {
                    buffer.withUnsafeMutableBufferPointer { target in
                        stream.next_out = target.baseAddress
                        stream.avail_out = uInt(target.count)
                        let result = deflate(&stream, flush)
                        precondition(result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR, "zlib deflate failed (\(result))")
                        out += target[0..<(target.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0
            }
        }
        var start = 0
        while start < bytes.count {
            let end = min(start + rowLength, bytes.count)
            run(bytes[start..<end], Z_FULL_FLUSH)
            while (out.count - 2) % 3 != 0 { out += [0x00, 0x00, 0x00, 0xFF, 0xFF] }
            start = end
        }
        run([], Z_FINISH)
        return out
    }

    /// Appends a chunk: length, type, data and the CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: [UInt8], into png: inout [UInt8]) {
        let typed = Array(type.utf8) + data
        png += bigEndian(UInt32(data.count))
        png += typed
        let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        png += bigEndian(crc)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}
