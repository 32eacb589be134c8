/// An item's field values as the query grammar compares them, cut into words on first use.
///
/// One is made per `ItemQuery.matches` call, so that a query naming a field several times
/// splits its text once; a store that keeps items in memory keeps one per item, so each
/// field is split once for every search (`ItemQuery.matches(_:)`). Not thread-safe: used by
/// one thread at a time (the SQLite store's, under its lock).
package final class ItemSearchDocument {
    private let item: PortalItem
    private let groups: [String]
    /// The words of each text field by `ItemQueryField.textPosition`, split on first use.
    private var words = [[[String]]?](repeating: nil, count: ItemQueryField.textFieldCount)
    /// The lower-cased values of each exact field by `ItemQueryField.exactPosition`.
    private var exact = [[String]?](repeating: nil, count: ItemQueryField.exactFieldCount)

    package init(item: PortalItem, groups: [String]) {
        self.item = item
        self.groups = groups
    }

    /// The words of each value of a text field: one list per tag or type keyword, one for the
    /// title, none when the item has no value there.
    func words(_ field: ItemQueryField) -> [[String]] {
        guard let position = field.textPosition else { return [] }
        if let cached = words[position] { return cached }
        let values: [String]
        switch field {
        case .title: values = [item.title]
        case .tags: values = item.tags
        case .snippet: values = item.snippet.map { [$0] } ?? []
        case .description: values = item.description.map { [QueryText.withoutMarkup($0)] } ?? []
        case .type: values = [item.type]
        case .typekeywords: values = item.typeKeywords
        case .name: values = item.name.map { [$0] } ?? []
        case .culture: values = item.culture.map { [$0] } ?? []
        case .accessinformation: values = item.accessInformation.map { [$0] } ?? []
        default: values = []
        }
        let split = values.map(QueryText.words).filter { !$0.isEmpty }
        words[position] = split
        return split
    }

    /// The keys an index of items files this one under (`CompiledItemQuery.indexFilter`): each
    /// word of a default field as it is (what a term without a field looks for), each word of
    /// any text field as `field:word`, each value of an exact field as `field=value`. Words
    /// hold neither `:` nor `=`, so the three kinds never meet.
    package func indexKeys() -> Set<String> {
        var keys = Set<String>()
        for field in ItemQueryField.allCases {
            switch field.kind {
            case .text:
                let isDefault = ItemQueryField.defaultFields.contains(field)
                for value in words(field) {
                    for word in value {
                        keys.insert(Self.key(field, word: word))
                        if isDefault { keys.insert(word) }
                    }
                }
            case .exact:
                for value in exactValues(field) { keys.insert(Self.key(field, value: value)) }
            case .number:
                break
            }
        }
        return keys
    }

    static func key(_ field: ItemQueryField, word: String) -> String { field.rawValue + ":" + word }
    static func key(_ field: ItemQueryField, value: String) -> String { field.rawValue + "=" + value }

    /// Splits and lower-cases every field now: afterwards the document is only read, so
    /// several threads may test it at once.
    package func prepareAll() {
        for field in ItemQueryField.allCases {
            switch field.kind {
            case .text: _ = words(field)
            case .exact: _ = exactValues(field)
            case .number: break
            }
        }
    }

    /// The lower-case values of an exact field, lower-cased once.
    func exactValues(_ field: ItemQueryField) -> [String] {
        guard let position = field.exactPosition else { return [] }
        if let kept = exact[position] { return kept }
        let values = Self.exactValues(field, item, groups)
        exact[position] = values
        return values
    }

    private static func exactValues(_ field: ItemQueryField, _ item: PortalItem, _ groups: [String]) -> [String] {
        switch field {
        case .id: [item.id.lowercased()]
        case .owner: [item.owner.lowercased()]
        case .orgid: item.orgId.map { [$0.lowercased()] } ?? []
        case .access: [item.access.rawValue]
        case .group: groups.map { $0.lowercased() }
        default: []
        }
    }

    /// The value of a numeric field. Ratings and comments are not kept here: always 0.
    func number(_ field: ItemQueryField) -> Double? {
        switch field {
        case .created: Double(item.created)
        case .modified: Double(item.modified)
        case .numviews: Double(item.numViews)
        case .numratings, .numcomments, .avgrating: 0
        default: nil
        }
    }

    func satisfies(_ query: ItemQuery) -> Bool {
        switch query {
        case .all: true
        case .and(let a, let b): satisfies(a) && satisfies(b)
        case .or(let a, let b): satisfies(a) || satisfies(b)
        case .not(let a): !satisfies(a)
        case .term(let field, let value, let phrase, let prefix):
            term(field: field, value: value, phrase: phrase, prefix: prefix)
        case .range(let field, let lower, let upper, let inclusive):
            range(field: field, lower: lower, upper: upper, inclusive: inclusive)
        }
    }

    private func term(field name: String?, value: String, phrase: Bool, prefix: Bool) -> Bool {
        guard let name else {
            let patterns = TokenPattern.patterns(value: value, phrase: phrase, prefix: prefix)
            return ItemQueryField.defaultFields.contains { Self.contains(words($0), patterns, anyWord: prefix && value.isEmpty) }
        }
        guard let field = ItemQueryField(rawValue: name) else { return false }
        switch field.kind {
        case .text:
            let patterns = TokenPattern.patterns(value: value, phrase: phrase, prefix: prefix)
            return Self.contains(words(field), patterns, anyWord: prefix && value.isEmpty)
        case .exact:
            let wanted = value.lowercased()
            return exactValues(field).contains { actual in
                if prefix { return actual.hasPrefix(wanted) }
                if phrase || !wanted.unicodeScalars.contains(where: { $0 == "*" || $0 == "?" }) { return actual == wanted }
                return TokenPattern.wildcardMatches(Array(wanted.unicodeScalars), Array(actual.unicodeScalars))
            }
        case .number:
            guard let actual = number(field) else { return false }
            if prefix && value.isEmpty { return true }
            return Self.number(value) == actual
        }
    }

    /// Whether some value's words hold the patterns in a row; `anyWord` asks only for a word.
    static func contains(_ values: [[String]], _ patterns: [TokenPattern], anyWord: Bool) -> Bool {
        if anyWord { return !values.isEmpty }
        guard !patterns.isEmpty else { return false }
        return values.contains { words in
            guard words.count >= patterns.count else { return false }
            return (0...(words.count - patterns.count)).contains { start in
                patterns.indices.allSatisfy { patterns[$0].matches(words[start + $0]) }
            }
        }
    }

    private func range(field name: String, lower: String?, upper: String?, inclusive: Bool) -> Bool {
        guard let field = ItemQueryField(rawValue: name) else { return false }
        switch field.kind {
        case .number:
            guard let actual = number(field) else { return false }
            let low = lower.flatMap(Self.number), high = upper.flatMap(Self.number)
            if lower != nil && low == nil || upper != nil && high == nil { return false }
            return Self.within(actual, low, high, inclusive: inclusive)
        case .exact:
            let low = lower?.lowercased(), high = upper?.lowercased()
            return exactValues(field).contains { Self.within($0, low, high, inclusive: inclusive) }
        case .text:
            // As the service compares terms: some word of the field lies in the range.
            let low = lower?.lowercased(), high = upper?.lowercased()
            return words(field).contains { $0.contains { Self.within($0, low, high, inclusive: inclusive) } }
        }
    }

    private static func within<T: Comparable>(_ value: T, _ lower: T?, _ upper: T?, inclusive: Bool) -> Bool {
        if let lower, inclusive ? value < lower : value <= lower { return false }
        if let upper, inclusive ? value > upper : value >= upper { return false }
        return true
    }

    static func number(_ text: String) -> Double? {
        ItemQueryParser.isNumber(text) ? Double(text) : nil
    }
}
