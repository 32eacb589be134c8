import MapbookPackage
import MapbookSupport

/// Web map renderers and symbols as MapLibre paint properties.
///
/// A renderer's classes are `RendererClasses`, the reading map drawing uses too, compiled
/// here into expressions: `uniqueValue` becomes a `match` on the key of the field values
/// (joined with the field delimiter when there are two or three fields), `classBreaks` a
/// `step` on the (normalised) field value, whose stops sit just above each class's maximum
/// since a class runs up to and including its `classMaxValue` (a `case` when the classes
/// leave gaps). Field values are read as `RendererValue` reads them. Features in no class
/// take the default symbol; features whose class has no symbol are filtered out, as ArcGIS
/// draws them. A property that is the same for every class is written as a plain value.
/// A layer without a renderer, or with one of a type that has no classes, is drawn with a
/// plain default symbol for its geometry.
extension VectorTileStyle {
    /// A layer's renderer classes, ready to compile into paint properties.
    struct Classes {
        /// The renderer's classes; nil when every feature is drawn with the plain default.
        var model: RendererClasses?
        /// The symbols features are drawn with (nil: the plain default).
        var symbols: [Symbol?]
        /// The default symbol; nil when features outside every class are not drawn.
        var fallback: Symbol?
        /// Hides the features whose class has no symbol.
        var filter: JSONValue?
    }

    static func classes(of renderer: Renderer?) -> Classes {
        let model = renderer.map(RendererClasses.init)
        switch model?.selector {
        case .single?:
            let symbol = model!.classes[0].symbol
            return Classes(model: model, symbols: [symbol], fallback: symbol, filter: symbol == nil ? JSONValue.bool(false) : JSONValue?.none)
        case .uniqueValues?, .classBreaks?:
            let model = model!
            let fallback = model.defaultClass?.symbol
            let visible = model.classes.compactMap(\.symbol)
            return Classes(model: model, symbols: visible.isEmpty ? [fallback] : visible, fallback: fallback, filter: visibility(model))
        case .unsupported?, nil:
            return Classes(model: nil, symbols: [nil], fallback: nil)
        }
    }

    /// One paint property over the classes: a plain value when every class that draws agrees,
    /// else a `match`, `step` or `case` expression; then each visual variable that changes the
    /// property, as an `interpolate` over its stops of the property's value with the classes'
    /// symbols styled at each stop (a feature without the variable's value keeps its class's).
    /// Two variables that change the same property (colour and opacity both set a fill's
    /// alpha) do not compose here: the later one decides, where map drawing applies both.
    static func property(_ classes: Classes, _ value: (Symbol?) -> JSONValue) -> JSONValue {
        let base = classProperty(classes, value)
        var result = base
        guard let model = classes.model else { return result }
        for variable in model.visualVariables where variable.isActive && variable.kind != .rotation {
            // MapLibre wants stops in strictly rising order.
            var stops: [VisualVariable.Stop] = []
            for stop in variable.stops where stop.value != stops.last?.value { stops.append(stop) }
            let outputs = stops.map { stop in
                classProperty(classes, value) { variable.apply(to: $0, value: stop.value) }
            }
            // A variable that leaves this property as the classes give it (a size for a colour).
            guard outputs.contains(where: { $0 != base }) else { continue }
            let v: JSONValue = ["var", "vv"]
            var varied: [JSONValue] = ["interpolate", ["linear"], v]
            for (stop, output) in zip(stops, outputs) { varied += [.double(stop.value), output] }
            result = ["let", "vv", variableValue(variable),
                ["case", ["==", v, .double(-largest)], result, stops.count == 1 ? outputs[0] : .array(varied)]]
        }
        return result
    }

    /// One paint property over the classes, each class's symbol first passed through `styled`.
    static func classProperty(_ classes: Classes, _ value: (Symbol?) -> JSONValue, styled: (Symbol) -> Symbol = { $0 }) -> JSONValue {
        guard let model = classes.model else { return value(classes.symbols.first ?? nil) }
        if case .single = model.selector { return value(model.classes[0].symbol.map(styled)) }
        // Classes without a symbol are filtered out: their output does not matter.
        return compile(model, outputs: model.classes.map { $0.symbol.map { value(styled($0)) } }, fallback: model.defaultClass?.symbol.map { value(styled($0)) })
    }

    /// The value a visual variable styles a feature by (`VisualVariable.value`), or the
    /// negated largest number when it has none.
    static func variableValue(_ variable: VisualVariable) -> JSONValue {
        let none = JSONValue.double(-largest)
        guard let field = variable.field else { return none }
        let x = number(["get", .string(field)])
        guard let name = variable.normalizationField else { return x }
        return divided(x, by: name)
    }

    /// `x` divided by the field `name`'s value; the negated largest number when either has no
    /// value, the divisor is zero or the quotient is not finite.
    static func divided(_ x: JSONValue, by name: String) -> JSONValue {
        let none = JSONValue.double(-largest)
        let value: JSONValue = ["var", "value"], divisor: JSONValue = ["var", "divisor"]
        return ["let", "value", x, "divisor", number(["get", .string(name)]),
            ["case", ["any", ["==", value, none], ["==", divisor, none], ["==", divisor, 0]], none, finite(["/", value, divisor])]]
    }

    /// Whether a feature is drawn, when some are not: its class, or the default, has no symbol.
    static func visibility(_ model: RendererClasses) -> JSONValue? {
        let outputs: [JSONValue?] = model.classes.map { .bool($0.symbol != nil) }
        let filter = compile(model, outputs: outputs, fallback: .bool(model.defaultClass?.symbol != nil))
        if filter == true { return nil }
        return filter
    }

    /// The largest finite number: its negation stands for "no value" in compiled expressions.
    static let largest = Double.greatestFiniteMagnitude

    /// One output per class compiled into an expression over a feature's properties: a plain
    /// value when the outputs that matter agree.
    ///
    /// A nil output, or a nil `fallback` (the default class), is that of a class whose features
    /// are hidden: any output serves.
    static func compile(_ model: RendererClasses, outputs: [JSONValue?], fallback: JSONValue?) -> JSONValue {
        switch model.selector {
        case .single, .unsupported:
            return outputs.first.flatMap { $0 } ?? fallback ?? false
        case .uniqueValues(let u):
            let reachable = u.keys.compactMap { k in outputs[k.classIndex].map { (k.key, $0) } }
            let distinct = Set(reachable.map(\.1) + (fallback.map { [$0] } ?? []))
            if distinct.count <= 1 { return distinct.first ?? false }
            // Labels with the same output share a branch; a branch giving the default is left out.
            var groups: [(output: JSONValue, labels: [JSONValue])] = []
            for (key, output) in reachable where output != fallback {
                if let g = groups.firstIndex(where: { $0.output == output }) {
                    groups[g].labels.append(.string(key))
                } else {
                    groups.append((output, [.string(key)]))
                }
            }
            var expression: [JSONValue] = ["match", uniqueValueKey(u)]
            for group in groups {
                expression += [group.labels.count == 1 ? group.labels[0] : .array(group.labels), group.output]
            }
            expression.append(fallback ?? reachable[0].1)
            return .array(expression)
        case .classBreaks(let b):
            let reachable = b.ranges.compactMap { r in outputs[r.classIndex] }
            let distinct = Set(reachable + (fallback.map { [$0] } ?? []))
            if distinct.count <= 1 { return distinct.first ?? false }
            let x: JSONValue = ["var", "x"]
            let stand = reachable.first ?? fallback!
            let body: JSONValue
            if b.isContiguous, let first = b.ranges.first, let last = b.ranges.last {
                var step: [JSONValue] = ["step", x, outputs[first.classIndex] ?? stand]
                for (previous, range) in zip(b.ranges, b.ranges.dropFirst()) {
                    step += [.double(previous.upper.nextUp), outputs[range.classIndex] ?? stand]
                }
                let classed: JSONValue = Set(reachable).count == 1 ? stand : .array(step)
                if let fallback {
                    // Outside every class, or no value: the default.
                    body = ["case", ["<", x, .double(first.lower ?? -largest.nextDown)], fallback, [">", x, .double(last.upper)], fallback, classed]
                } else {
                    body = classed
                }
            } else {
                var cases: [JSONValue] = ["case"]
                for range in b.ranges {
                    cases += [["all", [">=", x, .double(range.lower ?? -largest.nextDown)], ["<=", x, .double(range.upper)]], outputs[range.classIndex] ?? stand]
                }
                cases.append(fallback ?? stand)
                body = .array(cases)
            }
            return ["let", "x", classBreakValue(b), body]
        }
    }

    /// The key a feature's values have, to match unique value keys against.
    static func uniqueValueKey(_ u: RendererClasses.UniqueValues) -> JSONValue {
        let parts: [JSONValue] = u.fields.map { field in
            u.needsValueReading ? keyText(["get", .string(field)]) : ["to-string", ["get", .string(field)]]
        }
        guard parts.count > 1 else { return parts[0] }
        var concat: [JSONValue] = ["concat"]
        for (i, part) in parts.enumerated() {
            if i > 0, !u.delimiter.isEmpty { concat.append(.string(u.delimiter)) }
            concat.append(part)
        }
        return .array(concat)
    }

    /// `RendererValue.keyText` of a value: "<Null>" for null, a number (or text that reads as
    /// one) as `to-string` writes numbers, other text as it is.
    static func keyText(_ value: JSONValue) -> JSONValue {
        let v: JSONValue = ["var", "v"], n: JSONValue = ["var", "n"]
        return ["let", "v", value,
            ["case",
                ["==", v, .null], .string(RendererValue.nullText),
                ["==", ["typeof", v], "string"], ["let", "n", numberReading(v), ["case", ["==", n, .double(-largest)], v, ["to-string", n]]],
                ["to-string", v]]]
    }

    /// `RendererValue.number` of a value, or the negated largest number when it has none.
    static func number(_ value: JSONValue) -> JSONValue {
        let v: JSONValue = ["var", "v"]
        return ["let", "v", value,
            ["case",
                ["==", ["typeof", v], "number"], v,
                ["==", ["typeof", v], "string"], numberReading(v),
                .double(-largest)]]
    }

    /// The number text `v` spells, or the negated largest number. `to-number` reads empty
    /// and blank text as 0, so a 0 counts only when the text has a "0" in it; infinities are
    /// not numbers.
    static func numberReading(_ v: JSONValue) -> JSONValue {
        let n: JSONValue = ["var", "n"]
        return ["let", "n", ["to-number", v, .double(-largest)],
            ["case",
                ["all", ["<", ["abs", n], .double(largest)], ["any", ["!=", n, 0], ["in", "0", v]]], n,
                .double(-largest)]]
    }

    /// The value a class breaks renderer classes a feature by, normalised; the negated largest
    /// number when it has none.
    static func classBreakValue(_ b: RendererClasses.ClassBreaks) -> JSONValue {
        let none = JSONValue.double(-largest)
        guard let field = b.field else { return none }
        let x = number(["get", .string(field)])
        let value: JSONValue = ["var", "value"]
        switch b.normalization {
        case .none:
            return x
        case .byField(let name):
            return divided(x, by: name)
        case .byLog:
            return ["let", "value", x, ["case", ["any", ["==", value, none], ["<=", value, 0]], none, ["log10", value]]]
        case .percentOfTotal(let total):
            guard let total, total != 0, total.isFinite else { return none }
            return ["let", "value", x, ["case", ["==", value, none], none, finite(["*", ["/", value, .double(total)], 100])]]
        case .impossible:
            return none
        }
    }

    /// `value`, or the negated largest number when it is not finite.
    static func finite(_ value: JSONValue) -> JSONValue {
        ["let", "q", value, ["case", ["<", ["abs", ["var", "q"]], .double(largest)], ["var", "q"], .double(-largest)]]
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
        if let label = layer.label {
            // Dark grey text with a white halo, as reference maps label; along lines, else at
            // the feature. MapLibre's collision detection keeps labels from overlapping.
            var layout: JSONObject = [
                "text-field": ["to-string", ["get", .string(label)]], "text-font": [.string(labelFont)], "text-size": 12,
                "symbol-placement": layer.geometry == .line ? "line" : "point",
            ]
            if layer.geometry == .line { layout["text-max-angle"] = 30 } else { layout["text-max-width"] = 8 }
            out.append([
                "id": .string(id + "/label"), "type": "symbol", "filter": ["has", .string(label)], "layout": .object(layout),
                "paint": ["text-color": "#333333", "text-halo-color": "#ffffff", "text-halo-width": 1.5, "text-opacity": opacity],
            ])
        }
        return out
    }
}
