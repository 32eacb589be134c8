import MapbookSupport
import MapbookTiles

/// One layer of a MapLibre style, as the backdrop renderer reads it.
struct StyleLayer {
    let id: String
    let type: String
    let sourceLayer: String
    let filter: JSONValue?
    let minZoom: Double
    let maxZoom: Double
    let visible: Bool
    let paint: JSONObject
    let layout: JSONObject
    /// `paint.x` / `layout.x` keys and `type x` this renderer does not draw.
    let unsupportedKeys: [String]
    /// Colours parsed from their text once per layer: a frame asks for the same few colours
    /// for every feature, and parsing them was a tenth of a frame's time.
    private let colors = ColorCache()

    final class ColorCache {
        var parsed: [String: StyleColor?] = [:]
        /// Values of properties that do not depend on the feature, at the zoom they were
        /// evaluated for: a frame evaluated each for every feature, a fifth of its time.
        var constant: [String: (zoom: Double, value: JSONValue?)] = [:]
        /// Values of properties that depend on a few of the feature's properties, by those:
        /// a street's colour by its class is evaluated once per class, not once per street.
        var byFeature: [FeatureKey: JSONValue?] = [:]
    }

    struct FeatureKey: Hashable {
        var name: String
        var zoom: Double
        var geometryType: String
        var values: [JSONValue?]
    }

    /// The properties whose value depends on the feature: the property names each reads, or
    /// nil for those evaluated for every feature.
    private let featureDependent: [String: [String]?]

    /// The properties drawn, by layer type, and those that change nothing in a north-up,
    /// unpitched view (pitch, rotation and translate anchors, extrusion heights); any other key
    /// is reported as not drawn, partly drawn ones included.
    static let supported: [String: Set<String>] = [
        "background": ["paint.background-color", "paint.background-opacity", "layout.visibility"],
        "fill": ["paint.fill-color", "paint.fill-opacity", "paint.fill-outline-color", "paint.fill-pattern", "layout.visibility"],
        "fill-extrusion": ["paint.fill-extrusion-color", "paint.fill-extrusion-opacity", "paint.fill-extrusion-height", "paint.fill-extrusion-base", "layout.visibility"],
        "line": [
            "paint.line-color", "paint.line-width", "paint.line-opacity", "paint.line-dasharray", "paint.line-gap-width",
            "layout.line-cap", "layout.line-join", "layout.line-miter-limit", "layout.visibility", "paint.line-offset",
            // Round joins turned to miters below the limit differ from round ones by at most
            // 2.5% of the width at the limits styles use (1.05): nothing a pixel shows.
            "layout.line-round-limit",
        ],
        "circle": [
            "paint.circle-color", "paint.circle-radius", "paint.circle-opacity", "paint.circle-stroke-color",
            "paint.circle-stroke-width", "paint.circle-stroke-opacity", "layout.visibility",
        ],
        "symbol": [
            "layout.text-field", "layout.text-font", "layout.text-size", "layout.text-transform", "layout.text-max-width",
            "layout.text-letter-spacing", "layout.text-anchor", "layout.text-offset", "layout.text-padding",
            "layout.text-allow-overlap", "layout.text-ignore-placement", "layout.symbol-placement", "layout.symbol-spacing",
            "layout.text-justify", "layout.icon-image", "layout.icon-size", "layout.visibility", "layout.text-pitch-alignment",
            "paint.text-color", "paint.text-halo-color", "paint.text-halo-width", "paint.text-opacity", "paint.icon-opacity",
            "paint.text-translate-anchor", "paint.icon-translate-anchor",
            "layout.text-variable-anchor", "layout.text-radial-offset", "paint.text-translate", "paint.icon-translate",
            "layout.icon-offset", "layout.icon-padding", "layout.icon-allow-overlap", "layout.icon-ignore-placement",
            "layout.text-optional", "layout.icon-optional", "layout.symbol-avoid-edges", "layout.text-rotate",
            "layout.text-rotation-alignment", "layout.text-keep-upright", "paint.text-halo-blur", "layout.text-line-height",
            "layout.icon-rotation-alignment", "layout.icon-text-fit", "layout.icon-text-fit-padding", "layout.symbol-z-order",
            "layout.text-max-angle",
        ],
    ]

    init(json: JSONObject) {
        id = json.string("id") ?? "?"
        type = json.string("type") ?? "?"
        sourceLayer = json.string("source-layer") ?? ""
        filter = json["filter"]
        minZoom = json.double("minzoom") ?? 0
        maxZoom = json.double("maxzoom") ?? 24
        paint = json.object("paint") ?? [:]
        layout = json.object("layout") ?? [:]
        visible = layout.string("visibility") != "none"
        var dependent: [String: [String]?] = [:]
        for (name, value) in Array(paint) + Array(layout) where StyleExpression.dependsOnFeature(value) {
            dependent[name] = StyleExpression.featureKeys(value).map { $0.sorted() }
        }
        featureDependent = dependent
        var unsupported: [String] = []
        if let known = Self.supported[type] {
            // A property set to the value that draws nothing different (a blur or halo of 0)
            // asks for nothing to be drawn.
            let inert = ["paint.icon-halo-width", "paint.line-blur", "paint.icon-halo-blur"]
            for key in paint.keys.map({ "paint." + $0 }) + layout.keys.map({ "layout." + $0 }) where !known.contains(key) {
                if inert.contains(key), (paint[String(key.dropFirst(6))]?.doubleValue ?? 1) == 0 { continue }
                unsupported.append("\(type) \(key)")
            }
        } else {
            unsupported.append("layer type \(type)")
        }
        unsupportedKeys = unsupported
    }

    /// Whether the layer draws at `zoom`: visible, and `minzoom` <= zoom < `maxzoom`.
    func isVisible(at zoom: Double) -> Bool {
        visible && zoom >= minZoom && zoom < maxZoom
    }

    /// A property's value: paint first, then layout.
    func value(_ name: String, _ evaluator: inout StyleExpression) -> JSONValue? {
        guard let raw = paint[name] ?? layout[name] else { return nil }
        if let dependent = featureDependent[name] {
            guard let keys = dependent else { return evaluator.value(raw) }
            let feature = evaluator.feature
            let key = FeatureKey(name: name, zoom: evaluator.zoom, geometryType: feature.geometryType, values: keys.map { feature.properties[$0] })
            if let kept = colors.byFeature[key] { return kept }
            let value = evaluator.value(raw)
            // Values made from feature data could be endless: only the first few thousand are kept.
            if colors.byFeature.count < 4096 { colors.byFeature[key] = .some(value) }
            return value
        }
        if let kept = colors.constant[name], kept.zoom == evaluator.zoom { return kept.value }
        let value = evaluator.value(raw)
        colors.constant[name] = (evaluator.zoom, value)
        return value
    }

    func number(_ name: String, _ evaluator: inout StyleExpression) -> Double? {
        value(name, &evaluator)?.doubleValue
    }

    func string(_ name: String, _ evaluator: inout StyleExpression) -> String? {
        value(name, &evaluator)?.stringValue
    }

    func bool(_ name: String, _ evaluator: inout StyleExpression) -> Bool? {
        value(name, &evaluator)?.boolValue
    }

    func color(_ name: String, _ evaluator: inout StyleExpression) -> StyleColor? {
        guard let text = value(name, &evaluator)?.stringValue else { return nil }
        if let known = colors.parsed[text] { return known }
        let color = StyleColor(text: text)
        // Colours made from feature data could be endless: only the first thousand are kept.
        if colors.parsed.count < 1024 { colors.parsed[text] = .some(color) }
        return color
    }

    func numbers(_ name: String, _ evaluator: inout StyleExpression) -> [Double]? {
        value(name, &evaluator)?.arrayValue?.compactMap(\.doubleValue)
    }
}
