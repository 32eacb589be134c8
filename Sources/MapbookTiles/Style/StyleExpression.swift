#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookSupport

/// Evaluates MapLibre style values for one feature at one zoom: expressions
/// (https://maplibre.org/maplibre-style-spec/expressions/), the legacy filters and the legacy
/// zoom and property functions (`{"stops": ...}`) that older styles, Esri's among them, use.
///
/// Values are `JSONValue`s; colours stay text ("#rrggbb", "rgba(...)") until `StyleColor`
/// reads them, and an `interpolate` between colours writes "rgba(r,g,b,a)". An expression this
/// evaluator does not know, or one given the wrong types, evaluates to nil (MapLibre's
/// evaluation error), and the caller falls back to the property's default; `unsupported`
/// collects the operators met that are not implemented, so a renderer can say what it left out.
public struct StyleExpression {
    /// What one feature offers an expression.
    public struct Feature: Sendable {
        public var properties: [String: JSONValue]
        /// "Point", "LineString" or "Polygon".
        public var geometryType: String
        public var id: JSONValue

        public init(properties: [String: JSONValue], geometryType: String, id: JSONValue = .null) {
            self.properties = properties
            self.geometryType = geometryType
            self.id = id
        }

        public static let none = Feature(properties: [:], geometryType: "Point")
    }

    public var zoom: Double
    public var feature: Feature
    /// Operators met that this evaluator does not implement.
    public private(set) var unsupported: Set<String> = []
    private var bindings: [String: JSONValue] = [:]

    public init(zoom: Double, feature: Feature = .none) {
        self.zoom = zoom
        self.feature = feature
    }

    // MARK: - Property values

    /// A paint or layout property's value: a constant, a legacy function or an expression.
    ///
    /// An array is an expression only when it starts with an operator's name, as MapLibre
    /// decides: `text-font: ["Noto Sans Regular"]` and `text-variable-anchor: ["top", "left"]`
    /// are constants.
    public mutating func value(_ property: JSONValue) -> JSONValue? {
        switch property {
        case .object(let function) where function.contains("stops"):
            return legacyFunction(function)
        case .array(let items) where items.first?.stringValue.map(Self.operators.contains) == true:
            return evaluate(property)
        default:
            return property
        }
    }

    /// The expression operators of the MapLibre style specification (implemented or not: an
    /// expression with one this evaluator lacks is an evaluation error, not a constant).
    static let operators: Set<String> = [
        "literal", "array", "boolean", "collator", "format", "image", "number", "number-format", "object", "string",
        "to-boolean", "to-color", "to-number", "to-string", "typeof", "accumulated", "feature-state", "geometry-type", "id",
        "line-progress", "properties", "at", "case", "coalesce", "match", "within", "distance", "global-state", "in",
        "index-of", "length", "slice", "split", "join", "let", "var", "!", "!=", "<", "<=", "==", ">", ">=", "all", "any",
        "step", "interpolate", "interpolate-hcl", "interpolate-lab", "ln2", "pi", "e", "zoom", "heatmap-density",
        "elevation", "get", "has", "!has", "concat", "downcase", "upcase", "is-supported-script", "resolved-locale",
        "rgb", "rgba", "to-rgba", "-", "*", "/", "%", "^", "+", "abs", "acos", "asin", "atan", "ceil", "cos", "floor",
        "ln", "log10", "log2", "max", "min", "round", "sin", "sqrt", "tan",
    ]

    /// Whether a layer's `filter` keeps the feature (a missing filter keeps everything).
    public mutating func filter(_ filter: JSONValue?) -> Bool {
        guard let filter else { return true }
        if Self.isExpressionFilter(filter) {
            return evaluate(filter)?.boolValue == true
        }
        return legacyFilter(filter)
    }

    /// Whether a property's value depends on the feature (so it cannot be evaluated once per
    /// layer and zoom).
    public static func dependsOnFeature(_ value: JSONValue) -> Bool {
        switch value {
        case .object(let f): return f.string("property") != nil
        case .array(let items):
            if let op = items.first?.stringValue, ["get", "has", "properties", "geometry-type", "id", "feature-state"].contains(op) { return true }
            return items.contains(where: dependsOnFeature)
        default: return false
        }
    }

    /// The feature properties a value reads (`get` and `has` of literal names, a legacy
    /// function's `property`), when those and the geometry type are all it reads of the
    /// feature; nil when it reads more (all properties, the id, feature state, computed names).
    /// A value is then the same for features that agree on these, at one zoom.
    public static func featureKeys(_ value: JSONValue) -> Set<String>? {
        var keys = Set<String>()
        func scan(_ value: JSONValue) -> Bool {
            switch value {
            case .object(let f):
                if let property = f.string("property") { keys.insert(property) }
                return true
            case .array(let items):
                if let op = items.first?.stringValue {
                    if ["properties", "id", "feature-state", "accumulated", "line-progress", "heatmap-density"].contains(op) { return false }
                    if ["get", "has", "!has"].contains(op) {
                        // A name from the feature itself, or from another object, is not a key.
                        guard items.count == 2, let name = items[1].stringValue else { return false }
                        keys.insert(name)
                        return true
                    }
                    if op == "literal" { return true }
                }
                return items.allSatisfy(scan)
            default:
                return true
            }
        }
        return scan(value) ? keys : nil
    }

    // MARK: - Legacy functions

    mutating func legacyFunction(_ f: JSONObject) -> JSONValue? {
        let stops = (f.array("stops") ?? []).compactMap { $0.arrayValue }.filter { $0.count == 2 }
        guard !stops.isEmpty else { return f["default"] }
        let base = f.double("base") ?? 1
        let input: JSONValue
        if let property = f.string("property") {
            input = feature.properties[property] ?? .null
        } else {
            input = .number(zoom)
        }
        var type = f.string("type")
        if type == nil {
            // Numbers and colours interpolate; anything else steps (the spec's default).
            let outputs = stops.map { $0[1] }
            let interpolatable = outputs.allSatisfy { $0.doubleValue != nil || ($0.stringValue.flatMap(StyleColor.init(text:)) != nil) || Self.isNumberArray($0) }
            type = f.string("property") != nil && input.stringValue != nil ? "categorical" : (interpolatable ? "exponential" : "interval")
        }
        switch type {
        case "identity":
            return input == .null ? f["default"] : input
        case "categorical":
            for stop in stops where Self.same(stop[0], input) { return stop[1] }
            return f["default"]
        case "interval":
            guard let x = input.doubleValue else { return f["default"] }
            var result = stops[0][1]
            for stop in stops { if let s = stop[0].doubleValue ?? stop[0].objectValue?.double("zoom"), s <= x { result = stop[1] } }
            return result
        default:
            guard let x = input.doubleValue else { return f["default"] }
            let points = stops.compactMap { stop -> (Double, JSONValue)? in
                guard let s = stop[0].doubleValue ?? stop[0].objectValue?.double("zoom") else { return nil }
                return (s, stop[1])
            }
            return interpolate(points, at: x, base: base)
        }
    }

    static func isNumberArray(_ v: JSONValue) -> Bool {
        guard case .array(let items) = v else { return false }
        return !items.isEmpty && items.allSatisfy { $0.doubleValue != nil }
    }

    /// Exponential interpolation (`base` 1: linear) between the stops around `x`; clamped at
    /// the ends.
    func interpolate(_ stops: [(Double, JSONValue)], at x: Double, base: Double) -> JSONValue? {
        guard let first = stops.first, let last = stops.last else { return nil }
        if x <= first.0 { return first.1 }
        if x >= last.0 { return last.1 }
        guard let upper = stops.firstIndex(where: { $0.0 > x }), upper > 0 else { return last.1 }
        let (x0, a) = stops[upper - 1], (x1, b) = stops[upper]
        let span = x1 - x0
        guard span > 0 else { return b }
        let t = base == 1 ? (x - x0) / span : (pow(base, x - x0) - 1) / (pow(base, span) - 1)
        return Self.mix(a, b, t)
    }

    static func mix(_ a: JSONValue, _ b: JSONValue, _ t: Double) -> JSONValue? {
        if let x = a.doubleValue, let y = b.doubleValue { return .number(x + (y - x) * t) }
        if case .array(let xs) = a, case .array(let ys) = b, xs.count == ys.count {
            var out: [JSONValue] = []
            for (x, y) in zip(xs, ys) {
                guard let m = mix(x, y, t) else { return nil }
                out.append(m)
            }
            return .array(out)
        }
        if let s = a.stringValue, let u = b.stringValue, let c = StyleColor(text: s), let d = StyleColor(text: u) {
            return .string(c.mixed(with: d, t).text)
        }
        return t < 1 ? a : b
    }

    // MARK: - Legacy filters

    /// Whether a filter is written as an expression rather than in the legacy filter syntax
    /// (MapLibre's `isExpressionFilter`).
    static func isExpressionFilter(_ filter: JSONValue) -> Bool {
        if case .bool = filter { return true }
        guard case .array(let f) = filter, let op = f.first?.stringValue else { return false }
        switch op {
        case "has": return f.count >= 2 && f[1].stringValue != "$id" && f[1].stringValue != "$type"
        case "in": return f.count >= 3 && (f[1].stringValue == nil || f[2].arrayValue != nil)
        case "!in", "!has", "none": return false
        case "==", "!=", ">", ">=", "<", "<=": return f.count != 3 || f[1].arrayValue != nil || f[2].arrayValue != nil
        case "any", "all":
            return f.dropFirst().allSatisfy { if case .bool = $0 { return true }; return isExpressionFilter($0) }
        default: return true
        }
    }

    func legacyValue(_ key: String) -> JSONValue {
        switch key {
        case "$type": return .string(feature.geometryType)
        case "$id": return feature.id
        default: return feature.properties[key] ?? .null
        }
    }

    mutating func legacyFilter(_ filter: JSONValue) -> Bool {
        guard case .array(let f) = filter, let op = f.first?.stringValue else { return true }
        let key = f.count > 1 ? f[1].stringValue ?? "" : ""
        switch op {
        case "all": return f.dropFirst().allSatisfy { legacyFilter($0) }
        case "any": return f.dropFirst().contains { legacyFilter($0) }
        case "none": return !f.dropFirst().contains { legacyFilter($0) }
        case "has": return key == "$type" || key == "$id" ? true : feature.properties[key] != nil
        case "!has": return key == "$type" ? false : feature.properties[key] == nil
        case "in", "!in":
            let v = legacyValue(key)
            let found = f.dropFirst(2).contains { Self.same($0, v) }
            return op == "in" ? found : !found
        case "==", "!=":
            guard f.count == 3 else { return false }
            let equal = Self.same(legacyValue(key), f[2])
            return op == "==" ? equal : !equal
        case "<", "<=", ">", ">=":
            guard f.count == 3, let order = Self.compare(legacyValue(key), f[2]) else { return false }
            switch op {
            case "<": return order < 0
            case "<=": return order <= 0
            case ">": return order > 0
            default: return order >= 0
            }
        default:
            unsupported.insert("filter " + op)
            return false
        }
    }

    // MARK: - Expressions

    /// Equal values of the same type; numbers by value.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.integer, .integer), (.integer, .number), (.number, .integer), (.number, .number): return a.doubleValue == b.doubleValue
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    /// -1, 0, 1 for two numbers or two strings; nil for values that do not compare.
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int? {
        if let x = a.numberOnly, let y = b.numberOnly { return x < y ? -1 : (x > y ? 1 : 0) }
        if case .string(let x) = a, case .string(let y) = b { return x < y ? -1 : (x > y ? 1 : 0) }
        return nil
    }

    /// The value of an expression, or nil when it cannot be evaluated.
    public mutating func evaluate(_ expression: JSONValue) -> JSONValue? {
        guard case .array(let e) = expression, let op = e.first?.stringValue else {
            if case .array = expression { return expression }
            return expression
        }
        let args = Array(e.dropFirst())
        func arg(_ i: Int) -> JSONValue? { i < args.count ? evaluate(args[i]) : nil }
        func number(_ i: Int) -> Double? { arg(i)?.numberOnly }
        switch op {
        case "literal": return args.first
        case "get":
            guard let name = arg(0)?.stringValue else { return nil }
            if args.count > 1 { return arg(1)?.objectValue?[name] ?? .null }
            return feature.properties[name] ?? .null
        case "has":
            guard let name = arg(0)?.stringValue else { return nil }
            return .bool(feature.properties[name] != nil)
        case "!has":
            guard let name = arg(0)?.stringValue else { return nil }
            return .bool(feature.properties[name] == nil)
        case "properties":
            var o = JSONObject()
            for (k, v) in feature.properties { o[k] = v }
            return .object(o)
        case "geometry-type": return .string(feature.geometryType)
        case "id": return feature.id
        case "zoom": return .number(zoom)
        case "var":
            guard let name = args.first?.stringValue else { return nil }
            return bindings[name]
        case "let":
            let saved = bindings
            defer { bindings = saved }
            var i = 0
            while i + 1 < args.count {
                guard let name = args[i].stringValue else { return nil }
                bindings[name] = evaluate(args[i + 1]) ?? .null
                i += 2
            }
            return args.last.flatMap { evaluate($0) }
        case "==", "!=":
            guard let a = arg(0), let b = arg(1) else { return nil }
            return .bool(Self.same(a, b) == (op == "=="))
        case "<", "<=", ">", ">=":
            guard let a = arg(0), let b = arg(1), let order = Self.compare(a, b) else { return .bool(false) }
            switch op {
            case "<": return .bool(order < 0)
            case "<=": return .bool(order <= 0)
            case ">": return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case "all":
            for i in args.indices where arg(i)?.boolValue != true { return .bool(false) }
            return .bool(true)
        case "any":
            for i in args.indices where arg(i)?.boolValue == true { return .bool(true) }
            return .bool(false)
        case "!": return arg(0)?.boolValue.map { .bool(!$0) }
        case "case":
            var i = 0
            while i + 1 < args.count {
                if arg(i)?.boolValue == true { return arg(i + 1) }
                i += 2
            }
            return args.count % 2 == 1 ? arg(args.count - 1) : nil
        case "match":
            guard let input = arg(0) else { return nil }
            var i = 1
            while i + 1 < args.count {
                let labels = args[i].arrayValue ?? [args[i]]
                if labels.contains(where: { Self.same($0, input) }) { return arg(i + 1) }
                i += 2
            }
            return args.count % 2 == 0 ? arg(args.count - 1) : nil
        case "coalesce":
            for i in args.indices { if let v = arg(i), v != .null { return v } }
            return .null
        case "step":
            guard let x = number(0), args.count >= 2 else { return nil }
            var chosen = 1
            var i = 2
            while i + 1 < args.count, let stop = args[i].doubleValue, stop <= x {
                chosen = i + 1
                i += 2
            }
            return arg(chosen)
        case "interpolate", "interpolate-hcl", "interpolate-lab":
            guard let kind = args.first?.arrayValue, let x = number(1) else { return nil }
            var base = 1.0
            switch kind.first?.stringValue {
            case "linear": base = 1
            case "exponential": base = kind.count > 1 ? kind[1].doubleValue ?? 1 : 1
            case "cubic-bezier": base = 1  // drawn as linear: the curve's ends agree
            default: return nil
            }
            var stops: [(Double, JSONValue)] = []
            var i = 2
            while i + 1 < args.count {
                guard let s = args[i].doubleValue, let v = arg(i + 1) else { return nil }
                stops.append((s, v))
                i += 2
            }
            return interpolate(stops, at: x, base: base)
        case "in":
            guard let needle = arg(0), let haystack = arg(1) else { return nil }
            if case .string(let s) = haystack, case .string(let n) = needle { return .bool(s.contains(n)) }
            if case .array(let items) = haystack { return .bool(items.contains { Self.same($0, needle) }) }
            return .bool(false)
        case "at":
            guard let i = number(0), case .array(let items)? = arg(1), i >= 0, Int(i) < items.count else { return nil }
            return items[Int(i)]
        case "length":
            switch arg(0) {
            case .string(let s)?: return .integer(Int64(s.count))
            case .array(let a)?: return .integer(Int64(a.count))
            default: return nil
            }
        case "typeof":
            switch arg(0) {
            case .string?: return "string"
            case .integer?, .number?: return "number"
            case .bool?: return "boolean"
            case .array?: return "array"
            case .object?: return "object"
            default: return "null"
            }
        case "string", "number", "boolean", "object", "array":
            // Type assertions: the first argument of the type, else the next.
            for i in args.indices {
                guard let v = arg(i) else { continue }
                switch (op, v) {
                case ("string", .string), ("number", .integer), ("number", .number), ("boolean", .bool), ("object", .object), ("array", .array): return v
                default: continue
                }
            }
            return nil
        case "to-string":
            guard let v = arg(0) else { return nil }
            return .string(Self.text(v))
        case "to-number":
            for i in args.indices {
                switch arg(i) {
                case .integer(let n)?: return .number(Double(n))
                case .number(let d)?: return .number(d)
                case .bool(let b)?: return .number(b ? 1 : 0)
                case .null?: return .number(0)
                case .string(let s)?: if let d = Double(s.trimmingWhitespace()) { return .number(d) }
                default: break
                }
            }
            return nil
        case "to-boolean":
            switch arg(0) {
            case .bool(let b)?: return .bool(b)
            case .string(let s)?: return .bool(!s.isEmpty)
            case .integer(let n)?: return .bool(n != 0)
            case .number(let d)?: return .bool(d != 0 && !d.isNaN)
            case .null?, nil: return .bool(false)
            default: return .bool(true)
            }
        case "to-color":
            for i in args.indices { if let s = arg(i)?.stringValue, let c = StyleColor(text: s) { return .string(c.text) } }
            return nil
        case "rgb", "rgba":
            guard let r = number(0), let g = number(1), let b = number(2) else { return nil }
            let a = op == "rgba" ? number(3) ?? 1 : 1
            return .string(StyleColor(red: r / 255, green: g / 255, blue: b / 255, alpha: a).text)
        case "concat":
            var s = ""
            for i in args.indices { s += arg(i).map(Self.text) ?? "" }
            return .string(s)
        case "upcase": return arg(0)?.stringValue.map { .string($0.uppercased()) }
        case "downcase": return arg(0)?.stringValue.map { .string($0.lowercased()) }
        case "format":
            // Rich text is drawn plain: the sections' texts joined.
            var s = ""
            for (i, a) in args.enumerated() where a.objectValue == nil {
                if let v = arg(i) { s += Self.text(v) }
            }
            return .string(s)
        case "image": return arg(0)
        case "number-format":
            guard let x = number(0) else { return nil }
            let options = args.count > 1 ? args[1].objectValue : nil
            let places = options?.double("max-fraction-digits").map(Int.init) ?? 3
            var scaled = x
            for _ in 0..<places { scaled *= 10 }
            scaled = scaled.rounded()
            for _ in 0..<places { scaled /= 10 }
            return .string(JSONWriter.formatNumber(scaled))
        case "+":
            var s = 0.0
            for i in args.indices { guard let x = number(i) else { return nil }; s += x }
            return .number(s)
        case "*":
            var p = 1.0
            for i in args.indices { guard let x = number(i) else { return nil }; p *= x }
            return .number(p)
        case "-":
            guard let a = number(0) else { return nil }
            if args.count == 1 { return .number(-a) }
            guard let b = number(1) else { return nil }
            return .number(a - b)
        case "/": guard let a = number(0), let b = number(1) else { return nil }; return .number(a / b)
        case "%": guard let a = number(0), let b = number(1) else { return nil }; return .number(fmod(a, b))
        case "^": guard let a = number(0), let b = number(1) else { return nil }; return .number(pow(a, b))
        case "abs": return number(0).map { .number(Swift.abs($0)) }
        case "ceil": return number(0).map { .number($0.rounded(.up)) }
        case "floor": return number(0).map { .number($0.rounded(.down)) }
        case "round": return number(0).map { .number($0.rounded(.toNearestOrAwayFromZero)) }
        case "sqrt": return number(0).map { .number($0.squareRoot()) }
        case "ln": return number(0).map { .number(log($0)) }
        case "log10": return number(0).map { .number(log10($0)) }
        case "log2": return number(0).map { .number(log2($0)) }
        case "min":
            var m = Double.infinity
            for i in args.indices { guard let x = number(i) else { return nil }; m = Swift.min(m, x) }
            return .number(m)
        case "max":
            var m = -Double.infinity
            for i in args.indices { guard let x = number(i) else { return nil }; m = Swift.max(m, x) }
            return .number(m)
        case "pi": return .number(Double.pi)
        case "e": return .number(M_E)
        default:
            unsupported.insert(op)
            return nil
        }
    }

    /// A value as `to-string` writes it.
    static func text(_ v: JSONValue) -> String {
        switch v {
        case .null: return ""
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .number(let d): return JSONWriter.formatNumber(d)
        default: return JSONWriter.string(v, style: .compact)
        }
    }
}

extension JSONValue {
    /// The number, for numbers only (not text that reads as one).
    var numberOnly: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }
}
