import MapbookSupport

/// Cuts geometries at an axis-aligned rectangle: points outside are dropped, lines are cut into
/// the pieces inside, polygon rings are clipped with Sutherland-Hodgman (concave rings may gain
/// edges along the rectangle's border, which draw and measure correctly).
public struct RectangleClipper: Sendable {
    public var box: BoundingBox

    public init(_ box: BoundingBox) { self.box = box }

    /// The part of `g` inside the rectangle, or nil when nothing is inside.
    public func clip(_ g: Geometry) -> Geometry? {
        guard let e = g.envelope, e.intersects(box) else { return nil }
        if box.contains(e) { return g }
        let shape: Geometry.Shape?
        switch g.shape {
        case .point(let p):
            shape = box.contains(x: p.x, y: p.y) ? g.shape : nil
        case .multiPoint(let a):
            let kept = a.filter { box.contains(x: $0.x, y: $0.y) }
            shape = kept.isEmpty ? nil : .multiPoint(kept)
        case .lineString(let a):
            let pieces = clipLine(a)
            shape = pieces.isEmpty ? nil : (pieces.count == 1 ? .lineString(pieces[0]) : .multiLineString(pieces))
        case .multiLineString(let lines):
            let pieces = lines.flatMap(clipLine)
            shape = pieces.isEmpty ? nil : .multiLineString(pieces)
        case .polygon(let rings):
            shape = clipPolygon(rings).map { .polygon($0) }
        case .multiPolygon(let polygons):
            let kept = polygons.compactMap(clipPolygon)
            shape = kept.isEmpty ? nil : .multiPolygon(kept)
        case .geometryCollection(let members):
            let kept = members.compactMap(clip)
            shape = kept.isEmpty ? nil : .geometryCollection(kept)
        }
        return shape.map { Geometry($0, hasZ: g.hasZ, hasM: g.hasM) }
    }

    /// Pieces of a line inside the box.
    func clipLine(_ line: [Position]) -> [[Position]] { box.clipLine(line) }

    /// The polygon's rings clipped; nil when the exterior vanishes. Holes that vanish are dropped.
    func clipPolygon(_ rings: [[Position]]) -> [[Position]]? {
        guard let exterior = rings.first, let outer = clipRing(exterior) else { return nil }
        return [outer] + rings.dropFirst().compactMap(clipRing)
    }

    /// A closed ring clipped, closed again; nil when fewer than three points or no area is left.
    func clipRing(_ ring: [Position]) -> [Position]? {
        var points = ring
        if points.count > 1 && points.first! == points.last! { points.removeLast() }
        points = box.clipRing(points)
        guard points.count >= 3 else { return nil }
        points.append(points[0])
        // A ring reduced to a line along the border has no area.
        return Geometry.signedArea(points) == 0 ? nil : points
    }
}

extension Position: PlanarPoint {
    /// Interpolates z and m along with x and y.
    @usableFromInline
    package func interpolated(to other: Position, at t: Double) -> Position {
        Position(x: x + (other.x - x) * t, y: y + (other.y - y) * t, z: z + (other.z - z) * t, m: m + (other.m - m) * t)
    }
}

/// Puts WGS 84 geometries that cross the antimeridian, or use longitudes beyond ±180, back in
/// range: lines and rings are made continuous (a jump of more than 180° between two positions
/// is a crossing), then cut at ±180° and the pieces shifted by 360°, as GDAL's
/// `-wrapdateline` does. A polygon around the antimeridian becomes a multipolygon of two parts.
public enum Antimeridian {
    /// The geometry in [-180, 180], and whether it changed.
    public static func normalize(_ g: Geometry) -> (Geometry, Bool) {
        guard let e = g.envelope else { return (g, false) }
        var needs = e.minX < -180 || e.maxX > 180
        if !needs && e.width > 180 { needs = hasJump(g) }
        guard needs else { return (g, false) }
        let unwrapped = unwrap(g)
        guard let ue = unwrapped.envelope else { return (g, false) }
        var parts: [Geometry] = []
        var k = Int(((ue.minX + 180) / 360).rounded(.down))
        while Double(k) * 360 - 180 < ue.maxX {
            let window = BoundingBox(minX: Double(k) * 360 - 180, minY: -.infinity, maxX: Double(k) * 360 + 180, maxY: .infinity)
            if let piece = RectangleClipper(window).clip(unwrapped) {
                let shift = Double(k) * 360
                parts.append(piece.mapPositions { Position(x: $0.x - shift, y: $0.y, z: $0.z, m: $0.m) })
            }
            k += 1
            if parts.count > 8 { break }
        }
        guard !parts.isEmpty else { return (g, false) }
        return (Geometry.joining(parts.flatMap(\.flattenedMembers), as: g.type.family ?? .point, hasZ: g.hasZ, hasM: g.hasM), true)
    }

    static func hasJump(_ g: Geometry) -> Bool {
        // A step from +180 to -180 (or back) runs along the antimeridian itself: Natural Earth's
        // Antarctica closes its ring that way along the South Pole. It is an edge, not a wrap.
        func onEdge(_ p: Position) -> Bool { abs(abs(p.x) - 180) < 1e-9 }
        func jumps(_ a: [Position]) -> Bool {
            for i in 1..<max(a.count, 1) where abs(a[i].x - a[i - 1].x) > 180 && !(onEdge(a[i]) && onEdge(a[i - 1])) { return true }
            return false
        }
        switch g.shape {
        case .point, .multiPoint: return false
        case .lineString(let a): return jumps(a)
        case .polygon(let r), .multiLineString(let r): return r.contains(where: jumps)
        case .multiPolygon(let p): return p.contains { $0.contains(where: jumps) }
        case .geometryCollection(let m): return m.contains(where: hasJump)
        }
    }

    /// Makes each line and ring continuous in longitude; holes follow their exterior.
    static func unwrap(_ g: Geometry) -> Geometry {
        func line(_ a: [Position]) -> [Position] {
            guard var previous = a.first else { return a }
            var out = [previous]
            out.reserveCapacity(a.count)
            for p in a.dropFirst() {
                var q = p
                while q.x - previous.x > 180 { q.x -= 360 }
                while previous.x - q.x > 180 { q.x += 360 }
                out.append(q)
                previous = q
            }
            return out
        }
        func polygon(_ rings: [[Position]]) -> [[Position]] {
            guard let first = rings.first else { return rings }
            let outer = line(first)
            let center = outer.reduce(0) { $0 + $1.x } / Double(max(outer.count, 1))
            return [outer] + rings.dropFirst().map { ring in
                var r = line(ring)
                let c = r.reduce(0) { $0 + $1.x } / Double(max(r.count, 1))
                let shift = ((center - c) / 360).rounded() * 360
                if shift != 0 { r = r.map { Position(x: $0.x + shift, y: $0.y, z: $0.z, m: $0.m) } }
                return r
            }
        }
        let shape: Geometry.Shape
        switch g.shape {
        case .point, .multiPoint: return g
        case .lineString(let a): shape = .lineString(line(a))
        case .multiLineString(let r): shape = .multiLineString(r.map(line))
        case .polygon(let r): shape = .polygon(polygon(r))
        case .multiPolygon(let p): shape = .multiPolygon(p.map(polygon))
        case .geometryCollection(let m): shape = .geometryCollection(m.map(unwrap))
        }
        return Geometry(shape, hasZ: g.hasZ, hasM: g.hasM)
    }
}
