import CZlib
import Foundation

/// A ZIP writer for tests that builds archives byte by byte, defects included: wrong CRCs,
/// lying sizes, dangerous names, links, duplicate names, deflated and bomb entries.
public struct RawZip {
    public struct Entry {
        public var name: String
        public var data: [UInt8]
        /// 0 stored, 8 deflated (data is then the raw deflate stream).
        public var method: UInt16 = 0
        public var crc: UInt32? = nil
        public var uncompressedSize: UInt32? = nil
        /// Unix mode in the high 16 bits of the external attributes (host Unix).
        public var unixMode: UInt32 = 0o100644
        /// When set, the central directory records the local header offset as 0xFFFFFFFF and
        /// gives this value in a ZIP64 extra field (to forge impossible offsets).
        public var zip64Offset: UInt64? = nil
        /// When set, nothing is written for this entry but its central directory record, which
        /// points at this offset: data already there (inside another entry) is claimed twice.
        public var centralOnlyAt: UInt32? = nil

        public init(name: String, data: [UInt8], method: UInt16 = 0, crc: UInt32? = nil, uncompressedSize: UInt32? = nil, unixMode: UInt32 = 0o100644) {
            self.name = name
            self.data = data
            self.method = method
            self.crc = crc
            self.uncompressedSize = uncompressedSize
            self.unixMode = unixMode
        }

        public init(name: String, text: String) {
            self.init(name: name, data: Array(text.utf8))
        }
    }

    public var entries: [Entry] = []

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    public func bytes() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: UInt16, _ a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32, _ a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        for e in entries {
            let name = Array(e.name.utf8)
            let crc = e.crc ?? Self.crc32(e.data)
            let size = e.uncompressedSize ?? UInt32(e.data.count)
            let offset = e.centralOnlyAt ?? UInt32(out.count)
            if e.centralOnlyAt == nil {
                out += Self.localHeader(name: e.name, method: e.method, crc: crc, compressedSize: UInt32(e.data.count), size: size)
                out += e.data
            }
            u32(0x0201_4B50, &central); u16(0x0314, &central); u16(20, &central); u16(0x0800, &central); u16(e.method, &central)
            u16(0, &central); u16(0x5B21, &central); u32(crc, &central); u32(UInt32(e.data.count), &central); u32(size, &central)
            var extra: [UInt8] = []
            if let forged = e.zip64Offset {
                u16(0x0001, &extra); u16(8, &extra)
                u32(UInt32(forged & 0xFFFF_FFFF), &extra); u32(UInt32(forged >> 32), &extra)
            }
            u16(UInt16(name.count), &central); u16(UInt16(extra.count), &central); u16(0, &central); u16(0, &central); u16(0, &central)
            u32(e.unixMode << 16, &central); u32(e.zip64Offset == nil ? offset : 0xFFFF_FFFF, &central)
            central += name
            central += extra
        }
        let cdOffset = UInt32(out.count)
        out += central
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out)
        u16(UInt16(entries.count), &out); u16(UInt16(entries.count), &out)
        u32(UInt32(central.count), &out); u32(cdOffset, &out); u16(0, &out)
        return out
    }

    /// A local file header (APPNOTE 4.3.7) as this builder writes it, 30 bytes plus the name.
    public static func localHeader(name: String, method: UInt16 = 0, crc: UInt32, compressedSize: UInt32, size: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { out += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        u32(0x0403_4B50); u16(20); u16(0x0800); u16(method); u16(0); u16(0x5B21)
        u32(crc); u32(compressedSize); u32(size); u16(UInt16(name.utf8.count)); u16(0)
        return out + Array(name.utf8)
    }

    public func write(to path: String) throws {
        try Data(bytes()).write(to: URL(fileURLWithPath: path))
    }

    /// Raw deflate (no zlib header) of `bytes`.
    public static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(&stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 64)
        let produced: Int = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                CZlib.deflate(&stream, Z_FINISH)
                return outBuf.count - Int(stream.avail_out)
            }
        }
        return Array(output[0..<produced])
    }

    /// A raw deflate stream of `mebibytes` MiB of zeros, built from one fully flushed 1 MiB
    /// block repeated (each block starts byte-aligned with no back references), and the CRC-32
    /// of the expanded data. 2048 MiB deflates to about 2 MB.
    public static func zeroBomb(mebibytes: Int) -> (deflated: [UInt8], crc: UInt32) {
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var stream = z_stream()
        deflateInit2_(&stream, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        func run(_ input: [UInt8], flush: Int32) -> [UInt8] {
            var input = input
            var output = [UInt8](repeating: 0, count: 1 << 16)
            var result: [UInt8] = []
            input.withUnsafeMutableBufferPointer { inBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                repeat {
                    output.withUnsafeMutableBufferPointer { outBuf in
                        stream.next_out = outBuf.baseAddress
                        stream.avail_out = uInt(outBuf.count)
                        CZlib.deflate(&stream, flush)
                        result += outBuf[0..<(outBuf.count - Int(stream.avail_out))]
                    }
                } while stream.avail_out == 0
            }
            return result
        }
        let block = run(chunk, flush: Z_FULL_FLUSH)
        let tail = run([], flush: Z_FINISH)
        var deflated: [UInt8] = []
        deflated.reserveCapacity(block.count * mebibytes + tail.count)
        for _ in 0..<mebibytes { deflated += block }
        deflated += tail
        let chunkCRC = crc32(chunk)
        var crc: uLong = 0
        for _ in 0..<mebibytes { crc = crc32_combine(crc, uLong(chunkCRC), off_t(chunk.count)) }
        return (deflated, UInt32(crc))
    }
}
