import MapbookPortalAPI

/// Who is asking: what they may see. The store applies it while searching, so a search never
/// brings back what the caller may not know exists (DESIGN.md section 7).
public struct ItemViewer: Sendable, Equatable {
    /// Nil for the anonymous.
    public var username: String?
    public var isAdmin: Bool
    /// The groups the caller is a member of.
    public var groups: Set<String>

    public init(username: String?, isAdmin: Bool, groups: Set<String>) {
        self.username = username
        self.isAdmin = isAdmin
        self.groups = groups
    }

    /// Whether the caller may see `record` and its files: public items; for a signed-in user
    /// their own, every item of an admin, `org` items, and items shared with their groups.
    /// Uploads not committed are nobody's.
    public func mayRead(_ record: ItemRecord) -> Bool {
        guard record.status == .ready else { return false }
        if record.item.access == .public { return true }
        guard let username else { return false }
        if isAdmin || username.lowercased() == record.item.owner.lowercased() { return true }
        if record.item.access == .org { return true }
        return record.groups.contains { groups.contains($0) }
    }
}

/// An item search as a store runs it: the parsed `q`, who asks, one group's items or all, the
/// order and the page.
public struct ItemSearch: Sendable {
    public var query: ItemQuery
    public var viewer: ItemViewer
    /// Only the items shared with this group.
    public var group: String?
    public var sort: ItemSort
    public var page: SearchPage

    public init(query: ItemQuery, viewer: ItemViewer, group: String?, sort: ItemSort, page: SearchPage) {
        self.query = query
        self.viewer = viewer
        self.group = group
        self.sort = sort
        self.page = page
    }

    /// The search over `records` in memory, as the SQLite store runs it: the same answer any
    /// store must give.
    public func run(over records: [ItemRecord]) -> ItemSearchResult {
        var found: [PortalItem] = []
        for record in records where viewer.mayRead(record) {
            if let group, !record.groups.contains(group) { continue }
            if query.matches(record.item, groups: record.groups) { found.append(record.item) }
        }
        let result = page.apply(sort.sorted(found))
        return ItemSearchResult(items: Array(result.results), total: result.total, start: result.start, num: result.num, nextStart: result.nextStart)
    }
}

/// One page of a search, with what the API reports beside it.
public struct ItemSearchResult: Sendable, Equatable {
    public var items: [PortalItem]
    public var total: Int
    public var start: Int
    public var num: Int
    /// The `start` of the next page, or -1.
    public var nextStart: Int
}
