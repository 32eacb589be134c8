#if canImport(Glibc)
import Glibc
#endif

/// Spherical Web Mercator (EPSG:3857), the one projection written by hand (DESIGN.md section 2).
///
/// Latitudes are clamped to ±85.05112878°, where the projected world is square.
public enum WebMercator {
    public static let radius = 6_378_137.0
    public static let maxLatitude = 85.051_128_779_806_59
    /// Half the width of the projected world in metres.
    public static let halfWorld = 20_037_508.342_789_244

    public static func project(longitude: Double, latitude: Double) -> (x: Double, y: Double) {
        let lat = min(max(latitude, -maxLatitude), maxLatitude)
        let x = radius * longitude * .pi / 180
        let y = radius * log(tan(.pi / 4 + lat * .pi / 360))
        return (x, y)
    }

    public static func unproject(x: Double, y: Double) -> (longitude: Double, latitude: Double) {
        let longitude = x / radius * 180 / .pi
        let latitude = (2 * atan(exp(y / radius)) - .pi / 2) * 180 / .pi
        return (longitude, latitude)
    }

    public static func project(_ box: BoundingBox) -> BoundingBox {
        let a = project(longitude: box.minX, latitude: box.minY)
        let b = project(longitude: box.maxX, latitude: box.maxY)
        return BoundingBox(minX: a.x, minY: a.y, maxX: b.x, maxY: b.y)
    }

    public static func unproject(_ box: BoundingBox) -> BoundingBox {
        let a = unproject(x: box.minX, y: box.minY)
        let b = unproject(x: box.maxX, y: box.maxY)
        return BoundingBox(minX: a.longitude, minY: a.latitude, maxX: b.longitude, maxY: b.latitude)
    }
}
