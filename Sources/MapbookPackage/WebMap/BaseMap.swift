import MapbookSupport

/// A web map's base map: its title and layers (a vector tile backdrop in packages).
public struct BaseMap: JSONModel {
    public var title: String?
    public var baseMapLayers: [OperationalLayer]?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        title = json.string("title")
        baseMapLayers = json.models("baseMapLayers")
    }

    public init(title: String, layers: [OperationalLayer]) {
        self.init(json: JSONObject())
        self.title = title
        self.baseMapLayers = layers
    }

    public var json: JSONObject {
        var o = original
        o.setModels("baseMapLayers", baseMapLayers)
        o.set("title", title)
        return o
    }

    /// A base map layer showing a vector tile package stored in the package.
    public static func vectorTileLayer(id: String, title: String, file: String) -> OperationalLayer {
        var layer = OperationalLayer(json: JSONObject())
        layer.id = .string(id)
        layer.title = title
        layer.layerType = "VectorTileLayer"
        layer.path = "file:./\(file)"
        layer.visibility = true
        layer.opacity = 1
        return layer
    }
}
