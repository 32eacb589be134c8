/// Serialises `JSONValue` as UTF-8 JSON, keeping key order.
///
/// Numbers use the shortest form that reads back to the same Double; integral values are
/// written without a fraction, as JavaScript does. Non-finite numbers, which JSON cannot hold,
/// are written as `null`.
public struct JSONWriter {
    public enum Style: Sendable {
        case compact
        /// Two-space indentation, one member per line.
        case pretty
    }

    public static func bytes(_ value: JSONValue, style: Style = .pretty) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(value, into: &out, style: style, indent: 0)
        if style == .pretty { out.append(0x0A) }
        return out
    }

    public static func string(_ value: JSONValue, style: Style = .pretty) -> String {
        String(decoding: bytes(value, style: style), as: UTF8.self)
    }

    /// Appends `value` as compact JSON to `out`: for writers that stream a large answer
    /// rather than build it as one `JSONValue`.
    public static func append(_ value: JSONValue, to out: inout [UInt8]) {
        write(value, into: &out, style: .compact, indent: 0)
    }

    /// Appends `text` as a JSON string (quoted, escaped) to `out`.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        writeString(text, into: &out)
    }

    private static func newline(_ out: inout [UInt8], indent: Int) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * 2))
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], style: Style, indent: Int) {
        switch value {
        case .null: out.append(contentsOf: nullBytes)
        case .bool(let b): out.append(contentsOf: b ? trueBytes : falseBytes)
        case .integer(let i): writeInteger(i, into: &out)
        case .number(let d):
            if d.rounded() == d, abs(d) < 9.007_199_254_740_992e15, let i = Int64(exactly: d) {
                writeInteger(i, into: &out)
            } else if d.isFinite {
                out.append(contentsOf: d.description.utf8)
            } else {
                out.append(contentsOf: nullBytes)
            }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            if items.isEmpty {
                out.append(UInt8(ascii: "]"))
                return
            }
            // Short arrays of scalars (coordinates, colours) stay on one line when pretty.
            let inline = style == .compact || (items.count <= 8 && items.allSatisfy(\.isScalar))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if inline {
                    if i > 0 && style == .pretty { out.append(0x20) }
                } else {
                    newline(&out, indent: indent + 1)
                }
                write(item, into: &out, style: style, indent: indent + 1)
            }
            if !inline { newline(&out, indent: indent) }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            if object.isEmpty {
                out.append(UInt8(ascii: "}"))
                return
            }
            for (i, entry) in object.entries.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if style == .pretty { newline(&out, indent: indent + 1) }
                writeString(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if style == .pretty { out.append(0x20) }
                write(entry.value, into: &out, style: style, indent: indent + 1)
            }
            if style == .pretty { newline(&out, indent: indent) }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// The shortest text for `d` that reads back as `d`; integral values without a fraction.
    public static func formatNumber(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d.rounded() == d, abs(d) < 9.007_199_254_740_992e15, let i = Int64(exactly: d) {
            return String(i)
        }
        return d.description
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)

    /// Decimal digits without making a String (a feature service writes thousands a request).
    private static func writeInteger(_ i: Int64, into out: inout [UInt8]) {
        if i == 0 {
            out.append(0x30)
            return
        }
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = i.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[19 - count] = UInt8(magnitude % 10) + 0x30
                magnitude /= 10
                count += 1
            }
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }

    private static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text needs no escape: copied whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(0x5C)
                out.append(byte)
            case 0x0A, 0x0D, 0x09, 0x08, 0x0C:
                out.append(0x5C)
                out.append(byte == 0x0A ? UInt8(ascii: "n") : byte == 0x0D ? UInt8(ascii: "r") : byte == 0x09 ? UInt8(ascii: "t") : byte == 0x08 ? UInt8(ascii: "b") : UInt8(ascii: "f"))
            case 0..<0x20:
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }
}
