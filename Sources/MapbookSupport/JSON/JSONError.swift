/// A JSON document that cannot be read, naming the file and the line and column of the fault.
public struct JSONError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// The text ends inside a value, or where a value was expected.
        case unexpectedEnd
        /// A byte where the grammar wants another: a missing `,`, `:` or quote, a stray character.
        case unexpectedCharacter
        /// A misspelt `true`, `false` or `null`.
        case invalidLiteral
        /// A number outside RFC 8259's grammar: a leading zero, `1.`, `.5`, `+1`, `1e`.
        case invalidNumber
        /// A backslash escape that JSON does not define, or a `\u` without four hex digits.
        case invalidEscape
        /// A raw control character (U+0000 to U+001F) inside a string.
        case controlCharacterInString
        /// Arrays and objects nested deeper than `JSONLexer.maximumDepth`.
        case tooDeep
        /// Something other than whitespace after the document's value.
        case trailingContent
        /// The file could not be opened or read.
        case unreadable
    }

    public var kind: Kind
    /// The file, when the JSON was read from one.
    public var path: String?
    /// 1-based line of the fault.
    public var line: Int
    /// 1-based column of the fault, in Unicode scalars.
    public var column: Int
    public var message: String

    public init(kind: Kind, path: String?, line: Int, column: Int, message: String) {
        self.kind = kind
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// "line 2, column 14", or empty when the file could not be read at all.
    public var location: String { kind == .unreadable ? "" : "line \(line), column \(column)" }

    public var description: String {
        let place = [path, location.isEmpty ? nil : location].compactMap(\.self)
        return place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
    }
}
