import MapbookSupport

/// A renderer's visual variable: a symbol's colour, size, opacity or rotation driven by a
/// field's value, on top of the class the feature is in.
///
/// Follows the web map specification's `visualVariables`
/// (https://developers.arcgis.com/web-map-specification/objects/visualVariable/):
/// - `colorInfo`: `stops` of `{value, color, label}`; a value between two stops takes the
///   colour interpolated between them (per channel, alpha included), below the first or above
///   the last the end's colour.
/// - `sizeInfo`: `stops` of `{value, size, label}` interpolated the same way, or `minDataValue`
///   to `maxDataValue` mapped linearly onto `minSize` to `maxSize` (points), clamped at both
///   ends; `target: "outline"` sizes a symbol's outline instead of the symbol. Sizes in
///   real-world units (`valueUnit` other than `unknown`) and sizes that vary with scale
///   (`minSize` given as an object) are not modelled: the variable is then inert.
/// - `opacityInfo` (`transparencyInfo` in older maps, with transparency in percent): `stops`
///   of `{value, opacity}`, the symbol's alpha multiplied by the interpolated opacity.
/// - `rotationInfo`: the field's value in degrees, `geographic` (clockwise from north, the
///   default) or `arithmetic` (counter-clockwise from east), turning markers.
/// The value is the field's, divided by `normalizationField`'s when one is named; a feature
/// without a number (or with a zero divisor) keeps the symbol of its class. Arcade
/// `valueExpression`s are not evaluated: such a variable is inert and says so in `problem`.
public struct VisualVariable: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case color = "colorInfo"
        case size = "sizeInfo"
        case opacity = "opacityInfo"
        case rotation = "rotationInfo"
    }

    /// A value of the field and what it gives: a colour, a size in points or an opacity 0-1.
    public struct Stop: Sendable, Equatable {
        public var value: Double
        public var color: RGBAColor?
        public var size: Double?
        public var opacity: Double?
        public var label: String?
    }

    public var kind: Kind
    public var field: String?
    public var normalizationField: String?
    /// Stops in rising order of value; for `sizeInfo` without stops, the two ends of its range.
    public var stops: [Stop]
    /// `sizeInfo` only: whether the outline is sized rather than the symbol.
    public var sizesOutline: Bool
    /// `rotationInfo` only: degrees counter-clockwise from east rather than clockwise from north.
    public var arithmeticRotation: Bool
    /// Why the variable has no effect, when it has none (an Arcade expression, real-world
    /// units, sizes that vary with scale, no field).
    public var problem: String?

    /// Reads one entry of a renderer's `visualVariables`; nil for a type not listed above.
    public init?(json: JSONObject) {
        let type = json.string("type")
        switch type {
        case "colorInfo": kind = .color
        case "sizeInfo": kind = .size
        case "opacityInfo", "transparencyInfo": kind = .opacity
        case "rotationInfo": kind = .rotation
        default: return nil
        }
        field = json.string("field").flatMap { $0.isEmpty ? nil : $0 }
        normalizationField = json.string("normalizationField").flatMap { $0.isEmpty ? nil : $0 }
        sizesOutline = json.string("target") == "outline"
        arithmeticRotation = json.string("rotationType") == "arithmetic"
        problem = nil
        stops = []
        let transparency = type == "transparencyInfo"
        for stop in json.array("stops") ?? [] {
            guard case .object(let s) = stop, let value = s.double("value"), value.isFinite else { continue }
            var opacity = s.double("opacity")
            if transparency, let t = s.double("transparency") { opacity = 1 - t / 100 }
            stops.append(Stop(value: value, color: RGBAColor(s["color"]), size: s.double("size"), opacity: opacity, label: s.string("label")))
        }
        stops.sort { $0.value < $1.value }
        if kind == .size && stops.isEmpty {
            if let lower = json.double("minDataValue"), let upper = json.double("maxDataValue"),
               let small = json.double("minSize"), let large = json.double("maxSize") {
                stops = [Stop(value: lower, size: small), Stop(value: upper, size: large)]
            } else if json.object("minSize") != nil || json.object("maxSize") != nil {
                problem = "its sizes vary with the map's scale, which is not modelled"
            }
            if let unit = json.string("valueUnit"), unit != "unknown" {
                problem = "its sizes are in real-world units (\(unit)), which are not modelled"
            }
        }
        if json.string("valueExpression") != nil {
            problem = "it is an Arcade expression, which is not evaluated"
        } else if field == nil {
            problem = "it names no field"
        } else if kind != .rotation && stops.isEmpty && problem == nil {
            problem = "it has no stops"
        }
    }

    /// Whether the variable changes anything.
    public var isActive: Bool { problem == nil }

    /// The value a feature is styled by, or nil when it has none.
    public func value(_ value: (String) -> JSONValue) -> Double? {
        guard isActive, let field, let x = RendererValue.number(value(field)) else { return nil }
        guard let normalizationField else { return x }
        guard let divisor = RendererValue.number(value(normalizationField)), divisor != 0 else { return nil }
        let result = x / divisor
        return result.isFinite ? result : nil
    }

    /// The two stops around `x` and how far between them it lies (0 at the first, 1 at the
    /// second); at or past an end, that end twice.
    func bracket(_ x: Double) -> (Stop, Stop, Double)? {
        guard let first = stops.first, let last = stops.last else { return nil }
        if x <= first.value { return (first, first, 0) }
        if x >= last.value { return (last, last, 0) }
        let upper = stops.firstIndex { $0.value >= x }!
        let a = stops[upper - 1], b = stops[upper]
        return (a, b, b.value == a.value ? 0 : (x - a.value) / (b.value - a.value))
    }

    static func mix(_ a: Double, _ b: Double, _ t: Double) -> Double { a + (b - a) * t }

    /// `symbol` as this variable styles a feature whose value is `x`.
    public func apply(to symbol: Symbol, value x: Double) -> Symbol {
        switch kind {
        case .rotation:
            // Geographic: turned clockwise by the value (an arrow drawn pointing north points
            // at the bearing). Arithmetic: the value counts counter-clockwise from east, so 0
            // turns the arrow 90 degrees clockwise. A symbol's `angle` counts counter-clockwise.
            let clockwise = arithmeticRotation ? 90 - x : x
            return symbol.rotated(by: -clockwise)
        case .color:
            guard let (a, b, t) = bracket(x), let ca = a.color, let cb = b.color else { return symbol }
            let color = RGBAColor(
                red: Int(Self.mix(Double(ca.red), Double(cb.red), t).rounded()),
                green: Int(Self.mix(Double(ca.green), Double(cb.green), t).rounded()),
                blue: Int(Self.mix(Double(ca.blue), Double(cb.blue), t).rounded()),
                alpha: Int(Self.mix(Double(ca.alpha), Double(cb.alpha), t).rounded()))
            return symbol.recoloured(color)
        case .size:
            guard let (a, b, t) = bracket(x), let sa = a.size, let sb = b.size else { return symbol }
            let size = Self.mix(sa, sb, t)
            return sizesOutline ? symbol.withOutlineWidth(size) : symbol.resized(size)
        case .opacity:
            guard let (a, b, t) = bracket(x), let oa = a.opacity, let ob = b.opacity else { return symbol }
            return symbol.fading(by: min(max(Self.mix(oa, ob, t), 0), 1))
        }
    }

    /// What a legend shows for the variable: each stop's value (or label) with `base` as the
    /// variable styles it there. Rotation has no legend.
    public func legend(base: Symbol) -> [RendererClasses.LegendEntry] {
        guard isActive, kind != .rotation else { return [] }
        return stops.map { stop in
            RendererClasses.LegendEntry(label: stop.label ?? JSONWriter.formatNumber(stop.value), symbol: apply(to: base, value: stop.value))
        }
    }
}

extension Symbol {
    /// The symbol in another colour: a marker's or fill's fill, a line's stroke; a picture
    /// marker is unchanged.
    public func recoloured(_ color: RGBAColor) -> Symbol {
        switch self {
        case .simpleMarker(var s): s.color = color; return .simpleMarker(s)
        case .simpleLine(var s): s.color = color; return .simpleLine(s)
        case .simpleFill(var s): s.color = color; return .simpleFill(s)
        case .pictureMarker, .other: return self
        }
    }

    /// The symbol at another size in points: a marker's size, a line's width; a fill is
    /// unchanged (ArcGIS sizes polygons' outlines only with `target: "outline"`).
    public func resized(_ points: Double) -> Symbol {
        switch self {
        case .simpleMarker(var s): s.size = points; return .simpleMarker(s)
        case .simpleLine(var s): s.width = points; return .simpleLine(s)
        case .pictureMarker(var p):
            // Keep the picture's proportions.
            if let w = p.width, let h = p.height, h > 0 { p.width = points * w / h }
            p.height = points
            return .pictureMarker(p)
        case .simpleFill, .other: return self
        }
    }

    /// The symbol with its outline `points` wide.
    public func withOutlineWidth(_ points: Double) -> Symbol {
        switch self {
        case .simpleMarker(var s):
            if s.outline != nil { s.outline?.width = points }
            return .simpleMarker(s)
        case .simpleFill(var s):
            if s.outline != nil { s.outline?.width = points }
            return .simpleFill(s)
        case .simpleLine, .pictureMarker, .other: return self
        }
    }

    /// The symbol with every colour's alpha multiplied by `opacity`.
    public func fading(by opacity: Double) -> Symbol {
        func fade(_ c: RGBAColor?) -> RGBAColor? {
            c.map { RGBAColor(red: $0.red, green: $0.green, blue: $0.blue, alpha: Int((Double($0.alpha) * opacity).rounded())) }
        }
        switch self {
        case .simpleMarker(var s):
            let outline = s.outline?.color
            s.color = fade(s.color)
            s.outline?.color = fade(outline)
            return .simpleMarker(s)
        case .simpleLine(var s): s.color = fade(s.color); return .simpleLine(s)
        case .simpleFill(var s):
            let outline = s.outline?.color
            s.color = fade(s.color)
            s.outline?.color = fade(outline)
            return .simpleFill(s)
        case .pictureMarker, .other: return self
        }
    }

    /// A marker turned by `degrees` more, counter-clockwise as the web map's `angle` counts.
    public func rotated(by degrees: Double) -> Symbol {
        switch self {
        case .simpleMarker(var s): s.angle = (s.angle ?? 0) + degrees; return .simpleMarker(s)
        case .pictureMarker(var p): p.angle = (p.angle ?? 0) + degrees; return .pictureMarker(p)
        case .simpleLine, .simpleFill, .other: return self
        }
    }
}
