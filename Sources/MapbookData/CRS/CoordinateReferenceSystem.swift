import MapbookSupport

/// A coordinate reference system, by EPSG code or by WKT (from a `.prj` or a GeoPackage).
public struct CoordinateReferenceSystem: Sendable, Equatable, CustomStringConvertible {
    /// The EPSG code, when known.
    public var epsg: Int?
    /// The WKT definition, when the CRS came as text.
    public var wkt: String?

    public init(epsg: Int) {
        self.epsg = epsg
        self.wkt = nil
    }

    public init(wkt: String, epsg: Int? = nil) {
        self.wkt = wkt
        self.epsg = epsg
    }

    public static let wgs84 = CoordinateReferenceSystem(epsg: 4326)
    public static let webMercator = CoordinateReferenceSystem(epsg: 3857)

    /// Parses "EPSG:4326", "epsg:3857", "4326", a common name ("WGS84", "CRS84", "Web
    /// Mercator"), an OGC URN or a WKT string.
    public init?(userText: String) {
        let text = userText.trimming(" \t\r\n")
        let upper = text.uppercased()
        if let code = Int(text), code > 0 {
            self.init(epsg: code)
        } else if upper.hasPrefix("EPSG:"), let code = Int(text.dropFirst(5)), code > 0 {
            self.init(epsg: code)
        } else if let code = Self.commonNames[upper.filter { !" _-".contains($0) }] {
            self.init(epsg: code)
        } else if upper.hasPrefix("URN:OGC:DEF:CRS:EPSG:"), let code = Int(text.split(separator: ":").last ?? ""), code > 0 {
            self.init(epsg: code)
        } else if upper.hasPrefix("OGC:CRS84") || upper.hasPrefix("URN:OGC:DEF:CRS:OGC:1.3:CRS84") {
            self.init(epsg: 4326)
        } else if text.contains("[") {
            self.init(wkt: text)
        } else {
            return nil
        }
    }

    /// Names people write for the two systems maps use most, upper-cased without spaces,
    /// underscores or hyphens: "WGS 84", "wgs84", "GCS_WGS_1984", "CRS84", "Web Mercator".
    static let commonNames: [String: Int] = [
        "WGS84": 4326, "WGS1984": 4326, "GCSWGS1984": 4326, "CRS84": 4326, "EPSG4326": 4326,
        "WEBMERCATOR": 3857, "PSEUDOMERCATOR": 3857, "WGS84PSEUDOMERCATOR": 3857, "EPSG3857": 3857,
    ]

    /// What PROJ is given: "EPSG:n" or the WKT.
    var projDefinition: String { epsg.map { "EPSG:\($0)" } ?? wkt ?? "" }

    public var isWGS84: Bool { epsg == 4326 }
    public var isWebMercator: Bool { epsg == 3857 || epsg == 900913 || epsg == 102100 || epsg == 102113 || epsg == 3785 }

    public var description: String {
        if let epsg { return "EPSG:\(epsg)" }
        return String((wkt ?? "").prefix(60))
    }
}
