import MapbookSupport

// A layer's `definitionExpression` is the WHERE clause of ArcGIS's standardized queries: SQL-92
// predicates over the layer's fields, with Esri's `DATE 'yyyy-mm-dd'` and
// `TIMESTAMP 'yyyy-mm-dd hh:mm:ss'` literals. Web maps carry it as text, and it must never reach
// SQLite as text: the filter is parsed into a tree of the subset below, then written back as SQL
// whose only names are the table's own columns, quoted, and whose literals are all bound.
//
// Accepted:
//   filter    := or
//   or        := and ("OR" and)*
//   and       := not ("AND" not)*
//   not       := "NOT" not | "(" or ")" | predicate
//   predicate := operand ( comparison operand
//                        | ["NOT"] "IN" "(" operand ("," operand)* ")"
//                        | ["NOT"] "LIKE" operand ["ESCAPE" string]
//                        | ["NOT"] "BETWEEN" operand "AND" operand
//                        | "IS" ["NOT"] "NULL" )
//   operand   := field | "-"? number | string | N'string' | "NULL" | "TRUE" | "FALSE"
//              | "DATE" string | "TIMESTAMP" string
//   comparison := "=" | "<>" | "!=" | "<" | "<=" | ">" | ">="
//
// Where this departs from what ArcGIS services accept, and why:
// - Functions (UPPER, CHAR_LENGTH, EXTRACT, CAST), CURRENT_DATE, INTERVAL and arithmetic are
//   refused rather than translated: each needs its own SQLite spelling, and a filter that uses
//   them is rare in a web map.
// - A parenthesised value (`x = (1)`) is refused; parentheses group conditions only.
// - DATE and TIMESTAMP compare as moments: both sides go through SQLite's julianday(), because
//   GeoPackage stores a DATETIME as `YYYY-MM-DDTHH:MM:SS.SSSZ`, which as text sorts after
//   Esri's `YYYY-MM-DD HH:MM:SS` and never equals it. A time without a zone is read as UTC,
//   as julianday() reads the stored value.
// - LIKE follows SQLite: it ignores the case of ASCII letters and no others. Whether ArcGIS
//   ignores case depends on the database behind the layer.
// - Nesting and length are capped lower than a service would (`maximumDepth`,
//   `maximumConditions`) so that every accepted filter also fits SQLite's parser.

/// A layer's `definitionExpression`, parsed into a syntax tree of a safe subset of SQL.
///
/// `sql` writes the tree back as a WHERE clause for the layer's GeoPackage table, with the
/// table's columns quoted and every literal bound, so no text of the filter reaches SQLite.
public struct FeatureFilter: Sendable, Hashable {
    /// The longest filter read, in UTF-8 bytes.
    public static let maximumLength = 16 * 1024
    /// How deep parentheses and NOT may nest.
    ///
    /// SQLite's parser has a fixed stack (YYSTACKDEPTH, 100 entries in 3.40) that a clause like
    /// `(a AND (b OR (c AND …)))` overflows at about 30 levels, each level holding three
    /// entries; 24 leaves room for the query around the clause.
    public static let maximumDepth = 24
    /// How many literals (bound values) a filter may hold.
    public static let maximumLiterals = 1000
    /// How many conditions (comparisons, IN, LIKE, BETWEEN, IS NULL) a filter may hold.
    ///
    /// SQLite reads `a AND b AND c …` as a tree as deep as the list is long and refuses one
    /// deeper than 1000 (SQLITE_MAX_EXPR_DEPTH); 800 leaves room for NOT, nesting and the query
    /// around the clause.
    public static let maximumConditions = 800

    /// A condition of the filter.
    public indirect enum Node: Sendable, Hashable {
        /// Every condition holds; two or more, in the order written.
        case and([Node])
        /// Any condition holds; two or more, in the order written.
        case or([Node])
        case not(Node)
        case compare(Operand, Comparison, Operand)
        /// `value [NOT] IN (list)`; the list is never empty.
        case `in`(Operand, [Operand], negated: Bool)
        /// `value [NOT] LIKE pattern [ESCAPE 'c']`; `escape` is one Unicode scalar.
        case like(Operand, pattern: Operand, escape: String?, negated: Bool)
        case isNull(Operand, negated: Bool)
        /// `value [NOT] BETWEEN low AND high`, bounds included.
        case between(Operand, low: Operand, high: Operand, negated: Bool)
    }

    /// A value a condition tests.
    public enum Operand: Sendable, Hashable {
        /// A column, spelled as the table spells it.
        case field(String)
        case literal(SQLiteValue)
        /// A `DATE` or `TIMESTAMP` literal as ISO 8601 text, `YYYY-MM-DD` or
        /// `YYYY-MM-DDTHH:MM:SS[.fff][Z]`; compared as a moment in time.
        case date(String)
    }

    /// A comparison operator, spelled as SQL writes it.
    public enum Comparison: String, Sendable, Hashable {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    /// The text as given.
    public let expression: String
    /// The syntax tree.
    public let root: Node

    /// Parses `expression`; `fields` are the table's column names: identifiers resolve to them
    /// case-insensitively (the table's spelling is used in SQL) and an unknown one is refused.
    public init(_ expression: String, fields: [String]) throws(FeatureFilterError) {
        var parser = Parser(expression, fields: fields)
        root = try parser.parse()
        self.expression = expression
    }

    /// The WHERE clause for SQLite: columns quoted with `SQLiteDatabase.quote`, every literal as a
    /// `?` placeholder, with the values to bind in order.
    ///
    /// The clause is in parentheses of its own, so it can be joined to other conditions as is.
    public var sql: (clause: String, bindings: [SQLiteValue]) {
        var bindings: [SQLiteValue] = []
        let clause = Self.grouped(root, &bindings)
        return (clause, bindings)
    }
}

// MARK: - SQL

extension FeatureFilter {
    /// The SQL of `node` in parentheses of its own.
    private static func grouped(_ node: Node, _ bindings: inout [SQLiteValue]) -> String {
        switch node {
        case .and(let nodes), .or(let nodes):
            let join: String
            if case .and = node { join = " AND " } else { join = " OR " }
            var parts: [String] = []
            for node in nodes { parts.append(term(node, &bindings)) }
            return "(" + parts.joined(separator: join) + ")"
        case .not(let inner):
            return "(NOT " + grouped(inner, &bindings) + ")"
        case .compare, .in, .like, .isNull, .between:
            return "(" + predicate(node, &bindings) + ")"
        }
    }

    /// The SQL of `node` as a term of AND or OR: bare for a predicate, which binds tighter than
    /// both, grouped for the rest. BETWEEN is grouped too, so its own AND is never misread.
    private static func term(_ node: Node, _ bindings: inout [SQLiteValue]) -> String {
        switch node {
        case .compare, .in, .like, .isNull: return predicate(node, &bindings)
        case .and, .or, .not, .between: return grouped(node, &bindings)
        }
    }

    private static func predicate(_ node: Node, _ bindings: inout [SQLiteValue]) -> String {
        switch node {
        case .compare(let left, let comparison, let right):
            let moments = left.isDate || right.isDate
            let lhs = value(left, moments, &bindings)
            return lhs + " " + comparison.rawValue + " " + value(right, moments, &bindings)
        case .in(let operand, let list, let negated):
            let moments = operand.isDate || list.contains { $0.isDate }
            var sql = value(operand, moments, &bindings) + (negated ? " NOT IN (" : " IN (")
            var items: [String] = []
            for item in list { items.append(value(item, moments, &bindings)) }
            sql += items.joined(separator: ", ") + ")"
            return sql
        case .like(let operand, let pattern, let escape, let negated):
            var sql = value(operand, false, &bindings) + (negated ? " NOT LIKE " : " LIKE ")
            sql += value(pattern, false, &bindings)
            if let escape {
                bindings.append(.text(escape))
                sql += " ESCAPE ?"
            }
            return sql
        case .isNull(let operand, let negated):
            return value(operand, false, &bindings) + (negated ? " IS NOT NULL" : " IS NULL")
        case .between(let operand, let low, let high, let negated):
            let moments = operand.isDate || low.isDate || high.isDate
            var sql = value(operand, moments, &bindings) + (negated ? " NOT BETWEEN " : " BETWEEN ")
            sql += value(low, moments, &bindings) + " AND "
            return sql + value(high, moments, &bindings)
        case .and, .or, .not:
            return grouped(node, &bindings)
        }
    }

    /// A quoted column or a placeholder (its value appended to `bindings`), through julianday()
    /// when the predicate compares moments.
    private static func value(_ operand: Operand, _ moment: Bool, _ bindings: inout [SQLiteValue]) -> String {
        let sql: String
        switch operand {
        case .field(let name):
            sql = SQLiteDatabase.quote(name)
        case .literal(let literal):
            bindings.append(literal)
            sql = "?"
        case .date(let text):
            bindings.append(.text(text))
            sql = "?"
        }
        return moment ? "julianday(" + sql + ")" : sql
    }
}

extension FeatureFilter.Operand {
    fileprivate var isDate: Bool {
        if case .date = self { return true }
        return false
    }
}

// MARK: - Parser

extension FeatureFilter {
    /// Reads a filter by recursive descent, lexing one token ahead so that the first problem in
    /// the text is the one reported.
    ///
    /// Only parentheses and NOT recurse, and `enter` bounds both by `maximumDepth`; AND, OR and
    /// IN lists are read in loops.
    private struct Parser {
        struct Token {
            enum Kind: Equatable {
                /// A bare name or keyword, as written.
                case word(String)
                /// A double-quoted name, its quotes removed and `""` read as `"`.
                case quotedName(String)
                /// A single-quoted string, its quotes removed and `''` read as `'`.
                case string(String)
                /// Digits with an optional fraction and exponent, no sign.
                case number(String)
                /// `DATE '…'` or `TIMESTAMP '…'`: the quoted text.
                case date(String)
                case comparison(Comparison)
                case open, close, comma, minus, end
            }

            var kind: Kind
            /// Offsets in Unicode scalars: the first scalar and the one after the last.
            var start: Int
            var end: Int
        }

        /// Keywords of the grammar: never a field when written bare.
        static let keywords: Set<String> = ["AND", "OR", "NOT", "IN", "LIKE", "ESCAPE", "IS", "NULL", "BETWEEN", "TRUE", "FALSE"]
        /// SQL words a filter may not use: refused by name, rather than as unknown fields.
        static let refusedWords: Set<String> = [
            "SELECT", "FROM", "WHERE", "UNION", "INTERSECT", "EXCEPT", "EXISTS", "CASE", "WHEN", "THEN", "ELSE",
            "END", "CAST", "COLLATE", "GLOB", "REGEXP", "MATCH", "ISNULL", "NOTNULL", "DISTINCT", "ALL", "ANY",
            "SOME", "INTERVAL", "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "ILIKE", "SIMILAR", "RAISE",
        ]

        private let expression: String
        private var scalars: [Unicode.Scalar] = []
        /// The table's columns by exact name, and by lowercased name for the rest.
        private let exactFields: Set<String>
        private let foldedFields: [String: String]
        private let fieldList: [String]
        private var index = 0
        private var token = Token(kind: .end, start: 0, end: 0)
        /// The token read before `token`; nil at the start.
        private var previous: Token?
        private var started = false
        private var depth = 0
        private var literals = 0
        private var conditions = 0

        init(_ expression: String, fields: [String]) {
            self.expression = expression
            exactFields = Set(fields)
            var folded: [String: String] = [:]
            for field in fields where folded[field.lowercased()] == nil { folded[field.lowercased()] = field }
            foldedFields = folded
            fieldList = fields
        }

        mutating func parse() throws(FeatureFilterError) -> Node {
            guard expression.utf8.count <= maximumLength else {
                // Found without reading the whole text: the character where the limit is passed.
                var bytes = 0
                var position = 0
                for character in expression {
                    bytes += character.utf8.count
                    if bytes > maximumLength { break }
                    position += 1
                }
                throw FeatureFilterError(
                    kind: .tooComplex, expression: expression, position: position,
                    message: "the filter is longer than \(maximumLength) bytes; a layer's filter should be a few conditions")
            }
            scalars = Array(expression.unicodeScalars)
            try advance()
            if token.kind == .end {
                throw error(.empty, at: 0, "the filter has no condition; leave it out to show every feature")
            }
            let root = try parseOr()
            if token.kind == .close { throw error(.syntax, at: token.start, "this ')' has no '(' before it") }
            guard token.kind == .end else { throw unexpected(expecting: "AND, OR or the end of the filter") }
            return root
        }

        // MARK: Grammar

        private mutating func parseOr() throws(FeatureFilterError) -> Node {
            var nodes = [try parseAnd()]
            while isKeyword("OR") {
                try advance()
                nodes.append(try parseAnd())
            }
            return nodes.count == 1 ? nodes[0] : .or(nodes)
        }

        private mutating func parseAnd() throws(FeatureFilterError) -> Node {
            var nodes = [try parseNot()]
            while isKeyword("AND") {
                try advance()
                nodes.append(try parseNot())
            }
            return nodes.count == 1 ? nodes[0] : .and(nodes)
        }

        private mutating func parseNot() throws(FeatureFilterError) -> Node {
            let start = token
            if isKeyword("NOT") {
                try enter(start)
                defer { depth -= 1 }
                try advance()
                return .not(try parseNot())
            }
            if start.kind == .open {
                try enter(start)
                defer { depth -= 1 }
                try advance()
                let inner = try parseOr()
                guard token.kind == .close else {
                    if token.kind == .end {
                        throw error(.syntax, at: start.start, "this '(' is never closed; add a ')' or remove it")
                    }
                    throw unexpected(expecting: "')' to close the '(' at character \(characterOffset(start.start) + 1), AND or OR")
                }
                try advance()
                return inner
            }
            return try parsePredicate()
        }

        private mutating func parsePredicate() throws(FeatureFilterError) -> Node {
            switch token.kind {
            case .end, .close, .comma:
                throw unexpected(expecting: "a condition")
            case .word:
                if isKeyword("AND") || isKeyword("OR") { throw unexpected(expecting: "a condition") }
            default:
                break
            }
            conditions += 1
            if conditions > maximumConditions {
                throw error(
                    .tooComplex, at: token.start,
                    "the filter has more than \(maximumConditions) conditions; write a list of values as IN (…)")
            }
            let operand = try parseOperand()
            switch token.kind {
            case .comparison(let comparison):
                try advance()
                return .compare(operand, comparison, try parseOperand())
            case .word(let word):
                switch Self.keyword(word) {
                case "IS":
                    try advance()
                    let negated = isKeyword("NOT")
                    if negated { try advance() }
                    guard isKeyword("NULL") else {
                        if token.kind == .end { throw unexpected(expecting: "NULL") }
                        throw error(
                            .unsupported, at: token.start,
                            "IS takes only NULL or NOT NULL here; compare other values with = or <>")
                    }
                    try advance()
                    return .isNull(operand, negated: negated)
                case "NOT":
                    try advance()
                    guard isKeyword("IN") || isKeyword("LIKE") || isKeyword("BETWEEN") else {
                        throw unexpected(expecting: "IN, LIKE or BETWEEN")
                    }
                    return try parseSet(operand, negated: true)
                case "IN", "LIKE", "BETWEEN":
                    return try parseSet(operand, negated: false)
                default:
                    break
                }
            default:
                break
            }
            throw unexpected(expecting: "a comparison (=, <>, <, <=, >, >=, IN, LIKE, BETWEEN or IS NULL)")
        }

        /// Reads IN, LIKE or BETWEEN, the current token, and what follows it.
        private mutating func parseSet(_ operand: Operand, negated: Bool) throws(FeatureFilterError) -> Node {
            if isKeyword("LIKE") {
                try advance()
                let pattern = try parseOperand()
                var escape: String?
                if isKeyword("ESCAPE") {
                    try advance()
                    let escapeToken = token
                    guard case .string(let text) = token.kind else {
                        throw unexpected(expecting: "a quoted character, as in ESCAPE '\\'")
                    }
                    guard text.unicodeScalars.count == 1 else {
                        throw error(.invalidValue, at: escapeToken.start, "ESCAPE takes exactly one character, as in ESCAPE '\\'")
                    }
                    try countLiteral(escapeToken)
                    try advance()
                    escape = text
                }
                return .like(operand, pattern: pattern, escape: escape, negated: negated)
            }
            if isKeyword("BETWEEN") {
                try advance()
                let low = try parseOperand()
                guard isKeyword("AND") else { throw unexpected(expecting: "AND between the two bounds of BETWEEN") }
                try advance()
                return .between(operand, low: low, high: try parseOperand(), negated: negated)
            }
            try advance()  // IN
            guard token.kind == .open else { throw unexpected(expecting: "'(' and a list of values") }
            let open = token
            try advance()
            if token.kind == .close {
                throw error(.syntax, at: open.start, "IN needs at least one value between its parentheses")
            }
            var list = [try parseOperand()]
            while token.kind == .comma {
                try advance()
                list.append(try parseOperand())
            }
            guard token.kind == .close else {
                if token.kind == .end {
                    throw error(.syntax, at: open.start, "the list of IN that starts here is never closed; add a ')'")
                }
                throw unexpected(expecting: "',' or ')' in the list of IN")
            }
            try advance()
            return .in(operand, list, negated: negated)
        }

        private mutating func parseOperand() throws(FeatureFilterError) -> Operand {
            let start = token
            switch start.kind {
            case .string(let text):
                try countLiteral(start)
                try advance()
                return .literal(.text(text))
            case .number(let digits):
                try countLiteral(start)
                try advance()
                return .literal(try number(digits, at: start))
            case .minus:
                try advance()
                guard case .number(let digits) = token.kind else {
                    if token.kind == .end { throw unexpected(expecting: "a number") }
                    throw error(.unsupported, at: start.start, "arithmetic is not supported; '-' may only make a number negative")
                }
                try countLiteral(start)
                try advance()
                return .literal(try number("-" + digits, at: start))
            case .date(let text):
                try countLiteral(start)
                try advance()
                return .date(try moment(text, at: start))
            case .quotedName(let name):
                try advance()
                try refuseCall(start)
                return .field(try field(name, at: start))
            case .word(let word):
                let upper = Self.keyword(word)
                switch upper {
                case "NULL", "TRUE", "FALSE":
                    try countLiteral(start)
                    try advance()
                    return .literal(upper == "NULL" ? .null : .integer(upper == "TRUE" ? 1 : 0))
                default:
                    break
                }
                if let refused = refusal(of: word) { throw refused }
                if Self.keywords.contains(upper) { throw unexpected(expecting: "a field or a value") }
                try advance()
                try refuseCall(start)
                return .field(try field(word, at: start))
            case .open:
                // `x = (SELECT …)` is worth naming; any other parenthesised value is not read.
                var ahead = self
                try ahead.advance()
                if case .word(let word) = ahead.token.kind, Self.keyword(word) == "SELECT", let refused = ahead.refusal(of: word) {
                    throw refused
                }
                throw error(.unsupported, at: start.start, "a value in parentheses is not supported; parentheses group conditions")
            case .end, .close, .comma, .comparison:
                throw unexpected(expecting: "a field or a value")
            }
        }

        // MARK: Values

        /// Throws if the name just read is followed by `(`, which makes it a function call.
        private func refuseCall(_ name: Token) throws(FeatureFilterError) {
            guard token.kind == .open else { return }
            throw error(
                .unsupported, at: name.start,
                "function calls such as \(text(of: name))(…) are not supported; compare the field itself")
        }

        /// The error for a word a filter may not use, or nil when it may.
        private func refusal(of word: String) -> FeatureFilterError? {
            let upper = Self.keyword(word)
            guard Self.refusedWords.contains(upper) else { return nil }
            let hint = foldedFields[word.lowercased()].map { "; to name the field, write it in double quotes: \"\($0)\"" } ?? ""
            if upper == "SELECT" || upper == "FROM" || upper == "UNION" {
                return error(.unsupported, at: token.start, "subqueries and SELECT are not supported in a filter" + hint)
            }
            return error(
                .unsupported, at: token.start,
                "SQL's \(upper) is not supported in a filter; use comparisons, IN, LIKE, BETWEEN and IS NULL" + hint)
        }

        /// The table's spelling of `name`: the exact name, else the one that differs only in case.
        private func field(_ name: String, at token: Token) throws(FeatureFilterError) -> String {
            if exactFields.contains(name) { return name }
            if let field = foldedFields[name.lowercased()] { return field }
            let known = fieldList.prefix(12).joined(separator: ", ") + (fieldList.count > 12 ? ", …" : "")
            throw error(
                .unknownField, at: token.start,
                "there is no field '\(name)'" + (fieldList.isEmpty ? "; the table has no fields" : "; the fields are \(known)"))
        }

        private func number(_ text: String, at token: Token) throws(FeatureFilterError) -> SQLiteValue {
            let integral = !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
            if integral, let integer = Int64(text) { return .integer(integer) }
            // An integer too large for 64 bits becomes a real, as SQLite reads one in SQL.
            guard let real = Double(text), real.isFinite else {
                throw error(.invalidValue, at: token.start, "the number \(text) is out of range")
            }
            return .real(real)
        }

        /// The ISO 8601 text of a DATE or TIMESTAMP literal: `YYYY-MM-DD` for a date alone, else
        /// the date-time as GeoPackage writes it.
        private func moment(_ text: String, at token: Token) throws(FeatureFilterError) -> String {
            let bytes = Array(text.utf8)
            guard let parsed = bytes.withUnsafeBufferPointer({ DateTimeText.parse($0) }) else {
                throw error(
                    .invalidValue, at: token.start,
                    "'\(text)' is not a date; write DATE 'yyyy-mm-dd' or TIMESTAMP 'yyyy-mm-dd hh:mm:ss'")
            }
            if parsed.time == nil { return text }
            return DateTimeText.normalized(parsed)
        }

        private mutating func countLiteral(_ token: Token) throws(FeatureFilterError) {
            literals += 1
            if literals > maximumLiterals {
                throw error(.tooComplex, at: token.start, "the filter has more than \(maximumLiterals) values")
            }
        }

        private mutating func enter(_ token: Token) throws(FeatureFilterError) {
            depth += 1
            if depth > maximumDepth {
                throw error(.tooComplex, at: token.start, "parentheses and NOT nest more than \(maximumDepth) deep here")
            }
        }

        private func isKeyword(_ keyword: String) -> Bool {
            if case .word(let word) = token.kind { return Self.keyword(word) == keyword }
            return false
        }

        /// A word in capitals, to compare with keywords; empty unless it is ASCII, so that no
        /// other letter's capital (`ı` to `I`) makes a keyword.
        static func keyword(_ word: String) -> String {
            word.utf8.allSatisfy { $0 < 0x80 } ? word.uppercased() : ""
        }

        // MARK: Errors

        /// The error for the current token where `expected` should be: arithmetic and refused
        /// words are named as such, the rest is a syntax error.
        private func unexpected(expecting expected: String) -> FeatureFilterError {
            let after = previous.map { " after '\(text(of: $0))'" } ?? ""
            switch token.kind {
            case .end:
                return error(.syntax, at: previous?.end ?? 0, "expected \(expected)\(after)")
            case .minus:
                return error(.unsupported, at: token.start, "arithmetic is not supported; '-' may only make a number negative")
            case .word(let word):
                if let refused = refusal(of: word) { return refused }
            default:
                break
            }
            return error(.syntax, at: token.start, "expected \(expected)\(after), found '\(text(of: token))'")
        }

        private func error(_ kind: FeatureFilterError.Kind, at scalar: Int, _ message: String) -> FeatureFilterError {
            FeatureFilterError(kind: kind, expression: expression, position: characterOffset(scalar), message: message)
        }

        /// The offset in characters of the scalar at `scalar`, the unit people count in.
        private func characterOffset(_ scalar: Int) -> Int {
            let end = min(max(scalar, 0), scalars.count)
            return String(String.UnicodeScalarView(scalars[..<end])).count
        }

        /// The token as written, shortened for a message.
        private func text(of token: Token) -> String {
            let end = min(token.end, scalars.count)
            let start = min(token.start, end)
            let shown = scalars[start..<min(end, start + 30)]
            return String(String.UnicodeScalarView(shown)) + (end - start > 30 ? "…" : "")
        }

        // MARK: Lexing

        private mutating func advance() throws(FeatureFilterError) {
            if started { previous = token }
            started = true
            token = try lex()
        }

        private mutating func lex() throws(FeatureFilterError) -> Token {
            while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
            let start = index
            guard index < scalars.count else { return Token(kind: .end, start: start, end: start) }
            let scalar = scalars[index]
            let next: Unicode.Scalar? = index + 1 < scalars.count ? scalars[index + 1] : nil
            func single(_ kind: Token.Kind, length: Int = 1) -> Token {
                index += length
                return Token(kind: kind, start: start, end: index)
            }
            switch scalar {
            case "(": return single(.open)
            case ")": return single(.close)
            case ",": return single(.comma)
            case "=": return single(.comparison(.equal))
            case "<":
                if next == "=" { return single(.comparison(.lessOrEqual), length: 2) }
                if next == ">" { return single(.comparison(.notEqual), length: 2) }
                if next == "<" { throw error(.unsupported, at: start, "bit shifts are not supported") }
                return single(.comparison(.less))
            case ">":
                if next == "=" { return single(.comparison(.greaterOrEqual), length: 2) }
                if next == ">" { throw error(.unsupported, at: start, "bit shifts are not supported") }
                return single(.comparison(.greater))
            case "!":
                if next == "=" { return single(.comparison(.notEqual), length: 2) }
                throw error(.unexpectedCharacter, at: start, "'!' is only read in '!='; write NOT or <>")
            case "-":
                if next == "-" { throw error(.unsupported, at: start, "comments (--) are not supported in a filter") }
                return single(.minus)
            case "/":
                if next == "*" { throw error(.unsupported, at: start, "comments (/* */) are not supported in a filter") }
                throw error(.unsupported, at: start, "arithmetic (/) is not supported in a filter")
            case "+", "*", "%":
                throw error(.unsupported, at: start, "arithmetic (\(scalar)) is not supported in a filter")
            case "|":
                if next == "|" { throw error(.unsupported, at: start, "joining strings with || is not supported in a filter") }
                throw error(.unsupported, at: start, "bitwise operators are not supported in a filter")
            case "&", "~":
                throw error(.unsupported, at: start, "bitwise operators are not supported in a filter")
            case ";":
                throw error(.unsupported, at: start, "';' ends a statement; a filter is a single condition")
            case "?":
                throw error(.unsupported, at: start, "parameters (?) are not supported; write the value itself")
            case ":", "@", "$":
                if let next, Self.startsName(next) {
                    throw error(.unsupported, at: start, "parameters (\(scalar)name) are not supported; write the value itself")
                }
                throw error(.unexpectedCharacter, at: start, "'\(scalar)' has no meaning in a filter")
            case "'":
                return Token(kind: .string(try quoted()), start: start, end: index)
            case "\"":
                return Token(kind: .quotedName(try quoted()), start: start, end: index)
            case "[", "`":
                throw error(.unexpectedCharacter, at: start, "'\(scalar)' has no meaning in a filter; write field names in double quotes")
            case "0"..."9":
                return try numberToken()
            case ".":
                if let next, ("0"..."9").contains(next) { return try numberToken() }
                throw error(.unexpectedCharacter, at: start, "'.' has no meaning here; write field names without a table name")
            default:
                guard Self.startsName(scalar) else {
                    throw error(.unexpectedCharacter, at: start, "'\(scalar.escaped(asASCII: false))' has no meaning in a filter")
                }
                return try wordToken()
            }
        }

        /// Reads a word, or a string or date that a word prefixes: `N'…'`, `X'…'` (refused),
        /// `DATE '…'` and `TIMESTAMP '…'`.
        private mutating func wordToken() throws(FeatureFilterError) -> Token {
            let start = index
            while index < scalars.count, Self.continuesName(scalars[index]) { index += 1 }
            let word = String(String.UnicodeScalarView(scalars[start..<index]))
            let upper = Self.keyword(word)
            if index < scalars.count, scalars[index] == "'" {
                if upper == "N" { return Token(kind: .string(try quoted()), start: start, end: index) }
                if upper == "X" { throw error(.unsupported, at: start, "blob literals (X'…') are not supported in a filter") }
            }
            if upper == "DATE" || upper == "TIMESTAMP" {
                var quote = index
                while quote < scalars.count, scalars[quote].properties.isWhitespace { quote += 1 }
                if quote < scalars.count, scalars[quote] == "'" {
                    index = quote
                    return Token(kind: .date(try quoted()), start: start, end: index)
                }
            }
            return Token(kind: .word(word), start: start, end: index)
        }

        /// Reads digits, an optional fraction and an optional exponent.
        private mutating func numberToken() throws(FeatureFilterError) -> Token {
            let start = index
            func digits() {
                while index < scalars.count, ("0"..."9").contains(scalars[index]) { index += 1 }
            }
            digits()
            if index < scalars.count, scalars[index] == "." {
                index += 1
                digits()
            }
            if index < scalars.count, scalars[index] == "e" || scalars[index] == "E" {
                index += 1
                if index < scalars.count, scalars[index] == "+" || scalars[index] == "-" { index += 1 }
                let exponent = index
                digits()
                if index == exponent {
                    throw error(.invalidValue, at: start, "a number's exponent needs digits, as in 1.5e3")
                }
            }
            if index < scalars.count, Self.continuesName(scalars[index]) || scalars[index] == "." {
                throw error(.unexpectedCharacter, at: index, "a number cannot run into '\(scalars[index])'; put a space after it")
            }
            let text = String(String.UnicodeScalarView(scalars[start..<index]))
            return Token(kind: .number(text), start: start, end: index)
        }

        /// Reads text between quotes like the one at `index`; a doubled quote is one quote.
        private mutating func quoted() throws(FeatureFilterError) -> String {
            let open = index
            let quote = scalars[index]
            index += 1
            var text = String.UnicodeScalarView()
            while index < scalars.count {
                let scalar = scalars[index]
                index += 1
                if scalar == quote {
                    guard index < scalars.count, scalars[index] == quote else { return String(text) }
                    index += 1
                }
                text.append(scalar)
            }
            let what = quote == "'" ? "string" : "field name"
            throw error(
                .unterminatedString, at: open,
                "the \(what) that starts here is never closed; add a closing \(quote), or write \(quote)\(quote) for a \(quote) inside it")
        }

        private static func startsName(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "_" || scalar.properties.isAlphabetic
        }

        private static func continuesName(_ scalar: Unicode.Scalar) -> Bool {
            startsName(scalar) || ("0"..."9").contains(scalar)
        }
    }
}
