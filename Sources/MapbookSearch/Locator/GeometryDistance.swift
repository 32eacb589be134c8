#if canImport(Glibc)
import Glibc
#endif
import MapbookData

/// Distances on the ground from a point to a WGS84 geometry, for reverse geocoding: the
/// geometry is laid flat around the point (equirectangular), which is exact enough for the
/// few hundred metres a reverse geocode looks.
enum GeometryDistance {
    static let metresPerDegree = 111_194.93

    static func metres(from point: (Double, Double), to geometry: Geometry) -> Double {
        let (lon0, lat0) = point
        let k = cos(lat0 * .pi / 180)
        func flat(_ p: Position) -> (Double, Double) {
            var dLon = p.x - lon0
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (dLon * k * metresPerDegree, (p.y - lat0) * metresPerDegree)
        }
        func toSegment(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            let dx = b.0 - a.0, dy = b.1 - a.1
            let length2 = dx * dx + dy * dy
            var t = length2 > 0 ? -(a.0 * dx + a.1 * dy) / length2 : 0
            t = min(1, max(0, t))
            return hypot(a.0 + t * dx, a.1 + t * dy)
        }
        func toLine(_ line: [Position]) -> Double {
            guard let first = line.first else { return .infinity }
            var best = hypot(flat(first).0, flat(first).1)
            for i in line.indices.dropFirst() { best = min(best, toSegment(flat(line[i - 1]), flat(line[i]))) }
            return best
        }
        func toPolygon(_ rings: [[Position]]) -> Double {
            // Inside (even-odd over all rings): zero.
            var inside = false
            for ring in rings {
                let pts = ring.map(flat)
                var j = pts.count - 1
                for i in pts.indices {
                    if (pts[i].1 > 0) != (pts[j].1 > 0), 0 < (pts[j].0 - pts[i].0) * (0 - pts[i].1) / (pts[j].1 - pts[i].1) + pts[i].0 { inside.toggle() }
                    j = i
                }
            }
            if inside { return 0 }
            return rings.map { toLine($0 + ($0.first.map { [$0] } ?? [])) }.min() ?? .infinity
        }
        switch geometry.shape {
        case .point(let p): return hypot(flat(p).0, flat(p).1)
        case .multiPoint(let ps): return ps.map { hypot(flat($0).0, flat($0).1) }.min() ?? .infinity
        case .lineString(let l): return toLine(l)
        case .multiLineString(let ls): return ls.map(toLine).min() ?? .infinity
        case .polygon(let rings): return toPolygon(rings)
        case .multiPolygon(let ps): return ps.map(toPolygon).min() ?? .infinity
        case .geometryCollection(let gs): return gs.map { metres(from: point, to: $0) }.min() ?? .infinity
        }
    }
}
