import MapbookSupport

/// The subset of the ArcGIS web map specification that packages use (DESIGN.md 3.2).
///
/// Every key the model does not know is kept; see `JSONModel`.
public struct WebMap: JSONModel {
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

    public init(json: JSONObject) {
        original = json
        version = json.string("version")
        operationalLayers = json.models("operationalLayers")
        baseMap = json.model("baseMap")
        spatialReference = json.model("spatialReference")
        initialState = json.model("initialState")
        bookmarks = json.models("bookmarks")
        tables = json.models("tables")
    }

    public init(spatialReference: SpatialReference) {
        self.init(json: JSONObject())
        self.operationalLayers = []
        self.spatialReference = spatialReference
        self.version = Self.specificationVersion
    }

    public var json: JSONObject {
        var o = original
        o.setModels("operationalLayers", operationalLayers)
        o.set("baseMap", baseMap)
        o.set("spatialReference", spatialReference)
        o.set("version", version)
        o.set("initialState", initialState)
        o.setModels("bookmarks", bookmarks)
        o.setModels("tables", tables)
        return o
    }
}

/// A web map's initial state: the viewpoint it opens at.
public struct InitialState: JSONModel {
    public var viewpoint: Viewpoint?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        viewpoint = json.model("viewpoint")
    }

    public init(viewpoint: Viewpoint) {
        self.init(json: JSONObject())
        self.viewpoint = viewpoint
    }

    public var json: JSONObject {
        var o = original
        o.set("viewpoint", viewpoint)
        return o
    }
}
