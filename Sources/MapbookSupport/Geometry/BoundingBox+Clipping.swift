/// A point in a plane that a `BoundingBox` can cut lines and rings at: a geometry's position,
/// a tiler vertex, a pixel.
@usableFromInline
package protocol PlanarPoint: Equatable {
    var x: Double { get set }
    var y: Double { get set }

    /// The point the fraction `t` of the way from `self` (0) to `other` (1); a point with more
    /// than x and y (z, m) interpolates those too.
    func interpolated(to other: Self, at t: Double) -> Self
}

extension SIMD2: PlanarPoint where Scalar == Double {
    @inlinable
    package func interpolated(to other: SIMD2<Double>, at t: Double) -> SIMD2<Double> {
        self + (other - self) * t
    }
}

/// Cutting lines and rings at the rectangle, written once for every point type: geometries
/// (with z and m), the tiler's vertices in tile units (its hot path: everything here is
/// inlinable, so it is specialized for `SIMD2<Double>` in the tiler) and pixels on a canvas.
extension BoundingBox {
    /// Liang-Barsky: the parameters (0 at `a`, 1 at `b`) between which the segment from `a` to
    /// `b` is inside the rectangle, or nil when no part of it is.
    @inlinable
    package func insideRange<P: PlanarPoint>(from a: P, to b: P) -> (Double, Double)? {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        guard Self.narrow(-dx, a.x - minX, &t0, &t1), Self.narrow(dx, maxX - a.x, &t0, &t1),
            Self.narrow(-dy, a.y - minY, &t0, &t1), Self.narrow(dy, maxY - a.y, &t0, &t1)
        else { return nil }
        return (t0, t1)
    }

    /// One of Liang-Barsky's four edge tests: narrows [t0, t1], false when nothing is left.
    @inlinable @inline(__always)
    static func narrow(_ p: Double, _ q: Double, _ t0: inout Double, _ t1: inout Double) -> Bool {
        if p == 0 { return !(q < 0) }
        let r = q / p
        if p < 0 {
            if r > t1 { return false }
            if r > t0 { t0 = r }
        } else {
            if r < t0 { return false }
            if r < t1 { t1 = r }
        }
        return true
    }

    /// Appends to `pieces` the parts of the open line `line` inside the rectangle (Liang-Barsky
    /// per segment, joined while contiguous; a segment cut at its end closes its part).
    @inlinable
    package func clipLine<P: PlanarPoint>(_ line: [P], into pieces: inout [[P]]) {
        var current: [P] = []
        for i in 0..<max(line.count - 1, 0) {
            let a = line[i], b = line[i + 1]
            guard let (t0, t1) = insideRange(from: a, to: b) else {
                if current.count >= 2 { pieces.append(current) }
                current = []
                continue
            }
            let p = t0 == 0 ? a : a.interpolated(to: b, at: t0)
            let q = t1 == 1 ? b : a.interpolated(to: b, at: t1)
            if current.isEmpty || current[current.count - 1] != p {
                if current.count >= 2 { pieces.append(current) }
                current = [p]
            }
            current.append(q)
            if t1 < 1 {
                pieces.append(current)
                current = []
            }
        }
        if current.count >= 2 { pieces.append(current) }
    }

    /// The parts of the open line `line` inside the rectangle.
    @inlinable
    package func clipLine<P: PlanarPoint>(_ line: [P]) -> [[P]] {
        var pieces: [[P]] = []
        clipLine(line, into: &pieces)
        return pieces
    }

    /// The open ring `ring` (no repeated first point) clipped to the rectangle by
    /// Sutherland-Hodgman, open too: concave rings may gain edges along the border, which
    /// draw and fill correctly. Empty when nothing is inside; fewer than three points when
    /// the ring has no area inside.
    @inlinable
    package func clipRing<P: PlanarPoint>(_ ring: [P]) -> [P] {
        var output = ring
        var input: [P] = []
        // Left, right, bottom, top.
        for edge in 0..<4 {
            if output.isEmpty { break }
            swap(&input, &output)
            output.removeAll(keepingCapacity: true)
            output.reserveCapacity(input.count + 4)
            var previous = input[input.count - 1]
            var previousInside = isInside(previous, edge: edge)
            for current in input {
                let currentInside = isInside(current, edge: edge)
                if currentInside {
                    if !previousInside { output.append(crossing(previous, current, edge: edge)) }
                    output.append(current)
                } else if previousInside {
                    output.append(crossing(previous, current, edge: edge))
                }
                previous = current
                previousInside = currentInside
            }
        }
        return output
    }

    @inlinable @inline(__always)
    func isInside<P: PlanarPoint>(_ p: P, edge: Int) -> Bool {
        switch edge {
        case 0: return p.x >= minX
        case 1: return p.x <= maxX
        case 2: return p.y >= minY
        default: return p.y <= maxY
        }
    }

    /// Where the segment from `a` to `b` crosses `edge`, placed exactly on it despite rounding.
    @inlinable @inline(__always)
    func crossing<P: PlanarPoint>(_ a: P, _ b: P, edge: Int) -> P {
        switch edge {
        case 0, 1:
            let x = edge == 0 ? minX : maxX
            var p = a.interpolated(to: b, at: (x - a.x) / (b.x - a.x))
            p.x = x
            return p
        default:
            let y = edge == 2 ? minY : maxY
            var p = a.interpolated(to: b, at: (y - a.y) / (b.y - a.y))
            p.y = y
            return p
        }
    }
}
