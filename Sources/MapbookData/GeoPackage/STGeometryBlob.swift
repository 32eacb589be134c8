
/// Esri's ST_Geometry blobs of a mobile geodatabase (`.geodatabase`, the SQLite files inside
/// Esri's mobile map packages), decoded.
///
/// Esri does not publish the format; this reading was worked out on a real mobile geodatabase
/// and checked on every geometry of it (each blob's length field, its envelope, its part table,
/// closed rings, boxes against the table's R-tree within its 32-bit rounding, docs/FORMAT.md
/// "Esri mobile geodatabases"). Little-endian:
///
/// ```
/// 0   1  0x64
/// 1   3  srid (st_aux_spatial_reference_systems)
/// 4   4  point count, part separators included
/// 8   1  geometry type << 2 (1 point, 4 multipoint, 5 multiline, 6 multipolygon); the low
///        two bits (Z and M, presumably) are never set in known files and refused here
/// 9   1  shape flags: 0x01 point, 0x02 line, 0x04 simple line, 0x08 area, 0x40 parts follow
/// 10  .. envelope (4 signed varints), when the count is over 10 and the shape not a point
///     .. part table when flag 0x40: a count n, then n point counts (each with its separator)
///     4  the coordinate stream's byte length (a varint; the slot's other bytes are junk)
///     4  1
///     .. (dx, dy) signed varints, summed from (0, 0); (-1, 0) separates parts
/// ```
///
/// Signed varints as in FileGDB: the first byte's bit 7 continues, bit 6 is the sign, bits 0-5
/// the low bits; later bytes add 7 bits each. A coordinate is `raw / xyunits + false origin`.
public enum STGeometryBlob {
    /// The integer grid of a spatial reference: `x = raw / xyUnits + falseX`.
    public struct Grid: Sendable, Equatable {
        public var falseX: Double
        public var falseY: Double
        public var xyUnits: Double
    }

    /// Why a blob could not be read.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { "an Esri ST_Geometry blob that cannot be read: \(message)" }
    }

    /// The spatial reference id a blob names.
    public static func srid(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4, bytes[0] == 0x64 else { return nil }
        return Int(bytes[1]) | Int(bytes[2]) << 8 | Int(bytes[3]) << 16
    }

    /// The geometry of `bytes`, on the grid its srid names in `grids`; nil for an empty shape.
    public static func decode(_ bytes: [UInt8], grids: [Int: Grid]) throws(Failure) -> Geometry? {
        guard bytes.count >= 18, bytes[0] == 0x64 else { throw Failure(message: "it does not start with 0x64, or is shorter than 18 bytes") }
        let count = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        guard bytes[8] & 3 == 0 else { throw Failure(message: "it has Z or M values, which this reading does not know") }
        let flags = bytes[9]
        if count == 0 { return nil }
        let srid = Self.srid(bytes)!
        guard let grid = grids[srid], grid.xyUnits > 0 else { throw Failure(message: "its spatial reference \(srid) is not in st_aux_spatial_reference_systems") }
        // Every point takes at least two bytes: a count beyond that is damage, not a shape.
        guard count <= bytes.count / 2 else { throw Failure(message: "it claims \(count) points in \(bytes.count) bytes") }
        var reader = Reader(bytes: bytes, at: 10)
        let kind = flags & 0x0F
        if count > 10 && kind != 0x01 {
            for _ in 0..<4 { _ = try reader.signed() }
        }
        var separators = Set<Int>()
        if flags & 0x40 != 0 {
            let parts = try reader.signed()
            guard parts >= 0, parts <= count else { throw Failure(message: "its part table counts \(parts) parts") }
            var at = 0
            for _ in 0..<parts {
                at += try reader.signed()
                separators.insert(at - 1)
            }
        }
        let slot = reader.offset
        let length = try reader.signed()
        reader.offset = slot + 4
        guard reader.offset + 4 <= bytes.count, bytes[reader.offset] == 1, bytes[reader.offset + 1] == 0, bytes[reader.offset + 2] == 0, bytes[reader.offset + 3] == 0 else {
            throw Failure(message: "the word before its coordinates is not 1")
        }
        reader.offset += 4
        guard length == bytes.count - reader.offset else { throw Failure(message: "its coordinates take \(bytes.count - reader.offset) bytes, not the \(length) it says") }
        var parts: [[Position]] = [[]]
        var x = 0, y = 0
        for i in 0..<count {
            x += try reader.signed()
            y += try reader.signed()
            if x == -1 && y == 0 {
                guard separators.isEmpty || separators.contains(i) else { throw Failure(message: "a part ends at point \(i), where its part table has none") }
                parts.append([])
            } else {
                parts[parts.count - 1].append(Position(x: Double(x) / grid.xyUnits + grid.falseX, y: Double(y) / grid.xyUnits + grid.falseY))
            }
        }
        guard reader.offset == bytes.count else { throw Failure(message: "\(bytes.count - reader.offset) bytes follow its coordinates") }
        parts.removeAll { $0.isEmpty }
        guard !parts.isEmpty else { return nil }
        switch kind {
        case 0x01:
            let points = parts.flatMap { $0 }
            return Geometry(points.count == 1 ? .point(points[0]) : .multiPoint(points))
        case 0x02, 0x04:
            return Geometry(parts.count == 1 ? .lineString(parts[0]) : .multiLineString(parts))
        case 0x08:
            // Rings are told apart by nesting, not by orientation: known files wind every
            // exterior counter-clockwise, unlike shapefiles.
            let polygons = PolygonRings.assembleByNesting(parts)
            return Geometry(polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons))
        default:
            throw Failure(message: "its shape flags 0x\(String(flags, radix: 16)) name no known shape")
        }
    }

    /// Signed varints from a byte offset.
    struct Reader {
        let bytes: [UInt8]
        var offset: Int

        init(bytes: [UInt8], at offset: Int) {
            self.bytes = bytes
            self.offset = offset
        }

        mutating func signed() throws(Failure) -> Int {
            guard offset < bytes.count else { throw Failure(message: "it ends inside a number") }
            var byte = bytes[offset]
            offset += 1
            let negative = byte & 0x40 != 0
            var value = Int(byte & 0x3F)
            var shift = 6
            while byte & 0x80 != 0 {
                guard offset < bytes.count, shift < 57 else { throw Failure(message: "it ends inside a number, or a number is too long") }
                byte = bytes[offset]
                offset += 1
                value |= Int(byte & 0x7F) << shift
                shift += 7
            }
            return negative ? -value : value
        }
    }
}
