/// A layer's `definitionExpression` that `FeatureFilter` refuses, naming the expression, the
/// character where the problem is and what to write instead, e.g.
/// `Cannot use the filter 'STATUS = ': expected a value after '=' at character 9`.
public struct FeatureFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem the expression has.
    public enum Kind: Sendable, Hashable {
        /// The expression is empty or white space only.
        case empty
        /// A character that has no meaning in a filter, such as `#`, `[` or `!` alone.
        case unexpectedCharacter
        /// A string or a double-quoted field name that is never closed.
        case unterminatedString
        /// A name that is not one of the table's fields.
        case unknownField
        /// SQL that a filter may not use: functions, subqueries, `;`, comments, arithmetic,
        /// `||`, parameters, blobs, `COLLATE`, `CAST`, `CASE`, `EXISTS` and the like.
        case unsupported
        /// A literal that cannot be read: a date that is not a calendar date, a number out of
        /// range, an `ESCAPE` that is not one character.
        case invalidValue
        /// Words or symbols in the wrong order: a missing value or operator, unbalanced
        /// parentheses, tokens after the end of the condition.
        case syntax
        /// More than `FeatureFilter.maximumLength` bytes, `FeatureFilter.maximumDepth` levels
        /// of nesting or `FeatureFilter.maximumLiterals` literals.
        case tooComplex
    }

    public var kind: Kind
    /// The filter as given.
    public var expression: String
    /// The 0-based offset, in characters, of the place in `expression` where the problem is;
    /// `expression.count` when something is missing at the end.
    public var position: Int
    public var message: String

    public var description: String {
        "Cannot use the filter '\(excerpt)': \(message) at character \(position + 1)"
    }

    /// The expression, or for a long one the part around `position`, so that the message
    /// stays readable and still shows the problem.
    private var excerpt: String {
        let characters = Array(expression)
        guard characters.count > 120 else { return expression }
        let start = max(0, min(position, characters.count) - 50)
        let end = min(characters.count, start + 100)
        return (start > 0 ? "…" : "") + String(characters[start..<end]) + (end < characters.count ? "…" : "")
    }
}
