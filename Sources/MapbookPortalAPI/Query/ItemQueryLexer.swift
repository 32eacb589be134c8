/// Splits a `q` into the tokens `ItemQueryParser` reads: parentheses, operators, phrases,
/// ranges and words.
///
/// Positions are 1-based offsets in Unicode scalars, the unit error messages name.
struct ItemQueryLexer {
    /// One character of a word, and whether a backslash made it literal.
    struct Character: Equatable {
        var scalar: Unicode.Scalar
        var escaped: Bool
    }

    struct Token: Equatable {
        enum Kind: Equatable {
            case open, close, and, or, not, plus, minus
            case phrase(String)
            /// `[lower TO upper]` or `{lower TO upper}`; nil bounds were `*`.
            case range(lower: String?, upper: String?, inclusive: Bool)
            /// A word, possibly `field:value`, or `field:` when the value follows as its own token.
            case word([Character])
        }

        var kind: Kind
        var position: Int
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    mutating func tokens() throws(PortalError) -> [Token] {
        var tokens: [Token] = []
        while true {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            guard index < scalars.count else { return tokens }
            let start = index
            let position = start + 1
            switch scalars[index] {
            case "(":
                index += 1
                tokens.append(Token(kind: .open, position: position))
            case ")":
                index += 1
                skipBoost()
                tokens.append(Token(kind: .close, position: position))
            // `+` and `-` are operators only where a term starts: `e-mail` is one word.
            case "+":
                index += 1
                tokens.append(Token(kind: .plus, position: position))
            case "-":
                index += 1
                tokens.append(Token(kind: .minus, position: position))
            case "\"":
                let text = try quoted()
                skipBoost()
                tokens.append(Token(kind: .phrase(text), position: position))
            case "[", "{":
                let range = try range()
                skipBoost()
                tokens.append(Token(kind: range, position: position))
            default:
                let word = self.word()
                tokens.append(Token(kind: Self.operatorKind(word) ?? .word(word), position: position))
            }
        }
    }

    /// AND, OR and NOT in capitals are operators; `and` or `\AND` are words.
    private static func operatorKind(_ word: [Character]) -> Token.Kind? {
        guard word.count <= 3, word.allSatisfy({ !$0.escaped }) else { return nil }
        switch String(String.UnicodeScalarView(word.map(\.scalar))) {
        case "AND": return .and
        case "OR": return .or
        case "NOT": return .not
        default: return nil
        }
    }

    /// Reads a word up to white space, a parenthesis or a quote. A colon followed by `[` or `{`
    /// ends the word too, so that `created:[a TO b]` is the word `created:` and a range.
    private mutating func word() -> [Character] {
        var word: [Character] = []
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar.properties.isWhitespace || scalar == "(" || scalar == ")" || scalar == "\"" { break }
            if scalar == "\\", index + 1 < scalars.count {
                word.append(Character(scalar: scalars[index + 1], escaped: true))
                index += 2
                continue
            }
            word.append(Character(scalar: scalar, escaped: false))
            index += 1
            if scalar == ":", index < scalars.count, scalars[index] == "[" || scalars[index] == "{" { break }
        }
        return word
    }

    /// Reads a double-quoted phrase; a backslash makes the next character literal.
    private mutating func quoted() throws(PortalError) -> String {
        let open = index
        index += 1
        var text = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\"" {
                index += 1
                return String(text)
            }
            if scalar == "\\", index + 1 < scalars.count {
                text.append(scalars[index + 1])
                index += 2
                continue
            }
            text.append(scalar)
            index += 1
        }
        throw ItemQueryParser.error(
            at: open + 1, in: scalars,
            "the quote that starts a phrase here is never closed; add a closing \" or write \\\" for a literal quote")
    }

    /// Reads `[lower TO upper]` (bounds included) or `{lower TO upper}` (bounds excluded).
    private mutating func range() throws(PortalError) -> Token.Kind {
        let open = index
        let inclusive = scalars[index] == "["
        index += 1
        let lower = try bound(openedAt: open)
        skipSpace()
        guard index + 1 < scalars.count, scalars[index] == "T", scalars[index + 1] == "O",
            index + 2 >= scalars.count || scalars[index + 2].properties.isWhitespace
        else {
            guard index < scalars.count else { throw unclosedRange(openedAt: open) }
            throw ItemQueryParser.error(
                at: index + 1, in: scalars, "a range is written [lower TO upper] or {lower TO upper}; 'TO' is missing here")
        }
        index += 2
        let upper = try bound(openedAt: open)
        skipSpace()
        guard index < scalars.count else { throw unclosedRange(openedAt: open) }
        let close = scalars[index]
        guard close == (inclusive ? "]" : "}") else {
            throw ItemQueryParser.error(
                at: index + 1, in: scalars,
                "a range is closed by the bracket that opens it: [lower TO upper] includes both bounds, {lower TO upper} excludes both")
        }
        index += 1
        return .range(lower: lower, upper: upper, inclusive: inclusive)
    }

    /// Reads one bound of a range: a quoted string, `*` (open) or text up to space or a bracket.
    private mutating func bound(openedAt open: Int) throws(PortalError) -> String? {
        skipSpace()
        guard index < scalars.count else { throw unclosedRange(openedAt: open) }
        if scalars[index] == "\"" { return try quoted() }
        var text = String.UnicodeScalarView()
        var escaped = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar.properties.isWhitespace || scalar == "]" || scalar == "}" { break }
            if scalar == "\\", index + 1 < scalars.count {
                text.append(scalars[index + 1])
                escaped = true
                index += 2
                continue
            }
            text.append(scalar)
            index += 1
        }
        if text.isEmpty {
            throw ItemQueryParser.error(
                at: index + 1, in: scalars, "a range needs a lower and an upper bound; use * for an open end")
        }
        return !escaped && text.count == 1 && text.first == "*" ? nil : String(text)
    }

    private func unclosedRange(openedAt open: Int) -> PortalError {
        ItemQueryParser.error(
            at: open + 1, in: scalars,
            "the range that starts here is never closed; write it as [lower TO upper] or {lower TO upper}")
    }

    private mutating func skipSpace() {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
    }

    /// Skips a `^2` or `^0.5` boost after a phrase, range or group. Results are not ranked, so a
    /// boost changes nothing; it is accepted because the search reference documents it.
    private mutating func skipBoost() {
        guard index < scalars.count, scalars[index] == "^" else { return }
        var end = index + 1
        while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == "." { end += 1 }
        if end > index + 1 { index = end }
    }
}
