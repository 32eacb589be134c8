/// Well-known binary: ISO WKB (1000s for Z, 2000s for M, 3000s for ZM) and PostGIS EWKB
/// (high flag bits for Z, M and an SRID), read in either byte order; written as little-endian
/// ISO WKB, the form GeoPackage requires (GeoPackage 1.4, clause 2.1.3).
public enum WKB {
    /// A WKB blob that cannot be read, with the byte offset where reading stopped.
    public struct Error: Swift.Error, Sendable, CustomStringConvertible {
        public enum Kind: Sendable, Hashable {
            /// A type code this reader does not know: curves, surfaces, TINs, or garbage.
            case unsupportedType
            /// The blob ends before the geometry does.
            case truncated
            /// A byte order other than 0 or 1, a collection holding the wrong type.
            case malformed
            /// Collections nested deeper than `maximumDepth`.
            case tooDeep
        }

        public var kind: Kind
        public var offset: Int
        public var message: String
        public var description: String { "WKB at byte \(offset): \(message)" }
    }

    /// Decodes a geometry; `srid` is set when the blob is EWKB with an SRID.
    public static func decode(_ bytes: some RandomAccessCollection<UInt8>) throws(Error) -> (geometry: Geometry, srid: Int32?) {
        var reader = Reader(bytes: Array(bytes))
        let result = try reader.geometry(depth: 0)
        return result
    }

    /// Decodes from a raw buffer without copying.
    public static func decode(_ buffer: UnsafeRawBufferPointer) throws(Error) -> (geometry: Geometry, srid: Int32?) {
        var reader = Reader(bytes: Array(buffer))
        return try reader.geometry(depth: 0)
    }

    /// Encodes a geometry as little-endian ISO WKB.
    public static func encode(_ geometry: Geometry) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(9 + geometry.positionCount * 16)
        append(geometry, to: &out)
        return out
    }

    static func append(_ g: Geometry, to out: inout [UInt8]) {
        let dims = (g.hasZ ? 1000 : 0) + (g.hasM ? 2000 : 0)
        out.append(1)
        appendUInt32(UInt32(g.type.rawValue + dims), to: &out)
        func position(_ p: Position) {
            appendDouble(p.x, to: &out)
            appendDouble(p.y, to: &out)
            if g.hasZ { appendDouble(p.z, to: &out) }
            if g.hasM { appendDouble(p.m, to: &out) }
        }
        func points(_ a: [Position]) {
            appendUInt32(UInt32(a.count), to: &out)
            a.forEach(position)
        }
        func rings(_ r: [[Position]]) {
            appendUInt32(UInt32(r.count), to: &out)
            r.forEach(points)
        }
        func child(_ shape: Geometry.Shape) { append(Geometry(shape, hasZ: g.hasZ, hasM: g.hasM), to: &out) }
        switch g.shape {
        case .point(let p): position(p)
        case .lineString(let a): points(a)
        case .polygon(let r): rings(r)
        case .multiPoint(let a):
            appendUInt32(UInt32(a.count), to: &out)
            a.forEach { child(.point($0)) }
        case .multiLineString(let r):
            appendUInt32(UInt32(r.count), to: &out)
            r.forEach { child(.lineString($0)) }
        case .multiPolygon(let p):
            appendUInt32(UInt32(p.count), to: &out)
            p.forEach { child(.polygon($0)) }
        case .geometryCollection(let list):
            appendUInt32(UInt32(list.count), to: &out)
            list.forEach { append($0, to: &out) }
        }
    }

    @inline(__always) static func appendUInt32(_ v: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) }
    }

    @inline(__always) static func appendDouble(_ v: Double, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.bitPattern.littleEndian) { out.append(contentsOf: $0) }
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0
        /// Nesting deeper than this is refused: a hostile blob could otherwise exhaust the stack.
        static let maximumDepth = 32

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func geometry(depth: Int) throws(Error) -> (geometry: Geometry, srid: Int32?) {
            guard depth <= Self.maximumDepth else { throw Error(kind: .tooDeep, offset: offset, message: "geometries nested deeper than \(Self.maximumDepth)") }
            let order = try byte()
            guard order <= 1 else { throw Error(kind: .malformed, offset: offset - 1, message: "byte order \(order) is neither 0 nor 1") }
            let little = order == 1
            var code = try uint32(little)
            var hasZ = false, hasM = false
            var srid: Int32?
            // EWKB flags.
            if code & 0x8000_0000 != 0 { hasZ = true }
            if code & 0x4000_0000 != 0 { hasM = true }
            if code & 0x2000_0000 != 0 { srid = Int32(bitPattern: try uint32(little)) }
            code &= 0x0FFF_FFFF
            switch code / 1000 {
            case 1: hasZ = true
            case 2: hasM = true
            case 3: hasZ = true; hasM = true
            case 0: break
            default: throw Error(kind: .unsupportedType, offset: offset - 4, message: "unknown geometry type code \(code)")
            }
            guard let type = GeometryType(rawValue: Int(code % 1000)), type != .geometry else {
                throw Error(kind: .unsupportedType, offset: offset - 4, message: "unknown geometry type code \(code)")
            }
            let stride = 16 + (hasZ ? 8 : 0) + (hasM ? 8 : 0)

            func position() throws(Error) -> Position {
                let x = try double(little), y = try double(little)
                let z = hasZ ? try double(little) : .nan
                let m = hasM ? try double(little) : .nan
                return Position(x: x, y: y, z: z, m: m)
            }
            func count(_ minimumBytesEach: Int) throws(Error) -> Int {
                let n = Int(try uint32(little))
                // A count the remaining bytes cannot hold is a lie: refuse before allocating.
                guard n <= (bytes.count - offset) / max(minimumBytesEach, 1) else {
                    throw Error(kind: .truncated, offset: offset - 4, message: "count \(n) exceeds the \(bytes.count - offset) bytes left")
                }
                return n
            }
            func points() throws(Error) -> [Position] {
                let n = try count(stride)
                var a: [Position] = []
                a.reserveCapacity(n)
                for _ in 0..<n { a.append(try position()) }
                return a
            }
            func rings() throws(Error) -> [[Position]] {
                let n = try count(4)
                var r: [[Position]] = []
                r.reserveCapacity(n)
                for _ in 0..<n { r.append(try points()) }
                return r
            }
            func children(_ expected: GeometryType) throws(Error) -> [Geometry] {
                let n = try count(9)
                var list: [Geometry] = []
                list.reserveCapacity(n)
                for _ in 0..<n {
                    let start = offset
                    let child = try geometry(depth: depth + 1).geometry
                    if expected != .geometry && child.type != expected {
                        throw Error(kind: .malformed, offset: start, message: "a \(type.gpkgName) holds a \(child.type.gpkgName)")
                    }
                    list.append(child)
                }
                return list
            }

            let shape: Geometry.Shape
            switch type {
            case .point: shape = .point(try position())
            case .lineString: shape = .lineString(try points())
            case .polygon: shape = .polygon(try rings())
            case .multiPoint:
                shape = .multiPoint(try children(.point).map { if case .point(let p) = $0.shape { return p } else { return Position(x: .nan, y: .nan) } }.filter { !$0.x.isNaN })
            case .multiLineString:
                shape = .multiLineString(try children(.lineString).map { if case .lineString(let a) = $0.shape { return a } else { return [] } })
            case .multiPolygon:
                shape = .multiPolygon(try children(.polygon).map { if case .polygon(let r) = $0.shape { return r } else { return [] } })
            case .geometryCollection: shape = .geometryCollection(try children(.geometry))
            case .geometry: throw Error(kind: .malformed, offset: offset, message: "unreachable")
            }
            return (Geometry(shape, hasZ: hasZ, hasM: hasM), srid)
        }

        mutating func byte() throws(Error) -> UInt8 {
            guard offset < bytes.count else { throw Error(kind: .truncated, offset: offset, message: "ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32(_ little: Bool) throws(Error) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw Error(kind: .truncated, offset: offset, message: "ends early") }
            var v: UInt32 = 0
            for i in 0..<4 { v |= UInt32(bytes[offset + i]) << (8 * i) }
            offset += 4
            return little ? v : v.byteSwapped
        }

        mutating func double(_ little: Bool) throws(Error) -> Double {
            guard offset + 8 <= bytes.count else { throw Error(kind: .truncated, offset: offset, message: "ends early") }
            var v: UInt64 = 0
            for i in 0..<8 { v |= UInt64(bytes[offset + i]) << (8 * i) }
            offset += 8
            return Double(bitPattern: little ? v : v.byteSwapped)
        }
    }
}
