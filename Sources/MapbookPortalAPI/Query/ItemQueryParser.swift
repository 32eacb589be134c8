// The search `q` grammar, as ArcGIS Online and the `arcgis` Python client speak it.
//
// What the documents say:
// - ArcGIS REST API, "Search reference"
//   (https://developers.arcgis.com/rest/users-groups-and-items/search-reference.htm, and its
//   older edition at resources.arcgis.com/en/help/arcgis-rest-api/#/Search_reference/02r3000000mn000000/):
//   single words and double-quoted phrases; `field:term` for one field; default fields title,
//   tags, snippet, description, type and typekeywords; AND, OR, NOT, `+` (required) and `-`
//   (excluded), operators in capitals only; parentheses; ranges inclusive `[a TO b]` or
//   exclusive `{a TO b}`, on dates as zero-padded epoch milliseconds
//   (`created:[0000001249084800000 TO 0000001249548000000]`) and on text
//   (`owner:{arcgis_explorer TO esri}`); `?` and `*` wildcards within single words, not in
//   phrases; `^n` boosts.
// - ArcGIS Enterprise portal, "Use advanced search" (10.9.1, 11.2 and latest,
//   enterprise.arcgis.com/en/portal/<version>/use/advanced-search.htm): "map services returns
//   items with both map and services in the field".
//
// The default operator between adjacent terms is AND, as those pages say. Older editions said
// OR ("map services returns items with either maps or services", and the REST reference's
// `recent +fires` "must contain fires and may contain recent"). AND is also what the `arcgis`
// client (2.4.4) relies on: `ContentManager.search` keeps a search inside the organization by
// appending ` accountid:<org id>` after a space, and tells users to parenthesise OR clauses for
// that reason (`water AND  (type:"mobile map package") accountid:0123456789abcdef`).
//
// Where this grammar departs from the service, and why:
// - Precedence is plain boolean logic: NOT, `+` and `-` bind tightest, then AND (written or
//   implied), then OR. Lucene's clause lists give mixed AND/OR without parentheses other
//   meanings; with AND as the default, `+term` is simply `term`.
// - A field the service knows but this portal does not keep (`spatialreference`, `itemtype`,
//   `categories`), or any unknown field, matches nothing. The search reference does not say
//   what an unknown field does; the service's index answers a term in a field it has no
//   values for with no items, and so does this portal.
// - No stemming and no relevance: `fires` does not find `fire`, and boosts are read and ignored.
// - Open range ends (`[* TO b]`) and `field:(a b)` groups are Lucene syntax that the service's
//   engine accepts; the search reference shows neither, the `arcgis` client sends the second
//   (`type:(Application)`).
// - Range brackets must match: `[a TO b}` is an error rather than a half-open range.
// - A term with no letters or digits (`&&`, a lone `-`) has no words to search: it is dropped
//   from its clause, and a query left with nothing matches nothing.
// - A lone `*` (`Hurricane *`, as the client's docs write it) matches every item.
// - Limits: `ItemQuery.maximumLength` scalars and `ItemQuery.maximumDepth` levels of nesting,
//   so that no query can exhaust the stack or the CPU.

/// Parses a `q` into an `ItemQuery`, by recursive descent over `ItemQueryLexer`'s tokens.
///
/// query := or; or := and ("OR" and)*; and := unary (["AND"] unary)*;
/// unary := ("NOT" | "+" | "-") unary | primary;
/// primary := "(" or ")" | phrase | field-range | word | "field:" unary.
struct ItemQueryParser {
    private let scalars: [Unicode.Scalar]
    private var tokens: [ItemQueryLexer.Token] = []
    private var index = 0
    private var depth = 0

    init(_ q: String) {
        scalars = Array(q.unicodeScalars.prefix(ItemQuery.maximumLength + 1))
    }

    mutating func parse() throws(PortalError) -> ItemQuery {
        guard scalars.count <= ItemQuery.maximumLength else {
            throw PortalError.badRequest(
                "The search query (q) is longer than \(ItemQuery.maximumLength) characters; search with fewer terms.")
        }
        var lexer = ItemQueryLexer(scalars)
        tokens = try lexer.tokens()
        guard !tokens.isEmpty else { return .all }
        let query = try parseOr(field: nil)
        if index < tokens.count {
            // Every other token is consumed, so what stops the top level is a `)`.
            throw error(at: tokens[index].position, "this ')' has no '(' before it")
        }
        return query ?? .not(.all)
    }

    // MARK: - Grammar. A nil result is a clause with no words to search, dropped by its parent.

    private mutating func parseOr(field: String?) throws(PortalError) -> ItemQuery? {
        var operands = [try parseAnd(field: field)]
        while let token = peek, token.kind == .or {
            index += 1
            try requireOperand(after: token, named: "OR")
            operands.append(try parseAnd(field: field))
        }
        return Self.combine(operands.compactMap { $0 }, with: ItemQuery.or)
    }

    private mutating func parseAnd(field: String?) throws(PortalError) -> ItemQuery? {
        var operands = [try parseUnary(field: field)]
        while let token = peek {
            switch token.kind {
            case .or, .close: return Self.combine(operands.compactMap { $0 }, with: ItemQuery.and)
            case .and:
                index += 1
                try requireOperand(after: token, named: "AND")
            default: break  // Adjacent terms: the default operator, AND.
            }
            operands.append(try parseUnary(field: field))
        }
        return Self.combine(operands.compactMap { $0 }, with: ItemQuery.and)
    }

    private mutating func parseUnary(field: String?) throws(PortalError) -> ItemQuery? {
        guard let token = peek else { throw error(at: scalars.count + 1, "a term is missing at the end of the query") }
        let negate: Bool
        switch token.kind {
        case .not, .minus: negate = true
        case .plus: negate = false
        case .and, .or:
            let name = token.kind == .and ? "AND" : "OR"
            throw error(at: token.position, "'\(name)' needs a term on each side")
        default: return try parsePrimary(field: field)
        }
        index += 1
        let name = token.kind == .not ? "NOT" : token.kind == .plus ? "+" : "-"
        try requireOperand(after: token, named: name, side: "after it")
        try enter(at: token.position)
        defer { depth -= 1 }
        let operand = try parseUnary(field: field)
        return negate ? operand.map(ItemQuery.not) : operand
    }

    private mutating func parsePrimary(field: String?) throws(PortalError) -> ItemQuery? {
        let token = tokens[index]
        index += 1
        switch token.kind {
        case .open:
            try enter(at: token.position)
            defer { depth -= 1 }
            guard let next = peek else { throw error(at: token.position, "this '(' is never closed; add a ')' or remove it") }
            if next.kind == .close { throw error(at: token.position, "these parentheses hold no terms") }
            let inner = try parseOr(field: field)
            guard let close = peek, close.kind == .close else {
                throw error(at: token.position, "this '(' is never closed; add a ')' or remove it")
            }
            index += 1
            return inner
        case .close:
            throw error(at: token.position, "this ')' has no '(' before it")
        case .phrase(let text):
            return try term(field: field, value: text, phrase: true, prefix: false, at: token.position)
        case .range(let lower, let upper, let inclusive):
            return try range(field: field, lower: lower, upper: upper, inclusive: inclusive, at: token.position)
        case .word(let characters):
            return try word(characters, field: field, at: token.position)
        case .and, .or, .not, .plus, .minus:
            // parseUnary handles these before calling here.
            throw error(at: token.position, "a term is missing here")
        }
    }

    /// A word: `value`, `field:value`, or `field:` with its value in the next token.
    private mutating func word(_ characters: [ItemQueryLexer.Character], field: String?, at position: Int) throws(PortalError)
        -> ItemQuery?
    {
        var field = field
        var value = characters[...]
        if let colon = characters.firstIndex(where: { $0.scalar == ":" && !$0.escaped }), colon > 0 {
            let name = String(String.UnicodeScalarView(characters[..<colon].map(\.scalar)))
            // `*:*` is Lucene's "everything"; `*:word` searches the default fields.
            field = name == "*" ? nil : ItemQueryField(name: name)?.rawValue ?? name.lowercased()
            value = characters[(colon + 1)...]
            if value.isEmpty {
                guard let next = peek, next.kind != .close, next.kind != .and, next.kind != .or else {
                    throw error(at: position, "the field '\(name):' has no value; write \(name):word, \(name):\"a phrase\" or \(name):[lower TO upper]")
                }
                // `name: "x"` or `type:(a b)`: the field applies to what follows, which may nest.
                try enter(at: position)
                defer { depth -= 1 }
                return try parseUnary(field: field)
            }
        }
        value = Self.droppingBoost(value)
        guard !value.isEmpty else { return nil }
        let wildcards = value.filter { !$0.escaped && ($0.scalar == "*" || $0.scalar == "?") }
        if wildcards.count == value.count, wildcards.allSatisfy({ $0.scalar == "*" }) {
            // A lone `*`: every item, or, in a field, every item with a value there.
            guard let field else { return .all }
            return try term(field: field, value: "", phrase: false, prefix: true, at: position)
        }
        let text = String(String.UnicodeScalarView(value.map(\.scalar)))
        if wildcards.isEmpty {
            // Escaped `\*` or `\?` are literal, which the phrase form says.
            let literal = value.contains { $0.escaped && ($0.scalar == "*" || $0.scalar == "?") }
            return try term(field: field, value: text, phrase: literal, prefix: false, at: position)
        }
        if wildcards.count == 1, let last = value.last, last.scalar == "*", !last.escaped {
            return try term(field: field, value: String(text.unicodeScalars.dropLast()), phrase: false, prefix: true, at: position)
        }
        // Other wildcards stay in the value; an escaped `*` beside them becomes a wildcard too,
        // since the value cannot mark which are literal. Words with both are not realistic.
        return try term(field: field, value: text, phrase: false, prefix: false, at: position)
    }

    /// Drops a trailing `^2` or `^0.5` boost from a word.
    private static func droppingBoost(_ value: ArraySlice<ItemQueryLexer.Character>) -> ArraySlice<ItemQueryLexer.Character> {
        guard let caret = value.lastIndex(where: { $0.scalar == "^" && !$0.escaped }) else { return value }
        let number = value[(caret + 1)...]
        guard !number.isEmpty, number.allSatisfy({ ("0"..."9").contains($0.scalar) || $0.scalar == "." }),
            number.contains(where: { $0.scalar != "." })
        else { return value }
        return value[..<caret]
    }

    // MARK: - Terms

    private func term(field: String?, value: String, phrase: Bool, prefix: Bool, at position: Int) throws(PortalError)
        -> ItemQuery?
    {
        let known = field.flatMap(ItemQueryField.init(rawValue:))
        switch known?.kind {
        case .number?:
            let name = field ?? ""
            if prefix, value.isEmpty { return .term(field: name, value: value, phrase: phrase, prefix: prefix) }
            guard !prefix, Self.isNumber(value) else {
                throw error(at: position, Self.numberAdvice(for: name, found: value))
            }
        case .text?, nil:
            // An unknown field keeps its term, which matches nothing; text with no words is dropped.
            if field == nil || known != nil {
                if !(prefix && value.isEmpty), TokenPattern.patterns(value: value, phrase: phrase, prefix: prefix).isEmpty {
                    return nil
                }
            }
        case .exact?: break
        }
        return .term(field: field, value: value, phrase: phrase, prefix: prefix)
    }

    private func range(field: String?, lower: String?, upper: String?, inclusive: Bool, at position: Int) throws(PortalError)
        -> ItemQuery
    {
        guard let field else {
            throw error(at: position, "a range needs a field: write it as created:[lower TO upper] or title:{a TO m}")
        }
        if ItemQueryField(rawValue: field)?.kind == .number {
            for bound in [lower, upper] {
                if let bound, !Self.isNumber(bound) { throw error(at: position, Self.numberAdvice(for: field, found: bound)) }
            }
        }
        return .range(field: field, lower: lower, upper: upper, inclusive: inclusive)
    }

    /// Whether `text` is a decimal number: digits with an optional sign and fraction, as dates
    /// (zero-padded epoch milliseconds) and counts are written.
    static func isNumber(_ text: String) -> Bool {
        var scalars = text.unicodeScalars[...]
        if scalars.first == "-" || scalars.first == "+" { scalars = scalars.dropFirst() }
        let parts = scalars.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, parts.count == 1 || !parts[1].isEmpty else { return false }
        return parts.allSatisfy { $0.allSatisfy { ("0"..."9").contains($0) } }
    }

    private static func numberAdvice(for field: String, found value: String) -> String {
        let shown = value.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(value.unicodeScalars.prefix(40))) + "…" : value
        if field == "created" || field == "modified" {
            return "\(field) takes epoch milliseconds, not '\(shown)': write \(field):[0000001249084800000 TO 0000001249548000000]"
        }
        return "\(field) takes a number, not '\(shown)': write \(field):3 or \(field):[1 TO 5]"
    }

    // MARK: - Helpers

    private var peek: ItemQueryLexer.Token? { index < tokens.count ? tokens[index] : nil }

    /// Throws unless a term can follow the operator just read.
    private func requireOperand(after token: ItemQueryLexer.Token, named name: String, side: String = "on each side")
        throws(PortalError)
    {
        guard let next = peek, next.kind != .close, next.kind != .and, next.kind != .or else {
            throw error(at: token.position, "'\(name)' needs a term \(side)")
        }
    }

    private mutating func enter(at position: Int) throws(PortalError) {
        depth += 1
        if depth > ItemQuery.maximumDepth {
            throw error(
                at: position,
                "parentheses and NOT, + and - nest more than \(ItemQuery.maximumDepth) deep here; simplify the query")
        }
    }

    /// Joins operands into a balanced tree, so that a long run of terms nests only log2(n) deep.
    private static func combine(_ operands: [ItemQuery], with join: (ItemQuery, ItemQuery) -> ItemQuery) -> ItemQuery? {
        func build(_ slice: ArraySlice<ItemQuery>) -> ItemQuery {
            if slice.count == 1 { return slice[slice.startIndex] }
            let middle = slice.startIndex + slice.count / 2
            return join(build(slice[..<middle]), build(slice[middle...]))
        }
        return operands.isEmpty ? nil : build(operands[...])
    }

    private func error(at position: Int, _ problem: String) -> PortalError {
        Self.error(at: position, in: scalars, problem)
    }

    /// A bad-request error naming the position and the problem, with the query around it.
    static func error(at position: Int, in scalars: [Unicode.Scalar], _ problem: String) -> PortalError {
        let offset = min(max(position - 1, 0), scalars.count)
        let before = scalars[max(0, offset - 20)..<offset]
        let after = scalars[offset..<min(scalars.count, offset + 20)]
        let context =
            (before.startIndex > 0 ? "…" : "") + String(String.UnicodeScalarView(before)) + "⟦here⟧"
            + String(String.UnicodeScalarView(after)) + (after.endIndex < scalars.count ? "…" : "")
        return PortalError.badRequest(
            "Cannot parse the search query (q) at position \(position): \(problem).", details: [context])
    }
}
