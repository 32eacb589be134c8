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

extension Geometry {
    /// Whether two geometries meet (the ArcGIS REST API's `esriSpatialRelIntersects`): a vertex
    /// of one in or on the other (a polygon's inside counts, its holes do not), or two segments
    /// crossing or touching. Planar, in the coordinates both are in.
    public func intersects(_ other: Geometry) -> Bool {
        guard let mine = envelope, let theirs = other.envelope, mine.intersects(theirs) else { return false }
        var met = false
        forEachPosition { p in if !met, other.distance(to: p) == 0 { met = true } }
        if met { return true }
        other.forEachPosition { p in if !met, distance(to: p) == 0 { met = true } }
        if met { return true }
        let others = other.segments.filter { Self.box($0).intersects(mine) }
        for s in segments where Self.box(s).intersects(theirs) {
            if others.contains(where: { Self.segmentsMeet(s, $0) }) { return true }
        }
        return false
    }

    /// Every segment of the lines and rings (a ring closed if it is not); none for points.
    var segments: [(Position, Position)] {
        func pairs(_ ps: [Position], closing: Bool) -> [(Position, Position)] {
            var out = zip(ps, ps.dropFirst()).map { ($0, $1) }
            if closing, let first = ps.first, let last = ps.last, ps.count > 2, first != last { out.append((last, first)) }
            return out
        }
        switch shape {
        case .point, .multiPoint: return []
        case .lineString(let line): return pairs(line, closing: false)
        case .multiLineString(let lines): return lines.flatMap { pairs($0, closing: false) }
        case .polygon(let rings): return rings.flatMap { pairs($0, closing: true) }
        case .multiPolygon(let polygons): return polygons.flatMap { $0.flatMap { pairs($0, closing: true) } }
        case .geometryCollection(let members): return members.flatMap(\.segments)
        }
    }

    private static func box(_ s: (Position, Position)) -> BoundingBox {
        BoundingBox(minX: min(s.0.x, s.1.x), minY: min(s.0.y, s.1.y), maxX: max(s.0.x, s.1.x), maxY: max(s.0.y, s.1.y))
    }

    /// Whether two segments share a point: they cross, or one ends on the other.
    static func segmentsMeet(_ s: (Position, Position), _ t: (Position, Position)) -> Bool {
        func turn(_ a: Position, _ b: Position, _ c: Position) -> Double { (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x) }
        func on(_ a: Position, _ b: Position, _ p: Position) -> Bool {
            min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
        }
        let d1 = turn(t.0, t.1, s.0), d2 = turn(t.0, t.1, s.1), d3 = turn(s.0, s.1, t.0), d4 = turn(s.0, s.1, t.1)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        return (d1 == 0 && on(t.0, t.1, s.0)) || (d2 == 0 && on(t.0, t.1, s.1)) || (d3 == 0 && on(s.0, s.1, t.0)) || (d4 == 0 && on(s.0, s.1, t.1))
    }
}
