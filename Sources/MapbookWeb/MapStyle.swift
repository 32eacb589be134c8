#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookPortalAPI
import MapbookRender
import MapbookSupport
import MapbookTiles
import MapbookViewer

/// The MapLibre style a map page draws: each vector tile base map with its own style (our
/// generated one or Esri's `resources/styles/root.json`) rewritten to this server's URLs, then
/// the map's feature layers as tiles made on request, drawn with their renderers compiled
/// the way the backdrop's style is (`VectorTileStyle.styleLayers`), bottom to top, then the
/// base maps' labels over everything.
///
/// Every style layer carries `metadata.mapbook:layer` (the viewer layer's id, or `basemap:N`)
/// so the page's table of contents and basemap picker turn them on and off; layers hidden on
/// this device (`viewer.json`) start hidden. URLs are paths on this server: the page makes
/// them absolute before MapLibre reads them.
enum MapStyle {
    /// MapLibre zoom z (512-pixel tiles) shows about the scale of ArcGIS level z + 1 at 96 DPI.
    static let scaleAtZoomZero = 295_828_763.795_777_7

    static func zoom(forScale scale: Double) -> Double {
        log2(scaleAtZoomZero / scale)
    }

    /// `base` is the map's path on this server, `/packages/KEY/maps/N`; `glyphs` the URL of
    /// glyphs drawn from the installed fonts (`{fontstack}` and `{range}` in it).
    static func style(_ map: ViewerMap, host: PackageHost, state: PackageHost.State, number: Int, base: String, glyphs fallbackGlyphs: String = "/glyphs/{fontstack}/{range}.pbf") throws -> JSONObject {
        var sources: JSONObject = [:]
        var layers: [JSONValue] = []
        var glyphs: String?
        var sprite: String?
        var labels: [JSONValue] = []
        var shownBaseMap = false
        for (index, baseMap) in PackageHost.tiledBaseMaps(map).enumerated() {
            let files = try host.backdrop(map: number, index: index, state: state)
            let prefix = "\(base)/basemaps/\(index)"
            let visible = baseMap.isVisible && !shownBaseMap
            shownBaseMap = shownBaseMap || visible
            let tag = "basemap:\(index)"
            if files.isRaster {
                // Image tiles: one raster layer. Past its last level MapLibre enlarges that level's tiles.
                sources[tag] = [
                    "type": "raster", "tiles": [.string(prefix + "/tiles/{z}/{x}/{y}")], "tileSize": 256, "scheme": "xyz",
                    "minzoom": .int(files.minZoom), "maxzoom": .int(files.maxZoom),
                ]
                var layer: JSONObject = ["id": .string(tag), "type": "raster", "source": .string(tag), "metadata": ["mapbook:layer": .string(tag)]]
                if !visible { layer["layout"] = ["visibility": "none"] }
                if baseMap.opacity < 1 { layer["paint"] = ["raster-opacity": .double(baseMap.opacity)] }
                layers.append(.object(layer))
                continue
            }
            guard let style = files.style else { continue }
            var renamed: [String: String] = [:]
            for (name, value) in style.object("sources") ?? [:] {
                guard var source = value.objectValue else { continue }
                let id = "\(tag):\(name)"
                renamed[name] = id
                if source.string("type") == "vector" {
                    source["url"] = nil
                    source["tiles"] = [.string(prefix + "/tiles/{z}/{x}/{y}.pbf")]
                    // The levels the bundles hold, whatever the style says (a package cut from a
                    // larger basemap keeps its style): past the last, MapLibre zooms that level's tiles.
                    source["minzoom"] = .int(files.minZoom)
                    source["maxzoom"] = .int(files.maxZoom)
                    source["scheme"] = "xyz"
                }
                sources[id] = .object(source)
            }
            // A style has one sprite and one glyph URL: the first base map's serve them all (a
            // second base map's icons are missing from it; its labels draw).
            if sprite == nil, let s = style.string("sprite") { sprite = prefix + "/resources/" + resolve(s) }
            if glyphs == nil, let g = style.string("glyphs") { glyphs = prefix + "/resources/" + resolve(g) }
            for case .object(var layer) in style.array("layers") ?? [] {
                layer["id"] = .string("\(tag):" + (layer.string("id") ?? "\(layers.count)"))
                if let source = layer.string("source") { layer["source"] = renamed[source].map { .string($0) } ?? .string(source) }
                var metadata = layer.object("metadata") ?? [:]
                metadata["mapbook:layer"] = .string(tag)
                layer["metadata"] = .object(metadata)
                if !visible { hide(&layer) }
                // Labels go over the feature layers, where lines and points cannot hide them.
                if layer.string("type") == "symbol" { labels.append(.object(layer)) } else { layers.append(.object(layer)) }
            }
        }
        if !shownBaseMap {
            layers.insert(["id": "background", "type": "background", "paint": ["background-color": "#f2efe9"]], at: 0)
        }
        // Operational layers: the first in `layers` is the top one; MapLibre draws the last on top.
        for layer in map.layers.reversed() where layer.isFeatureLayer {
            guard let info = try? map.tileLayerInfo(layer), let geometry = info.geometry else { continue }
            let sourceID = "layer:" + layer.id
            var source: JSONObject = ["type": "vector", "tiles": [.string("\(base)/layers/\(FormEncoding.percentEncode(layer.id))/tiles/{z}/{x}/{y}.pbf")], "maxzoom": 16]
            // No tiles are asked for farther out than the layer shows.
            if let minScale = layer.minScale, minScale > 0 { source["minzoom"] = .int(min(max(Int(zoom(forScale: minScale).rounded(.down)), 0), 16)) }
            sources[sourceID] = .object(source)
            let tileLayer = VectorTileStyle.Layer(
                sourceLayer: info.sourceLayer, geometry: geometry, renderer: layer.classes?.renderer, opacity: layer.opacity,
                minZoom: layer.minScale.flatMap { $0 > 0 ? Int(zoom(forScale: $0).rounded(.down)) : nil },
                maxZoom: layer.maxScale.flatMap { $0 > 0 ? Int(zoom(forScale: $0).rounded(.up)) : nil })
            for var styleLayer in VectorTileStyle.styleLayers(for: tileLayer, id: sourceID, source: sourceID) {
                styleLayer["metadata"] = ["mapbook:layer": .string(layer.id)]
                if !map.isShown(layer) { hide(&styleLayer) }
                layers.append(.object(styleLayer))
            }
            for label in info.labels {
                var styleLayer = labelLayer(label.labelClass, attribute: label.attribute, layer: layer, geometry: geometry)
                styleLayer["id"] = .string("\(sourceID):\(label.attribute)")
                styleLayer["source"] = .string(sourceID)
                styleLayer["source-layer"] = .string(info.sourceLayer)
                styleLayer["metadata"] = ["mapbook:layer": .string(layer.id)]
                if !map.isShown(layer) { hide(&styleLayer) }
                labels.append(.object(styleLayer))
            }
        }
        // Feature labels need glyphs even where no base map brings them: drawn here.
        if glyphs == nil, labels.contains(where: { $0.objectValue?.object("metadata")?.string("mapbook:layer")?.hasPrefix("basemap:") == false }) {
            glyphs = fallbackGlyphs
        }
        var out: JSONObject = ["version": 8, "name": .string(map.name), "sources": .object(sources), "layers": .array(layers + labels)]
        if let glyphs { out["glyphs"] = .string(glyphs) }
        if let sprite { out["sprite"] = .string(sprite) }
        return out
    }

    /// A label class as a MapLibre symbol layer over the text the tiles carry in `attribute`
    /// (made by the viewer's label code): its font, size, colours and halo, placement and
    /// scale range as `mapbook render` draws them. MapLibre places and deconflicts them.
    static func labelLayer(_ labelClass: LabelClass, attribute: String, layer: ViewerLayer, geometry: VectorLayerInfo.Geometry) -> JSONObject {
        let symbol = labelClass.symbol
        let pixelsPerPoint = 96.0 / 72
        let size = (symbol.fontSize ?? 10) * pixelsPerPoint
        var font = FeatureLabels.font(symbol)
        if !font.hasSuffix(" Bold") && !font.hasSuffix(" Italic") { font += " Regular" }
        var layout: JSONObject = [
            "text-field": ["get", .string(attribute)], "text-font": [.string(font)], "text-size": .double(size),
            "text-allow-overlap": .bool(labelClass.allowOverlap), "text-max-width": 12,
        ]
        let placement = labelClass.placement ?? ""
        if geometry == .line {
            // Along the line, above or below it as the placement says.
            let (_, away) = FeatureLabels.pointAnchor(placement, isPoint: false)
            layout["symbol-placement"] = "line"
            layout["symbol-spacing"] = 350
            layout["text-offset"] = [0, .double(away.1 * 0.8)]
        } else {
            let (anchor, away) = FeatureLabels.pointAnchor(placement, isPoint: geometry == .point)
            // A point's label stands clear of its marker, by half the marker and a gap (in ems).
            let gap = geometry == .point ? (layer.largestMarkerSize * pixelsPerPoint / 2 + 2) / size : 0
            layout["text-anchor"] = .string(anchor)
            layout["text-offset"] = [.double(away.0 * gap + (symbol.xoffset ?? 0) * pixelsPerPoint / size), .double(away.1 * gap - (symbol.yoffset ?? 0) * pixelsPerPoint / size)]
        }
        var paint: JSONObject = ["text-color": .string(cssColor(symbol.color ?? RGBAColor(red: 0, green: 0, blue: 0)))]
        if let halo = symbol.haloColor {
            paint["text-halo-color"] = .string(cssColor(halo))
            paint["text-halo-width"] = .double((symbol.haloSize ?? 1) * pixelsPerPoint)
        }
        var out: JSONObject = ["type": "symbol", "filter": ["has", .string(attribute)], "layout": .object(layout), "paint": .object(paint)]
        if let minScale = labelClass.minScale, minScale > 0 { out["minzoom"] = .double(max(0, zoom(forScale: minScale))) }
        if let maxScale = labelClass.maxScale, maxScale > 0 { out["maxzoom"] = .double(min(24, zoom(forScale: maxScale))) }
        return out
    }

    /// A style layer drawn only once shown (the table of contents, the basemap picker).
    static func hide(_ layer: inout JSONObject) {
        var layout = layer.object("layout") ?? [:]
        layout["visibility"] = "none"
        layer["layout"] = .object(layout)
    }

    static func cssColor(_ c: RGBAColor) -> String {
        "rgba(\(c.red), \(c.green), \(c.blue), \(JSONWriter.formatNumber(Double(c.alpha) / 255)))"
    }

    /// A style's relative reference (`../sprites/sprite`, from `resources/styles/`) as a path
    /// under `resources/`.
    static func resolve(_ reference: String) -> String {
        var parts = ["styles"]
        for part in reference.split(separator: "/") {
            if part == ".." { _ = parts.popLast() } else if part != "." { parts.append(String(part)) }
        }
        return parts.joined(separator: "/")
    }
}
