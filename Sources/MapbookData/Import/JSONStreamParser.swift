/// A JSON parser that reads values one at a time from a `ByteStream`, so a FeatureCollection
/// of any size is walked feature by feature.
///
/// Objects keep their members in order and report duplicate keys (which JSON parsers resolve
/// differently; RFC 8259 section 4). Nesting is bounded.
final class JSONStreamParser {
    enum Value {
        case null
        case bool(Bool)
        case integer(Int64)
        case number(Double)
        case string(String)
        case array([Value])
        case object([(String, Value)])

        var kindName: String {
            switch self {
            case .null: return "null"
            case .bool: return "a boolean"
            case .integer, .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }

        var double: Double? {
            switch self {
            case .integer(let i): return Double(i)
            case .number(let d): return d
            default: return nil
            }
        }

        subscript(key: String) -> Value? {
            guard case .object(let members) = self else { return nil }
            return members.last { $0.0 == key }?.1
        }
    }

    let stream: ByteStream
    /// Keys seen twice in one object since the last reset, for the reader to report.
    var duplicateKeys: [String] = []
    static let maximumDepth = 256
    private var scratch: [UInt8] = []

    init(stream: ByteStream) { self.stream = stream }

    func error(_ message: String) -> DataError {
        DataError(path: stream.path, location: "line \(stream.line)", message: message)
    }

    /// Consumes `byte` after optional whitespace, or throws.
    func expect(_ byte: UInt8, _ what: String) throws(DataError) {
        try stream.skipWhitespace()
        guard let b = try stream.next() else { throw error("the file ends where \(what) was expected") }
        guard b == byte else { throw error("expected \(what), found '\(Self.printable(b))'") }
    }

    /// The next non-whitespace byte, not consumed.
    func peekToken() throws(DataError) -> UInt8? {
        try stream.skipWhitespace()
        return try stream.peek()
    }

    func value(depth: Int = 0) throws(DataError) -> Value {
        guard depth < Self.maximumDepth else { throw error("values nested deeper than \(Self.maximumDepth) levels") }
        try stream.skipWhitespace()
        guard let b = try stream.peek() else { throw error("the file ends where a value was expected") }
        switch b {
        case UInt8(ascii: "{"):
            _ = try stream.next()
            var members: [(String, Value)] = []
            if try peekToken() == UInt8(ascii: "}") {
                _ = try stream.next()
                return .object(members)
            }
            while true {
                try stream.skipWhitespace()
                guard try stream.peek() == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
                let key = try string()
                try expect(UInt8(ascii: ":"), "':' after a member name")
                let v = try value(depth: depth + 1)
                if members.count < 64, members.contains(where: { $0.0 == key }) { duplicateKeys.append(key) }
                members.append((key, v))
                try stream.skipWhitespace()
                guard let c = try stream.next() else { throw error("the file ends inside an object") }
                if c == UInt8(ascii: "}") { return .object(members) }
                guard c == UInt8(ascii: ",") else { throw error("expected ',' or '}' in an object, found '\(Self.printable(c))'") }
            }
        case UInt8(ascii: "["):
            _ = try stream.next()
            var items: [Value] = []
            if try peekToken() == UInt8(ascii: "]") {
                _ = try stream.next()
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth + 1))
                try stream.skipWhitespace()
                guard let c = try stream.next() else { throw error("the file ends inside an array") }
                if c == UInt8(ascii: "]") { return .array(items) }
                guard c == UInt8(ascii: ",") else { throw error("expected ',' or ']' in an array, found '\(Self.printable(c))'") }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw error("unexpected '\(Self.printable(b))' where a value was expected")
        }
    }

    /// Skips one value without building it.
    func skipValue() throws(DataError) {
        _ = try value()
    }

    private func literal(_ word: StaticString) throws(DataError) {
        let bytes = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in bytes {
            guard try stream.next() == expected else { throw error("invalid literal; expected \(word)") }
        }
    }

    private func number() throws(DataError) -> Value {
        var scratch = self.scratch
        self.scratch = []
        defer {
            scratch.removeAll(keepingCapacity: true)
            self.scratch = scratch
        }
        var isInteger = true
        while let b = try stream.peek() {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"):
                scratch.append(b)
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                isInteger = false
                scratch.append(b)
            default:
                return try finishNumber(isInteger, scratch)
            }
            _ = try stream.next()
            if scratch.count > 400 { throw error("a number longer than 400 characters") }
        }
        return try finishNumber(isInteger, scratch)
    }

    private func finishNumber(_ isInteger: Bool, _ scratch: [UInt8]) throws(DataError) -> Value {
        let text = String(decoding: scratch, as: UTF8.self)
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else { throw error("invalid number '\(text)'") }
        return .number(d)
    }

    func string() throws(DataError) -> String {
        guard try stream.next() == UInt8(ascii: "\"") else { throw error("expected a string") }
        // Work on a local array (swapped out of the class) so appends skip the run-time
        // exclusivity check a stored property would take per byte.
        var scratch = self.scratch
        self.scratch = []
        defer {
            scratch.removeAll(keepingCapacity: true)
            self.scratch = scratch
        }
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard let b = try stream.next() else { throw error("the file ends inside a string") }
            switch b {
            case UInt8(ascii: "\""):
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let e = try stream.next() else { throw error("the file ends inside a string") }
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A surrogate pair: the low half must follow as another \u escape.
                        guard try stream.next() == UInt8(ascii: "\\"), try stream.next() == UInt8(ascii: "u") else {
                            throw error("an unpaired UTF-16 surrogate in a string")
                        }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("an unpaired UTF-16 surrogate in a string") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let u = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape in a string") }
                    scratch.append(contentsOf: Array(String(Character(u)).utf8))
                default:
                    throw error("an invalid escape '\\\(Self.printable(e))' in a string")
                }
            case 0..<0x20:
                throw error("a control character inside a string")
            default:
                scratch.append(b)
            }
        }
    }

    private func hex4() throws(DataError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard let h = try stream.next() else { throw error("the file ends inside a string") }
            let d: UInt32
            switch h {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(h - 48)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(h - 87)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(h - 55)
            default: throw error("an invalid \\u escape in a string")
            }
            v = v << 4 | d
        }
        return v
    }

    static func printable(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "0x" + String(b, radix: 16)
    }
}
