import MapbookSupport

extension Geometry {
    /// The planar distance from `point` to the geometry, in the units of its coordinates: to
    /// the nearest vertex of points, the nearest segment of lines, zero inside a polygon (its
    /// holes excepted) and the nearest ring outside; infinity for an empty geometry.
    public func distance(to point: Position) -> Double {
        switch shape {
        case .point(let p): return p.x.isNaN ? .infinity : Self.hypot(p.x - point.x, p.y - point.y)
        case .multiPoint(let ps): return ps.map { Self.hypot($0.x - point.x, $0.y - point.y) }.min() ?? .infinity
        case .lineString(let line): return Self.distance(point, toLine: line)
        case .multiLineString(let lines): return lines.map { Self.distance(point, toLine: $0) }.min() ?? .infinity
        case .polygon(let rings): return Self.distance(point, toPolygon: rings)
        case .multiPolygon(let polygons): return polygons.map { Self.distance(point, toPolygon: $0) }.min() ?? .infinity
        case .geometryCollection(let members): return members.map { $0.distance(to: point) }.min() ?? .infinity
        }
    }

    /// Whether the geometry meets the rectangle `box` (its inside or its edge): a vertex in it,
    /// a segment crossing it, or a polygon around it, not merely an envelope overlapping it.
    public func intersects(_ box: BoundingBox) -> Bool {
        guard let envelope, envelope.intersects(box) else { return false }
        if box.contains(envelope) { return true }
        switch shape {
        case .point(let p): return box.contains(x: p.x, y: p.y)
        case .multiPoint(let ps): return ps.contains { box.contains(x: $0.x, y: $0.y) }
        case .lineString(let line): return Self.line(line, meets: box)
        case .multiLineString(let lines): return lines.contains { Self.line($0, meets: box) }
        case .polygon(let rings): return Self.polygon(rings, meets: box)
        case .multiPolygon(let polygons): return polygons.contains { Self.polygon($0, meets: box) }
        case .geometryCollection(let members): return members.contains { $0.intersects(box) }
        }
    }

    private static func hypot(_ dx: Double, _ dy: Double) -> Double { (dx * dx + dy * dy).squareRoot() }

    private static func distance(_ p: Position, toSegment a: Position, _ b: Position) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let length2 = dx * dx + dy * dy
        let t = length2 > 0 ? min(1, max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2)) : 0
        return hypot(a.x + t * dx - p.x, a.y + t * dy - p.y)
    }

    private static func distance(_ p: Position, toLine line: [Position]) -> Double {
        guard let first = line.first else { return .infinity }
        var best = hypot(first.x - p.x, first.y - p.y)
        for i in line.indices.dropFirst() { best = min(best, distance(p, toSegment: line[i - 1], line[i])) }
        return best
    }

    private static func distance(_ p: Position, toPolygon rings: [[Position]]) -> Double {
        if contains(rings, p) { return 0 }
        return rings.map { ring in
            // A ring that is not closed is closed here, so its last edge counts too.
            guard let first = ring.first, ring.last != first else { return distance(p, toLine: ring) }
            return distance(p, toLine: ring + [first])
        }.min() ?? .infinity
    }

    /// Even-odd over every ring: inside the exterior and outside its holes.
    static func contains(_ rings: [[Position]], _ p: Position) -> Bool {
        var inside = false
        for ring in rings where ring.count >= 3 {
            var j = ring.count - 1
            for i in ring.indices {
                let a = ring[i], b = ring[j]
                if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                j = i
            }
        }
        return inside
    }

    private static func line(_ line: [Position], meets box: BoundingBox) -> Bool {
        guard let first = line.first else { return false }
        if line.count == 1 { return box.contains(x: first.x, y: first.y) }
        for i in line.indices.dropFirst() where segment(line[i - 1], line[i], meets: box) { return true }
        return false
    }

    private static func polygon(_ rings: [[Position]], meets box: BoundingBox) -> Bool {
        for ring in rings {
            guard let first = ring.first, let last = ring.last else { continue }
            if line(ring, meets: box) || segment(last, first, meets: box) { return true }
        }
        // No edge meets the box: it is either wholly inside the polygon or wholly outside.
        return contains(rings, Position(x: box.minX, y: box.minY))
    }

    /// Whether the segment from `a` to `b` has a part inside `box`.
    private static func segment(_ a: Position, _ b: Position, meets box: BoundingBox) -> Bool {
        box.insideRange(from: a, to: b) != nil
    }
}
