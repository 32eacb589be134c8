import MapbookPortalAPI
import PostgresNIO
import Synchronization

/// A process's copy of a PostgreSQL portal's items for searching, of its settings and of its
/// groups, the tokens it has read with their users, the serial of the last change in the change
/// log that it holds (-1: nothing loaded yet), and the catch-ups under way
/// (`PostgresPortalStore.catchUp`).
struct IndexedChanges: Sendable {
    var index = ItemIndex([])
    var settings: [String: String] = [:]
    /// By title, as `groups()` gives them.
    var groups: [GroupRecord] = []
    /// By hash; emptied when a token or a user changes anywhere (`usersChanged`).
    var signedIn: [String: (token: TokenRecord, user: UserRecord?)] = [:]
    /// How many times `signedIn` was emptied: a token read before an emptying is not kept.
    var signedInClears = 0
    var serial: Int64 = -1
    /// When the last catch-up that ended began to read the log: the copy holds every change
    /// committed before then.
    var readFrom: ContinuousClock.Instant?
    /// When this process last committed a change: a read after it needs a catch-up begun later.
    var wroteAt: ContinuousClock.Instant?
    /// The catch-up running and when it began (at the latest), and the one that starts when it ends.
    var running: Task<Void, any Error>?
    var runningFrom: ContinuousClock.Instant?
    var next: Task<Void, any Error>?

    /// Empties the tokens kept, so that those read before are not kept after.
    mutating func forgetTokens() {
        signedIn = [:]
        signedInClears += 1
    }
}

/// What a read of a PostgreSQL portal's kept copies (items, settings, groups, tokens) must
/// see: every change committed before `since`, the moment the request it serves began
/// (`RequestBegan`), or the moment of the read itself outside a request.
public enum PortalReads {
    @TaskLocal public static var since: ContinuousClock.Instant?
}

extension PostgresPortalStore {
    /// Lines the item change log keeps: a process that has fallen further behind (idle through
    /// that many changes) reads every item again.
    static let keptChanges = 10_000

    /// The log's lines for a change of the settings and of the groups (item ids are hex):
    /// every page reads both, which as queries were a third of PostgreSQL's work under load.
    static let settingsChanged = "#settings", groupsChanged = "#groups"

    /// The log's line for a token revoked or a user changed: every signed-in request reads its
    /// token and user, which as a query was a round trip of its own.
    static let usersChanged = "#users"

    /// Tokens kept with their users at most; more empties the copy.
    static let keptTokens = 10_000

    /// Searches run over this process's `ItemIndex`, as in the SQLite store (a search in SQL
    /// read every row's JSON: 17 to 90 ms at 10,000 items), brought up to date first
    /// (`catchUp`): a search sees every write committed at any process before it began.
    public func searchItems(_ search: ItemSearch) async throws -> ItemSearchResult {
        try await catchUp()
        return search.run(searchIndex.withLock { $0.index.prepare(search) })
    }

    /// Brings the copies up to the change log's end as it was when the request began
    /// (`PortalReads.since`), or after this process's last write if that is later. While
    /// nothing changed this is one query for the log's two ends (its primary key's); changed
    /// items are read again by id, and a process behind the log's start reads every item.
    ///
    /// Why it is exact: writers hold the log's lock from before their line's serial is drawn
    /// until they commit (`changeLogged`), so serials commit in order and the log's end read here
    /// covers every change committed before the read began; items are read after it, so what is
    /// read is at least as new as every change up to it. Two catch-ups may each apply what they
    /// read: either result is at least as new as the serial it records.
    ///
    /// One catch-up runs at a time, and every read it can serve shares it: a read is served by
    /// one that began after its request did. Others wait for the next one, which starts when
    /// the running one ends and serves every read waiting by then. So a request's reads (the
    /// token, the settings, the search) make one query between them, and fifty requests at a
    /// time make one or two, not a hundred and fifty.
    func catchUp() async throws {
        let now = ContinuousClock.now
        let task = searchIndex.withLock { s -> Task<Void, any Error>? in
            let since = PortalReads.since ?? now
            let needed = s.wroteAt.map { max(since, $0) } ?? since
            if let from = s.readFrom, from >= needed { return nil }
            if let running = s.running, let from = s.runningFrom, from >= needed { return running }
            if let next = s.next { return next }
            let running = s.running
            let task = Task { [self] in
                if let running { _ = await running.result }
                defer {
                    searchIndex.withLock { s in
                        (s.running, s.runningFrom, s.next) = (s.next, s.next == nil ? nil : .now, nil)
                    }
                }
                let from = ContinuousClock.now
                try await catchUpOnce()
                searchIndex.withLock { s in s.readFrom = max(s.readFrom ?? from, from) }
            }
            if running == nil { (s.running, s.runningFrom) = (task, now) } else { s.next = task }
            return task
        }
        try await task?.value
    }

    private func catchUpOnce() async throws {
        let held = searchIndex.withLock { $0.serial }
        let (first, last) = try await run("read the item change log") { [self] in
            var ends: (Int64, Int64) = (0, 0)
            for try await row in try await client.execute(PostgresHotStatements.LogEnds()) {
                ends = row
            }
            return ends
        }
        if held >= 0, last == held { return }
        if held < 0 || last < held || first > held + 1 {
            let records = try await items(), settings = try await storedSettings(), groups = try await storedGroups()
            searchIndex.withLock { s in
                guard s.serial < last || s.serial == held else { return }
                (s.index, s.settings, s.groups, s.serial) = (ItemIndex(records), settings, groups, last)
                s.forgetTokens()
            }
            return
        }
        let ids = try await run("read the item change log") { [self] in
            var ids: [String] = []
            for try await id in try await client.query("SELECT DISTINCT item_id FROM item_changes WHERE serial > \(held) AND serial <= \(last)").decode(String.self) {
                ids.append(id)
            }
            return ids
        }
        let itemIds = ids.filter { !$0.hasPrefix("#") }
        let records = itemIds.isEmpty ? [] : try await items("SELECT id, status, item::text, groups::text, sha256, version FROM items WHERE id = ANY(\(itemIds))")
        let settings = ids.contains(Self.settingsChanged) ? try await storedSettings() : nil
        let groups = ids.contains(Self.groupsChanged) ? try await storedGroups() : nil
        let found = Dictionary(records.map { ($0.item.id, $0) }, uniquingKeysWith: { a, _ in a })
        searchIndex.withLock { s in
            guard s.serial < last else { return }
            for id in itemIds {
                if let record = found[id] { s.index.put(record) } else { s.index.remove(id) }
            }
            if let settings { s.settings = settings }
            if let groups { s.groups = groups }
            if ids.contains(Self.usersChanged) { s.forgetTokens() }
            s.serial = last
        }
    }

    /// What the settings and the groups are, for pages and calls: this process's copy, brought
    /// up to date first (`catchUp`), so a change made at any process is seen.
    func caughtUp<T>(_ read: (IndexedChanges) -> T) async throws -> T {
        try await catchUp()
        return searchIndex.withLock { read($0) }
    }

    /// Runs `write` (an item's rows, or the settings', the groups', a user's or tokens') and adds
    /// its line (the item's id, `settingsChanged`, `groupsChanged`, `usersChanged`) to the change
    /// log in one transaction,
    /// holding the log's lock from before the line's serial is drawn until the commit
    /// (`catchUp` relies on that order). Readers are not held up by the lock. The log keeps
    /// its last `keptChanges` lines.
    func changeLogged(_ what: String, _ id: String, _ write: @escaping @Sendable (PostgresConnection) async throws -> Void) async throws {
        try await run(what) { [self] in
            try await transaction { connection in
                try await Self.lockLog(connection)
                try await write(connection)
                try await Self.appendLog(connection, id)
            }
        }
        wrote()
    }

    /// After a write's commit: this process's next reads see it (`catchUp`).
    func wrote() {
        searchIndex.withLock { $0.wroteAt = .now }
    }

    /// The first statement of a transaction that adds a line to the change log.
    static func lockLog(_ connection: PostgresConnection) async throws {
        try await connection.query("LOCK TABLE item_changes IN EXCLUSIVE MODE", logger: logger)
    }

    /// The last statements of a transaction that began with `lockLog`.
    static func appendLog(_ connection: PostgresConnection, _ id: String) async throws {
        try await connection.query("INSERT INTO item_changes (item_id) VALUES (\(id))", logger: logger)
        try await connection.query("DELETE FROM item_changes WHERE serial <= currval('item_changes_serial_seq') - \(keptChanges)", logger: logger)
    }

    /// A token and its user, from this process's copy when it holds them. The copy is emptied
    /// by a catch-up that meets `usersChanged`, and every sign-out, revocation and change of a
    /// user adds that line in the transaction that makes it: a request that begins after one
    /// committed, at any process, reads the token again.
    public func tokenAndUser(hash: String) async throws -> (token: TokenRecord, user: UserRecord?)? {
        try await catchUp()
        let (kept, clears) = searchIndex.withLock { ($0.signedIn[hash], $0.signedInClears) }
        if let kept { return kept }
        guard let found = try await storedTokenAndUser(hash: hash) else { return nil }
        searchIndex.withLock { s in
            guard s.signedInClears == clears else { return }
            if s.signedIn.count >= Self.keptTokens { s.signedIn = [:] }
            s.signedIn[hash] = found
        }
        return found
    }
}
