import MapbookPackage
import MapbookSupport
/// The pieces of the PMTiles version 3 format (fixtures/pmtiles/spec/v3/spec.md): the
/// 127-byte header, Hilbert tile IDs and directories.
public enum PMTiles {
    /// The header (spec chapter 3), every field in file order.
    public struct Header: Sendable, Equatable {
        public static let size = 127
        public static let magic: [UInt8] = Array("PMTiles".utf8)

        public var rootOffset: UInt64 = 0
        public var rootLength: UInt64 = 0
        public var metadataOffset: UInt64 = 0
        public var metadataLength: UInt64 = 0
        public var leafDirectoriesOffset: UInt64 = 0
        public var leafDirectoriesLength: UInt64 = 0
        public var tileDataOffset: UInt64 = 0
        public var tileDataLength: UInt64 = 0
        public var addressedTiles: UInt64 = 0
        public var tileEntries: UInt64 = 0
        public var tileContents: UInt64 = 0
        public var clustered = true
        public var internalCompression: Compression = .gzip
        public var tileCompression: Compression = .gzip
        public var tileType: TileType = .mvt
        public var minZoom: UInt8 = 0
        public var maxZoom: UInt8 = 0
        /// Spec 3.4: degrees times 10,000,000.
        public var minLongitudeE7: Int32 = -1_800_000_000
        public var minLatitudeE7: Int32 = -850_511_287
        public var maxLongitudeE7: Int32 = 1_800_000_000
        public var maxLatitudeE7: Int32 = 850_511_287
        public var centerZoom: UInt8 = 0
        public var centerLongitudeE7: Int32 = 0
        public var centerLatitudeE7: Int32 = 0

        public init() {}

        public var bytes: [UInt8] {
            var out = Self.magic
            out.append(3)
            for field in [rootOffset, rootLength, metadataOffset, metadataLength, leafDirectoriesOffset, leafDirectoriesLength,
                tileDataOffset, tileDataLength, addressedTiles, tileEntries, tileContents]
            {
                out.appendLittleEndian(field)
            }
            out += [clustered ? 1 : 0, internalCompression.rawValue, tileCompression.rawValue, tileType.rawValue, minZoom, maxZoom]
            for field in [minLongitudeE7, minLatitudeE7, maxLongitudeE7, maxLatitudeE7] { out.appendLittleEndian(field) }
            out.append(centerZoom)
            out.appendLittleEndian(centerLongitudeE7)
            out.appendLittleEndian(centerLatitudeE7)
            return out
        }

        /// Parses a header, naming `path` in errors.
        public init(_ bytes: [UInt8], path: String) throws(TileArchiveError) {
            guard bytes.count >= Self.size, Array(bytes[0..<7]) == Self.magic else {
                throw TileArchiveError(kind: .wrongFormat, operation: "read", path: path, message: "not a PMTiles archive (no 'PMTiles' magic number)")
            }
            guard bytes[7] == 3 else {
                throw TileArchiveError(kind: .unsupportedVersion, operation: "read", path: path, message: "PMTiles version \(bytes[7]) is not supported, only version 3 (convert it with 'pmtiles convert')")
            }
            func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
            func i32(_ at: Int) -> Int32 { Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * $1) }) }
            rootOffset = u64(8)
            rootLength = u64(16)
            metadataOffset = u64(24)
            metadataLength = u64(32)
            leafDirectoriesOffset = u64(40)
            leafDirectoriesLength = u64(48)
            tileDataOffset = u64(56)
            tileDataLength = u64(64)
            addressedTiles = u64(72)
            tileEntries = u64(80)
            tileContents = u64(88)
            clustered = bytes[96] == 1
            internalCompression = Compression(rawValue: bytes[97]) ?? .unknown
            tileCompression = Compression(rawValue: bytes[98]) ?? .unknown
            tileType = TileType(rawValue: bytes[99]) ?? .unknown
            minZoom = bytes[100]
            maxZoom = bytes[101]
            minLongitudeE7 = i32(102)
            minLatitudeE7 = i32(106)
            maxLongitudeE7 = i32(110)
            maxLatitudeE7 = i32(114)
            centerZoom = bytes[118]
            centerLongitudeE7 = i32(119)
            centerLatitudeE7 = i32(123)
        }
    }

    /// Spec 3.3.
    public enum Compression: UInt8, Sendable {
        case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4

        init(_ compression: TileCompression) {
            switch compression {
            case .none: self = .none
            case .gzip: self = .gzip
            case .brotli: self = .brotli
            case .zstd: self = .zstd
            case .unknown: self = .unknown
            }
        }

        var tileCompression: TileCompression {
            switch self {
            case .none: return .none
            case .gzip: return .gzip
            case .brotli: return .brotli
            case .zstd: return .zstd
            case .unknown: return .unknown
            }
        }
    }

    /// Spec 3.2, "Tile Type".
    public enum TileType: UInt8, Sendable {
        case unknown = 0, mvt = 1, png = 2, jpeg = 3, webp = 4, avif = 5, mlt = 6
    }

    /// Degrees as the header stores them.
    static func e7(_ degrees: Double) -> Int32 {
        Int32(clamping: Int64((degrees * 1e7).rounded()))
    }

    // MARK: Tile IDs (spec 4.1): positions on a Hilbert curve per zoom, zooms one after another.

    /// The tile ID of `coordinate`.
    public static func tileID(_ coordinate: TileCoordinate) -> UInt64 {
        let z = coordinate.z
        // Tiles on all lower zooms: (4^z - 1) / 3.
        var id = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
        guard z > 0 else { return id }
        var x = UInt32(coordinate.x), y = UInt32(coordinate.y)
        var s = UInt32(1) << UInt32(z - 1)
        while s > 0 {
            let rx: UInt32 = x & s != 0 ? 1 : 0
            let ry: UInt32 = y & s != 0 ? 1 : 0
            id += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            // Rotate the quadrant; wrapping keeps the low bits the next steps read.
            if ry == 0 {
                if rx == 1 {
                    x = s &- 1 &- x
                    y = s &- 1 &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return id
    }

    /// The tile a tile ID names.
    public static func coordinate(ofTileID id: UInt64) -> TileCoordinate {
        var z = 0
        var first: UInt64 = 0
        while z < 31 {
            let count = UInt64(1) << (2 * UInt64(z))
            if id - first < count { break }
            first += count
            z += 1
        }
        var t = id - first
        let n = UInt64(1) << UInt64(z)
        var x: UInt64 = 0, y: UInt64 = 0
        var s: UInt64 = 1
        while s < n {
            let rx = 1 & (t / 2)
            let ry = 1 & (t ^ rx)
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            x += s * rx
            y += s * ry
            t /= 4
            s *= 2
        }
        return TileCoordinate(z: z, x: Int(x), y: Int(y))
    }

    // MARK: Directories (spec 4.2, 4.3)

    /// A directory entry: a run of tiles, or a leaf directory when `runLength` is 0.
    public struct Entry: Sendable, Equatable {
        public var tileID: UInt64
        public var offset: UInt64
        public var length: UInt32
        public var runLength: UInt32
    }

    /// Encodes a directory, uncompressed (appendix A.1).
    public static func encode(_ entries: some Collection<Entry>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 6 + 8)
        Varint.append(UInt64(entries.count), to: &out)
        var last: UInt64 = 0
        for e in entries {
            Varint.append(e.tileID - last, to: &out)
            last = e.tileID
        }
        for e in entries { Varint.append(UInt64(e.runLength), to: &out) }
        for e in entries { Varint.append(UInt64(e.length), to: &out) }
        var next: UInt64 = 0
        for (i, e) in entries.enumerated() {
            // Wrapping: offsets are below 2^64 - 1 in any real archive; a forged one must not trap.
            Varint.append(i > 0 && e.offset == next ? 0 : e.offset &+ 1, to: &out)
            next = e.offset &+ UInt64(e.length)
        }
        return out
    }

    /// Decodes an uncompressed directory (appendix A.2), refusing malformed ones.
    public static func decode(_ bytes: [UInt8], path: String) throws(TileArchiveError) -> [Entry] {
        var p = 0
        func fail(_ message: String) -> TileArchiveError {
            TileArchiveError(kind: .damaged, operation: "read", path: path, message: "a directory is damaged: \(message)")
        }
        func varint() throws(TileArchiveError) -> UInt64 {
            do {
                return try Varint.read(bytes, at: &p, end: bytes.count)
            } catch {
                throw fail(error == .truncated ? "it ends early" : "a number is longer than 64 bits")
            }
        }
        let count = try varint()
        // Every entry takes at least four bytes, which bounds a forged count.
        guard count <= UInt64(bytes.count) else { throw fail("it claims \(count) entries in \(bytes.count) bytes") }
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var last: UInt64 = 0
        for i in entries.indices {
            let (sum, overflow) = last.addingReportingOverflow(try varint())
            guard !overflow else { throw fail("tile IDs overflow") }
            last = sum
            entries[i].tileID = last
        }
        for i in entries.indices {
            let v = try varint()
            guard v <= UInt64(UInt32.max) else { throw fail("a run length is too large") }
            entries[i].runLength = UInt32(v)
        }
        for i in entries.indices {
            let v = try varint()
            guard v > 0, v <= UInt64(UInt32.max) else { throw fail("an entry's length is \(v)") }
            entries[i].length = UInt32(v)
        }
        for i in entries.indices {
            let v = try varint()
            if v == 0 && i > 0 {
                let (next, overflow) = entries[i - 1].offset.addingReportingOverflow(UInt64(entries[i - 1].length))
                guard !overflow else { throw fail("offsets overflow") }
                entries[i].offset = next
            } else {
                guard v > 0 else { throw fail("the first entry has no offset") }
                entries[i].offset = v - 1
            }
        }
        return entries
    }
}
