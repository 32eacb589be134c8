import MapbookSupport

/// A longitude and latitude given as `LON,LAT`, as `mapbook search --near`, `mapbook route`
/// and the viewer's directions take them.
public struct LonLat: Sendable, Equatable {
    public var longitude: Double
    public var latitude: Double

    /// Nil unless `argument` is two numbers, a longitude within -180...180 then a latitude
    /// within -90...90.
    public init?(argument: String) {
        guard let (lon, lat) = Self.numbers(argument), (-180...180).contains(lon), (-90...90).contains(lat) else { return nil }
        longitude = lon
        latitude = lat
    }

    /// Why two numbers cannot be a longitude and latitude; nil for valid ones and for text
    /// that is not two numbers (an address to search, say).
    public static func problem(_ argument: String) -> String? {
        guard let (lon, lat) = numbers(argument) else { return nil }
        if !(-90...90).contains(lat) {
            let swapped = (-90...90).contains(lon) && (-180...180).contains(lat) ? " (longitude and latitude swapped? give LON,LAT: \(parts(argument)[1]),\(parts(argument)[0]))" : ""
            return "latitude \(parts(argument)[1]) is outside -90...90\(swapped); the order is LON,LAT"
        }
        if !(-180...180).contains(lon) { return "longitude \(parts(argument)[0]) is outside -180...180; the order is LON,LAT" }
        return nil
    }

    private static func parts(_ argument: String) -> [String] {
        argument.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimming(" ") }
    }

    private static func numbers(_ argument: String) -> (Double, Double)? {
        let parts = parts(argument)
        guard parts.count == 2, let lon = Double(parts[0]), let lat = Double(parts[1]), lon.isFinite, lat.isFinite else { return nil }
        return (lon, lat)
    }
}
