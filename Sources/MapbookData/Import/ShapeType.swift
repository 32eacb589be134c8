/// The shape types of the ESRI Shapefile Technical Description (July 1998), table 1.
enum ShapeType: Int32, Sendable {
    case null = 0
    case point = 1, polyLine = 3, polygon = 5, multiPoint = 8
    case pointZ = 11, polyLineZ = 13, polygonZ = 15, multiPointZ = 18
    case pointM = 21, polyLineM = 23, polygonM = 25, multiPointM = 28
    case multiPatch = 31

    /// Points, lines or polygons; nil for null shapes. Multipatches are surfaces.
    var family: GeometryFamily? {
        switch self {
        case .null: return nil
        case .point, .pointZ, .pointM, .multiPoint, .multiPointZ, .multiPointM: return .point
        case .polyLine, .polyLineZ, .polyLineM: return .line
        case .polygon, .polygonZ, .polygonM, .multiPatch: return .polygon
        }
    }

    /// Z types carry z and m (m optional in the record), M types m only.
    var hasZ: Bool { self == .pointZ || self == .polyLineZ || self == .polygonZ || self == .multiPointZ || self == .multiPatch }
    var hasM: Bool { hasZ || self == .pointM || self == .polyLineM || self == .polygonM || self == .multiPointM }

    var isMultiPoint: Bool { self == .multiPoint || self == .multiPointZ || self == .multiPointM }

    /// The name the specification uses, for messages.
    var name: String {
        switch self {
        case .null: return "Null"
        case .point: return "Point"
        case .polyLine: return "PolyLine"
        case .polygon: return "Polygon"
        case .multiPoint: return "MultiPoint"
        case .pointZ: return "PointZ"
        case .polyLineZ: return "PolyLineZ"
        case .polygonZ: return "PolygonZ"
        case .multiPointZ: return "MultiPointZ"
        case .pointM: return "PointM"
        case .polyLineM: return "PolyLineM"
        case .polygonM: return "PolygonM"
        case .multiPointM: return "MultiPointM"
        case .multiPatch: return "MultiPatch"
        }
    }
}
