import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport

/// One layer of a map as the viewer lists and draws it: what the table of contents shows,
/// what the legend lists, and where its data is.
public struct ViewerLayer: Sendable {
    /// The layer's id in the web map (a sublayer's id as text).
    public let id: String
    public let title: String
    /// The web map's `layerType` ("ArcGISFeatureLayer", "VectorTileLayer", "GroupLayer", ...).
    public let type: String
    /// The web map's layer, as written.
    public let definition: OperationalLayer
    /// Nesting inside group layers: 0 for a top-level layer.
    public let depth: Int
    /// Whether the layer is in the base map.
    public let isBaseMap: Bool
    /// Whether the web map shows the layer.
    public let mapVisibility: Bool
    /// Whether it is shown: the user's choice on this device, else the map's.
    public internal(set) var isVisible: Bool
    /// Whether the visibility is the user's choice rather than the map's.
    public internal(set) var isChangedByUser: Bool
    public let opacity: Double
    /// The scale range the layer draws in: not when zoomed out past `minScale` (a larger
    /// scale denominator), nor in past `maxScale`; nil or 0 is no limit.
    public let minScale: Double?
    public let maxScale: Double?
    /// The renderer's classes: legend entries and the symbol of each feature.
    public let classes: RendererClasses?

    init(_ layer: OperationalLayer, depth: Int, isBaseMap: Bool, fallbackID: String) {
        definition = layer
        self.depth = depth
        self.isBaseMap = isBaseMap
        switch layer.id {
        case .string(let s)?: id = s
        case .integer(let i)?: id = String(i)
        case .number(let d)?: id = JSONWriter.formatNumber(d)
        default: id = fallbackID
        }
        title = layer.displayName
        type = layer.layerType ?? (layer.layers?.isEmpty == false ? "GroupLayer" : "unknown")
        mapVisibility = layer.visibility ?? true
        isVisible = mapVisibility
        isChangedByUser = false
        opacity = min(max(layer.opacity ?? 1, 0), 1)
        // The layer's own range, else its definition's (services write it there).
        minScale = layer.minScale ?? layer.layerDefinition?.minScale
        maxScale = layer.maxScale ?? layer.layerDefinition?.maxScale
        classes = layer.renderer.map(RendererClasses.init)
    }

    /// Whether the layer draws at `scale` (its scale range only, not its visibility).
    public func isInScale(_ scale: Double) -> Bool {
        MapScale.contains(scale, minScale: minScale, maxScale: maxScale)
    }

    /// Whether the layer holds features the viewer can draw and identify.
    /// The largest point symbol of the layer's renderer, in points (0 without one): labels
    /// stand clear of it.
    public var largestMarkerSize: Double {
        (classes?.legend ?? []).reduce(0.0) { size, entry in
            switch entry.symbol {
            case .simpleMarker(let m): return max(size, m.size ?? 8)
            case .pictureMarker(let p): return max(size, p.height ?? p.width ?? 0)
            default: return size
            }
        }
    }

    public var isFeatureLayer: Bool {
        type == "ArcGISFeatureLayer" || (definition.dataPath?.table != nil || definition.dataPath?.itemId != nil) && type != "VectorTileLayer" && type != "ArcGISTiledMapServiceLayer"
    }

    /// The legend: the renderer's classes, then each visual variable's stops; empty for a
    /// layer without a renderer or with `showLegend: false`.
    public var legend: [LegendSection] {
        guard definition.showLegend ?? true, let classes else { return [] }
        var sections: [LegendSection] = []
        let entries = classes.legend
        if !entries.isEmpty { sections.append(LegendSection(heading: nil, entries: entries)) }
        for variable in classes.variableLegends {
            sections.append(LegendSection(heading: variable.field, entries: variable.entries))
        }
        return sections
    }
}

/// A part of a layer's legend: the renderer's classes (no heading), or a visual variable's
/// stops under the field it reads.
public struct LegendSection: Sendable, Equatable {
    public var heading: String?
    public var entries: [RendererClasses.LegendEntry]
}
