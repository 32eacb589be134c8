/// Decodes the content of one `.shp` record into a geometry.
///
/// Implements the record contents of the ESRI Shapefile Technical Description (July 1998),
/// pages 5 to 22. Every count is checked against the bytes the record actually holds before
/// anything is allocated, so a record claiming two billion points costs nothing.
enum ShapeRecord {
    /// What one record holds.
    enum Decoded: Equatable {
        /// A Null shape: a record with attributes and no geometry.
        case null
        /// A geometry, and how many of its rings were not closed in the file (closed here).
        case geometry(Geometry, unclosedRings: Int)
        /// A shape with no coordinates (no points, or a NaN point).
        case empty(String)
        /// A shape with an infinite coordinate.
        case badCoordinate(String)
        case unsupported(String)
        case invalid(String)
    }

    /// Measures below this are "no data" (Technical Description, page 2).
    static let noDataMeasure = -1e38

    /// Decodes a record's content: the bytes after its 8-byte header.
    static func decode(_ c: [UInt8]) -> Decoded {
        guard c.count >= 4 else { return .invalid("the record holds \(c.count) bytes, too few for a shape type") }
        let raw = c.int32LE(0)
        guard let type = ShapeType(rawValue: raw) else { return .invalid("unknown shape type \(raw)") }
        switch type {
        case .null: return .null
        case .multiPatch: return .unsupported("MultiPatch (a 3D surface of triangle strips and rings) is not supported")
        case .point, .pointZ, .pointM: return point(c, type)
        case .multiPoint, .multiPointZ, .multiPointM: return multiPoint(c, type)
        case .polyLine, .polyLineZ, .polyLineM, .polygon, .polygonZ, .polygonM: return parts(c, type)
        }
    }

    /// The number of parts a PolyLine or Polygon record says it has, from its first 40 bytes;
    /// nil for other types. A record with at most one part is never multi, so the schema scan
    /// reads no further.
    static func partCount(_ prefix: [UInt8]) -> Int? {
        guard prefix.count >= 40, let type = ShapeType(rawValue: prefix.int32LE(0)) else { return nil }
        switch type {
        case .polyLine, .polyLineZ, .polyLineM, .polygon, .polygonZ, .polygonM: return Int(prefix.int32LE(36))
        default: return nil
        }
    }

    private static func measure(_ m: Double) -> Double { m < noDataMeasure ? .nan : m }

    private static func point(_ c: [UInt8], _ type: ShapeType) -> Decoded {
        guard c.count >= 20 else { return .invalid("a \(type.name) needs 20 bytes, the record holds \(c.count)") }
        var p = Position(x: c.doubleLE(4), y: c.doubleLE(12))
        if type == .pointZ {
            guard c.count >= 28 else { return .invalid("a PointZ needs 28 bytes, the record holds \(c.count)") }
            p.z = c.doubleLE(20)
            if c.count >= 36 { p.m = measure(c.doubleLE(28)) }
        } else if type == .pointM, c.count >= 28 {
            p.m = measure(c.doubleLE(20))
        }
        // Some writers store a null point as NaN coordinates rather than as a Null shape.
        if p.x.isNaN || p.y.isNaN { return .empty("the point's coordinates are NaN") }
        if !p.x.isFinite || !p.y.isFinite { return .badCoordinate("the point's coordinates are infinite") }
        return .geometry(Geometry(.point(p), hasZ: type.hasZ, hasM: type.hasM), unclosedRings: 0)
    }

    private static func multiPoint(_ c: [UInt8], _ type: ShapeType) -> Decoded {
        guard c.count >= 40 else { return .invalid("a \(type.name) needs at least 40 bytes, the record holds \(c.count)") }
        let n = Int(c.int32LE(36))
        guard n >= 0, n <= (c.count - 40) / 16 else {
            return .invalid("the record claims \(n) points, more than its \(c.count) bytes hold")
        }
        if n == 0 { return .empty("the multipoint has no points") }
        let positions: [Position]
        do { positions = try readPositions(c, type, at: 40, count: n) } catch { return error.decoded }
        return .geometry(Geometry(.multiPoint(positions), hasZ: type.hasZ, hasM: type.hasM), unclosedRings: 0)
    }

    private static func parts(_ c: [UInt8], _ type: ShapeType) -> Decoded {
        guard c.count >= 44 else { return .invalid("a \(type.name) needs at least 44 bytes, the record holds \(c.count)") }
        let partCount = Int(c.int32LE(36))
        let pointCount = Int(c.int32LE(40))
        guard partCount >= 0, pointCount >= 0 else {
            return .invalid("the record claims \(partCount) parts and \(pointCount) points")
        }
        let pointsAt = 44 + 4 * partCount
        guard pointsAt <= c.count, pointCount <= (c.count - pointsAt) / 16 else {
            return .invalid("the record claims \(partCount) parts and \(pointCount) points, more than its \(c.count) bytes hold")
        }
        if partCount == 0 || pointCount == 0 { return .empty("the \(type.name) has no points") }
        var starts: [Int] = []
        starts.reserveCapacity(partCount)
        for i in 0..<partCount {
            let start = Int(c.int32LE(44 + 4 * i))
            // Part starts index the point array and increase (page 7); shapelib checks the same.
            guard start >= 0, start < pointCount, starts.last.map({ start > $0 }) ?? true else {
                return .invalid("part \(i + 1) starts at point \(start), outside 0..<\(pointCount) or not after the previous part")
            }
            starts.append(start)
        }
        let positions: [Position]
        do { positions = try readPositions(c, type, at: pointsAt, count: pointCount) } catch { return error.decoded }
        var pieces: [[Position]] = []
        pieces.reserveCapacity(partCount)
        for (i, start) in starts.enumerated() {
            let end = i + 1 < starts.count ? starts[i + 1] : pointCount
            pieces.append(Array(positions[start..<end]))
        }
        if type.family == .line {
            // A line needs two points; a one-point part is dropped, as GEOS and GeoPackage
            // readers would reject it.
            let lines = pieces.filter { $0.count >= 2 }
            if lines.isEmpty { return .invalid("no part of the line has two points") }
            let shape: Geometry.Shape = lines.count == 1 ? .lineString(lines[0]) : .multiLineString(lines)
            return .geometry(Geometry(shape, hasZ: type.hasZ, hasM: type.hasM), unclosedRings: 0)
        }
        var unclosed = 0
        var rings: [[Position]] = []
        for var ring in pieces {
            if let first = ring.first, let last = ring.last, first.x != last.x || first.y != last.y {
                ring.append(first)
                unclosed += 1
            }
            // A ring needs three distinct corners: four positions once closed.
            if ring.count >= 4 { rings.append(ring) }
        }
        if rings.isEmpty { return .invalid("no ring of the polygon has three points") }
        let polygons = PolygonRings.assemble(rings)
        let shape: Geometry.Shape = polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons)
        return .geometry(Geometry(shape, hasZ: type.hasZ, hasM: type.hasM), unclosedRings: unclosed)
    }

    /// Reads `count` points at `at`, with the Z and M arrays that follow them (page 15ff.):
    /// Z types must hold z and may hold m, M types may hold m (the measures are optional).
    private static func readPositions(_ c: [UInt8], _ type: ShapeType, at: Int, count n: Int) throws(DecodeFailure) -> [Position] {
        var positions: [Position] = []
        positions.reserveCapacity(n)
        for i in 0..<n {
            let x = c.doubleLE(at + 16 * i), y = c.doubleLE(at + 16 * i + 8)
            guard x.isFinite, y.isFinite else {
                throw DecodeFailure(.badCoordinate("point \(i + 1) has a coordinate that is NaN or infinite"))
            }
            positions.append(Position(x: x, y: y))
        }
        var measuresAt = at + 16 * n + 16
        if type.hasZ {
            let zAt = at + 16 * n + 16
            guard zAt + 8 * n <= c.count else {
                throw DecodeFailure(.invalid("the \(type.name) record ends before its z values"))
            }
            for i in 0..<n { positions[i].z = c.doubleLE(zAt + 8 * i) }
            measuresAt = zAt + 8 * n + 16
        }
        if type.hasM, measuresAt + 8 * n <= c.count {
            for i in 0..<n { positions[i].m = measure(c.doubleLE(measuresAt + 8 * i)) }
        }
        return positions
    }

    /// Carries a failed decode out of `readPositions`.
    struct DecodeFailure: Error {
        var decoded: Decoded
        init(_ decoded: Decoded) { self.decoded = decoded }
    }
}

