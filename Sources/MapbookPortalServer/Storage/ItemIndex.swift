import MapbookPortalAPI

/// Every item as searches read them, in memory: the entries (`SearchEntry`), their index
/// (`SearchWords`) and the entries in each one-key sort order searched so far. Both stores
/// search this way: the SQLite store keeps it beside its file, and each process of a
/// PostgreSQL portal keeps one brought up to date from the item change log before each
/// search (`PostgresPortalStore.searchItems`). A search over 10,000 items in PostgreSQL read
/// every row's JSON, 17 to 90 ms; here it takes a fraction of a millisecond.
struct ItemIndex: Sendable {
    private var entries: [String: SearchEntry] = [:]
    private var words = SearchWords()
    /// At most 22 (eleven keys, two directions); any change to the items drops them.
    private var orders: [ItemSort: OrderedEntries] = [:]

    init(_ records: some Sequence<ItemRecord>) {
        for record in records { entries[record.item.id] = words.add(record) }
    }

    /// Adds `record`, or puts it in the place of the item it changes.
    mutating func put(_ record: ItemRecord) {
        remove(record.item.id)
        entries[record.item.id] = words.add(record)
        orders = [:]
    }

    mutating func remove(_ id: String) {
        guard let old = entries.removeValue(forKey: id) else { return }
        words.remove(old)
        orders = [:]
    }

    /// What `search` needs, taken under the lock of whoever keeps the index: the entries in
    /// its order when that order is kept (one key), or all of them for the caller to sort
    /// outside the lock (nobody can fill memory with many-key orders), and the candidates.
    mutating func prepare(_ search: ItemSearch) -> PreparedSearch {
        var kept = orders[search.sort]
        if kept == nil, search.sort.keys.count <= 1 {
            kept = OrderedEntries(search.sort.sorted(Array(entries.values)) { $0.item })
            orders[search.sort] = kept
        }
        let compiled = CompiledItemQuery(search.query)
        return PreparedSearch(kept: kept, unsorted: kept == nil ? Array(entries.values) : [], compiled: compiled, candidates: words.candidates(compiled))
    }
}

/// A search's share of an `ItemIndex`, taken out under its keeper's lock and run outside it,
/// on both cores, over entries nothing changes.
struct PreparedSearch: Sendable {
    var kept: OrderedEntries?
    var unsorted: [SearchEntry]
    /// The query, compiled once for the index and the tests.
    var compiled: CompiledItemQuery
    var candidates: SearchCandidates?
}

extension ItemSearch {
    func run(_ prepared: PreparedSearch) -> ItemSearchResult {
        run(over: prepared.kept ?? OrderedEntries(sort.sorted(prepared.unsorted) { $0.item }), compiled: prepared.compiled, candidates: prepared.candidates)
    }
}
