import MapbookPortalAPI

/// Who is asking: what they may see. The store applies it while searching, so a search never
/// brings back what the caller may not know exists (DESIGN.md section 7).
public struct ItemViewer: Sendable, Equatable {
    /// Nil for the anonymous.
    public var username: String?
    public var isAdmin: Bool
    /// The groups the caller is a member of.
    public var groups: Set<String>

    /// `username` lower-cased once, as an entry's owner is (`SearchEntry.ownerKey`).
    let usernameKey: String?

    public init(username: String?, isAdmin: Bool, groups: Set<String>) {
        self.username = username
        self.isAdmin = isAdmin
        self.groups = groups
        usernameKey = username?.lowercased()
    }

    /// Whether the caller may see `record` and its files: public items; for a signed-in user
    /// their own, every item of an admin, `org` items, and items shared with their groups.
    /// Uploads not committed are nobody's.
    public func mayRead(_ record: ItemRecord) -> Bool {
        mayRead(ReadableRecord(record: record))
    }

    /// `mayRead` from what `item` gives, read only as far as the answer needs: a search over
    /// thousands reads the status and access of each and the rest of few.
    func mayRead(_ item: some ReadableItem) -> Bool {
        guard item.status == .ready else { return false }
        if item.access == .public { return true }
        guard let usernameKey else { return false }
        return isAdmin || item.access == .org || usernameKey == item.ownerKey || item.groups.contains { groups.contains($0) }
    }
}

/// What `ItemViewer.mayRead` reads of an item.
protocol ReadableItem {
    var status: ItemRecord.Status { get }
    var access: ItemAccess { get }
    /// The owner's name, lower-cased.
    var ownerKey: String { get }
    var groups: [String] { get }
}

private struct ReadableRecord: ReadableItem {
    let record: ItemRecord
    var status: ItemRecord.Status { record.status }
    var access: ItemAccess { record.item.access }
    var ownerKey: String { record.item.owner.lowercased() }
    var groups: [String] { record.groups }
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
    /// copied out of their entries. `candidates`, when given, are the only entries that can
    /// match (`SearchWords`): the others are not tested, and when the index answers the query
    /// whole (`isExact`) neither are they.
    func run(over ordered: OrderedEntries, compiled: CompiledItemQuery, candidates: SearchCandidates?) -> ItemSearchResult {
        // Matches are counted, and only the page's kept: a list of thousands is never built.
        let first = page.start - 1, end = page.start >= 1 ? first + page.num : first
        var total = 0
        var items: [PortalItem] = []
        var testsEach = true
        if case .all = query { testsEach = false }
        if candidates?.isExact == true { testsEach = false }
        // The loop reads each entry's plain key, and the entry (retained and released, which
        // cost more than the rest of the loop together) only where the key cannot decide.
        ordered.entries.withUnsafeBufferPointer { entries in
            for (index, key) in ordered.keys.enumerated() {
                if let candidates, !candidates.contains(key.serial) { continue }
                guard viewer.mayRead(KeyedEntry(key: key, entries: entries, index: index)) else { continue }
                if let group, !entries[index].groups.contains(group) { continue }
                if testsEach, !compiled.matches(entries[index].document) { continue }
                if total >= first, total < end { items.append(entries[index].item) }
                total += 1
            }
        }
        return ItemSearchResult(items: items, total: total, start: page.start, num: page.num, nextStart: page.window(total: total).nextStart)
    }
}

/// Entries in one sort order, with their keys (`SearchEntry.Key`) beside them in an array of
/// plain values.
struct OrderedEntries: Sendable {
    let entries: [SearchEntry]
    let keys: [SearchEntry.Key]

    init(_ entries: [SearchEntry]) {
        self.entries = entries
        keys = entries.map(\.key)
    }
}

/// An entry as `ItemViewer.mayRead` reads it in a search: its key, and the entry itself only
/// when asked for its owner or groups.
private struct KeyedEntry: ReadableItem {
    let key: SearchEntry.Key
    let entries: UnsafeBufferPointer<SearchEntry>
    let index: Int
    var status: ItemRecord.Status { key.status }
    var access: ItemAccess { key.access }
    var ownerKey: String { entries[index].ownerKey }
    var groups: [String] { entries[index].groups }
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
    /// What a search reads of every entry, in a value that needs no reference counting.
    struct Key: Sendable {
        let serial: Int
        let status: ItemRecord.Status
        let access: ItemAccess
    }

    let key: Key
    /// The owner lower-cased, as `ItemViewer.usernameKey` is.
    let ownerKey: String
    let groups: [String]
    let item: PortalItem
    let document: ItemSearchDocument
    /// The entry's number in its store's index (`SearchWords`).
    var serial: Int { key.serial }

    init(_ record: ItemRecord, serial: Int = 0) {
        key = Key(serial: serial, status: record.status, access: record.item.access)
        ownerKey = record.item.owner.lowercased()
        groups = record.groups
        item = record.item
        document = ItemSearchDocument(item: record.item, groups: record.groups)
        // From here on the document is only read (its caches are full): safe to share.
        document.prepareAll()
    }
}

/// The entries a search can match, as the index found them: a bit per serial (a test per
/// entry costs a shift, not a hash).
struct SearchCandidates: Sendable {
    private var bits: [UInt64]
    /// The entries are exactly the matches (`CompiledItemQuery.indexFilter`).
    let isExact: Bool

    /// `serials`, each below `limit`.
    init(_ serials: Set<Int>, below limit: Int, isExact: Bool) {
        bits = [UInt64](repeating: 0, count: (limit >> 6) + 1)
        for serial in serials { bits[serial >> 6] |= 1 << UInt64(serial & 63) }
        self.isExact = isExact
    }

    func contains(_ serial: Int) -> Bool {
        let word = serial >> 6
        return word < bits.count && bits[word] & (1 << UInt64(serial & 63)) != 0
    }
}

/// The SQLite store's index of its entries: for each key of an entry (`ItemSearchDocument.indexKeys`:
/// its words and exact values), the serials of the entries that have it, so a search tests
/// only the entries under its keys (`CompiledItemQuery.indexFilter`) instead of every item,
/// and none at all when the keys answer it whole.
struct SearchWords: Sendable {
    private var postings: [String: Set<Int>] = [:]
    private var next = 1

    /// A new entry for `record`, its keys indexed.
    mutating func add(_ record: ItemRecord) -> SearchEntry {
        let entry = SearchEntry(record, serial: next)
        next += 1
        for key in entry.document.indexKeys() { postings[key, default: []].insert(entry.serial) }
        return entry
    }

    /// Takes `entry`'s keys out of the index.
    mutating func remove(_ entry: SearchEntry) {
        for key in entry.document.indexKeys() {
            postings[key]?.remove(entry.serial)
            if postings[key]?.isEmpty == true { postings[key] = nil }
        }
    }

    /// The entries `query` can match; nil when its keys do not narrow it.
    func candidates(_ query: CompiledItemQuery) -> SearchCandidates? {
        guard let filter = query.indexFilter else { return nil }
        return SearchCandidates(filter.keys.items { postings[$0] ?? [] }, below: next, isExact: filter.isExact)
    }
}
