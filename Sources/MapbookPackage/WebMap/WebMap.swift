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
            .models("operationalLayers", \.operationalLayers), .model("baseMap", \.baseMap),
            .model("spatialReference", \.spatialReference), .string("version", \.version),
            .model("initialState", \.initialState), .models("bookmarks", \.bookmarks), .models("tables", \.tables),
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

    public static var properties: [JSONProperty<Self>] { [.model("viewpoint", \.viewpoint)] }

    public init(original: JSONObject) { self.original = original }

    public init(viewpoint: Viewpoint) {
        self.init(original: JSONObject())
        self.viewpoint = viewpoint
    }
}
