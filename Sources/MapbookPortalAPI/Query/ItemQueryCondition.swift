import MapbookSupport

/// A parsed query lowered to tests a database can make on an item's stored search document
/// (`ItemQuery.searchDocument`), with the meaning `ItemQuery.matches` gives it: what the
/// PostgreSQL store turns into SQL, so it finds what the SQLite store finds in Swift.
///
/// Text is compared as the document keeps it: each value of a text field as its words (cut
/// and lower-cased by `QueryText`) joined by single spaces, so a word, a phrase, a prefix or a
/// wildcard is a POSIX regular expression over that string; exact fields' values lower-cased;
/// numbers as numbers.
public indirect enum ItemQueryCondition: Sendable, Equatable {
    case constant(Bool)
    /// Some value of one of the text `fields` matches the regular expression `pattern`.
    case textMatches(fields: [String], pattern: String)
    /// One of the text `fields` has a value with a word.
    case textPresent(fields: [String])
    /// Some word of some value of the text `field` lies in the range (text order by code point).
    case textRange(field: String, lower: String?, upper: String?, inclusive: Bool)
    /// Some value of the exact `field` equals `value`.
    case exactEquals(field: String, value: String)
    /// Some value of the exact `field` starts with `value`.
    case exactPrefix(field: String, value: String)
    /// Some value of the exact `field` matches the regular expression `pattern` whole.
    case exactMatches(field: String, pattern: String)
    /// Some value of the exact `field` lies in the range (text order by code point).
    case exactRange(field: String, lower: String?, upper: String?, inclusive: Bool)
    /// The number `field` equals `value`.
    case numberEquals(field: String, value: Double)
    case numberRange(field: String, lower: Double?, upper: Double?, inclusive: Bool)
    case and(ItemQueryCondition, ItemQueryCondition)
    case or(ItemQueryCondition, ItemQueryCondition)
    case not(ItemQueryCondition)
}

extension ItemQuery {
    /// The version of `searchDocument`'s layout: a store keeping documents made by another
    /// version makes them again.
    public static let searchDocumentVersion = 1

    /// What a store keeps of an item to test `condition` on, and to sort by:
    ///
    ///     {"v": 1,
    ///      "t": {"title": ["water district 1"], "tags": ["trees", "parks"], ...},  text fields
    ///      "x": {"id": [...], "owner": ["alice"], "group": [...], ...},           exact fields
    ///      "n": {"created": 1795305600000, "numviews": 0, ...},                   numbers
    ///      "s": {"title": "water district 1", "created": 1795305600000, ...}}     sort keys
    public static func searchDocument(_ item: PortalItem, groups: [String]) -> JSONValue {
        let document = ItemSearchDocument(item: item, groups: groups)
        var text: [(String, JSONValue)] = [], exact: [(String, JSONValue)] = [], numbers: [(String, JSONValue)] = []
        for field in ItemQueryField.allCases {
            switch field.kind {
            case .text: text.append((field.rawValue, .array(document.words(field).map { .string($0.joined(separator: " ")) })))
            case .exact: exact.append((field.rawValue, .array(document.exactValues(field).map { .string($0) })))
            case .number: numbers.append((field.rawValue, document.number(field).map { .number($0) } ?? .null))
            }
        }
        let sort = ItemSort.Key.allCases.map { key -> (String, JSONValue) in
            switch ItemSort.value(of: key, in: item) {
            case .text(let t): (key.rawValue, .string(t))
            case .number(let n): (key.rawValue, .integer(n))
            }
        }
        return .object(JSONObject([
            ("v", .integer(Int64(searchDocumentVersion))), ("t", .object(JSONObject(text))), ("x", .object(JSONObject(exact))),
            ("n", .object(JSONObject(numbers))), ("s", .object(JSONObject(sort))),
        ]))
    }

    /// This query as tests on the search document.
    public var condition: ItemQueryCondition {
        switch self {
        case .all: .constant(true)
        case .and(let a, let b): .and(a.condition, b.condition)
        case .or(let a, let b): .or(a.condition, b.condition)
        case .not(let a): .not(a.condition)
        case .term(let name, let value, let phrase, let prefix): Self.term(name, value, phrase: phrase, prefix: prefix)
        case .range(let name, let lower, let upper, let inclusive): Self.range(name, lower, upper, inclusive: inclusive)
        }
    }

    private static func term(_ name: String?, _ value: String, phrase: Bool, prefix: Bool) -> ItemQueryCondition {
        let fields: [ItemQueryField]
        if let name {
            guard let field = ItemQueryField(rawValue: name) else { return .constant(false) }
            switch field.kind {
            case .text: fields = [field]
            case .exact:
                let wanted = value.lowercased()
                if prefix { return .exactPrefix(field: field.rawValue, value: wanted) }
                if phrase || !wanted.unicodeScalars.contains(where: { $0 == "*" || $0 == "?" }) { return .exactEquals(field: field.rawValue, value: wanted) }
                return .exactMatches(field: field.rawValue, pattern: "^" + wildcardPattern(wanted.unicodeScalars, anyScalar: ".") + "$")
            case .number:
                if prefix && value.isEmpty { return .constant(true) }
                guard let number = ItemSearchDocument.number(value) else { return .constant(false) }
                return .numberEquals(field: field.rawValue, value: number)
            }
        } else {
            fields = ItemQueryField.defaultFields
        }
        let names = fields.map(\.rawValue)
        if prefix && value.isEmpty { return .textPresent(fields: names) }
        let patterns = TokenPattern.patterns(value: value, phrase: phrase, prefix: prefix)
        guard !patterns.isEmpty else { return .constant(false) }
        let words = patterns.map { pattern -> String in
            switch pattern {
            case .word(let w): wildcardPattern(w.unicodeScalars, anyScalar: "[^ ]")
            case .prefix(let p): wildcardPattern(p.unicodeScalars, anyScalar: "[^ ]") + "[^ ]*"
            case .wildcard(let scalars): wildcardPattern(scalars, anyScalar: "[^ ]")
            }
        }
        return .textMatches(fields: names, pattern: "(^| )" + words.joined(separator: " ") + "( |$)")
    }

    private static func range(_ name: String, _ lower: String?, _ upper: String?, inclusive: Bool) -> ItemQueryCondition {
        guard let field = ItemQueryField(rawValue: name) else { return .constant(false) }
        switch field.kind {
        case .number:
            let low = lower.flatMap(ItemSearchDocument.number), high = upper.flatMap(ItemSearchDocument.number)
            if lower != nil && low == nil || upper != nil && high == nil { return .constant(false) }
            return .numberRange(field: field.rawValue, lower: low, upper: high, inclusive: inclusive)
        case .exact: return .exactRange(field: field.rawValue, lower: lower?.lowercased(), upper: upper?.lowercased(), inclusive: inclusive)
        case .text: return .textRange(field: field.rawValue, lower: lower?.lowercased(), upper: upper?.lowercased(), inclusive: inclusive)
        }
    }

    /// A regular expression for scalars where `?` is one scalar (`anyScalar`) and `*` any run of
    /// them; ASCII punctuation escaped, since a backslash before it means the character itself
    /// (before a letter or digit it would mean something else, so those are never escaped).
    static func wildcardPattern<S: Sequence<Unicode.Scalar>>(_ scalars: S, anyScalar: String) -> String {
        var out = ""
        for scalar in scalars {
            switch scalar {
            case "?": out += anyScalar
            case "*": out += anyScalar + "*"
            default:
                if scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) { out += "\\" }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
