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
        let flat = geometry.mapPositions { p in
            var dLon = p.x - lon0
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return Position(x: dLon * k * metresPerDegree, y: (p.y - lat0) * metresPerDegree)
        }
        return flat.distance(to: Position(x: 0, y: 0))
    }
}
