/// One feature as the tiler keeps it in its feature file: a self-contained record of fixed header,
/// part sizes, world coordinates and attribute values, so that tiling needs no table in memory
/// that grows with the input (values inline, not indexes into a layer-wide table).
///
/// Layout (native byte order, every record a multiple of 16 bytes so the coordinates are
/// aligned as `SIMD2<Double>`, mapped or read into 16-byte aligned memory):
///
/// | offset | size | field |
/// |---:|---:|---|
/// | 0 | 4 | record length in bytes |
/// | 4 | 4 | layer index |
/// | 8 | 4 | ordinal: the feature's place among all features added |
/// | 12 | 1 | kind (0 point, 1 line, 2 polygon) |
/// | 13 | 1 | 1 when the feature has an id |
/// | 16 | 8 | id |
/// | 24 | 40 | minX, minY, maxX, maxY, size (doubles, world units) |
/// | 64 | 4 | part count |
/// | 68 | 4 | vertex count |
/// | 72 | 4 | tag count |
/// | 80 | 4 x parts | vertex count of each part; the high bit marks a ring that starts a polygon |
/// | 16-aligned | 16 x vertices | x, y doubles |
/// | then | | tags: key index (4 bytes), value type (1 byte), value |
///
/// A value is a string (4-byte length, UTF-8), a float (4), a double (8), an int, uint or sint
/// (8) or a bool (1).
struct TilerRecord {
    let base: UnsafeRawPointer

    static let headerSize = 80
    static let polygonStart: UInt32 = 1 << 31

    enum Kind: UInt8 { case point, line, polygon }

    enum ValueType: UInt8 { case string, float, double, int, uint, sint, bool }

    var length: Int { Int(base.load(fromByteOffset: 0, as: UInt32.self)) }
    var layer: Int { Int(base.load(fromByteOffset: 4, as: UInt32.self)) }
    var ordinal: Int { Int(base.load(fromByteOffset: 8, as: UInt32.self)) }
    var kind: Kind { Kind(rawValue: base.load(fromByteOffset: 12, as: UInt8.self)) ?? .point }
    var id: UInt64? { base.load(fromByteOffset: 13, as: UInt8.self) != 0 ? base.load(fromByteOffset: 16, as: UInt64.self) : nil }
    var minX: Double { base.load(fromByteOffset: 24, as: Double.self) }
    var minY: Double { base.load(fromByteOffset: 32, as: Double.self) }
    var maxX: Double { base.load(fromByteOffset: 40, as: Double.self) }
    var maxY: Double { base.load(fromByteOffset: 48, as: Double.self) }
    /// Area (polygons) or length (lines) in world units, for dropping the smallest first.
    var size: Double { base.load(fromByteOffset: 56, as: Double.self) }
    var partCount: Int { Int(base.load(fromByteOffset: 64, as: UInt32.self)) }
    var vertexCount: Int { Int(base.load(fromByteOffset: 68, as: UInt32.self)) }
    var tagCount: Int { Int(base.load(fromByteOffset: 72, as: UInt32.self)) }

    var parts: UnsafeBufferPointer<UInt32> {
        UnsafeBufferPointer(start: (base + Self.headerSize).assumingMemoryBound(to: UInt32.self), count: partCount)
    }

    private var verticesOffset: Int { Self.aligned(Self.headerSize + 4 * partCount) }

    var vertices: UnsafeBufferPointer<SIMD2<Double>> {
        UnsafeBufferPointer(start: (base + verticesOffset).assumingMemoryBound(to: SIMD2<Double>.self), count: vertexCount)
    }

    /// Calls `body` with each part (line or ring) of the feature and whether it starts a polygon.
    func forEachPart(_ body: (UnsafeBufferPointer<SIMD2<Double>>, Bool) -> Void) {
        let all = vertices
        var v = 0
        for part in parts {
            let count = Int(part & ~Self.polygonStart)
            body(UnsafeBufferPointer(rebasing: all[v..<(v + count)]), part & Self.polygonStart != 0)
            v += count
        }
    }

    /// Calls `body` with each attribute: the key's index in the layer's fields and the value's
    /// bytes, type byte first (equal values have equal bytes, so a tile's value table can be
    /// deduplicated on them without decoding).
    func forEachTag(_ body: (Int, UnsafeRawBufferPointer) -> Void) {
        var p = base + verticesOffset + 16 * vertexCount
        for _ in 0..<tagCount {
            let key = Int(p.loadUnaligned(as: UInt32.self))
            let start = p + 4
            let size: Int
            switch ValueType(rawValue: start.load(as: UInt8.self)) {
            case .string: size = 5 + Int(start.loadUnaligned(fromByteOffset: 1, as: UInt32.self))
            case .float: size = 5
            case .bool: size = 2
            default: size = 9
            }
            body(key, UnsafeRawBufferPointer(start: start, count: size))
            p = start + size
        }
    }

    /// The value a tag's bytes (as `forEachTag` gives them) stand for.
    static func value(_ bytes: UnsafeRawBufferPointer) -> VectorTile.Value {
        switch ValueType(rawValue: bytes[0]) {
        case .string: return .string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[5...]), as: UTF8.self))
        case .float: return .float(bytes.loadUnaligned(fromByteOffset: 1, as: Float.self))
        case .double: return .double(bytes.loadUnaligned(fromByteOffset: 1, as: Double.self))
        case .int: return .int(bytes.loadUnaligned(fromByteOffset: 1, as: Int64.self))
        case .uint: return .uint(bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
        case .sint: return .sint(bytes.loadUnaligned(fromByteOffset: 1, as: Int64.self))
        case .bool, nil: return .bool(bytes[1] != 0)
        }
    }

    static func aligned(_ n: Int) -> Int { (n + 15) & ~15 }

    /// Appends one record to `out`. `parts` and `vertices` as the layout says; `tags` pairs of
    /// field index and value.
    static func append(
        to out: inout [UInt8], layer: Int, ordinal: Int, kind: Kind, id: UInt64?, bounds: (SIMD2<Double>, SIMD2<Double>), size: Double,
        parts: ArraySlice<UInt32>, vertices: ArraySlice<SIMD2<Double>>, tags: [(Int, VectorTile.Value)]
    ) {
        let start = out.count
        func put<T: BitwiseCopyable>(_ value: T) {
            withUnsafeBytes(of: value) { out.append(contentsOf: $0) }
        }
        func pad() { out.append(contentsOf: repeatElement(0, count: aligned(out.count - start) - (out.count - start))) }
        put(UInt32(0))
        put(UInt32(layer))
        put(UInt32(ordinal))
        put(kind.rawValue)
        put(UInt8(id == nil ? 0 : 1))
        put(UInt16(0))
        put(id ?? 0)
        put(bounds.0.x)
        put(bounds.0.y)
        put(bounds.1.x)
        put(bounds.1.y)
        put(size)
        put(UInt32(parts.count))
        put(UInt32(vertices.count))
        put(UInt32(tags.count))
        put(UInt32(0))
        for part in parts { put(part) }
        pad()
        for v in vertices {
            put(v.x)
            put(v.y)
        }
        for (key, value) in tags {
            put(UInt32(key))
            switch value {
            case .string(let s):
                put(ValueType.string.rawValue)
                var s = s
                s.withUTF8 { utf8 in
                    put(UInt32(utf8.count))
                    out.append(contentsOf: utf8)
                }
            case .float(let f): put(ValueType.float.rawValue); put(f)
            case .double(let d): put(ValueType.double.rawValue); put(d)
            case .int(let i): put(ValueType.int.rawValue); put(i)
            case .uint(let u): put(ValueType.uint.rawValue); put(u)
            case .sint(let i): put(ValueType.sint.rawValue); put(i)
            case .bool(let b): put(ValueType.bool.rawValue); put(UInt8(b ? 1 : 0))
            }
        }
        pad()
        let length = UInt32(out.count - start)
        withUnsafeBytes(of: length) { bytes in
            for i in 0..<4 { out[start + i] = bytes[i] }
        }
    }
}
