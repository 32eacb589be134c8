/// A JSON value that keeps what a round trip must keep: object key order, integers as integers.
///
/// Package files (`.info`, `.mmap`, `root.json`) are read and written again; keys this toolkit
/// does not model must survive unchanged (DESIGN.md 3.1, 3.2), so models keep the whole object
/// they were read from and replace only the keys they own.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer literal that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Numbers compare by value, so `8` equals `8.0`; everything else compares structurally.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.integer(a), .number(b)), let (.number(b), .integer(a)): return Double(a) == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(Double(i))
        case .number(let d): hasher.combine(d)
        case .string(let s): hasher.combine(s)
        case .array(let a): hasher.combine(a)
        case .object(let o): hasher.combine(o)
        }
    }
}

extension JSONValue {
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The value as a Double when it is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .number(let d): return d
        default: return nil
        }
    }

    /// The value as an integer when it is a number with no fractional part.
    public var intValue: Int? {
        switch self {
        case .integer(let i): return Int(exactly: i)
        case .number(let d): return d.rounded() == d ? Int(exactly: d) : nil
        default: return nil
        }
    }

    public var int64Value: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d): return d.rounded() == d ? Int64(exactly: d) : nil
        default: return nil
        }
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A JSON number for `value`: an integer when it has no fractional part.
    public static func double(_ value: Double) -> JSONValue {
        if value.isFinite, value.rounded() == value, abs(value) < 9.007_199_254_740_992e15,
            let i = Int64(exactly: value)
        {
            return .integer(i)
        }
        return .number(value)
    }

    public static func int(_ value: Int) -> JSONValue { .integer(Int64(value)) }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}
