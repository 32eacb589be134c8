import MapbookSupport

/// A web map's base map: its title and layers (a vector tile backdrop in packages).
public struct BaseMap: JSONRecord {
    public var title: String?
    public var baseMapLayers: [OperationalLayer]?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [.models("baseMapLayers", \.baseMapLayers), .string("title", \.title)]
    }

    public init(original: JSONObject) { self.original = original }

    public init(title: String, layers: [OperationalLayer]) {
        self.init(original: JSONObject())
        self.title = title
        self.baseMapLayers = layers
    }

    /// A base map layer showing a vector tile package stored in the package.
    public static func vectorTileLayer(id: String, title: String, file: String) -> OperationalLayer {
        var layer = OperationalLayer(original: JSONObject())
        layer.id = .string(id)
        layer.title = title
        layer.layerType = "VectorTileLayer"
        layer.path = "file:./\(file)"
        layer.visibility = true
        layer.opacity = 1
        return layer
    }
}
