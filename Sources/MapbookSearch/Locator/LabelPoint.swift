#if canImport(Glibc)
import Glibc
#endif
import MapbookData

/// Where a search result is placed: points as they are, a line at half its length, a polygon
/// at a point inside it (the middle of the widest span across it at the height of its
/// envelope's centre, as JTS's InteriorPointArea does), never a centroid outside a U-shape.
public enum LabelPoint {
    public static func of(_ geometry: Geometry) -> Position? {
        switch geometry.shape {
        case .point(let p): return p
        case .multiPoint(let points): return points.first
        case .lineString(let line): return alongLine(line)
        case .multiLineString(let lines):
            return lines.max { length($0) < length($1) }.flatMap(alongLine)
        case .polygon(let rings): return inside(rings)
        case .multiPolygon(let polygons):
            return polygons.max { abs(area($0)) < abs(area($1)) }.flatMap(inside)
        case .geometryCollection(let members):
            for m in members { if let p = of(m) { return p } }
            return nil
        }
    }

    static func length(_ line: [Position]) -> Double {
        var total = 0.0
        for i in line.indices.dropFirst() { total += hypot(line[i].x - line[i - 1].x, line[i].y - line[i - 1].y) }
        return total
    }

    static func area(_ rings: [[Position]]) -> Double {
        guard let outer = rings.first else { return 0 }
        return abs(Geometry.signedArea(outer)) - rings.dropFirst().reduce(0) { $0 + abs(Geometry.signedArea($1)) }
    }

    static func alongLine(_ line: [Position]) -> Position? {
        guard let first = line.first else { return nil }
        let half = length(line) / 2
        var walked = 0.0
        for i in line.indices.dropFirst() {
            let a = line[i - 1], b = line[i]
            let d = hypot(b.x - a.x, b.y - a.y)
            if walked + d >= half, d > 0 {
                let t = (half - walked) / d
                return Position(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
            }
            walked += d
        }
        return first
    }

    static func inside(_ rings: [[Position]]) -> Position? {
        guard let outer = rings.first, !outer.isEmpty else { return nil }
        var minY = Double.infinity, maxY = -Double.infinity
        for p in outer {
            minY = min(minY, p.y)
            maxY = max(maxY, p.y)
        }
        // The scan line avoids vertex heights, where crossings would count twice.
        var y = (minY + maxY) / 2
        let heights = Set(rings.flatMap { $0.map(\.y) })
        if heights.contains(y) {
            let above = heights.filter { $0 > y }.min() ?? maxY
            y = (y + above) / 2
        }
        var crossings: [Double] = []
        for ring in rings where ring.count >= 2 {
            for i in ring.indices {
                let a = ring[i], b = ring[(i + 1) % ring.count]
                if (a.y > y) != (b.y > y) {
                    crossings.append(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x))
                }
            }
        }
        crossings.sort()
        var best: (width: Double, x: Double)?
        var i = 0
        while i + 1 < crossings.count {
            let w = crossings[i + 1] - crossings[i]
            if best == nil || w > best!.width { best = (w, (crossings[i] + crossings[i + 1]) / 2) }
            i += 2
        }
        if let best { return Position(x: best.x, y: y) }
        return outer.first
    }
}
