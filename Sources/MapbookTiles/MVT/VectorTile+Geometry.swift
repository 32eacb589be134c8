// Geometry commands, MVT 2.1 section 4.3
// (https://github.com/mapbox/vector-tile-spec/tree/master/2.1#43-geometry-encoding):
// a command integer holds an id in its low 3 bits (MoveTo 1, LineTo 2, ClosePath 7) and a
// count above them; MoveTo and LineTo are followed by `count` pairs of zigzag-encoded deltas
// from a cursor that starts at (0, 0) for each feature. Cursor arithmetic wraps at 32 bits, as
// vtzero's does (mvt-fixtures 049 and 050 overflow on purpose).

extension VectorTile.Feature {
    /// Decodes the feature's geometry commands into points, lines or polygons.
    ///
    /// Follows MVT 2.1 section 4.3 strictly: a point geometry is one `MoveTo` with a count of
    /// one or more; a line is `MoveTo` (count 1) then `LineTo` (count 1 or more); a ring is
    /// `MoveTo` (1), `LineTo`, `ClosePath` (1); no `LineTo` step is (0, 0) (4.3.3.2). Each count
    /// is checked against the integers left before anything is read or reserved. Rings are
    /// grouped into polygons by the sign of their area: positive starts a polygon, negative is a
    /// hole in the current one; a zero-area ring, or a hole before any exterior ring, makes the
    /// geometry invalid. A ring's explicit closing point (a last point equal to the first) is
    /// dropped.
    ///
    /// The error carries no tile, layer or feature; `MVTError.located` adds them.
    public func decodeGeometry() throws(MVTError) -> TileGeometry {
        var reader = GeometryCommandReader(commands: geometry)
        switch type {
        case .point: return .points(try reader.points())
        case .lineString: return .lines(try reader.lines())
        case .polygon: return .polygons(try reader.polygons())
        case .unknown: throw MVTError(kind: .unknownGeometryType, source: "", message: "its geometry type is UNKNOWN, which has no defined encoding")
        }
    }

    /// A feature whose geometry encodes `geometry` in the fewest commands: one `MoveTo` for all
    /// points; per line `MoveTo` and one `LineTo` run; per ring `MoveTo`, `LineTo`, `ClosePath`.
    ///
    /// Repeated consecutive points in lines and rings are written once, and a ring's closing
    /// point is not written. Parts that collapse are left out: lines of fewer than two distinct
    /// points, rings of fewer than three, and with an exterior ring its holes; rings of zero area are
    /// dropped (a polygon of no other ring is refused).
    /// Rings are not rewound (see `TileGeometry`). The geometry may end up empty; the layer
    /// builder leaves such features out. A part of 2^29 points or more, which no command can
    /// count, is a programming error.
    public init(id: UInt64? = nil, tags: [UInt32] = [], geometry: TileGeometry) {
        var commands: [UInt32] = []
        GeometryEncoder.encode(geometry, into: &commands)
        self.init(id: id, tags: tags, type: geometry.type, geometry: commands)
    }
}

/// Walks command integers, checking every count against what is left.
///
/// With `collect` off it only checks, allocating nothing: the decoder's geometry checks cost
/// a walk over the integers, not a copy of the geometry.
struct GeometryCommandReader {
    let commands: [UInt32]
    let collect: Bool
    var index = 0
    var cursor = TilePoint(0, 0)

    init(commands: [UInt32], collect: Bool = true) {
        self.commands = commands
        self.collect = collect
    }

    var remaining: Int { commands.count - index }

    static func name(_ id: UInt32) -> String {
        switch id {
        case 1: return "MoveTo"
        case 2: return "LineTo"
        case 7: return "ClosePath"
        default: return "command \(id)"
        }
    }

    private func fail(_ message: String) -> MVTError {
        MVTError(kind: .invalidGeometry, source: "", message: message)
    }

    /// The next command's id and count; the id is one of 1, 2 and 7.
    mutating func command() throws(MVTError) -> (id: UInt32, count: Int) {
        guard index < commands.count else { throw fail("the geometry ends where a command was expected") }
        let integer = commands[index]
        let id = integer & 7
        guard id == 1 || id == 2 || id == 7 else {
            throw fail("unknown command id \(id) at integer \(index) (MVT 4.3.3 defines MoveTo 1, LineTo 2 and ClosePath 7)")
        }
        index += 1
        return (id, Int(integer >> 3))
    }

    /// Checks that `count` point pairs follow before any is read.
    func checkPairs(_ id: UInt32, _ count: Int) throws(MVTError) {
        if count * 2 > remaining {
            throw fail("\(Self.name(id)) count \(count) runs past the end of the geometry (\(remaining) integer\(remaining == 1 ? "" : "s") left)")
        }
    }

    @inline(__always)
    mutating func point() -> TilePoint {
        cursor.x = cursor.x &+ ProtobufReader.zigzag(commands[index])
        cursor.y = cursor.y &+ ProtobufReader.zigzag(commands[index + 1])
        index += 2
        return cursor
    }

    mutating func points() throws(MVTError) -> [TilePoint] {
        guard remaining > 0 else { throw fail("the point geometry is empty (it needs a MoveTo)") }
        let (id, count) = try command()
        guard id == 1 else { throw fail("a point geometry starts with \(Self.name(id)), not MoveTo") }
        guard count > 0 else { throw fail("MoveTo count 0 in a point geometry (it needs 1 or more)") }
        try checkPairs(id, count)
        var points: [TilePoint] = []
        if collect {
            points.reserveCapacity(count)
            for _ in 0..<count { points.append(point()) }
        } else {
            index += 2 * count
        }
        if remaining > 0 {
            throw fail("\(remaining) integers follow the MoveTo of a point geometry, which is one MoveTo (MVT 4.3.4.2)")
        }
        return points
    }

    /// MoveTo with count 1 and its point: how every line and ring starts.
    private mutating func moveTo(_ what: String) throws(MVTError) -> TilePoint {
        let (id, count) = try command()
        guard id == 1 else {
            if id == 7 && what == "line" {
                throw fail("ClosePath in a line geometry (MVT 2 allows it only in polygons)")
            }
            throw fail("a \(what) starts with \(Self.name(id)), not MoveTo")
        }
        guard count == 1 else { throw fail("MoveTo count \(count) starts a \(what) (it must be 1)") }
        try checkPairs(id, count)
        return point()
    }

    /// The LineTo run after a MoveTo to `start`: its points appended to `points` when
    /// collecting, its count, and twice the signed area its edges sweep (the surveyor's sum
    /// from `start` to the last point, without the closing edge).
    private mutating func lineTo(_ what: String, from start: TilePoint, into points: inout [TilePoint]) throws(MVTError) -> (count: Int, area: Int128) {
        guard remaining > 0 else { throw fail("a \(what) ends after its MoveTo (it needs a LineTo)") }
        let (id, count) = try command()
        guard id == 2 else { throw fail("\(Self.name(id)) follows the MoveTo of a \(what), where LineTo must") }
        guard count > 0 else { throw fail("LineTo count 0 in a \(what) (it needs 1 or more)") }
        try checkPairs(id, count)
        if collect { points.reserveCapacity(count + 1) }
        var area: Int128 = 0
        var previous = start
        for i in 0..<count {
            if commands[index] == 0 && commands[index + 1] == 0 {
                throw fail("LineTo point \(i) of a \(what) repeats the point before it (MVT 4.3.3.2: dX and dY MUST NOT both be 0)")
            }
            let p = point()
            area += Int128(TileGeometry.cross(previous, p))
            previous = p
            if collect { points.append(p) }
        }
        return (count, area)
    }

    mutating func lines() throws(MVTError) -> [[TilePoint]] {
        guard remaining > 0 else { throw fail("the line geometry is empty (it needs a MoveTo)") }
        var lines: [[TilePoint]] = []
        var scratch: [TilePoint] = []
        while remaining > 0 {
            let start = try moveTo("line")
            if collect {
                var line = [start]
                _ = try lineTo("line", from: start, into: &line)
                lines.append(line)
            } else {
                _ = try lineTo("line", from: start, into: &scratch)
            }
        }
        return lines
    }

    mutating func polygons() throws(MVTError) -> [[[TilePoint]]] {
        guard remaining > 0 else { throw fail("the polygon geometry is empty (it needs a MoveTo)") }
        var polygons: [[[TilePoint]]] = []
        var ringNumber = 0
        var sawExterior = false
        var degenerate: (ring: Int, points: Int)?
        while remaining > 0 {
            let start = try moveTo("ring")
            var ring: [TilePoint] = collect ? [start] : []
            let (count, edges) = try lineTo("ring", from: start, into: &ring)
            guard remaining > 0 else { throw fail("ring \(ringNumber) ends without a ClosePath") }
            let (id, closeCount) = try command()
            guard id == 7 else { throw fail("\(Self.name(id)) follows the LineTo of ring \(ringNumber), where ClosePath must") }
            guard closeCount == 1 else { throw fail("ClosePath count \(closeCount) ends ring \(ringNumber) (it must be 1)") }
            // Some encoders also repeat the first point; rings here never do. (Zero steps are
            // refused, so there is at most one such point.)
            let repeatsStart = cursor == start
            if repeatsStart && collect { ring.removeLast() }
            let area = edges + Int128(TileGeometry.cross(cursor, start))
            if area > 0 {
                sawExterior = true
                if collect { polygons.append([ring]) }
            } else if area < 0 {
                guard sawExterior else {
                    throw fail("ring 0 has negative area, so it is a hole, but no exterior ring comes before it (MVT 4.3.4.4: exterior rings are clockwise on screen)")
                }
                if collect { polygons[polygons.count - 1].append(ring) }
            } else {
                // Zero area: neither exterior nor hole (4.3.4.4 defines rings by the sign of
                // their area). Dropped, as MapLibre and mapnik do, keeping the feature's other
                // rings: real Esri basemaps have them (basemap.de's background polygons).
                degenerate = (ringNumber, 1 + count - (repeatsStart ? 1 : 0))
            }
            ringNumber += 1
        }
        if !sawExterior, let (ring, points) = degenerate {
            throw MVTError(kind: .degeneratePolygon, source: "", message: "no ring has an area (ring \(ring) is a degenerate ring of \(points) point\(points == 1 ? "" : "s"))")
        }
        return polygons
    }
}

extension VectorTile.Feature {
    /// Checks the geometry as `decodeGeometry()` does, without building it.
    func checkGeometry() throws(MVTError) {
        var reader = GeometryCommandReader(commands: geometry, collect: false)
        switch type {
        case .point: _ = try reader.points()
        case .lineString: _ = try reader.lines()
        case .polygon: _ = try reader.polygons()
        case .unknown: throw MVTError(kind: .unknownGeometryType, source: "", message: "its geometry type is UNKNOWN, which has no defined encoding")
        }
    }
}

/// Writes `TileGeometry` as command integers.
enum GeometryEncoder {
    @inline(__always)
    static func command(_ id: UInt32, _ count: Int) -> UInt32 {
        precondition(count < 1 << 29, "an MVT command count must be below 2^29")
        return UInt32(count) << 3 | id
    }

    @inline(__always)
    static func append(_ p: TilePoint, from cursor: inout TilePoint, into out: inout [UInt32]) {
        out.append(ProtobufWriter.zigzag(p.x &- cursor.x))
        out.append(ProtobufWriter.zigzag(p.y &- cursor.y))
        cursor = p
    }

    static func encode(_ geometry: TileGeometry, into out: inout [UInt32]) {
        var cursor = TilePoint(0, 0)
        switch geometry {
        case .points(let points):
            guard !points.isEmpty else { return }
            out.reserveCapacity(out.count + 1 + 2 * points.count)
            out.append(command(1, points.count))
            for p in points { append(p, from: &cursor, into: &out) }
        case .lines(let lines):
            for line in lines {
                encodeRun(line, end: line.count, cursor: &cursor, into: &out, ring: false)
            }
        case .polygons(let polygons):
            for polygon in polygons {
                for (i, ring) in polygon.enumerated() {
                    var end = ring.count
                    while end > 1 && ring[end - 1] == ring[0] { end -= 1 }
                    let written = encodeRun(ring, end: end, cursor: &cursor, into: &out, ring: true)
                    // Without its exterior ring, a polygon's holes would read as exteriors.
                    if !written && i == 0 { break }
                }
            }
        }
    }

    /// MoveTo, one LineTo run without repeated points, and ClosePath for a ring; rolled back
    /// (returning false) when the line or ring collapses.
    @discardableResult
    static func encodeRun(_ points: [TilePoint], end: Int, cursor: inout TilePoint, into out: inout [UInt32], ring: Bool) -> Bool {
        guard end >= 2 else { return false }
        let start = out.count
        let startCursor = cursor
        out.reserveCapacity(out.count + 4 + 2 * end)
        out.append(command(1, 1))
        let first = points[0]
        append(first, from: &cursor, into: &out)
        let slot = out.count
        out.append(0)
        var count = 0
        var previous = first
        var area: Int128 = 0
        for i in 1..<end {
            let p = points[i]
            if p == previous { continue }
            if ring { area += Int128(TileGeometry.cross(previous, p)) }
            append(p, from: &cursor, into: &out)
            previous = p
            count += 1
        }
        if ring { area += Int128(TileGeometry.cross(previous, first)) }
        guard count >= (ring ? 2 : 1), !ring || area != 0 else {
            out.removeSubrange(start...)
            cursor = startCursor
            return false
        }
        out[slot] = command(2, count)
        if ring { out.append(command(7, 1)) }
        return true
    }
}
