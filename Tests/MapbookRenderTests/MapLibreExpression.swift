import Foundation
import MapbookPackage
import MapbookSupport

/// A small evaluator of the MapLibre style expressions the backdrop's styles use, after the
/// style specification (https://maplibre.org/maplibre-style-spec/expressions/), to check
/// compiled renderers against drawing feature by feature.
///
/// Conversions follow ECMAScript, as MapLibre GL JS does: `to-number` reads text as
/// `Number(text)` does (blank text is 0, "0x1F" is 31, "Infinity" is infinite), `to-string`
/// writes numbers as `String(number)` does.
enum MapLibreExpression {
    struct Unsupported: Error, CustomStringConvertible {
        var expression: JSONValue
        var description: String { "cannot evaluate \(expression)" }
    }

    static func evaluate(_ e: JSONValue, properties: [String: JSONValue], bindings: [String: JSONValue] = [:]) throws -> JSONValue {
        guard case .array(let items) = e, case .string(let op)? = items.first else { return e }
        let args = Array(items.dropFirst())
        func eval(_ x: JSONValue, _ b: [String: JSONValue]? = nil) throws -> JSONValue {
            try evaluate(x, properties: properties, bindings: b ?? bindings)
        }
        func number(_ x: JSONValue) throws -> Double {
            switch try eval(x) {
            case .integer(let i): return Double(i)
            case .number(let d): return d
            default: throw Unsupported(expression: e)
            }
        }
        switch op {
        case "get":
            guard case .string(let name) = args[0] else { throw Unsupported(expression: e) }
            return properties[name] ?? .null
        case "var":
            guard case .string(let name) = args[0], let value = bindings[name] else { throw Unsupported(expression: e) }
            return value
        case "let":
            var b = bindings
            var i = 0
            while i + 1 < args.count {
                guard case .string(let name) = args[i] else { throw Unsupported(expression: e) }
                b[name] = try eval(args[i + 1], b)
                i += 2
            }
            return try eval(args[args.count - 1], b)
        case "case":
            var i = 0
            while i + 1 < args.count {
                if try eval(args[i]) == true { return try eval(args[i + 1]) }
                i += 2
            }
            return try eval(args[args.count - 1])
        case "match":
            let input = try eval(args[0])
            var i = 1
            while i + 1 < args.count {
                let labels: [JSONValue] = if case .array(let list) = args[i] { list } else { [args[i]] }
                if labels.contains(where: { same($0, input) }) { return try eval(args[i + 1]) }
                i += 2
            }
            return try eval(args[args.count - 1])
        case "step":
            let input = try number(args[0])
            var result = args[1]
            var i = 2
            while i + 1 < args.count, try number(args[i]) <= input {
                result = args[i + 1]
                i += 2
            }
            return try eval(result)
        case "all": return .bool(try args.allSatisfy { try eval($0) == true })
        case "any": return .bool(try args.contains { try eval($0) == true })
        case "!": return .bool(try eval(args[0]) != true)
        case "==": return .bool(same(try eval(args[0]), try eval(args[1])))
        case "!=": return .bool(!same(try eval(args[0]), try eval(args[1])))
        case "<": return .bool(try number(args[0]) < number(args[1]))
        case "<=": return .bool(try number(args[0]) <= number(args[1]))
        case ">": return .bool(try number(args[0]) > number(args[1]))
        case ">=": return .bool(try number(args[0]) >= number(args[1]))
        case "abs": return .number(abs(try number(args[0])))
        case "/": return .number(try number(args[0]) / number(args[1]))
        case "*": return .number(try number(args[0]) * number(args[1]))
        case "log10": return .number(log10(try number(args[0])))
        case "typeof":
            switch try eval(args[0]) {
            case .null: return "null"
            case .bool: return "boolean"
            case .integer, .number: return "number"
            case .string: return "string"
            case .array: return "array"
            case .object: return "object"
            }
        case "in":
            guard case .string(let needle) = try eval(args[0]), case .string(let haystack) = try eval(args[1]) else {
                throw Unsupported(expression: e)
            }
            return .bool(haystack.contains(needle))
        case "to-string": return .string(try toString(eval(args[0])))
        case "concat": return .string(try args.map { try toString(eval($0)) }.joined())
        case "interpolate":
            // Linear only: numbers, and colours channel by channel in 0-255 (rounded to whole
            // channels, as drawing's colours are).
            guard case .array(let kind) = args[0], kind.first == "linear" else { throw Unsupported(expression: e) }
            let input = try number(args[1])
            var stops: [(Double, JSONValue)] = []
            var i = 2
            while i + 1 < args.count {
                stops.append((try number(args[i]), args[i + 1]))
                i += 2
            }
            guard let first = stops.first, let last = stops.last else { throw Unsupported(expression: e) }
            if input <= first.0 { return try eval(first.1) }
            if input >= last.0 { return try eval(last.1) }
            let upper = stops.firstIndex { $0.0 >= input }!
            let (x0, y0) = stops[upper - 1], (x1, y1) = stops[upper]
            let t = (input - x0) / (x1 - x0)
            switch (try eval(y0), try eval(y1)) {
            case (.string(let a), .string(let b)):
                guard let ca = color(a), let cb = color(b) else { throw Unsupported(expression: e) }
                let mixed = zip(ca, cb).map { Int(($0 + ($1 - $0) * t).rounded()) }
                if mixed[3] >= 255 { return .string(RGBAColor(red: mixed[0], green: mixed[1], blue: mixed[2]).description) }
                let alpha = (Double(mixed[3]) / 255 * 1000).rounded() / 1000
                return .string("rgba(\(mixed[0]),\(mixed[1]),\(mixed[2]),\(JSONWriter.formatNumber(alpha)))")
            case (let a, let b):
                let na = try number(a), nb = try number(b)
                return .number(na + (nb - na) * t)
            }
        case "to-number":
            for arg in args {
                switch try eval(arg) {
                case .null: return 0
                case .bool(let b): return b ? 1 : 0
                case .integer(let i): return .number(Double(i))
                case .number(let d): return .number(d)
                case .string(let s): if let d = ecmaScriptNumber(s), !d.isNaN { return .number(d) }
                default: break
                }
            }
            throw Unsupported(expression: e)
        default:
            throw Unsupported(expression: e)
        }
    }

    /// A style colour ("#rrggbb" or "rgba(r,g,b,a)") as red, green, blue and alpha in 0-255.
    static func color(_ text: String) -> [Double]? {
        if text.hasPrefix("#"), let c = RGBAColor(hex: text) {
            return [Double(c.red), Double(c.green), Double(c.blue), Double(c.alpha)]
        }
        guard text.hasPrefix("rgba("), text.hasSuffix(")") else { return nil }
        let parts = text.dropFirst(5).dropLast().split(separator: ",").compactMap { Double($0) }
        guard parts.count == 4 else { return nil }
        return [parts[0], parts[1], parts[2], parts[3] * 255]
    }

    /// Strict equality: values of different types are unequal; numbers compare by value.
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.integer, .integer), (.integer, .number), (.number, .integer), (.number, .number): return a == b
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    static func toString(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return s
        case .integer(let i): return RendererValue.text(of: Double(i))
        case .number(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            return RendererValue.text(of: d)
        default: return "\(value)"
        }
    }

    /// ECMAScript's `Number(text)`: NaN for text that is not a number.
    static func ecmaScriptNumber(_ text: String) -> Double? {
        let s = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        if s.isEmpty { return 0 }
        switch s {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        for (prefix, radix) in [("0x", 16), ("0X", 16), ("0o", 8), ("0O", 8), ("0b", 2), ("0B", 2)] where s.hasPrefix(prefix) {
            return Int(s.dropFirst(2), radix: radix).map(Double.init) ?? .nan
        }
        let allowed = Set("0123456789+-.eE")
        guard s.allSatisfy(allowed.contains), s.contains(where: \.isNumber), !s.lowercased().contains("x") else { return .nan }
        return Double(s) ?? .nan
    }
}
