import MapbookSupport

/// A spatial reference as web maps write it: `{"wkid": 102100, "latestWkid": 3857}` or `{"wkt": ...}`.
public struct SpatialReference: JSONRecord {
    public var wkid: Int?
    public var latestWkid: Int?
    public var wkt: String?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .int("wkid", { $0.wkid }, { $0.wkid = $1 }),
            .int("latestWkid", { $0.latestWkid }, { $0.latestWkid = $1 }),
            .string("wkt", { $0.wkt }, { $0.wkt = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(wkid: Int, latestWkid: Int? = nil) {
        self.init(original: JSONObject())
        self.wkid = wkid
        self.latestWkid = latestWkid
    }

    /// Web Mercator as Esri writes it (102100, latest 3857).
    public static let webMercator = SpatialReference(wkid: 102100, latestWkid: 3857)
    public static let wgs84 = SpatialReference(wkid: 4326, latestWkid: 4326)

    /// The EPSG code this reference stands for, mapping Esri's Web Mercator ids to 3857.
    public var epsg: Int? {
        let code = latestWkid ?? wkid
        switch code {
        case 102100, 102113, 900913: return 3857
        default: return code
        }
    }

    public var isWebMercator: Bool { epsg == 3857 }
    public var isGeographic: Bool { epsg == 4326 }
}
