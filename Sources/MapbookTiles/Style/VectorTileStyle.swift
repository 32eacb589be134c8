import MapbookPackage
import MapbookSupport

/// A MapLibre GL style (version 8) for a backdrop's vector tiles, drawn the way the layers'
/// web map renderers draw them (DESIGN.md 3.4: `resources/styles/root.json` of a `.vtpk`).
///
/// Polygons become `fill` layers, lines `line` layers, points `circle` layers, over a
/// `background` layer; `uniqueValue` and `classBreaks` renderers become `match` and `step`
/// expressions (see `VectorTileStyle+Renderers`). Every layer draws from the source `esri`,
/// which points at the package root (`"url": "../../"`) as Esri's styles do.
///
/// A layer with a `label` field gets a `symbol` layer over it in `labelFont` (lines labelled
/// along them, points and polygons at a point), and the style names its glyphs at
/// `../fonts/{fontstack}/{range}.pbf`, which `create` writes (`GlyphRange`). No sprite ships:
/// picture markers (esriPMS) and marker shapes other than circles are drawn as circles.
public struct VectorTileStyle: Sendable {
    /// One layer of the backdrop's tiles and how to draw it.
    public struct Layer: Sendable {
        /// The layer's name inside the tiles.
        public var sourceLayer: String
        public var geometry: VectorLayerInfo.Geometry
        /// The web map renderer; a plain default symbol for the geometry when nil.
        public var renderer: Renderer?
        /// 0 to 1, applied on top of the symbols' own alpha.
        public var opacity: Double
        /// The first zoom the layer shows at.
        public var minZoom: Int?
        /// The last zoom the layer shows at (inclusive; MapLibre's `maxzoom` is exclusive).
        public var maxZoom: Int?
        /// The field whose text labels the features, in `VectorTileStyle.labelFont`.
        public var label: String?

        public init(
            sourceLayer: String, geometry: VectorLayerInfo.Geometry, renderer: Renderer? = nil, opacity: Double = 1, minZoom: Int? = nil, maxZoom: Int? = nil,
            label: String? = nil
        ) {
            self.sourceLayer = sourceLayer
            self.geometry = geometry
            self.renderer = renderer
            self.opacity = opacity
            self.minZoom = minZoom
            self.maxZoom = maxZoom
            self.label = label
        }
    }

    public var name: String
    /// Drawn first to last: the first layer is at the bottom.
    public var layers: [Layer]
    /// The map's colour where no layer draws.
    public var background: RGBAColor
    /// The source's zoom range: the levels that hold tiles.
    public var minZoom: Int?
    public var maxZoom: Int?
    public var attribution: String

    public init(
        name: String, layers: [Layer], background: RGBAColor = RGBAColor(red: 0xF2, green: 0xEF, blue: 0xE9),
        minZoom: Int? = nil, maxZoom: Int? = nil, attribution: String = ""
    ) {
        self.name = name
        self.layers = layers
        self.background = background
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.attribution = attribution
    }

    /// The font stack labels are drawn in: Noto Sans, which Debian's fonts-noto-core installs.
    public static let labelFont = "Noto Sans Regular"
    public static let labelFontFamily = "Noto Sans"

    /// The style document.
    public var json: JSONObject {
        var source: JSONObject = ["type": "vector", "url": "../../"]
        if let minZoom { source["minzoom"] = .int(minZoom) }
        if let maxZoom { source["maxzoom"] = .int(maxZoom) }
        if !attribution.isEmpty { source["attribution"] = .string(attribution) }

        var styleLayers: [JSONValue] = [
            ["id": "background", "type": "background", "paint": ["background-color": Self.color(background)]]
        ]
        var usedIDs: Set<String> = ["background"]
        for layer in layers {
            var id = layer.sourceLayer
            var n = 2
            while usedIDs.contains(id) || usedIDs.contains(id + "/outline") {
                id = "\(layer.sourceLayer) \(n)"
                n += 1
            }
            usedIDs.insert(id)
            for styleLayer in Self.styleLayers(for: layer, id: id, source: "esri") {
                usedIDs.insert(styleLayer.string("id") ?? id)
                styleLayers.append(.object(styleLayer))
            }
        }
        var style: JSONObject = [
            "version": 8,
            "name": .string(name),
            "sources": ["esri": .object(source)],
            "layers": .array(styleLayers),
        ]
        // Relative to resources/styles/, as Esri's styles have it: resources/fonts/.
        if layers.contains(where: { $0.label != nil }) { style["glyphs"] = "../fonts/{fontstack}/{range}.pbf" }
        return style
    }

    /// The style layers that draw `layer` from the vector source `source`, their ids starting
    /// with `id`: what the backdrop's style holds, and what `mapbook serve` draws an
    /// operational layer's tiles made on request with.
    public static func styleLayers(for layer: Layer, id: String, source: String) -> [JSONObject] {
        styleLayers(for: layer, id: id).map { styleLayer in
            var styleLayer = styleLayer
            styleLayer["source"] = .string(source)
            styleLayer["source-layer"] = .string(layer.sourceLayer)
            if let minZoom = layer.minZoom { styleLayer["minzoom"] = .int(minZoom) }
            if let maxZoom = layer.maxZoom { styleLayer["maxzoom"] = .int(maxZoom + 1) }
            return Self.ordered(styleLayer)
        }
    }

    /// Puts a layer's keys in the order style files usually have them.
    static func ordered(_ layer: JSONObject) -> JSONObject {
        let order = ["id", "type", "source", "source-layer", "minzoom", "maxzoom", "filter", "layout", "paint"]
        var out = JSONObject()
        for key in order { if let value = layer[key] { out[key] = value } }
        for (key, value) in layer where !order.contains(key) { out[key] = value }
        return out
    }

    /// A colour as MapLibre reads it: `#rrggbb`, or `rgba(...)` when translucent.
    static func color(_ c: RGBAColor) -> JSONValue {
        if c.alpha >= 255 { return .string(c.description) }
        let alpha = (Double(c.alpha) / 255 * 1000).rounded() / 1000
        return .string("rgba(\(c.red),\(c.green),\(c.blue),\(JSONWriter.formatNumber(alpha)))")
    }

    /// Points (1/72 inch) to pixels at 96 dpi, as web map symbol sizes are given.
    static func pixels(_ points: Double) -> Double {
        (points * 96 / 72 * 100).rounded() / 100
    }
}
