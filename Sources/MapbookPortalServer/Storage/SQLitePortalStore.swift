import MapbookPackage
import MapbookPortalAPI
import MapbookSupport
import Synchronization

/// The default metadata store: one SQLite file (`portal.sqlite` in the data folder), with
/// numbered migrations recorded in `PRAGMA user_version`.
///
/// Items are also kept in memory, since every search reads them all: the file is written
/// through, the dictionary answers. One connection behind a mutex: the portal's writes are
/// small, and WAL mode lets a backup read while it runs.
public final class SQLitePortalStore: PortalStore {
    // The connection is used only under the mutex, which is what makes sharing it safe.
    private struct State: @unchecked Sendable {
        var db: SQLiteDatabase
        /// The lookups every request makes (its token, user, groups, settings), prepared once:
        /// parsing their SQL was a tenth of a ranged download's time (issue 36).
        var hot: SQLiteStatementCache
        var items: [String: ItemRecord]
        /// The same items as searches read them.
        var index: ItemIndex
    }

    private let state: Mutex<State>
    public let path: String

    /// Each entry brings the schema from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE users (username TEXT PRIMARY KEY COLLATE NOCASE, id TEXT NOT NULL, full_name TEXT NOT NULL,
            email TEXT NOT NULL, role TEXT NOT NULL, password TEXT NOT NULL, created INTEGER NOT NULL, modified INTEGER NOT NULL);
        CREATE TABLE tokens (hash TEXT PRIMARY KEY, kind TEXT NOT NULL, username TEXT NOT NULL COLLATE NOCASE, client_id TEXT,
            referer TEXT, created INTEGER NOT NULL, expires INTEGER NOT NULL, code_challenge TEXT, redirect_uri TEXT);
        CREATE INDEX tokens_user ON tokens (username);
        CREATE TABLE items (id TEXT PRIMARY KEY, owner TEXT NOT NULL COLLATE NOCASE, status TEXT NOT NULL, item TEXT NOT NULL,
            groups TEXT NOT NULL, sha256 TEXT);
        CREATE TABLE groups (id TEXT PRIMARY KEY, title TEXT NOT NULL, owner TEXT NOT NULL COLLATE NOCASE, snippet TEXT,
            description TEXT, tags TEXT NOT NULL, access TEXT NOT NULL, created INTEGER NOT NULL, modified INTEGER NOT NULL,
            members TEXT NOT NULL);
        CREATE TABLE folders (id TEXT PRIMARY KEY, owner TEXT NOT NULL COLLATE NOCASE, title TEXT NOT NULL, created INTEGER NOT NULL,
            UNIQUE (owner, title));
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
        // Shared update groups (issue 19).
        "ALTER TABLE groups ADD COLUMN capabilities TEXT NOT NULL DEFAULT '[]'",
        // Sign-in failures in the store, shared by processes (issue 20).
        "CREATE TABLE signin_failures (key TEXT NOT NULL, time INTEGER NOT NULL); CREATE INDEX signin_failures_key ON signin_failures (key, time)",
        // Data versions and upload parts in the store (issue 20).
        "ALTER TABLE items ADD COLUMN version TEXT; CREATE TABLE upload_parts (item_id TEXT NOT NULL, number INTEGER NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (item_id, number))",
        // Background jobs: map areas taken offline (issue 33).
        "CREATE TABLE jobs (id TEXT PRIMARY KEY, job TEXT NOT NULL)",
        // What the web pages show: devices' versions, item events, the audit log (issue 34).
        """
        CREATE TABLE device_reports (item_id TEXT NOT NULL, device_id TEXT NOT NULL, username TEXT NOT NULL, held_modified INTEGER NOT NULL,
            last_seen INTEGER NOT NULL, address TEXT, PRIMARY KEY (item_id, device_id));
        CREATE TABLE item_events (item_id TEXT NOT NULL, at INTEGER NOT NULL, kind TEXT NOT NULL, username TEXT, device_id TEXT, address TEXT,
            detail TEXT NOT NULL);
        CREATE INDEX item_events_item ON item_events (item_id, at);
        CREATE TABLE replica_syncs (item_id TEXT NOT NULL, replica TEXT NOT NULL, username TEXT NOT NULL, device_id TEXT, at INTEGER NOT NULL,
            generation INTEGER NOT NULL, changes INTEGER NOT NULL, conflicts TEXT NOT NULL, PRIMARY KEY (item_id, replica));
        CREATE TABLE audit_log (at INTEGER NOT NULL, username TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, address TEXT,
            detail TEXT NOT NULL);
        CREATE INDEX audit_log_at ON audit_log (at);
        """,
        // Accounts an administrator disabled (issue 34).
        "ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0",
    ]

    /// Opens (creating and migrating as needed) the store at `path`.
    public init(path: String) throws {
        self.path = path
        let db: SQLiteDatabase
        do {
            db = try SQLiteDatabase(writablePath: path)
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("PRAGMA synchronous = NORMAL")
            try db.execute("PRAGMA busy_timeout = 5000")
            let version = Int(try db.scalar("PRAGMA user_version")?.int64 ?? 0)
            guard version <= Self.migrations.count else {
                throw PortalStoreError(kind: .newerVersion, path: path, message: "the portal database is version \(version), newer than this mapbook (\(Self.migrations.count)); use a newer mapbook")
            }
            for v in version..<Self.migrations.count {
                try db.execute("BEGIN IMMEDIATE")
                do {
                    try db.execute(Self.migrations[v])
                    try db.execute("PRAGMA user_version = \(v + 1)")
                    try db.execute("COMMIT")
                } catch {
                    try? db.execute("ROLLBACK")
                    throw error
                }
            }
        } catch let e as SQLiteError {
            throw PortalStoreError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        var items: [String: ItemRecord] = [:]
        do {
            for row in try db.query("SELECT id, status, item, groups, sha256, version FROM items") {
                let id = row[0].text ?? ""
                guard let status = row[1].text.flatMap(ItemRecord.Status.init(rawValue:)), let text = row[2].text,
                    let json = try? JSONParser.parse(text), let item = try? PortalItem(json: json, source: "\(path): item \(id)")
                else { throw PortalStoreError(kind: .damagedItem, path: path, message: "item \(id) is damaged; remove its row or restore a backup") }
                let groups = (row[3].text.flatMap { try? JSONParser.parse($0) }?.arrayValue ?? []).compactMap(\.stringValue)
                items[id] = ItemRecord(item: item, status: status, groups: groups, sha256: row[4].text, version: row[5].text)
            }
        } catch let e as SQLiteError {
            throw PortalStoreError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
        state = Mutex(State(db: db, hot: SQLiteStatementCache(db), items: items, index: ItemIndex(items.values)))
    }

    private func run<T>(_ body: (inout State) throws -> T) throws -> T {
        do {
            return try state.withLock { s in try body(&s) }
        } catch let e as SQLiteError {
            throw PortalStoreError(kind: .sqlite(e.kind), path: path, message: e.message)
        }
    }

    private static func json(_ strings: [String]) -> SQLiteValue {
        .text(JSONWriter.string(.array(strings.map { .string($0) }), style: .compact))
    }

    private static func strings(_ value: SQLiteValue) -> [String] {
        (value.text.flatMap { try? JSONParser.parse($0) }?.arrayValue ?? []).compactMap(\.stringValue)
    }

    private static func text(_ s: String?) -> SQLiteValue { s.map { .text($0) } ?? .null }

    // MARK: Jobs

    public func saveJob(_ job: JobRecord) async throws {
        try run { s in _ = try s.db.query("INSERT OR REPLACE INTO jobs (id, job) VALUES (?, ?)", [.text(job.id), .text(JSONWriter.string(job.json, style: .compact))]) }
    }

    public func job(_ id: String) async throws -> JobRecord? {
        try run { s in try s.db.scalar("SELECT job FROM jobs WHERE id = ?", [.text(id)])?.text.flatMap { try? JSONParser.parse($0) }.flatMap(JobRecord.init(json:)) }
    }

    public func jobs() async throws -> [JobRecord] {
        try run { s in try s.db.query("SELECT job FROM jobs ORDER BY id").compactMap { $0[0].text.flatMap { try? JSONParser.parse($0) }.flatMap(JobRecord.init(json:)) } }
    }

    public func deleteJob(_ id: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM jobs WHERE id = ?", [.text(id)]) }
    }

    // MARK: Devices, events, audit

    public func saveDeviceReport(_ r: DeviceReport) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT OR REPLACE INTO device_reports (item_id, device_id, username, held_modified, last_seen, address) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(r.itemId), .text(r.deviceId), .text(r.username), .integer(r.heldModified), .integer(r.lastSeen), Self.text(r.address)])
        }
    }

    public func deviceReports(itemId: String) async throws -> [DeviceReport] {
        try run { s in
            try s.db.query("SELECT device_id, username, held_modified, last_seen, address FROM device_reports WHERE item_id = ? ORDER BY last_seen DESC", [.text(itemId)]).map {
                DeviceReport(itemId: itemId, deviceId: $0[0].text ?? "", username: $0[1].text ?? "", heldModified: $0[2].int64 ?? 0, lastSeen: $0[3].int64 ?? 0, address: $0[4].text)
            }
        }
    }

    public func saveReplicaSync(_ r: ReplicaSync) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT OR REPLACE INTO replica_syncs (item_id, replica, username, device_id, at, generation, changes, conflicts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(r.itemId), .text(r.replica), .text(r.username), Self.text(r.deviceId), .integer(r.at), .integer(r.generation), .integer(Int64(r.changes)),
                 .text(ReplicaSync.conflictsJSON(r.conflicts))])
        }
    }

    public func replicaSyncs(itemId: String) async throws -> [ReplicaSync] {
        try run { s in
            try s.db.query(
                "SELECT replica, username, device_id, at, generation, changes, conflicts FROM replica_syncs WHERE item_id = ? ORDER BY at DESC", [.text(itemId)]
            ).map {
                ReplicaSync(
                    itemId: itemId, replica: $0[0].text ?? "", username: $0[1].text ?? "", deviceId: $0[2].text, at: $0[3].int64 ?? 0, generation: $0[4].int64 ?? 0,
                    changes: Int($0[5].int64 ?? 0), conflicts: ReplicaSync.conflicts(fromJSON: $0[6].text ?? "[]"))
            }
        }
    }

    public func recordItemEvent(_ e: ItemEvent) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT INTO item_events (item_id, at, kind, username, device_id, address, detail) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [.text(e.itemId), .integer(e.at), .text(e.kind.rawValue), Self.text(e.username), Self.text(e.deviceId), Self.text(e.address), .text(e.detail)])
        }
    }

    public func itemEvents(itemId: String, limit: Int) async throws -> [ItemEvent] {
        try run { s in
            try s.db.query(
                "SELECT at, kind, username, device_id, address, detail FROM item_events WHERE item_id = ? ORDER BY at DESC, rowid DESC LIMIT ?", [.text(itemId), .integer(Int64(limit))]
            ).compactMap { row in
                row[1].text.flatMap(ItemEvent.Kind.init(rawValue:)).map {
                    ItemEvent(itemId: itemId, at: row[0].int64 ?? 0, kind: $0, username: row[2].text, deviceId: row[3].text, address: row[4].text, detail: row[5].text ?? "")
                }
            }
        }
    }

    public func recordAudit(_ a: AuditEntry) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT INTO audit_log (at, username, action, target, address, detail) VALUES (?, ?, ?, ?, ?, ?)",
                [.integer(a.at), .text(a.username), .text(a.action), .text(a.target), Self.text(a.address), .text(a.detail)])
        }
    }

    public func auditEntries(before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try run { s in
            try s.db.query(
                "SELECT at, username, action, target, address, detail, rowid FROM audit_log WHERE rowid < ? ORDER BY rowid DESC LIMIT ?",
                [.integer(before ?? Int64.max), .integer(Int64(limit))]
            ).map { row in
                var entry = AuditEntry(at: row[0].int64 ?? 0, username: row[1].text ?? "", action: row[2].text ?? "", target: row[3].text ?? "", address: row[4].text, detail: row[5].text ?? "")
                entry.sequence = row[6].int64 ?? 0
                return entry
            }
        }
    }

    // MARK: Settings

    public func setting(_ key: String) async throws -> String? {
        try run { s in try s.hot.scalar("SELECT value FROM settings WHERE key = ?", [.text(key)])?.text }
    }

    public func setSetting(_ key: String, _ value: String) async throws {
        try run { s in _ = try s.db.query("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", [.text(key), .text(value)]) }
    }

    public func settings() async throws -> [String: String] {
        try run { s in
            var all: [String: String] = [:]
            for row in try s.db.query("SELECT key, value FROM settings") { all[row[0].text ?? ""] = row[1].text ?? "" }
            return all
        }
    }

    // MARK: Users

    private static func user(_ row: [SQLiteValue]) -> UserRecord {
        UserRecord(
            username: row[0].text ?? "", id: row[1].text ?? "", fullName: row[2].text ?? "", email: row[3].text ?? "",
            role: row[4].text ?? "org_user", passwordHash: row[5].text ?? "", created: row[6].int64 ?? 0, modified: row[7].int64 ?? 0,
            disabled: (row[8].int64 ?? 0) != 0)
    }

    private static let userColumns = "username, id, full_name, email, role, password, created, modified, disabled"

    public func user(_ username: String) async throws -> UserRecord? {
        try run { s in try s.hot.query("SELECT \(Self.userColumns) FROM users WHERE username = ?", [.text(username)]).first.map(Self.user) }
    }

    public func users() async throws -> [UserRecord] {
        try run { s in try s.db.query("SELECT \(Self.userColumns) FROM users ORDER BY username").map(Self.user) }
    }

    public func saveUser(_ u: UserRecord) async throws {
        try run { s in try Self.write(u, to: s.db) }
    }

    private static func write(_ u: UserRecord, to db: SQLiteDatabase) throws {
        _ = try db.query(
            "INSERT OR REPLACE INTO users (\(userColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(u.username), .text(u.id), .text(u.fullName), .text(u.email), .text(u.role), .text(u.passwordHash), .integer(u.created), .integer(u.modified),
             .integer(u.disabled ? 1 : 0)])
    }

    public func changeUser(_ username: String, _ change: @escaping @Sendable (inout UserRecord) -> Void) async throws -> UserChange {
        // One connection under the store's lock: nothing runs between the read and the write.
        try run { s in
            guard let before = try s.db.query("SELECT \(Self.userColumns) FROM users WHERE username = ?", [.text(username)]).first.map(Self.user) else {
                return .noSuchUser
            }
            var after = before
            change(&after)
            if before.isActiveAdmin, !after.isActiveAdmin {
                let others = try s.db.scalar(
                    "SELECT count(*) FROM users WHERE role = 'org_admin' AND disabled = 0 AND username <> ?", [.text(before.username)])?.int64 ?? 0
                guard others > 0 else { return .lastAdministrator }
            }
            try Self.write(after, to: s.db)
            return .changed(after)
        }
    }

    // MARK: Tokens

    public func saveToken(_ t: TokenRecord) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT OR REPLACE INTO tokens (hash, kind, username, client_id, referer, created, expires, code_challenge, redirect_uri) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(t.hash), .text(t.kind.rawValue), .text(t.username), Self.text(t.clientId), Self.text(t.referer), .integer(t.created), .integer(t.expires), Self.text(t.codeChallenge), Self.text(t.redirectURI)])
        }
    }

    private static let tokenColumns = "hash, kind, username, client_id, referer, created, expires, code_challenge, redirect_uri"

    private static func token(_ row: [SQLiteValue]) -> TokenRecord? {
        guard let kind = row[1].text.flatMap(TokenRecord.Kind.init(rawValue:)) else { return nil }
        return TokenRecord(
            hash: row[0].text ?? "", kind: kind, username: row[2].text ?? "", clientId: row[3].text, referer: row[4].text, created: row[5].int64 ?? 0,
            expires: row[6].int64 ?? 0, codeChallenge: row[7].text, redirectURI: row[8].text)
    }

    public func token(hash: String) async throws -> TokenRecord? {
        try run { s in try s.hot.query("SELECT \(Self.tokenColumns) FROM tokens WHERE hash = ?", [.text(hash)]).first.flatMap(Self.token) }
    }

    public func tokens() async throws -> [TokenRecord] {
        try run { s in try s.db.query("SELECT \(Self.tokenColumns) FROM tokens ORDER BY hash").compactMap(Self.token) }
    }

    public func deleteToken(hash: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM tokens WHERE hash = ?", [.text(hash)]) }
    }

    public func deleteTokens(username: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM tokens WHERE username = ?", [.text(username)]) }
    }

    public func deleteExpiredTokens(now: Int64) async throws {
        try run { s in _ = try s.db.query("DELETE FROM tokens WHERE expires < ?", [.integer(now)]) }
    }

    // MARK: Items

    public func items() async throws -> [ItemRecord] {
        try run { s in Array(s.items.values) }
    }

    public func searchItems(_ search: ItemSearch) async throws -> ItemSearchResult {
        search.run(try run { s in s.index.prepare(search) })
    }

    public func item(_ id: String) async throws -> ItemRecord? {
        try run { s in s.items[id] }
    }

    public func saveItem(_ r: ItemRecord) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT OR REPLACE INTO items (id, owner, status, item, groups, sha256, version) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [.text(r.item.id), .text(r.item.owner), .text(r.status.rawValue), .text(JSONWriter.string(r.item.jsonValue, style: .compact)), Self.json(r.groups), Self.text(r.sha256),
                 Self.text(r.version)])
            s.items[r.item.id] = r
            s.index.put(r)
        }
    }

    public func deleteItem(_ id: String) async throws {
        try run { s in
            _ = try s.db.query("DELETE FROM items WHERE id = ?", [.text(id)])
            _ = try s.db.query("DELETE FROM upload_parts WHERE item_id = ?", [.text(id)])
            s.items[id] = nil
            s.index.remove(id)
        }
    }

    // MARK: Upload parts

    public func saveUploadPart(itemId: String, _ part: UploadPart) async throws {
        try run { s in
            _ = try s.db.query("INSERT OR REPLACE INTO upload_parts (item_id, number, size) VALUES (?, ?, ?)", [.text(itemId), .integer(Int64(part.number)), .integer(part.size)])
        }
    }

    public func uploadParts(itemId: String) async throws -> [UploadPart] {
        try run { s in
            try s.db.query("SELECT number, size FROM upload_parts WHERE item_id = ? ORDER BY number", [.text(itemId)]).map {
                UploadPart(number: Int($0[0].int64 ?? 0), size: $0[1].int64 ?? 0)
            }
        }
    }

    public func deleteUploadParts(itemId: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM upload_parts WHERE item_id = ?", [.text(itemId)]) }
    }

    // MARK: Sign-in failures

    public func recordSignInFailure(_ key: String, at time: Int64, keepingLast: Int) async throws {
        try run { s in
            _ = try s.db.query("INSERT INTO signin_failures (key, time) VALUES (?, ?)", [.text(key), .integer(time)])
            _ = try s.db.query(
                "DELETE FROM signin_failures WHERE key = ? AND rowid NOT IN (SELECT rowid FROM signin_failures WHERE key = ? ORDER BY time DESC LIMIT ?)",
                [.text(key), .text(key), .integer(Int64(keepingLast))])
        }
    }

    public func signInFailures(_ key: String, since time: Int64) async throws -> [Int64] {
        try run { s in try s.db.query("SELECT time FROM signin_failures WHERE key = ? AND time > ? ORDER BY time", [.text(key), .integer(time)]).compactMap { $0[0].int64 } }
    }

    public func clearSignInFailures(_ key: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM signin_failures WHERE key = ?", [.text(key)]) }
    }

    public func pruneSignInFailures(before time: Int64) async throws {
        try run { s in _ = try s.db.query("DELETE FROM signin_failures WHERE time <= ?", [.integer(time)]) }
    }

    // MARK: Groups

    private static let groupColumns = "id, title, owner, snippet, description, tags, access, created, modified, members, capabilities"

    private static func group(_ row: [SQLiteValue]) -> GroupRecord {
        GroupRecord(
            id: row[0].text ?? "", title: row[1].text ?? "", owner: row[2].text ?? "", snippet: row[3].text, description: row[4].text,
            tags: strings(row[5]), access: row[6].text ?? "private", created: row[7].int64 ?? 0, modified: row[8].int64 ?? 0, members: strings(row[9]),
            capabilities: strings(row[10]))
    }

    public func groups() async throws -> [GroupRecord] {
        try run { s in try s.db.query("SELECT \(Self.groupColumns) FROM groups ORDER BY title").map(Self.group) }
    }

    public func group(_ id: String) async throws -> GroupRecord? {
        try run { s in try s.hot.query("SELECT \(Self.groupColumns) FROM groups WHERE id = ?", [.text(id)]).first.map(Self.group) }
    }

    public func saveGroup(_ g: GroupRecord) async throws {
        try run { s in
            _ = try s.db.query(
                "INSERT OR REPLACE INTO groups (\(Self.groupColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(g.id), .text(g.title), .text(g.owner), Self.text(g.snippet), Self.text(g.description), Self.json(g.tags), .text(g.access), .integer(g.created), .integer(g.modified), Self.json(g.members),
                 Self.json(g.capabilities)])
        }
    }

    public func deleteGroup(_ id: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM groups WHERE id = ?", [.text(id)]) }
    }

    // MARK: Folders

    public func folders(owner: String) async throws -> [FolderRecord] {
        try run { s in
            try s.db.query("SELECT id, owner, title, created FROM folders WHERE owner = ? ORDER BY title", [.text(owner)]).map {
                FolderRecord(id: $0[0].text ?? "", owner: $0[1].text ?? "", title: $0[2].text ?? "", created: $0[3].int64 ?? 0)
            }
        }
    }

    public func saveFolder(_ f: FolderRecord) async throws {
        try run { s in
            _ = try s.db.query("INSERT OR REPLACE INTO folders (id, owner, title, created) VALUES (?, ?, ?, ?)", [.text(f.id), .text(f.owner), .text(f.title), .integer(f.created)])
        }
    }

    public func deleteFolder(_ id: String) async throws {
        try run { s in _ = try s.db.query("DELETE FROM folders WHERE id = ?", [.text(id)]) }
    }
}

/// The metadata store cannot be opened or written.
public struct PortalStoreError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for callers and tests to switch on.
    public enum Kind: Sendable, Hashable {
        /// SQLite failed on the portal database.
        case sqlite(SQLiteError.Kind)
        /// The portal database was written by a newer mapbook.
        case newerVersion
        /// The database server (PostgreSQL) failed or cannot be reached.
        case database
        /// A stored item's row cannot be read back.
        case damagedItem
        /// An item id, file name, info path or user name that is not valid.
        case invalidName
        /// A multipart upload's part number outside 1 to 10000.
        case partOutOfRange
        /// A password too short to accept.
        case weakPassword
        /// The operating system refused to create, write or move a file; `errno` says why.
        case io(errno: Int32)
        /// A file cannot be written atomically.
        case file(ArchiveError.Kind)
        /// The TLS certificate or private key file cannot be read as PEM, or holds none.
        case invalidCertificate
        /// A file larger than the portal accepts.
        case tooLarge
        /// The object store (S3) failed or cannot be reached.
        case objectStore(S3Error.Kind)
        /// A file of the web pages (a template, the pages' script or style) is missing or broken.
        case missingResource
    }

    public var kind: Kind
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}
