import MapbookPackage

/// Web map renderers and symbols as MapLibre paint properties.
///
/// A renderer sorts features into classes, each with a symbol. `uniqueValue` becomes a `match`
/// on the field values (joined with the field delimiter when there are two or three fields);
/// `classBreaks` a `step` on the field, whose stops sit just above each class's maximum, since
/// a class runs up to and including its `classMaxValue`. Features in no class take the default
/// symbol, or are filtered out when the renderer has none, as ArcGIS draws them. A property
/// that is the same for every class is written as a plain value. Normalisation
/// (`normalizationField`) is not applied.
extension VectorTileStyle {
    /// How a renderer picks a symbol for a feature.
    struct Classes {
        enum Selector {
            case single
            /// A key expression and one label per class.
            case match(key: JSONValue, labels: [JSONValue])
            /// A numeric input, one stop before each class after the first, and the classes' range.
            case step(input: JSONValue, stops: [Double], range: ClosedRange<Double>)
        }

        var selector: Selector
        var symbols: [Symbol?]
        /// The default symbol; nil when features outside every class are not drawn.
        var fallback: Symbol?
        /// Hides the features outside every class when there is no default symbol.
        var filter: JSONValue?
    }

    static func classes(of renderer: Renderer?) -> Classes {
        switch renderer {
        case .uniqueValue(let r)?:
            let fields = [r.field1, r.field2, r.field3].compactMap { $0 }
            var labels: [JSONValue] = []
            var symbols: [Symbol?] = []
            var seen = Set<String>()
            for info in r.uniqueValueInfos ?? [] {
                guard let value = info.valueText, seen.insert(value).inserted else { continue }
                labels.append(.string(value))
                symbols.append(info.symbol)
            }
            guard !fields.isEmpty, !labels.isEmpty else { return Classes(selector: .single, symbols: [r.defaultSymbol], fallback: r.defaultSymbol) }
            let parts: [JSONValue] = fields.map { ["to-string", ["get", .string($0)]] }
            var key = parts[0]
            if parts.count > 1 {
                var concat: [JSONValue] = ["concat"]
                for (i, part) in parts.enumerated() {
                    if i > 0 { concat.append(.string(r.fieldDelimiter ?? ",")) }
                    concat.append(part)
                }
                key = .array(concat)
            }
            let filter: JSONValue? = r.defaultSymbol == nil ? ["match", key, .array(labels), true, false] : nil
            return Classes(selector: .match(key: key, labels: labels), symbols: symbols, fallback: r.defaultSymbol, filter: filter)

        case .classBreaks(let r)?:
            let infos = (r.classBreakInfos ?? []).filter { $0.classMaxValue?.isFinite == true }.sorted { $0.classMaxValue! < $1.classMaxValue! }
            var kept: [ClassBreakInfo] = []
            for info in infos where kept.last?.classMaxValue != info.classMaxValue { kept.append(info) }
            guard let field = r.field, let first = kept.first, let last = kept.last else {
                return Classes(selector: .single, symbols: [r.defaultSymbol], fallback: r.defaultSymbol)
            }
            let input: JSONValue = ["to-number", ["get", .string(field)]]
            let low = min(r.minValue ?? first.classMinValue ?? -Double.greatestFiniteMagnitude, first.classMaxValue!)
            // A class includes its maximum, so the next class starts just above it.
            let stops = kept.dropLast().map { $0.classMaxValue!.nextUp }
            let range = low...last.classMaxValue!
            let filter: JSONValue? = r.defaultSymbol == nil
                ? ["all", [">=", input, .double(range.lowerBound)], ["<=", input, .double(range.upperBound)]] : nil
            return Classes(selector: .step(input: input, stops: stops, range: range), symbols: kept.map(\.symbol), fallback: r.defaultSymbol, filter: filter)

        case .simple(let r)?:
            return Classes(selector: .single, symbols: [r.symbol], fallback: r.symbol)
        case .other?, nil:
            return Classes(selector: .single, symbols: [nil], fallback: nil)
        }
    }

    /// One paint property over the classes: a plain value when every class agrees, else a
    /// `match` or `step` expression.
    static func property(_ classes: Classes, _ value: (Symbol?) -> JSONValue) -> JSONValue {
        let outputs = classes.symbols.map(value)
        let fallback = classes.fallback.map(value)
        let distinct = Set(outputs + (fallback.map { [$0] } ?? []))
        if distinct.count == 1 { return distinct.first! }
        switch classes.selector {
        case .single:
            return outputs.first ?? value(nil)
        case .match(let key, let labels):
            var expression: [JSONValue] = ["match", key]
            for (label, output) in zip(labels, outputs) { expression += [label, output] }
            expression.append(fallback ?? outputs[0])
            return .array(expression)
        case .step(let input, let stops, let range):
            var expression: [JSONValue] = ["step", input, outputs[0]]
            for (stop, output) in zip(stops, outputs.dropFirst()) { expression += [.double(stop), output] }
            guard let fallback else { return .array(expression) }
            // Outside every class: the default symbol.
            return ["case", ["<", input, .double(range.lowerBound)], fallback, [">", input, .double(range.upperBound)], fallback, .array(expression)]
        }
    }

    static let transparent: JSONValue = "rgba(0,0,0,0)"
    static let defaultFill = RGBAColor(red: 0xCC, green: 0xC6, blue: 0xB8)
    static let defaultOutline = RGBAColor(red: 0x99, green: 0x93, blue: 0x88)
    static let defaultLine = RGBAColor(red: 0x80, green: 0x80, blue: 0x80)
    static let defaultPoint = RGBAColor(red: 0x00, green: 0x72, blue: 0xB2)

    /// The outline of a fill or marker symbol, or the symbol itself when it is a line.
    static func outline(_ symbol: Symbol?) -> SimpleLineSymbol? {
        switch symbol {
        case .simpleFill(let s)?: return s.outline
        case .simpleMarker(let s)?: return s.outline
        case .simpleLine(let s)?: return s
        default: return nil
        }
    }

    static func lineColor(_ line: SimpleLineSymbol?) -> JSONValue {
        guard let line, line.style != "esriSLSNull", let rgba = line.color else { return transparent }
        return color(rgba)
    }

    /// Dashes in line widths, after the ArcGIS simple line styles.
    static func dashes(_ style: String?) -> [Double]? {
        switch style {
        case "esriSLSDash": return [4, 3]
        case "esriSLSDashDot": return [4, 3, 1, 3]
        case "esriSLSDashDotDot", "esriSLSShortDashDotDot": return [4, 3, 1, 3, 1, 3]
        case "esriSLSDot", "esriSLSShortDot": return [1, 3]
        case "esriSLSLongDash": return [8, 3]
        case "esriSLSLongDashDot": return [8, 3, 1, 3]
        case "esriSLSShortDash": return [4, 1]
        case "esriSLSShortDashDot": return [4, 1, 1, 1]
        default: return nil
        }
    }

    /// The MapLibre layers drawing one backdrop layer.
    static func styleLayers(for layer: Layer, id: String) -> [JSONObject] {
        let classes = classes(of: layer.renderer)
        let opacity = JSONValue.double(min(max(layer.opacity, 0), 1))
        var out: [JSONObject] = []
        func add(_ suffix: String, _ type: String, paint: JSONObject, layout: JSONObject? = nil) {
            var o: JSONObject = ["id": .string(id + suffix), "type": .string(type)]
            if let filter = classes.filter { o["filter"] = filter }
            if let layout { o["layout"] = .object(layout) }
            o["paint"] = .object(paint)
            out.append(o)
        }

        switch layer.geometry {
        case .polygon:
            let fill = property(classes) { symbol in
                switch symbol {
                case .simpleFill(let s)?:
                    guard s.style != "esriSFSNull", let c = s.color else { return transparent }
                    return color(c)
                case .simpleLine?: return transparent  // an outline-only class
                case nil: return color(defaultFill)
                default: return color(defaultFill)
                }
            }
            let outlineColor = property(classes) { symbol in
                symbol == nil ? color(defaultOutline) : lineColor(outline(symbol))
            }
            // fill-outline-color is always one pixel wide; wider outlines get a line layer.
            let outlineWidth = property(classes) { symbol in
                .double(symbol == nil ? 1 : outline(symbol).map { pixels($0.width ?? 0.75) } ?? 0)
            }
            add("", "fill", paint: ["fill-color": fill, "fill-opacity": opacity, "fill-outline-color": outlineColor])
            let widths = classes.symbols.map { outline($0).map { pixels($0.width ?? 0.75) } ?? 0 } + [outline(classes.fallback).map { pixels($0.width ?? 0.75) } ?? 0]
            if widths.contains(where: { $0 > 1.2 }) {
                add("/outline", "line", paint: ["line-color": outlineColor, "line-width": outlineWidth, "line-opacity": opacity], layout: ["line-join": "round"])
            }

        case .line:
            let lineColor = property(classes) { symbol in
                symbol == nil ? color(defaultLine) : Self.lineColor(outline(symbol))
            }
            let width = property(classes) { symbol in
                .double(symbol == nil ? 1 : outline(symbol).map { pixels($0.width ?? 0.75) } ?? 1)
            }
            var paint: JSONObject = ["line-color": lineColor, "line-width": width, "line-opacity": opacity]
            // line-dasharray cannot vary by feature: dashes only when every class has the same.
            let styles = Set((classes.symbols + [classes.fallback]).compactMap { outline($0)?.style ?? ($0 == nil ? nil : "esriSLSSolid") })
            if styles.count == 1, let dash = dashes(styles.first) {
                paint["line-dasharray"] = .array(dash.map { .double($0) })
            }
            add("", "line", paint: paint, layout: ["line-cap": "round", "line-join": "round"])

        case .point:
            let fill = property(classes) { symbol in
                switch symbol {
                case .simpleMarker(let s)?:
                    guard s.style != "esriSMSNull", let c = s.color else { return transparent }
                    return color(c)
                default: return color(defaultPoint)  // picture markers need sprites: a plain circle
                }
            }
            let radius = property(classes) { symbol in
                switch symbol {
                case .simpleMarker(let s)?: return .double(pixels(s.size ?? 8) / 2)
                case .pictureMarker(let s)?: return .double(pixels(max(s.width ?? 12, s.height ?? 12)) / 2)
                default: return 4
                }
            }
            let strokeColor = property(classes) { symbol in
                if case .simpleMarker(let s)? = symbol { return lineColor(s.outline) }
                return color(RGBAColor(red: 255, green: 255, blue: 255))
            }
            let strokeWidth = property(classes) { symbol in
                if case .simpleMarker(let s)? = symbol { return .double(s.outline.map { pixels($0.width ?? 0.75) } ?? 0) }
                return 1
            }
            add("", "circle", paint: [
                "circle-color": fill, "circle-radius": radius, "circle-stroke-color": strokeColor,
                "circle-stroke-width": strokeWidth, "circle-opacity": opacity, "circle-stroke-opacity": opacity,
            ])
        }
        return out
    }
}
