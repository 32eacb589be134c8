/// Douglas-Peucker simplification in tile units, and the integer checks that keep simplified
/// polygons valid: ring area (the MVT surveyor's formula) and proper segment crossings.
enum TileSimplifier {
    /// The vertices of `line` to keep at `tolerance`: always the first and last.
    static func simplify(_ line: [SIMD2<Double>], tolerance: Double) -> [SIMD2<Double>] {
        guard tolerance > 0, line.count > 2 else { return line }
        var keep = [Bool](repeating: false, count: line.count)
        keep[0] = true
        keep[line.count - 1] = true
        let squared = tolerance * tolerance
        var stack: [(Int, Int)] = [(0, line.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let a = line[first], b = line[last]
            var farthest = -1
            var maximum = squared
            for i in (first + 1)..<last {
                let d = segmentDistanceSquared(line[i], a, b)
                if d > maximum {
                    maximum = d
                    farthest = i
                }
            }
            if farthest >= 0 {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        var result: [SIMD2<Double>] = []
        result.reserveCapacity(line.count / 2 + 2)
        for i in 0..<line.count where keep[i] { result.append(line[i]) }
        return result
    }

    /// A ring simplified as a closed line from its first vertex back to it.
    static func simplifyRing(_ ring: [SIMD2<Double>], tolerance: Double) -> [SIMD2<Double>] {
        guard tolerance > 0, ring.count > 3 else { return ring }
        // Anchor at the vertex farthest from the first, so both halves keep their extremes.
        var far = 0
        var best = -1.0
        for (i, p) in ring.enumerated() {
            let d = p - ring[0]
            let l = d.x * d.x + d.y * d.y
            if l > best { best = l; far = i }
        }
        let first = simplify(Array(ring[0...far]), tolerance: tolerance)
        let second = simplify(Array(ring[far...]) + [ring[0]], tolerance: tolerance)
        return first + second.dropFirst().dropLast()
    }

    static func segmentDistanceSquared(_ p: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = b - a
        let length = d.x * d.x + d.y * d.y
        var q = a
        if length > 0 {
            let t = ((p - a).x * d.x + (p - a).y * d.y) / length
            if t >= 1 {
                q = b
            } else if t > 0 {
                q = a + d * t
            }
        }
        let e = p - q
        return e.x * e.x + e.y * e.y
    }

    /// Rounds to integer units and drops repeated vertices (and a last equal to the first).
    static func round(_ points: [SIMD2<Double>], closed: Bool) -> [TilePoint] {
        var result: [TilePoint] = []
        result.reserveCapacity(points.count)
        for p in points {
            let q = TilePoint(x: Int32(p.x.rounded()), y: Int32(p.y.rounded()))
            if result.last != q { result.append(q) }
        }
        if closed, result.count > 1, result[0] == result[result.count - 1] { result.removeLast() }
        return result
    }

    /// Twice the signed area by the surveyor's formula in tile coordinates (y down): positive for
    /// an exterior ring as MVT defines it.
    static func doubleArea(_ ring: [TilePoint]) -> Int64 {
        guard ring.count >= 3 else { return 0 }
        var sum: Int64 = 0
        var previous = ring[ring.count - 1]
        for p in ring {
            sum += Int64(previous.x) * Int64(p.y) - Int64(p.x) * Int64(previous.y)
            previous = p
        }
        return sum
    }

    static func doubleArea(_ ring: [SIMD2<Double>]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        var previous = ring[ring.count - 1]
        for p in ring {
            sum += previous.x * p.y - p.x * previous.y
            previous = p
        }
        return sum
    }

    /// Whether any two edges of the rings cross properly (at a point inside both). Touching and
    /// collinear overlaps, which clipping along the tile border makes, are allowed.
    static func hasCrossing(_ rings: [[TilePoint]]) -> Bool {
        struct Edge { var a: TilePoint; var b: TilePoint; var minX: Int32; var maxX: Int32 }
        var edges: [Edge] = []
        edges.reserveCapacity(rings.reduce(0) { $0 + $1.count })
        for ring in rings where ring.count >= 2 {
            var previous = ring[ring.count - 1]
            for p in ring {
                edges.append(Edge(a: previous, b: p, minX: min(previous.x, p.x), maxX: max(previous.x, p.x)))
                previous = p
            }
        }
        edges.sort { $0.minX < $1.minX }
        func orientation(_ a: TilePoint, _ b: TilePoint, _ c: TilePoint) -> Int64 {
            let v = (Int64(b.x) - Int64(a.x)) * (Int64(c.y) - Int64(a.y)) - (Int64(b.y) - Int64(a.y)) * (Int64(c.x) - Int64(a.x))
            return v > 0 ? 1 : (v < 0 ? -1 : 0)
        }
        for i in 0..<edges.count {
            let e = edges[i]
            let eMinY = min(e.a.y, e.b.y), eMaxY = max(e.a.y, e.b.y)
            var j = i + 1
            while j < edges.count, edges[j].minX <= e.maxX {
                let f = edges[j]
                j += 1
                if max(f.a.y, f.b.y) < eMinY || min(f.a.y, f.b.y) > eMaxY { continue }
                let o1 = orientation(e.a, e.b, f.a), o2 = orientation(e.a, e.b, f.b)
                guard o1 * o2 < 0 else { continue }
                let o3 = orientation(f.a, f.b, e.a), o4 = orientation(f.a, f.b, e.b)
                if o3 * o4 < 0 { return true }
            }
        }
        return false
    }
}
