import MapbookSupport

/// A web map's base map: its title and layers (a vector tile backdrop in packages).
public struct BaseMap: JSONRecord {
    public var title: String?
    public var baseMapLayers: [OperationalLayer]?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .models("baseMapLayers", { $0.baseMapLayers }, { $0.baseMapLayers = $1 }),
            .string("title", { $0.title }, { $0.title = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(title: String, layers: [OperationalLayer]) {
        self.init(original: JSONObject())
        self.title = title
        self.baseMapLayers = layers
    }

    /// A base map layer showing a vector tile package stored in the package.
    public static func vectorTileLayer(id: String, title: String, file: String, visible: Bool = true) -> OperationalLayer {
        tileLayer("VectorTileLayer", id: id, title: title, file: file, visible: visible)
    }

    /// A base map layer showing a compact tile package (`.tpkx`, raster tiles) stored in the
    /// package, as ArcGIS writes a tile package layer.
    public static func tiledLayer(id: String, title: String, file: String, visible: Bool = true) -> OperationalLayer {
        tileLayer("ArcGISTiledMapServiceLayer", id: id, title: title, file: file, visible: visible)
    }

    private static func tileLayer(_ type: String, id: String, title: String, file: String, visible: Bool) -> OperationalLayer {
        var layer = OperationalLayer(original: JSONObject())
        layer.id = .string(id)
        layer.title = title
        layer.layerType = type
        layer.path = "file:./\(file)"
        layer.visibility = visible
        layer.opacity = 1
        return layer
    }
}
