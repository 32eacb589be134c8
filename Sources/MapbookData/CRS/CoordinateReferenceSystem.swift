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

    /// Parses "EPSG:4326", "epsg:3857", "4326" or a WKT string.
    public init?(userText: String) {
        let text = userText.trimming(" \t\r\n")
        let upper = text.uppercased()
        if let code = Int(text), code > 0 {
            self.init(epsg: code)
        } else if upper.hasPrefix("EPSG:"), let code = Int(text.dropFirst(5)), code > 0 {
            self.init(epsg: code)
        } else if upper.hasPrefix("OGC:CRS84") || upper == "CRS84" {
            self.init(epsg: 4326)
        } else if text.contains("[") {
            self.init(wkt: text)
        } else {
            return nil
        }
    }

    /// What PROJ is given: "EPSG:n" or the WKT.
    var projDefinition: String { epsg.map { "EPSG:\($0)" } ?? wkt ?? "" }

    public var isWGS84: Bool { epsg == 4326 }
    public var isWebMercator: Bool { epsg == 3857 || epsg == 900913 || epsg == 102100 || epsg == 102113 || epsg == 3785 }

    public var description: String {
        if let epsg { return "EPSG:\(epsg)" }
        return String((wkt ?? "").prefix(60))
    }
}
