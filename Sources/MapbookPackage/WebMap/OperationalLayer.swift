import MapbookSupport

/// A layer of a web map (operational, base map or table), with any sublayers.
public struct OperationalLayer: JSONRecord {
    /// The layer's id: a string in operational layers, sometimes a number in sublayers.
    public var id: JSONValue?
    public var title: String?
    public var layerType: String?
    public var visibility: Bool?
    public var opacity: Double?
    public var minScale: Double?
    public var maxScale: Double?
    public var showLegend: Bool?
    /// Whether the layer's `labelingInfo` is drawn (the web map default is no).
    public var showLabels: Bool?
    /// The data's location inside a package, e.g. `file:./data.gpkg?table=mains`.
    public var path: String?
    public var url: String?
    public var itemId: String?
    public var popupInfo: PopupInfo?
    public var layerDefinition: LayerDefinition?
    /// Sublayers: the children of a group layer, or the layers of a service.
    public var layers: [OperationalLayer]?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .value("id", { $0.id }, { $0.id = $1 }),
            .string("title", { $0.title }, { $0.title = $1 }),
            .string("layerType", { $0.layerType }, { $0.layerType = $1 }),
            .string("path", { $0.path }, { $0.path = $1 }),
            .string("url", { $0.url }, { $0.url = $1 }),
            .string("itemId", { $0.itemId }, { $0.itemId = $1 }),
            .bool("visibility", { $0.visibility }, { $0.visibility = $1 }),
            .double("opacity", { $0.opacity }, { $0.opacity = $1 }),
            .double("minScale", { $0.minScale }, { $0.minScale = $1 }),
            .double("maxScale", { $0.maxScale }, { $0.maxScale = $1 }),
            .bool("showLegend", { $0.showLegend }, { $0.showLegend = $1 }),
            .bool("showLabels", { $0.showLabels }, { $0.showLabels = $1 }),
            .model("popupInfo", { $0.popupInfo }, { $0.popupInfo = $1 }),
            .model("layerDefinition", { $0.layerDefinition }, { $0.layerDefinition = $1 }),
            .models("layers", { $0.layers }, { $0.layers = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    /// A feature layer read from a packaged file.
    public init(id: String, title: String, path: LayerDataPath, visibility: Bool = true) {
        self.init(original: JSONObject())
        self.id = .string(id)
        self.title = title
        self.layerType = "ArcGISFeatureLayer"
        self.visibility = visibility
        self.opacity = 1
        self.path = path.description
    }

    public var dataPath: LayerDataPath? { path.flatMap(LayerDataPath.init) }

    /// The layer's name for people: its title, else its `name`, else its id.
    public var displayName: String {
        if let title, !title.isEmpty { return title }
        if let name = original.string("name") { return name }
        switch id {
        case .string(let s)?: return s
        case .integer(let i)?: return String(i)
        default: return "(untitled)"
        }
    }

    public var renderer: Renderer? { layerDefinition?.drawingInfo?.renderer }

    /// This layer and all its sublayers, depth first, with their nesting depth.
    public func flattened(depth: Int = 0) -> [(layer: OperationalLayer, depth: Int)] {
        [(self, depth)] + (layers ?? []).flatMap { $0.flattened(depth: depth + 1) }
    }
}
