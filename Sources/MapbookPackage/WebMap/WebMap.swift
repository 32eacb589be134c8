import MapbookSupport

/// The subset of the ArcGIS web map specification that packages use (DESIGN.md 3.2).
///
/// Every key the model does not know is kept; see `JSONModel`.
public struct WebMap: JSONRecord {
    public var version: String?
    public var operationalLayers: [OperationalLayer]?
    public var baseMap: BaseMap?
    public var spatialReference: SpatialReference?
    public var initialState: InitialState?
    public var bookmarks: [Bookmark]?
    public var tables: [OperationalLayer]?
    public var original: JSONObject

    /// The web map specification version written into new maps.
    public static let specificationVersion = "2.31"

    public static var properties: [JSONProperty<Self>] {
        [
            .models("operationalLayers", { $0.operationalLayers }, { $0.operationalLayers = $1 }),
            .model("baseMap", { $0.baseMap }, { $0.baseMap = $1 }),
            .model("spatialReference", { $0.spatialReference }, { $0.spatialReference = $1 }),
            .string("version", { $0.version }, { $0.version = $1 }),
            .model("initialState", { $0.initialState }, { $0.initialState = $1 }),
            .models("bookmarks", { $0.bookmarks }, { $0.bookmarks = $1 }),
            .models("tables", { $0.tables }, { $0.tables = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(spatialReference: SpatialReference) {
        self.init(original: JSONObject())
        self.operationalLayers = []
        self.spatialReference = spatialReference
        self.version = Self.specificationVersion
    }
}

/// A web map's initial state: the viewpoint it opens at.
public struct InitialState: JSONRecord {
    public var viewpoint: Viewpoint?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] { [.model("viewpoint", { $0.viewpoint }, { $0.viewpoint = $1 })] }

    public init(original: JSONObject) { self.original = original }

    public init(viewpoint: Viewpoint) {
        self.init(original: JSONObject())
        self.viewpoint = viewpoint
    }
}
