import MapbookSupport

/// How renderers read a field's value: as a number where it is one, or text that reads as one.
///
/// The rules are those of a MapLibre `to-number` over ECMAScript's string-to-number conversion,
/// so that compiled styles class a value as drawing does: surrounding white space is ignored,
/// decimal and `0x`/`0o`/`0b` integer literals read, while empty text, infinities and
/// anything else stay text. Numbers are written as ECMAScript writes them (`3`, `0.5`, `1e+21`).
/// (https://tc39.es/ecma262/#sec-stringtonumber, #sec-numeric-types-number-tostring;
/// white space is Swift's `Character.isWhitespace`, which differs from ECMAScript's only in
/// rare characters such as U+0085 and U+FEFF.)
public enum RendererValue {
    /// How a null value is written in unique value classes.
    public static let nullText = "<Null>"

    /// The value as a finite number, or nil: booleans, null and other text are none.
    public static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .number(let d): return d.isFinite ? d : nil
        case .string(let s): return number(reading: s)
        default: return nil
        }
    }

    /// The number text spells, or nil.
    public static func number(reading text: String) -> Double? {
        var trimmed = Substring(text)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        let s = String(trimmed)
        guard !s.isEmpty else { return nil }
        let scalars = Array(s.unicodeScalars)
        if scalars.count > 2, scalars[0] == "0" {
            let radix: Int?
            switch scalars[1] {
            case "x", "X": radix = 16
            case "o", "O": radix = 8
            case "b", "B": radix = 2
            default: radix = nil
            }
            if let radix {
                var result = 0.0
                for c in scalars.dropFirst(2) {
                    guard let digit = Int(String(c), radix: radix) else { return nil }
                    result = result * Double(radix) + Double(digit)
                }
                return result.isFinite ? result : nil
            }
        }
        // [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
        var i = 0
        func digits() -> Int {
            let start = i
            while i < scalars.count, ("0"..."9").contains(scalars[i]) { i += 1 }
            return i - start
        }
        if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { i += 1 }
        var mantissa = digits()
        if i < scalars.count, scalars[i] == "." {
            i += 1
            mantissa += digits()
        }
        guard mantissa > 0 else { return nil }
        if i < scalars.count, scalars[i] == "e" || scalars[i] == "E" {
            i += 1
            if i < scalars.count, scalars[i] == "+" || scalars[i] == "-" { i += 1 }
            guard digits() > 0 else { return nil }
        }
        guard i == scalars.count, let d = Double(s), d.isFinite else { return nil }
        return d
    }

    /// A value as unique value keys compare it: "<Null>" for null, numbers (and text that
    /// reads as one) in ECMAScript's form, other text as it is.
    public static func keyText(of value: JSONValue) -> String {
        switch value {
        case .null: return nullText
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return keyText(of: s)
        case .integer, .number: return number(value).map(text(of:)) ?? nullText
        case .array, .object: return nullText
        }
    }

    /// Text as unique value keys compare it: a number in ECMAScript's form, else as it is.
    public static func keyText(of text: String) -> String {
        number(reading: text).map(Self.text(of:)) ?? text
    }

    /// A finite number as ECMAScript's `Number.prototype.toString` writes it.
    public static func text(of d: Double) -> String {
        if d == 0 { return "0" }
        // Whole numbers below 2^53 print as their integer digits: the common case (codes,
        // classes), without the general path's string surgery.
        if d.rounded(.towardZero) == d, abs(d) < 9_007_199_254_740_992 { return String(Int64(d)) }
        if d < 0 { return "-" + text(of: -d) }
        // Swift writes the same shortest digits, in its own layout: "1.5e-07", "123.0".
        let description = d.description
        let parts = description.split(separator: "e", maxSplits: 1)
        var exponent = parts.count > 1 ? Int(parts[1])! : 0
        let mantissa = parts[0]
        let dot = mantissa.firstIndex(of: ".") ?? mantissa.endIndex
        exponent += mantissa.distance(from: mantissa.startIndex, to: dot)
        var digits = String(mantissa.filter { $0 != "." })
        while digits.first == "0" {
            digits.removeFirst()
            exponent -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        // d = 0.digits x 10^exponent
        let k = digits.count, n = exponent
        if k <= n && n <= 21 { return digits + String(repeating: "0", count: n - k) }
        if 0 < n && n <= 21 { return String(digits.prefix(n)) + "." + String(digits.dropFirst(n)) }
        if -6 < n && n <= 0 { return "0." + String(repeating: "0", count: -n) + digits }
        let e = n - 1
        let head = k == 1 ? digits : String(digits.prefix(1)) + "." + String(digits.dropFirst())
        return head + "e" + (e < 0 ? "-" : "+") + String(abs(e))
    }
}
