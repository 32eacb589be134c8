import MapbookSupport
import Testing

/// One case of the JSON reading rules (stated on `JSONLexer`) and what it must read as, run
/// through the in-memory parser, the chunked file reader and the GeoJSON importer alike.
public struct JSONRuleCase: Sendable, CustomStringConvertible {
    public enum Outcome: Sendable {
        case reads(JSONValue)
        case refused(JSONError.Kind)
    }

    public var name: String
    /// A whole document.
    public var text: [UInt8]
    public var outcome: Outcome
    /// Whether the text can stand as a value inside another document (not a BOM, trailing
    /// content or a depth case, which are about whole documents).
    public var isValue: Bool

    public var description: String { name }

    init(_ name: String, _ text: String, _ outcome: Outcome, isValue: Bool = true) {
        self.init(name, Array(text.utf8), outcome, isValue: isValue)
    }

    init(_ name: String, _ text: [UInt8], _ outcome: Outcome, isValue: Bool = true) {
        self.name = name
        self.text = text
        self.outcome = outcome
        self.isValue = isValue
    }

    public static let all: [JSONRuleCase] = [
        // Numbers (RFC 8259 section 6).
        .init("a leading zero", "01", .refused(.invalidNumber)),
        .init("a leading zero after a minus", "[-012]", .refused(.invalidNumber)),
        .init("a bare minus", "[-]", .refused(.invalidNumber)),
        .init("a plus sign", "+1", .refused(.unexpectedCharacter)),
        .init("no digit before the point", ".5", .refused(.unexpectedCharacter)),
        .init("no digit after the point", "[1.]", .refused(.invalidNumber)),
        .init("no digit in the exponent", "[1e+]", .refused(.invalidNumber)),
        .init("a second minus", "[1-2]", .refused(.invalidNumber)),
        .init("an exponent too large", "[1e400]", .reads([.number(.infinity)])),
        .init("a negative exponent too large", "[-1.5e999]", .reads([.number(-.infinity)])),
        .init("an exponent too small", "[1e-400]", .reads([.number(0)])),
        .init("minus zero", "[-0]", .reads([.integer(0)])),
        .init("minus zero with a fraction", "[-0.0]", .reads([.number(-0.0)])),
        .init("the largest 64-bit integer", "9223372036854775807", .reads(.integer(.max))),
        .init("the smallest 64-bit integer", "-9223372036854775808", .reads(.integer(.min))),
        .init("an integer beyond 64 bits", "9223372036854775808", .reads(.number(9.223_372_036_854_775_808e18))),
        .init("an exponent makes a number", "[1E2, 2.5e-1]", .reads([.number(100), .number(0.25)])),
        // Strings (section 7) and Unicode (section 8).
        .init("a surrogate pair", #"["\ud83d\ude00"]"#, .reads(["😀"])),
        .init("a lone high surrogate", #"["a\ud800b"]"#, .reads(["a\u{FFFD}b"])),
        .init("a lone high surrogate before an escape", #"["\ud800\u0041"]"#, .reads(["\u{FFFD}A"])),
        .init("two high surrogates then a low one", #"["\ud800\ud83d\ude00"]"#, .reads(["\u{FFFD}😀"])),
        .init("a lone high surrogate at the end", #"["\ud800"]"#, .reads(["\u{FFFD}"])),
        .init("a lone low surrogate", #"["\udc00x"]"#, .reads(["\u{FFFD}x"])),
        .init("bytes that are not UTF-8", [0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D], .reads(["a\u{FFFD}"])),
        .init("a raw control character", "[\"a\u{1}b\"]", .refused(.controlCharacterInString)),
        .init("a raw line feed", "[\"a\nb\"]", .refused(.controlCharacterInString)),
        .init("a raw DEL", "[\"a\u{7F}b\"]", .reads(["a\u{7F}b"])),
        .init("an unknown escape", #"["\x41"]"#, .refused(.invalidEscape)),
        .init("a short \\u escape", #"["\u12g4"]"#, .refused(.invalidEscape)),
        .init("every escape", #"["\"\\\/\b\f\n\r\t\u00e9"]"#, .reads(["\"\\/\u{8}\u{C}\n\r\té"])),
        .init("an unterminated string", "[\"abc", .refused(.unexpectedEnd)),
        // Structure.
        .init("a repeated key", #"{"a": 1, "b": 2, "a": 3}"#, .reads(["a": 3, "b": 2])),
        .init("a trailing comma in an array", "[1,]", .refused(.unexpectedCharacter)),
        .init("a trailing comma in an object", #"{"a": 1,}"#, .refused(.unexpectedCharacter)),
        .init("a missing colon", #"{"a" 1}"#, .refused(.unexpectedCharacter)),
        .init("an unquoted key", "{a: 1}", .refused(.unexpectedCharacter)),
        .init("a misspelt literal", "[nul]", .refused(.invalidLiteral)),
        .init("a capitalised literal", "[True]", .refused(.unexpectedCharacter)),
        .init("an unclosed array", "[1, 2", .refused(.unexpectedEnd)),
        .init("nothing", "", .refused(.unexpectedEnd), isValue: false),
        .init("only whitespace", " \n\t\r ", .refused(.unexpectedEnd), isValue: false),
        .init("a byte order mark", [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8), .reads(["a": 1]), isValue: false),
        .init("a byte order mark not at the start", [0x20, 0xEF, 0xBB, 0xBF, 0x31], .refused(.unexpectedCharacter), isValue: false),
        .init("a second value", "{} {}", .refused(.trailingContent), isValue: false),
        .init("text after the value", "[1] x", .refused(.trailingContent), isValue: false),
        .init(
            "nesting at the limit", String(repeating: "[", count: 256) + String(repeating: "]", count: 256),
            .reads((0..<255).reduce(JSONValue.array([])) { inner, _ in .array([inner]) }), isValue: false),
        .init(
            "nesting beyond the limit", String(repeating: "[", count: 257) + String(repeating: "]", count: 257),
            .refused(.tooDeep), isValue: false),
    ]
}

extension JSONRuleCase {
    /// Expects `result` to be this case's outcome: the same value, kind for kind (so `-0`
    /// must read as an integer), or a refusal of the expected kind that names `path`.
    public func expect(_ result: Result<JSONValue, JSONError>, path: String, _ label: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        let label = "\(name)\(label)"
        switch (result, outcome) {
        case (.success(let value), .reads(let expected)):
            #expect(String(reflecting: value) == String(reflecting: expected), "\(label)", sourceLocation: sourceLocation)
        case (.failure(let error), .refused(let kind)):
            #expect(error.kind == kind, "\(label): \(error)", sourceLocation: sourceLocation)
            #expect(error.path == path && error.description.hasPrefix(path), "\(label): the error names the file", sourceLocation: sourceLocation)
        case (.success(let value), .refused(let kind)):
            Issue.record("\(label): read \(value), expected a refusal (\(kind))", sourceLocation: sourceLocation)
        case (.failure(let error), .reads):
            Issue.record("\(label): refused (\(error)), expected to read", sourceLocation: sourceLocation)
        }
    }
}
