import MapbookSupport

/// A layer of a web map (operational, base map or table), with any sublayers.
public struct OperationalLayer: JSONModel {
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

    public init(json: JSONObject) {
        original = json
        id = json["id"]
        title = json.string("title")
        layerType = json.string("layerType")
        visibility = json.bool("visibility")
        opacity = json.double("opacity")
        minScale = json.double("minScale")
        maxScale = json.double("maxScale")
        showLegend = json.bool("showLegend")
        showLabels = json.bool("showLabels")
        path = json.string("path")
        url = json.string("url")
        itemId = json.string("itemId")
        popupInfo = json.model("popupInfo")
        layerDefinition = json.model("layerDefinition")
        layers = json.models("layers")
    }

    /// A feature layer read from a packaged file.
    public init(id: String, title: String, path: LayerDataPath, visibility: Bool = true) {
        self.init(json: JSONObject())
        self.id = .string(id)
        self.title = title
        self.layerType = "ArcGISFeatureLayer"
        self.visibility = visibility
        self.opacity = 1
        self.path = path.description
    }

    public var json: JSONObject {
        var o = original
        o.set("id", id)
        o.set("title", title)
        o.set("layerType", layerType)
        o.set("path", path)
        o.set("url", url)
        o.set("itemId", itemId)
        o.set("visibility", visibility)
        o.set("opacity", opacity)
        o.set("minScale", minScale)
        o.set("maxScale", maxScale)
        o.set("showLegend", showLegend)
        o.set("showLabels", showLabels)
        o.set("popupInfo", popupInfo)
        o.set("layerDefinition", layerDefinition)
        o.setModels("layers", layers)
        return o
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
