#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookPortalAPI
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

    /// `base` is the map's path on this server, `/packages/KEY/maps/N`.
    static func style(_ map: ViewerMap, host: PackageHost, state: PackageHost.State, number: Int, base: String) throws -> JSONObject {
        var sources: JSONObject = [:]
        var layers: [JSONValue] = []
        var glyphs: String?
        var sprite: String?
        var labels: [JSONValue] = []
        let vectorBaseMaps = map.baseMapLayers.filter { $0.type == "VectorTileLayer" }
        var shownBaseMap = false
        for (index, baseMap) in vectorBaseMaps.enumerated() {
            let files = try host.backdrop(map: number, index: index, state: state)
            guard let bytes = try files.package.resource("styles/root.json") else { continue }
            let style = try JSONParser.parseObject(bytes, path: "\(host.path)[\(baseMap.title) style]", expecting: "a MapLibre style")
            let prefix = "\(base)/basemaps/\(index)"
            let visible = baseMap.isVisible && !shownBaseMap
            shownBaseMap = shownBaseMap || visible
            let tag = "basemap:\(index)"
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
                if !visible {
                    var layout = layer.object("layout") ?? [:]
                    layout["visibility"] = "none"
                    layer["layout"] = .object(layout)
                }
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
                if !map.isShown(layer) {
                    var layout = styleLayer.object("layout") ?? [:]
                    layout["visibility"] = "none"
                    styleLayer["layout"] = .object(layout)
                }
                layers.append(.object(styleLayer))
            }
        }
        var out: JSONObject = ["version": 8, "name": .string(map.name), "sources": .object(sources), "layers": .array(layers + labels)]
        if let glyphs { out["glyphs"] = .string(glyphs) }
        if let sprite { out["sprite"] = .string(sprite) }
        return out
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
