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
        mayRead(status: record.status, access: record.item.access, owner: record.item.owner, groups: record.groups)
    }

    /// `mayRead` from the few fields it needs (a search over many items reads only these).
    func mayRead(status: ItemRecord.Status, access: ItemAccess, owner: String, groups itemGroups: [String]) -> Bool {
        guard status == .ready else { return false }
        if access == .public { return true }
        guard let username else { return false }
        if isAdmin || username.lowercased() == owner.lowercased() { return true }
        if access == .org { return true }
        return itemGroups.contains { groups.contains($0) }
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

    /// The search over `ordered` (every item, in this search's sort order) in memory, as the
    /// SQLite store runs it: the same answer any store must give. Only the page's items are
    /// copied out of their entries. `candidates`, when given, are the serials of the only
    /// entries that can match (`SearchWords`): the others are not tested.
    func run(over ordered: [SearchEntry], candidates: Set<Int>? = nil) -> ItemSearchResult {
        // Matches are counted, and only the page's kept: a list of thousands is never built.
        let first = page.start - 1, end = page.start >= 1 ? first + page.num : first
        var total = 0
        var items: [PortalItem] = []
        let compiled = CompiledItemQuery(query)
        let testsEach: Bool
        if case .all = query { testsEach = false } else { testsEach = true }
        for entry in ordered where viewer.mayRead(status: entry.status, access: entry.access, owner: entry.owner, groups: entry.groups) {
            if let candidates, !candidates.contains(entry.serial) { continue }
            if let group, !entry.groups.contains(group) { continue }
            if testsEach, !compiled.matches(entry.document) { continue }
            if total >= first, total < end { items.append(entry.item) }
            total += 1
        }
        return ItemSearchResult(items: items, total: total, start: page.start, num: page.num, nextStart: page.window(total: total).nextStart)
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

/// An item as a store keeps it in memory for searching: what `ItemViewer.mayRead` reads, the
/// item, and its search document, every field split when the entry is made. A class, so a
/// search over thousands moves references, not records; immutable once made, so searches run
/// side by side outside the store's lock.
final class SearchEntry: @unchecked Sendable {
    let status: ItemRecord.Status
    let access: ItemAccess
    let owner: String
    let groups: [String]
    let item: PortalItem
    let document: ItemSearchDocument
    /// The entry's number in its store's word index (`SearchWords`).
    let serial: Int

    init(_ record: ItemRecord, serial: Int = 0) {
        self.serial = serial
        status = record.status
        access = record.item.access
        owner = record.item.owner
        groups = record.groups
        item = record.item
        document = ItemSearchDocument(item: record.item, groups: record.groups)
        // From here on the document is only read (its caches are full): safe to share.
        document.prepareAll()
    }
}

/// The SQLite store's index of its entries' words: for each word of any text field, the
/// serials of the entries that have it, so a search for words tests only the entries that
/// have them (`CompiledItemQuery.wordFilter`) instead of every item.
struct SearchWords: Sendable {
    private var postings: [String: Set<Int>] = [:]
    private var next = 1

    /// A new entry for `record`, its words indexed.
    mutating func add(_ record: ItemRecord) -> SearchEntry {
        let entry = SearchEntry(record, serial: next)
        next += 1
        for word in entry.document.allWords() { postings[word, default: []].insert(entry.serial) }
        return entry
    }

    /// Takes `entry`'s words out of the index.
    mutating func remove(_ entry: SearchEntry) {
        for word in entry.document.allWords() {
            postings[word]?.remove(entry.serial)
            if postings[word]?.isEmpty == true { postings[word] = nil }
        }
    }

    /// The serials of the entries `query` can match; nil when its words do not narrow it.
    func candidates(_ query: ItemQuery) -> Set<Int>? {
        guard case .all = query else {
            return CompiledItemQuery(query).wordFilter.map { filter in filter.items { postings[$0] ?? [] } }
        }
        return nil
    }
}
