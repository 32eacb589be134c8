import Logging
import MapbookPortalAPI
import MapbookSupport
import PostgresNIO
import Synchronization

/// The portal's metadata in PostgreSQL (issue 20): what several portal processes share, so any
/// of them answers any request (a token issued by one is valid at another, an upload begun at
/// one is finished at another, sign-in failures count across them).
///
/// Connections come from postgres-nio's pool, started with the store and run until `shutdown`.
/// The schema is made and brought up to date by numbered migrations at start, under an
/// advisory lock so processes starting together do not race; a database newer than this
/// mapbook is refused. User names and folder titles compare without case, as in the SQLite
/// store. A failure to reach the server is a `database` error, which the routes answer as a
/// 503-shaped portal error; the pool reconnects by itself when the server is back.
public final class PostgresPortalStore: PortalStore {
    let client: PostgresClient
    /// This process's items for searching and the last change it holds
    /// (`PostgresPortalStore+Search`).
    let searchIndex = Mutex(IndexedChanges())
    let runner: Task<Void, Never>
    /// The URL without its password, for messages.
    public let location: String

    /// Each entry brings the schema from version `index` to `index + 1`.
    static let migrations: [String] = [
        """
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE users (
          username_key TEXT PRIMARY KEY, username TEXT NOT NULL, id TEXT NOT NULL, full_name TEXT NOT NULL, email TEXT NOT NULL,
          role TEXT NOT NULL, password TEXT NOT NULL, created BIGINT NOT NULL, modified BIGINT NOT NULL);
        CREATE TABLE tokens (
          hash TEXT PRIMARY KEY, kind TEXT NOT NULL, username_key TEXT NOT NULL, username TEXT NOT NULL, client_id TEXT, referer TEXT,
          created BIGINT NOT NULL, expires BIGINT NOT NULL, code_challenge TEXT, redirect_uri TEXT);
        CREATE INDEX tokens_user ON tokens (username_key);
        CREATE INDEX tokens_expires ON tokens (expires);
        CREATE TABLE items (
          id TEXT PRIMARY KEY, owner_key TEXT NOT NULL, status TEXT NOT NULL, item JSONB NOT NULL, groups JSONB NOT NULL, sha256 TEXT);
        CREATE INDEX items_owner ON items (owner_key);
        CREATE TABLE groups (
          id TEXT PRIMARY KEY, title TEXT NOT NULL, owner TEXT NOT NULL, snippet TEXT, description TEXT, tags JSONB NOT NULL,
          access TEXT NOT NULL, created BIGINT NOT NULL, modified BIGINT NOT NULL, members JSONB NOT NULL, capabilities JSONB NOT NULL);
        CREATE TABLE folders (
          id TEXT PRIMARY KEY, owner_key TEXT NOT NULL, owner TEXT NOT NULL, title TEXT NOT NULL, created BIGINT NOT NULL,
          UNIQUE (owner_key, title));
        CREATE TABLE signin_failures (key TEXT NOT NULL, time BIGINT NOT NULL);
        CREATE INDEX signin_failures_key ON signin_failures (key, time);
        CREATE INDEX signin_failures_time ON signin_failures (time);
        """,
        // Data versions and upload parts (what a commit at any process needs).
        """
        ALTER TABLE items ADD COLUMN version TEXT;
        CREATE TABLE upload_parts (item_id TEXT NOT NULL, number INTEGER NOT NULL, size BIGINT NOT NULL, PRIMARY KEY (item_id, number));
        """,
        // Search in SQL: each item's search document (ItemQuery.searchDocument), made in Swift
        // when it is saved; rows written before (or by another layout) are made again at start.
        "ALTER TABLE items ADD COLUMN search JSONB NOT NULL DEFAULT '{}'::jsonb",
        // Editable items' authoritative copies, shared by processes (SharedSyncCopies): which
        // object in the bucket is the current copy, at which generation; the replicas' last
        // generations.
        """
        CREATE TABLE sync_copies (item_id TEXT PRIMARY KEY, version TEXT NOT NULL, generation BIGINT NOT NULL);
        CREATE TABLE sync_replicas (
          item_id TEXT NOT NULL, replica TEXT NOT NULL, username TEXT NOT NULL, generation BIGINT NOT NULL, time BIGINT NOT NULL,
          PRIMARY KEY (item_id, replica));
        """,
        // Background jobs: map areas taken offline (issue 33).
        "CREATE TABLE jobs (id TEXT PRIMARY KEY, job JSONB NOT NULL)",
        // What the web pages show: devices' versions, item events, the audit log (issue 34).
        """
        CREATE TABLE device_reports (
          item_id TEXT NOT NULL, device_id TEXT NOT NULL, username TEXT NOT NULL, held_modified BIGINT NOT NULL, last_seen BIGINT NOT NULL,
          address TEXT, PRIMARY KEY (item_id, device_id));
        CREATE TABLE item_events (
          serial BIGSERIAL PRIMARY KEY, item_id TEXT NOT NULL, at BIGINT NOT NULL, kind TEXT NOT NULL, username TEXT, device_id TEXT,
          address TEXT, detail TEXT NOT NULL);
        CREATE INDEX item_events_item ON item_events (item_id, at);
        CREATE TABLE replica_syncs (
          item_id TEXT NOT NULL, replica TEXT NOT NULL, username TEXT NOT NULL, device_id TEXT, at BIGINT NOT NULL, generation BIGINT NOT NULL,
          changes BIGINT NOT NULL, conflicts JSONB NOT NULL, PRIMARY KEY (item_id, replica));
        CREATE TABLE audit_log (
          serial BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, username TEXT NOT NULL, action TEXT NOT NULL, target TEXT NOT NULL, address TEXT,
          detail TEXT NOT NULL);
        CREATE INDEX audit_log_at ON audit_log (at);
        """,
        // Accounts an administrator disabled (issue 34).
        "ALTER TABLE users ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT false",
        // Search in each process's memory (ItemIndex), kept up to date from the item change
        // log, instead of in SQL over the stored search documents (issue 34).
        """
        CREATE TABLE item_changes (serial BIGSERIAL PRIMARY KEY, item_id TEXT NOT NULL);
        ALTER TABLE items DROP COLUMN search
        """,
    ]

    /// Connects to the database at `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`; the
    /// password may come from `PGPASSWORD` instead) and migrates it.
    /// `patience`: how long an operation may wait for the database before it fails (a 503 for
    /// the request); the migrations at start may take twelve times as long.
    public static func connect(_ url: String, password: String? = nil, patience: Duration = .seconds(5)) async throws -> PostgresPortalStore {
        guard let parsed = DatabaseURL(url) else {
            throw PortalStoreError(kind: .invalidName, path: url, message: "'\(url)' is not a PostgreSQL URL (postgres://USER@HOST:PORT/DATABASE)")
        }
        var configuration = PostgresClient.Configuration(
            host: parsed.host, port: parsed.port, username: parsed.user, password: parsed.password ?? password, database: parsed.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(3)
        // The pool's own messages: only errors (it warns when a query comes before its run loop
        // has started, which the first query at start always may).
        var background = Logger(label: "mapbook.portal.postgres")
        background.logLevel = .error
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        let watch = QueryPatience()
        let runner = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                group.addTask { await watch.sweep() }
            }
        }
        let store = PostgresPortalStore(client: client, runner: runner, location: parsed.redacted, patience: patience, watch: watch)
        do {
            try await store.migrate()
            try await store.catchUp()
        } catch {
            await store.shutdown()
            throw error
        }
        return store
    }

    init(client: PostgresClient, runner: Task<Void, Never>, location: String, patience: Duration, watch: QueryPatience) {
        self.client = client
        self.runner = runner
        self.location = location
        self.patience = patience
        self.watch = watch
    }

    /// Stops the connection pool.
    public func shutdown() async {
        runner.cancel()
        _ = await runner.value
    }

    deinit { runner.cancel() }

    /// How long an operation may wait for the database before the request is answered with
    /// a 503: the pool waits for a connection as long as PostgreSQL is down.
    let patience: Duration
    /// Cancels the queries that run out of `patience` (swept by `runner`).
    let watch: QueryPatience

    /// Runs `body`, turning PostgreSQL's errors, and a database that does not answer within
    /// `patience`, into the store's `database` error.
    func run<T: Sendable>(_ what: String, patience: Duration? = nil, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let location = self.location, patience = patience ?? self.patience
        do {
            guard let value = try await watch.run(patience: patience, body) else {
                throw PortalStoreError(kind: .database, path: location, message: "PostgreSQL did not answer within \(patience) to \(what)")
            }
            return value
        } catch let error as PSQLError {
            let reason = error.serverInfo?[.message] ?? String(describing: error.code)
            throw PortalStoreError(kind: .database, path: location, message: "PostgreSQL could not \(what): \(reason)")
        }
    }

    func migrate() async throws {
        try await run("bring the schema up to date", patience: patience * 12) { [self] in
            try await transaction { connection in
                // One process migrates at a time; the others wait and find it done.
                try await connection.query("SELECT pg_advisory_xact_lock(4242001)", logger: Self.logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS mapbook_schema (version INTEGER NOT NULL)", logger: Self.logger)
                var version = 0
                for try await (v) in try await connection.query("SELECT version FROM mapbook_schema", logger: Self.logger).decode(Int.self) { version = v }
                guard version <= Self.migrations.count else {
                    throw PortalStoreError(
                        kind: .newerVersion, path: location,
                        message: "the portal database is version \(version), newer than this mapbook (\(Self.migrations.count)); use a newer mapbook")
                }
                for v in version..<Self.migrations.count {
                    for statement in Self.migrations[v].split(separator: ";").map({ String($0).trimming(" \t\r\n") }) where !statement.isEmpty {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
                    }
                }
                try await connection.query("DELETE FROM mapbook_schema", logger: Self.logger)
                try await connection.query("INSERT INTO mapbook_schema (version) VALUES (\(Self.migrations.count))", logger: Self.logger)
            }
        }
    }

    static let logger = Logger(label: "mapbook.portal.postgres")

    static func key(_ name: String) -> String { name.lowercased() }

    static func json(_ strings: [String]) -> String { JSONWriter.string(.array(strings.map { .string($0) }), style: .compact) }

    static func strings(_ text: String) -> [String] { ((try? JSONParser.parse(text))?.arrayValue ?? []).compactMap(\.stringValue) }

    // MARK: Settings

    // The settings and the groups are read from this process's copy, kept up to date by the
    // change log (`caughtUp`); their writers add a line to the log.

    public func setting(_ key: String) async throws -> String? {
        try await caughtUp { $0.settings[key] }
    }

    public func setSetting(_ key: String, _ value: String) async throws {
        try await changeLogged("write a setting", Self.settingsChanged) { connection in
            try await connection.query("INSERT INTO settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO UPDATE SET value = excluded.value", logger: Self.logger)
        }
    }

    public func settings() async throws -> [String: String] {
        try await caughtUp { $0.settings }
    }

    func storedSettings() async throws -> [String: String] {
        try await run("read the settings") { [self] in
            var all: [String: String] = [:]
            for try await (key, value) in try await client.query("SELECT key, value FROM settings").decode((String, String).self) { all[key] = value }
            return all
        }
    }

    // MARK: Users


    func users(_ query: PostgresQuery) async throws -> [UserRecord] {
        try await run("read users") { [self] in
            try await Self.userRecords(try await client.query(query))
        }
    }

    static let userColumns = "username, id, full_name, email, role, password, created, modified, disabled"

    /// The users of rows of `userColumns`.
    static func userRecords(_ rows: PostgresRowSequence) async throws -> [UserRecord] {
        var found: [UserRecord] = []
        for try await row in rows.decode(PostgresHotStatements.User.Row.self) { found.append(user(row)) }
        return found
    }

    public func user(_ username: String) async throws -> UserRecord? {
        try await run("read users") { [self] in
            // Each loop reads its rows to the end (at most one): the connection goes back to
            // the pool when they are all read.
            var found: UserRecord?
            for try await row in try await client.execute(PostgresHotStatements.User(key: Self.key(username))) { found = Self.user(row) }
            return found
        }
    }

    static func user(_ row: PostgresHotStatements.User.Row) -> UserRecord {
        let (u, id, name, email, role, password, created, modified, disabled) = row
        return UserRecord(username: u, id: id, fullName: name, email: email, role: role, passwordHash: password, created: created, modified: modified, disabled: disabled)
    }

    public func users() async throws -> [UserRecord] {
        try await users("SELECT \(unescaped: Self.userColumns) FROM users ORDER BY username_key")
    }

    public func saveUser(_ u: UserRecord) async throws {
        try await changeLogged("save a user", Self.usersChanged) { connection in
            try await connection.query(Self.upsert(u), logger: Self.logger)
        }
    }

    /// The statement that writes a user, new or not.
    static func upsert(_ u: UserRecord) -> PostgresQuery {
        """
        INSERT INTO users (username_key, username, id, full_name, email, role, password, created, modified, disabled)
        VALUES (\(key(u.username)), \(u.username), \(u.id), \(u.fullName), \(u.email), \(u.role), \(u.passwordHash), \(u.created), \(u.modified),
          \(u.disabled))
        ON CONFLICT (username_key) DO UPDATE SET username = excluded.username, id = excluded.id, full_name = excluded.full_name,
          email = excluded.email, role = excluded.role, password = excluded.password, created = excluded.created, modified = excluded.modified,
          disabled = excluded.disabled
        """
    }

    public func changeUser(_ username: String, _ change: @escaping @Sendable (inout UserRecord) -> Void) async throws -> UserChange {
        defer { wrote() }
        return try await run("change a user") { [self] in
            // A refusal writes nothing, so its commit is as good as a rollback.
            try await transaction { connection in
                // The change log's lock first (`lockLog`, as every writer of the log takes it
                // first), then the active administrators' rows, then the user's, each locked
                // until the commit and always in that order (two changes at once never wait on
                // each other's locks): a second change waits here, then reads the first's
                // result.
                try await Self.lockLog(connection)
                var admins: [String] = []
                let adminRows = try await connection.query(
                    "SELECT username_key FROM users WHERE role = 'org_admin' AND NOT disabled ORDER BY username_key FOR UPDATE", logger: Self.logger)
                for try await key in adminRows.decode(String.self) { admins.append(key) }
                let rows = try await connection.query(
                    "SELECT \(unescaped: Self.userColumns) FROM users WHERE username_key = \(Self.key(username)) FOR UPDATE", logger: Self.logger)
                guard let before = try await Self.userRecords(rows).first else { return UserChange.noSuchUser }
                var after = before
                change(&after)
                if before.isActiveAdmin, !after.isActiveAdmin, !admins.contains(where: { $0 != Self.key(before.username) }) {
                    return .lastAdministrator
                }
                try await connection.query(Self.upsert(after), logger: Self.logger)
                try await Self.appendLog(connection, Self.usersChanged)
                return .changed(after)
            }
        }
    }

    // MARK: Tokens

    public func saveToken(_ t: TokenRecord) async throws {
        try await run("save a token") { [self] in
            try await client.query(
                """
                INSERT INTO tokens (hash, kind, username_key, username, client_id, referer, created, expires, code_challenge, redirect_uri)
                VALUES (\(t.hash), \(t.kind.rawValue), \(Self.key(t.username)), \(t.username), \(t.clientId), \(t.referer), \(t.created), \(t.expires), \(t.codeChallenge), \(t.redirectURI))
                ON CONFLICT (hash) DO UPDATE SET kind = excluded.kind, username_key = excluded.username_key, username = excluded.username,
                  client_id = excluded.client_id, referer = excluded.referer, created = excluded.created, expires = excluded.expires,
                  code_challenge = excluded.code_challenge, redirect_uri = excluded.redirect_uri
                """)
        }
    }

    static let tokenColumns = "hash, kind, username, client_id, referer, created, expires, code_challenge, redirect_uri"

    /// The tokens of rows of `tokenColumns`.
    func tokens(_ query: PostgresQuery) async throws -> [TokenRecord] {
        try await run("read tokens") { [self] in
            var found: [TokenRecord] = []
            for try await row in try await client.query(query).decode(PostgresHotStatements.Token.Row.self) {
                if let record = Self.token(row) { found.append(record) }
            }
            return found
        }
    }

    static func token(_ row: PostgresHotStatements.Token.Row) -> TokenRecord? {
        let (h, kind, user, client, referer, created, expires, challenge, redirect) = row
        guard let kind = TokenRecord.Kind(rawValue: kind) else { return nil }
        return TokenRecord(
            hash: h, kind: kind, username: user, clientId: client, referer: referer, created: created, expires: expires, codeChallenge: challenge, redirectURI: redirect)
    }

    func storedTokenAndUser(hash: String) async throws -> (token: TokenRecord, user: UserRecord?)? {
        try await run("read tokens") { [self] in
            var found: (token: TokenRecord, user: UserRecord?)?
            for try await (tokenRow, userRow) in try await client.execute(PostgresHotStatements.TokenAndUser(key: hash)) {
                guard let token = Self.token(tokenRow) else { continue }
                found = (token, userRow.map(Self.user))
            }
            return found
        }
    }

    public func token(hash: String) async throws -> TokenRecord? {
        try await run("read tokens") { [self] in
            var found: TokenRecord?
            for try await row in try await client.execute(PostgresHotStatements.Token(key: hash)) { found = Self.token(row) }
            return found
        }
    }

    public func tokens() async throws -> [TokenRecord] {
        try await tokens("SELECT \(unescaped: Self.tokenColumns) FROM tokens ORDER BY hash")
    }

    public func deleteToken(hash: String) async throws {
        try await changeLogged("delete a token", Self.usersChanged) { connection in
            try await connection.query("DELETE FROM tokens WHERE hash = \(hash)", logger: Self.logger)
        }
    }

    public func deleteTokens(username: String) async throws {
        try await changeLogged("delete a user's tokens", Self.usersChanged) { connection in
            try await connection.query("DELETE FROM tokens WHERE username_key = \(Self.key(username))", logger: Self.logger)
        }
    }

    public func deleteExpiredTokens(now: Int64) async throws {
        try await run("delete expired tokens") { [self] in try await client.query("DELETE FROM tokens WHERE expires < \(now)") }
    }

    // MARK: Items

    func items(_ query: PostgresQuery) async throws -> [ItemRecord] {
        try await run("read items") { [self] in
            var found: [ItemRecord] = []
            for try await (id, status, text, groups, sha, version) in try await client.query(query).decode((String, String, String, String, String?, String?).self) {
                found.append(try Self.record(id: id, status: status, item: text, groups: groups, sha256: sha, version: version, location: location))
            }
            return found
        }
    }

    static func record(id: String, status: String, item text: String, groups: String, sha256: String?, version: String?, location: String) throws -> ItemRecord {
        guard let status = ItemRecord.Status(rawValue: status), let json = try? JSONParser.parse(text),
            let item = try? PortalItem(json: json, source: "\(location): item \(id)")
        else { throw PortalStoreError(kind: .damagedItem, path: location, message: "item \(id) is damaged; remove its row or restore a backup") }
        return ItemRecord(item: item, status: status, groups: strings(groups), sha256: sha256, version: version)
    }

    public func items() async throws -> [ItemRecord] {
        try await items("SELECT id, status, item::text, groups::text, sha256, version FROM items ORDER BY id")
    }

    public func item(_ id: String) async throws -> ItemRecord? {
        try await items("SELECT id, status, item::text, groups::text, sha256, version FROM items WHERE id = \(id)").first
    }

    public func saveItem(_ r: ItemRecord) async throws {
        let item = JSONWriter.string(r.item.jsonValue, style: .compact), groups = Self.json(r.groups)
        try await changeLogged("save an item", r.item.id) { connection in
            try await connection.query(
                """
                INSERT INTO items (id, owner_key, status, item, groups, sha256, version)
                VALUES (\(r.item.id), \(Self.key(r.item.owner)), \(r.status.rawValue), \(item)::jsonb, \(groups)::jsonb, \(r.sha256), \(r.version))
                ON CONFLICT (id) DO UPDATE SET owner_key = excluded.owner_key, status = excluded.status, item = excluded.item,
                  groups = excluded.groups, sha256 = excluded.sha256, version = excluded.version
                """, logger: Self.logger)
        }
    }

    public func deleteItem(_ id: String) async throws {
        try await changeLogged("delete an item", id) { connection in
            try await connection.query("DELETE FROM items WHERE id = \(id)", logger: Self.logger)
            try await connection.query("DELETE FROM upload_parts WHERE item_id = \(id)", logger: Self.logger)
        }
    }

    /// Runs `body` in a transaction on one connection of the pool: committed when it returns,
    /// rolled back when it throws.
    func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: Self.logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: Self.logger)
                return result
            } catch {
                try? await connection.query("ROLLBACK", logger: Self.logger)
                throw error
            }
        }
    }

    // MARK: Authoritative copies

    /// The current copy of an editable item: its object's version and its generation.
    func syncCopy(itemId: String) async throws -> (version: String, generation: Int64)? {
        try await run("read a sync copy") { [self] in
            var found: (String, Int64)?
            for try await row in try await client.query("SELECT version, generation FROM sync_copies WHERE item_id = \(itemId)").decode((String, Int64).self) {
                found = row
            }
            return found.map { (version: $0.0, generation: $0.1) }
        }
    }

    func saveSyncCopy(itemId: String, version: String, generation: Int64) async throws {
        try await run("record a sync copy") { [self] in
            try await client.query(
                """
                INSERT INTO sync_copies (item_id, version, generation) VALUES (\(itemId), \(version), \(generation))
                ON CONFLICT (item_id) DO UPDATE SET version = excluded.version, generation = excluded.generation
                """)
        }
    }

    func deleteSyncCopy(itemId: String) async throws {
        try await run("delete a sync copy") { [self] in
            try await client.query("DELETE FROM sync_copies WHERE item_id = \(itemId)")
            try await client.query("DELETE FROM sync_replicas WHERE item_id = \(itemId)")
        }
    }

    /// A device's last sync with an item: who, at which generation, when (seconds).
    func saveSyncReplica(itemId: String, replica: String, username: String, generation: Int64, time: Int64) async throws {
        try await run("record a replica") { [self] in
            try await client.query(
                """
                INSERT INTO sync_replicas (item_id, replica, username, generation, time) VALUES (\(itemId), \(replica), \(username), \(generation), \(time))
                ON CONFLICT (item_id, replica) DO UPDATE SET username = excluded.username, generation = excluded.generation, time = excluded.time
                """)
        }
    }

    /// Runs `body` holding PostgreSQL's advisory lock named `key`, which every process using
    /// the database shares: one holder at a time. The lock lives on one connection of the pool
    /// for the time of `body`; a process that dies holding it loses its connection and with
    /// it the lock.
    func withLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws -> T) async throws -> T {
        do {
            return try await client.withConnection { connection in
                try await connection.query("SELECT pg_advisory_lock(hashtext(\(key)))", logger: Self.logger)
                do {
                    let result = try await body()
                    try await connection.query("SELECT pg_advisory_unlock(hashtext(\(key)))", logger: Self.logger)
                    return result
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(hashtext(\(key)))", logger: Self.logger)
                    throw error
                }
            }
        } catch let error as PSQLError {
            let reason = error.serverInfo?[.message] ?? String(describing: error.code)
            throw PortalStoreError(kind: .database, path: location, message: "PostgreSQL could not lock \(key): \(reason)")
        }
    }

    // MARK: Upload parts

    public func saveJob(_ job: JobRecord) async throws {
        let text = JSONWriter.string(job.json, style: .compact)
        try await run("record a job") { [self] in
            try await client.query("INSERT INTO jobs (id, job) VALUES (\(job.id), \(text)::jsonb) ON CONFLICT (id) DO UPDATE SET job = excluded.job")
        }
    }

    public func job(_ id: String) async throws -> JobRecord? {
        try await run("read a job") { [self] in
            var found: JobRecord?
            for try await text in try await client.query("SELECT job::text FROM jobs WHERE id = \(id)").decode(String.self) {
                found = (try? JSONParser.parse(text)).flatMap(JobRecord.init(json:))
            }
            return found
        }
    }

    public func jobs() async throws -> [JobRecord] {
        try await run("read jobs") { [self] in
            var all: [JobRecord] = []
            for try await text in try await client.query("SELECT job::text FROM jobs ORDER BY id").decode(String.self) {
                if let job = (try? JSONParser.parse(text)).flatMap(JobRecord.init(json:)) { all.append(job) }
            }
            return all
        }
    }

    public func deleteJob(_ id: String) async throws {
        try await run("delete a job") { [self] in try await client.query("DELETE FROM jobs WHERE id = \(id)") }
    }

    // MARK: Devices, events, audit

    public func saveDeviceReport(_ r: DeviceReport) async throws {
        try await run("record a device's version") { [self] in
            try await client.query(
                """
                INSERT INTO device_reports (item_id, device_id, username, held_modified, last_seen, address)
                VALUES (\(r.itemId), \(r.deviceId), \(r.username), \(r.heldModified), \(r.lastSeen), \(r.address))
                ON CONFLICT (item_id, device_id) DO UPDATE SET username = excluded.username, held_modified = excluded.held_modified,
                  last_seen = excluded.last_seen, address = excluded.address
                """)
        }
    }

    public func deviceReports(itemId: String) async throws -> [DeviceReport] {
        try await run("read devices' versions") { [self] in
            var all: [DeviceReport] = []
            let rows = try await client.query(
                "SELECT device_id, username, held_modified, last_seen, address FROM device_reports WHERE item_id = \(itemId) ORDER BY last_seen DESC")
            for try await (device, username, held, seen, address) in rows.decode((String, String, Int64, Int64, String?).self) {
                all.append(DeviceReport(itemId: itemId, deviceId: device, username: username, heldModified: held, lastSeen: seen, address: address))
            }
            return all
        }
    }

    public func saveReplicaSync(_ r: ReplicaSync) async throws {
        let conflicts = ReplicaSync.conflictsJSON(r.conflicts)
        try await run("record a replica's sync") { [self] in
            try await client.query(
                """
                INSERT INTO replica_syncs (item_id, replica, username, device_id, at, generation, changes, conflicts)
                VALUES (\(r.itemId), \(r.replica), \(r.username), \(r.deviceId), \(r.at), \(r.generation), \(Int64(r.changes)), \(conflicts)::jsonb)
                ON CONFLICT (item_id, replica) DO UPDATE SET username = excluded.username, device_id = excluded.device_id, at = excluded.at,
                  generation = excluded.generation, changes = excluded.changes, conflicts = excluded.conflicts
                """)
        }
    }

    public func replicaSyncs(itemId: String) async throws -> [ReplicaSync] {
        try await run("read replicas' syncs") { [self] in
            var all: [ReplicaSync] = []
            let rows = try await client.query(
                "SELECT replica, username, device_id, at, generation, changes, conflicts::text FROM replica_syncs WHERE item_id = \(itemId) ORDER BY at DESC")
            for try await (replica, username, device, at, generation, changes, conflicts) in rows.decode((String, String, String?, Int64, Int64, Int64, String).self) {
                all.append(
                    ReplicaSync(
                        itemId: itemId, replica: replica, username: username, deviceId: device, at: at, generation: generation, changes: Int(changes),
                        conflicts: ReplicaSync.conflicts(fromJSON: conflicts)))
            }
            return all
        }
    }

    public func recordItemEvent(_ e: ItemEvent) async throws {
        try await run("record an item's event") { [self] in
            try await client.query(
                """
                INSERT INTO item_events (item_id, at, kind, username, device_id, address, detail)
                VALUES (\(e.itemId), \(e.at), \(e.kind.rawValue), \(e.username), \(e.deviceId), \(e.address), \(e.detail))
                """)
        }
    }

    public func itemEvents(itemId: String, limit: Int) async throws -> [ItemEvent] {
        try await run("read an item's events") { [self] in
            var all: [ItemEvent] = []
            let rows = try await client.query(
                "SELECT at, kind, username, device_id, address, detail FROM item_events WHERE item_id = \(itemId) ORDER BY at DESC, serial DESC LIMIT \(limit)")
            for try await (at, kind, username, device, address, detail) in rows.decode((Int64, String, String?, String?, String?, String).self) {
                guard let kind = ItemEvent.Kind(rawValue: kind) else { continue }
                all.append(ItemEvent(itemId: itemId, at: at, kind: kind, username: username, deviceId: device, address: address, detail: detail))
            }
            return all
        }
    }

    public func recordAudit(_ a: AuditEntry) async throws {
        try await run("record an administrator's action") { [self] in
            try await client.query(
                """
                INSERT INTO audit_log (at, username, action, target, address, detail)
                VALUES (\(a.at), \(a.username), \(a.action), \(a.target), \(a.address), \(a.detail))
                """)
        }
    }

    public func auditEntries(before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await run("read the audit log") { [self] in
            var all: [AuditEntry] = []
            let rows = try await client.query(
                "SELECT at, username, action, target, address, detail, serial FROM audit_log WHERE serial < \(before ?? Int64.max) ORDER BY serial DESC LIMIT \(limit)")
            for try await (at, username, action, target, address, detail, serial) in rows.decode((Int64, String, String, String, String?, String, Int64).self) {
                var entry = AuditEntry(at: at, username: username, action: action, target: target, address: address, detail: detail)
                entry.sequence = serial
                all.append(entry)
            }
            return all
        }
    }

    public func saveUploadPart(itemId: String, _ part: UploadPart) async throws {
        try await run("record an upload part") { [self] in
            try await client.query(
                """
                INSERT INTO upload_parts (item_id, number, size) VALUES (\(itemId), \(part.number), \(part.size))
                ON CONFLICT (item_id, number) DO UPDATE SET size = excluded.size
                """)
        }
    }

    public func uploadParts(itemId: String) async throws -> [UploadPart] {
        try await run("read upload parts") { [self] in
            var parts: [UploadPart] = []
            for try await (number, size) in try await client.query("SELECT number, size FROM upload_parts WHERE item_id = \(itemId) ORDER BY number").decode((Int, Int64).self) {
                parts.append(UploadPart(number: number, size: size))
            }
            return parts
        }
    }

    public func deleteUploadParts(itemId: String) async throws {
        try await run("delete upload parts") { [self] in try await client.query("DELETE FROM upload_parts WHERE item_id = \(itemId)") }
    }

    // MARK: Sign-in failures

    public func recordSignInFailure(_ key: String, at time: Int64, keepingLast: Int) async throws {
        try await run("record a sign-in failure") { [self] in
            try await client.query("INSERT INTO signin_failures (key, time) VALUES (\(key), \(time))")
            try await client.query(
                """
                DELETE FROM signin_failures WHERE key = \(key) AND ctid NOT IN
                  (SELECT ctid FROM signin_failures WHERE key = \(key) ORDER BY time DESC LIMIT \(keepingLast))
                """)
        }
    }

    public func signInFailures(_ key: String, since time: Int64) async throws -> [Int64] {
        try await run("read sign-in failures") { [self] in
            var times: [Int64] = []
            for try await t in try await client.query("SELECT time FROM signin_failures WHERE key = \(key) AND time > \(time) ORDER BY time").decode(Int64.self) {
                times.append(t)
            }
            return times
        }
    }

    public func clearSignInFailures(_ key: String) async throws {
        try await run("clear sign-in failures") { [self] in try await client.query("DELETE FROM signin_failures WHERE key = \(key)") }
    }

    public func pruneSignInFailures(before time: Int64) async throws {
        try await run("prune sign-in failures") { [self] in try await client.query("DELETE FROM signin_failures WHERE time <= \(time)") }
    }

    // MARK: Groups

    func groups(_ query: PostgresQuery) async throws -> [GroupRecord] {
        try await run("read groups") { [self] in
            var found: [GroupRecord] = []
            let rows = try await client.query(query)
            for try await (id, title, owner, snippet, description, tags, access, created, modified, members, capabilities) in rows.decode(
                (String, String, String, String?, String?, String, String, Int64, Int64, String, String).self)
            {
                found.append(GroupRecord(
                    id: id, title: title, owner: owner, snippet: snippet, description: description, tags: Self.strings(tags), access: access,
                    created: created, modified: modified, members: Self.strings(members), capabilities: Self.strings(capabilities)))
            }
            return found
        }
    }

    public func groups() async throws -> [GroupRecord] {
        try await caughtUp { $0.groups }
    }

    public func group(_ id: String) async throws -> GroupRecord? {
        try await caughtUp { $0.groups.first { $0.id == id } }
    }

    func storedGroups() async throws -> [GroupRecord] {
        try await groups(
            "SELECT id, title, owner, snippet, description, tags::text, access, created, modified, members::text, capabilities::text FROM groups ORDER BY title")
    }

    public func saveGroup(_ g: GroupRecord) async throws {
        let tags = Self.json(g.tags), members = Self.json(g.members), capabilities = Self.json(g.capabilities)
        try await changeLogged("save a group", Self.groupsChanged) { connection in
            try await connection.query(
                """
                INSERT INTO groups (id, title, owner, snippet, description, tags, access, created, modified, members, capabilities)
                VALUES (\(g.id), \(g.title), \(g.owner), \(g.snippet), \(g.description), \(tags)::jsonb, \(g.access), \(g.created), \(g.modified),
                  \(members)::jsonb, \(capabilities)::jsonb)
                ON CONFLICT (id) DO UPDATE SET title = excluded.title, owner = excluded.owner, snippet = excluded.snippet,
                  description = excluded.description, tags = excluded.tags, access = excluded.access, created = excluded.created,
                  modified = excluded.modified, members = excluded.members, capabilities = excluded.capabilities
                """, logger: Self.logger)
        }
    }

    public func deleteGroup(_ id: String) async throws {
        try await changeLogged("delete a group", Self.groupsChanged) { connection in
            try await connection.query("DELETE FROM groups WHERE id = \(id)", logger: Self.logger)
        }
    }

    // MARK: Folders

    public func folders(owner: String) async throws -> [FolderRecord] {
        try await run("read folders") { [self] in
            var found: [FolderRecord] = []
            let rows = try await client.query("SELECT id, owner, title, created FROM folders WHERE owner_key = \(Self.key(owner)) ORDER BY title")
            for try await (id, owner, title, created) in rows.decode((String, String, String, Int64).self) {
                found.append(FolderRecord(id: id, owner: owner, title: title, created: created))
            }
            return found
        }
    }

    public func saveFolder(_ f: FolderRecord) async throws {
        try await run("save a folder") { [self] in
            try await client.query(
                """
                INSERT INTO folders (id, owner_key, owner, title, created) VALUES (\(f.id), \(Self.key(f.owner)), \(f.owner), \(f.title), \(f.created))
                ON CONFLICT (id) DO UPDATE SET owner_key = excluded.owner_key, owner = excluded.owner, title = excluded.title, created = excluded.created
                """)
        }
    }

    public func deleteFolder(_ id: String) async throws {
        try await run("delete a folder") { [self] in try await client.query("DELETE FROM folders WHERE id = \(id)") }
    }
}

/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
struct DatabaseURL {
    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String

    init?(_ url: String) {
        let scheme = ["postgres://", "postgresql://"].first { url.hasPrefix($0) }
        guard let scheme else { return nil }
        let rest = url.dropFirst(scheme.count)
        guard let at = rest.lastIndex(of: "@"), let slash = rest[at...].firstIndex(of: "/") else { return nil }
        let credentials = rest[..<at], address = rest[rest.index(after: at)..<slash]
        database = String(rest[rest.index(after: slash)...].prefix { $0 != "?" })
        if let colon = credentials.firstIndex(of: ":") {
            user = String(credentials[..<colon])
            password = String(credentials[credentials.index(after: colon)...])
        } else {
            user = String(credentials)
        }
        if let colon = address.lastIndex(of: ":") {
            host = String(address[..<colon])
            guard let p = Int(address[address.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
        } else {
            host = String(address)
            port = 5432
        }
        guard !user.isEmpty, !host.isEmpty, !database.isEmpty else { return nil }
    }

    var redacted: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
