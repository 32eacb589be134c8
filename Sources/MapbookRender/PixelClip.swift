/// A point on a canvas, in fractional pixels from the top-left corner.
struct PixelPoint: Equatable {
    var x: Double
    var y: Double
}

/// Clipping of pixel paths to a rectangle, so that coordinates far outside a canvas (a zoomed-in
/// view of a large polygon) never reach Cairo, whose 24.8 fixed-point coordinates overflow
/// beyond about 8 million pixels.
struct PixelClip {
    var minX: Double
    var minY: Double
    var maxX: Double
    var maxY: Double

    /// Whether any point lies beyond `limit` pixels from the origin on either axis.
    static func exceeds(_ points: [PixelPoint], limit: Double) -> Bool {
        points.contains { abs($0.x) > limit || abs($0.y) > limit }
    }

    /// The part of the closed ring `ring` inside the rectangle (Sutherland-Hodgman). Parts
    /// outside become runs along the rectangle's edges, which do not change the filled area
    /// inside it.
    func ring(_ ring: [PixelPoint]) -> [PixelPoint] {
        var points = ring
        if points.count > 1, points.first == points.last { points.removeLast() }
        points = clip(points, inside: { $0.x >= minX }, cross: { a, b in intersectX(a, b, minX) })
        points = clip(points, inside: { $0.x <= maxX }, cross: { a, b in intersectX(a, b, maxX) })
        points = clip(points, inside: { $0.y >= minY }, cross: { a, b in intersectY(a, b, minY) })
        points = clip(points, inside: { $0.y <= maxY }, cross: { a, b in intersectY(a, b, maxY) })
        return points
    }

    /// The parts of the open line `line` inside the rectangle (Liang-Barsky per segment).
    func line(_ line: [PixelPoint]) -> [[PixelPoint]] {
        var parts: [[PixelPoint]] = []
        var current: [PixelPoint] = []
        for (a, b) in zip(line, line.dropFirst()) {
            guard let (p, q) = segment(a, b) else {
                if current.count > 1 { parts.append(current) }
                current = []
                continue
            }
            if current.last != p {
                if current.count > 1 { parts.append(current) }
                current = [p]
            }
            current.append(q)
            // A segment clipped at its end leaves the rectangle: the next one starts a new part.
            if q != b {
                if current.count > 1 { parts.append(current) }
                current = []
            }
        }
        if current.count > 1 { parts.append(current) }
        return parts
    }

    private func segment(_ a: PixelPoint, _ b: PixelPoint) -> (PixelPoint, PixelPoint)? {
        let dx = b.x - a.x
        let dy = b.y - a.y
        var t0 = 0.0
        var t1 = 1.0
        for (p, q) in [(-dx, a.x - minX), (dx, maxX - a.x), (-dy, a.y - minY), (dy, maxY - a.y)] {
            if p == 0 {
                if q < 0 { return nil }
                continue
            }
            let r = q / p
            if p < 0 {
                if r > t1 { return nil }
                t0 = max(t0, r)
            } else {
                if r < t0 { return nil }
                t1 = min(t1, r)
            }
        }
        let start = t0 == 0 ? a : PixelPoint(x: a.x + t0 * dx, y: a.y + t0 * dy)
        let end = t1 == 1 ? b : PixelPoint(x: a.x + t1 * dx, y: a.y + t1 * dy)
        return (start, end)
    }

    private func clip(
        _ points: [PixelPoint], inside: (PixelPoint) -> Bool, cross: (PixelPoint, PixelPoint) -> PixelPoint
    ) -> [PixelPoint] {
        guard let last = points.last else { return [] }
        var out: [PixelPoint] = []
        var previous = last
        for point in points {
            switch (inside(previous), inside(point)) {
            case (true, true): out.append(point)
            case (true, false): out.append(cross(previous, point))
            case (false, true):
                out.append(cross(previous, point))
                out.append(point)
            case (false, false): break
            }
            previous = point
        }
        return out
    }

    private func intersectX(_ a: PixelPoint, _ b: PixelPoint, _ x: Double) -> PixelPoint {
        PixelPoint(x: x, y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x))
    }

    private func intersectY(_ a: PixelPoint, _ b: PixelPoint, _ y: Double) -> PixelPoint {
        PixelPoint(x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y), y: y)
    }
}
