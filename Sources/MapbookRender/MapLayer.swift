import MapbookData
import MapbookPackage
import MapbookSupport

/// A layer to draw: its features, how they are symbolised, and how the layer shows.
///
/// `features` is read once, when the layer is drawn, so it may stream from a store. Not
/// `Sendable`, as its feature sequence need not be.
public struct MapLayer {
    public var title: String
    public var features: any Sequence<MapFeature>
    public var style: LayerStyle
    /// 0 (invisible) to 1 (opaque), applied to the layer as a whole.
    public var opacity: Double
    public var isVisible: Bool

    public init(
        title: String = "", features: some Sequence<MapFeature>, renderer: Renderer, opacity: Double = 1,
        isVisible: Bool = true
    ) {
        self.title = title
        self.features = features
        self.style = LayerStyle(renderer: renderer)
        self.opacity = opacity
        self.isVisible = isVisible
    }

    /// A layer drawn as a web map operational layer says: its renderer, its `opacity` combined
    /// with the drawing info's `transparency` (percent), and its `visibility`.
    ///
    /// A layer without a renderer draws nothing.
    public init(_ layer: OperationalLayer, features: some Sequence<MapFeature>) {
        var opacity = layer.opacity ?? 1
        if let transparency = layer.layerDefinition?.drawingInfo?.transparency, transparency.isFinite {
            opacity *= 1 - max(0, min(100, transparency)) / 100
        }
        self.init(
            title: layer.displayName, features: features, renderer: layer.renderer ?? .other(JSONObject()),
            opacity: opacity, isVisible: layer.visibility ?? true)
    }
}
