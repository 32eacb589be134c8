/// A query made ready to test many items: each term's patterns made and its value lower-cased
/// once, not once per item (`ItemSearchDocument.term` does both for a single test). The
/// meaning is `ItemQuery.matches`'s.
package struct CompiledItemQuery: Sendable {
    let root: Node

    package init(_ query: ItemQuery) {
        root = Node(query)
    }

    /// Whether the item `document` describes matches.
    package func matches(_ document: ItemSearchDocument) -> Bool {
        root.matches(document)
    }

    /// The index keys an item must have (`ItemSearchDocument.indexKeys`), for a store with an
    /// index of them to test only the items filed under them; nil when the query names no
    /// such key (`*`, a prefix, a wildcard, a number field, NOT). When `isExact`, the items
    /// under the keys are exactly the matches (a single word, an exact value, and ANDs and
    /// ORs of those): they need no test. Otherwise each must still be tested: the filter only
    /// rules out.
    package var indexFilter: (keys: WordFilter, isExact: Bool)? { root.indexFilter }

    package indirect enum WordFilter: Sendable, Equatable {
        case word(String)
        case and(WordFilter, WordFilter)
        case or(WordFilter, WordFilter)

        /// The items with the words, from `postings` (a word's items); the smaller side of an
        /// AND is walked.
        package func items<ID: Hashable>(_ postings: (String) -> Set<ID>) -> Set<ID> {
            switch self {
            case .word(let word): return postings(word)
            case .or(let a, let b): return a.items(postings).union(b.items(postings))
            case .and(let a, let b):
                let left = a.items(postings)
                if left.isEmpty { return left }
                let right = b.items(postings)
                return left.count <= right.count ? left.filter(right.contains) : right.filter(left.contains)
            }
        }
    }
}

extension CompiledItemQuery {
    indirect enum Node: Sendable {
        case all
        case never
        /// Some value of one of `fields` holds `patterns` in a row (or, with `anyWord`, a word).
        case text(fields: [ItemQueryField], patterns: [TokenPattern], anyWord: Bool)
        /// Some value of the exact `field` equals `wanted`, starts with it (`prefix`), or
        /// matches it as a wildcard pattern (`wildcard`).
        case exact(field: ItemQueryField, wanted: String, prefix: Bool, wildcard: [Unicode.Scalar]?)
        /// The number `field` equals `value`, or has any value (`any`).
        case number(field: ItemQueryField, value: Double?, any: Bool)
        /// Ranges are rare: tested as `ItemQuery.matches` tests them.
        case other(ItemQuery)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)

        init(_ query: ItemQuery) {
            switch query {
            case .all: self = .all
            case .and(let a, let b): self = .and(Node(a), Node(b))
            case .or(let a, let b): self = .or(Node(a), Node(b))
            case .not(let a): self = .not(Node(a))
            case .range: self = .other(query)
            case .term(let name, let value, let phrase, let prefix):
                guard let name else {
                    self = .text(fields: ItemQueryField.defaultFields, patterns: TokenPattern.patterns(value: value, phrase: phrase, prefix: prefix), anyWord: prefix && value.isEmpty)
                    return
                }
                guard let field = ItemQueryField(rawValue: name) else {
                    self = .never
                    return
                }
                switch field.kind {
                case .text:
                    self = .text(fields: [field], patterns: TokenPattern.patterns(value: value, phrase: phrase, prefix: prefix), anyWord: prefix && value.isEmpty)
                case .exact:
                    let wanted = value.lowercased()
                    let wild = !prefix && !phrase && wanted.unicodeScalars.contains { $0 == "*" || $0 == "?" }
                    self = .exact(field: field, wanted: wanted, prefix: prefix, wildcard: wild ? Array(wanted.unicodeScalars) : nil)
                case .number:
                    self = .number(field: field, value: ItemSearchDocument.number(value), any: prefix && value.isEmpty)
                }
            }
        }

        var indexFilter: (keys: WordFilter, isExact: Bool)? {
            switch self {
            case .text(let fields, let patterns, let anyWord):
                // Every whole word of the term must be among the item's words in the fields.
                guard !anyWord else { return nil }
                let keys = patterns.compactMap { pattern -> WordFilter? in
                    guard case .word(let word) = pattern else { return nil }
                    return .word(fields.count == 1 ? ItemSearchDocument.key(fields[0], word: word) : word)
                }
                guard let first = keys.first else { return nil }
                // Only the default fields or one field are searched (`Node.init`).
                let isExact = patterns.count == 1 && (fields.count == 1 || fields == ItemQueryField.defaultFields)
                return (keys.dropFirst().reduce(first) { .and($0, $1) }, isExact)
            case .exact(let field, let wanted, let prefix, let wildcard):
                guard !prefix, wildcard == nil else { return nil }
                return (.word(ItemSearchDocument.key(field, value: wanted)), true)
            case .and(let a, let b):
                switch (a.indexFilter, b.indexFilter) {
                case (nil, nil): return nil
                case (let x?, nil), (nil, let x?): return (x.keys, false)
                case (let x?, let y?): return (.and(x.keys, y.keys), x.isExact && y.isExact)
                }
            case .or(let a, let b):
                guard let x = a.indexFilter, let y = b.indexFilter else { return nil }
                return (.or(x.keys, y.keys), x.isExact && y.isExact)
            default:
                return nil
            }
        }

        func matches(_ document: ItemSearchDocument) -> Bool {
            switch self {
            case .all: return true
            case .never: return false
            case .and(let a, let b): return a.matches(document) && b.matches(document)
            case .or(let a, let b): return a.matches(document) || b.matches(document)
            case .not(let a): return !a.matches(document)
            case .other(let query): return document.satisfies(query)
            case .text(let fields, let patterns, let anyWord):
                return fields.contains { ItemSearchDocument.contains(document.words($0), patterns, anyWord: anyWord) }
            case .exact(let field, let wanted, let prefix, let wildcard):
                return document.exactValues(field).contains { actual in
                    if prefix { return actual.hasPrefix(wanted) }
                    if let wildcard { return TokenPattern.wildcardMatches(wildcard, Array(actual.unicodeScalars)) }
                    return actual == wanted
                }
            case .number(let field, let value, let any):
                guard let actual = document.number(field) else { return false }
                return any || value == actual
            }
        }
    }
}
