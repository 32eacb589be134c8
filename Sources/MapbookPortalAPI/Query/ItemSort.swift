/// The order of search results, from the `sortField` and `sortOrder` parameters.
///
/// The search reference's sort fields are title, created, type, owner, modified, avgRating,
/// numRatings, numComments and numViews, case-insensitive, several allowed comma-separated; this
/// portal adds size and name, and takes `uploaded` (the older name of created, still in the
/// `arcgis` client's docs) as created. Names it does not know are ignored, as are empty ones:
/// Esri's clients send names that vary by release (`added`, `scorecompleteness`), and a
/// search that works against ArcGIS Online should not fail here over its order.
public struct ItemSort: Sendable, Hashable {
    /// A field results can be sorted on.
    public enum Key: String, Sendable, CaseIterable {
        case title, type, owner, created, modified, numViews, size, avgRating, numRatings, numComments, name
    }

    /// The fields to sort on, most significant first; ties after them go by item id.
    public var keys: [Key]
    public var descending: Bool

    public init(keys: [Key], descending: Bool = false) {
        self.keys = keys
        self.descending = descending
    }

    /// Reads the API's parameters. `sortOrder` is `asc` (the default) or `desc`, in any case,
    /// and applies to every sort field.
    public init(sortField: String?, sortOrder: String?) throws(PortalError) {
        var keys: [Key] = []
        for name in (sortField ?? "").split(separator: ",") {
            let wanted = name.filter { !$0.isWhitespace }.lowercased()
            let key = wanted == "uploaded" ? .created : Key.allCases.first { $0.rawValue.lowercased() == wanted }
            if let key, !keys.contains(key) { keys.append(key) }
        }
        switch sortOrder?.filter({ !$0.isWhitespace }).lowercased() {
        case nil, "", "asc": descending = false
        case "desc": descending = true
        case let other?:
            throw PortalError.badRequest("sortOrder must be asc or desc, not '\(other.prefix(40))'.")
        }
        self.keys = keys
    }

    /// The items in this order. Stable: items equal in every key stay ordered by id, so that
    /// pages of the same search neither repeat nor skip an item.
    public func sorted(_ items: [PortalItem]) -> [PortalItem] {
        sorted(items) { $0 }
    }

    /// `elements` in this order, each element's item given by `item` (a store sorts what it
    /// keeps of each item this way).
    package func sorted<Element>(_ elements: [Element], by item: (Element) -> PortalItem) -> [Element] {
        // Keys are computed once per element, not once per comparison, and the sort moves
        // indices: moving items retains and releases every field at each step.
        var values: [[Value]] = [], ids: [String] = []
        values.reserveCapacity(elements.count)
        ids.reserveCapacity(elements.count)
        for element in elements {
            let item = item(element)
            values.append(keys.map { Self.value(of: $0, in: item) })
            ids.append(item.id)
        }
        let order = elements.indices.sorted { a, b in
            for (x, y) in zip(values[a], values[b]) where x != y {
                return descending ? y < x : x < y
            }
            return ids[a] < ids[b]
        }
        return order.map { elements[$0] }
    }

    /// A sort key's value: text compared without case, numbers as numbers.
    enum Value: Comparable {
        case text(String)
        case number(Int64)
    }

    static func value(of key: Key, in item: PortalItem) -> Value {
        switch key {
        case .title: .text(item.title.lowercased())
        case .type: .text(item.type.lowercased())
        case .owner: .text(item.owner.lowercased())
        case .name: .text((item.name ?? "").lowercased())
        case .created: .number(item.created)
        case .modified: .number(item.modified)
        case .numViews: .number(Int64(item.numViews))
        case .size: .number(item.size)
        // Ratings and comments are not kept: every item has 0, so these order by id.
        case .avgRating, .numRatings, .numComments: .number(0)
        }
    }
}
