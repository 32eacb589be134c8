import MapbookData
import MapbookSupport

/// The device's side of a sync (docs/FORMAT.md "Synchronisation"): the request is made from
/// the pending edits and remembered (its id and the last edit it holds) before it is sent, so
/// a sync cut short sends the same changeset again and the portal applies it once; the answer
/// is applied in one transaction that also clears the edits it covered. Until then new edits
/// are refused (`syncInProgress`): they would be made on features the answer may renumber.
extension WorkingCopy {
    static let syncTable = "mapbook_sync"
    /// The conflicts every sync met, for `mapbook sync --conflicts` and anyone with SQLite.
    public static let conflictsTable = "mapbook_conflicts"

    static let syncSchema = """
        CREATE TABLE IF NOT EXISTS \(syncTable) (
          replica TEXT NOT NULL, generation INTEGER NOT NULL, outbox TEXT, outbox_through INTEGER);
        CREATE TABLE IF NOT EXISTS \(conflictsTable) (
          id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, layer TEXT NOT NULL, globalid TEXT NOT NULL,
          column_name TEXT NOT NULL, base, theirs, ours, outcome TEXT NOT NULL)
        """

    /// This copy's replica id and the generation of the portal's copy it has.
    public func syncState() throws -> (replica: String, generation: Int64, outbox: String?) {
        if let row = try database.query("SELECT replica, generation, outbox FROM \(Self.syncTable)").first {
            return (row[0].text ?? "", row[1].int64 ?? 0, row[2].text)
        }
        // The data a package was published with from a portal's copy says which generation
        // it holds; a package built by `create` holds generation 0.
        let base = try database.tableExists(AuthoritativeCopy.baseTable) ? try database.scalar("SELECT generation FROM \(AuthoritativeCopy.baseTable)")?.int64 ?? 0 : 0
        let replica = Self.randomGlobalID()
        try database.query("INSERT INTO \(Self.syncTable) (replica, generation) VALUES (?, ?)", [.text(replica), .integer(base)])
        return (replica, base, nil)
    }

    /// The request for the pending edits: made and remembered on first call, the same one
    /// (same id, same edits) until `complete` applies its answer.
    public func syncRequest() throws -> SyncRequest {
        try database.execute("BEGIN IMMEDIATE")
        let state: (replica: String, generation: Int64, outbox: String?)
        let through: Int64
        do {
            state = try syncState()
            if state.outbox == nil {
                through = try database.scalar("SELECT coalesce(max(id), 0) FROM \(Self.logTable)")?.int64 ?? 0
                try database.query("UPDATE \(Self.syncTable) SET outbox = ?, outbox_through = ?", [.text(Self.randomGlobalID()), .integer(through)])
            } else {
                through = try database.scalar("SELECT outbox_through FROM \(Self.syncTable)")?.int64 ?? 0
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        let outbox = try database.scalar("SELECT outbox FROM \(Self.syncTable)")?.text ?? ""
        let edits = try pending().filter { $0.id <= through }
        var globalids: [String: [Int64: String]] = [:]
        for edit in edits { globalids[edit.layer, default: [:]][edit.fid] = edit.globalid }
        var layers: [String: LayerShape] = [:]
        for table in try EditSchema.editableTables(database) {
            guard let schema = try EditSchema.read(database, table: table) else { continue }
            layers[table] = try LayerShape(database, table: table, schema: schema.json)
        }
        let changeset = try SQLiteChangeset.combine(edits.map(\.changeset), source: dataPath)
        return SyncRequest(replica: state.replica, changesetId: outbox, since: state.generation, layers: layers, changeset: changeset, globalids: globalids)
    }

    /// Applies the portal's answer to the request `syncRequest` made: every feature it sends
    /// takes the portal's values and fid (a feature added here that the portal renumbered
    /// moves), deletions are deleted, the edits the request held leave the pending list, and
    /// the conflicts are added to `mapbook_conflicts`. One transaction.
    public func complete(_ response: SyncResponse, now: Int64, attachment: (String) throws -> [UInt8]? = { _ in nil }) throws {
        try database.execute("BEGIN IMMEDIATE")
        do {
            let through = try database.scalar("SELECT outbox_through FROM \(Self.syncTable)")?.int64
            let layers = try SyncLayer.all(in: database)
            let q = SQLiteDatabase.quote
            let statements = SQLiteStatementCache(database)
            for row in response.rows.filter(\.isDeleted) {
                guard let layer = layers[row.layer] else { continue }
                try statements.query("DELETE FROM \(q(layer.table)) WHERE \(q(layer.columns[layer.globalidIndex])) = ?", [.text(row.globalid)])
            }
            for row in response.rows where !row.isDeleted {
                guard let layer = layers[row.layer], let fid = row.fid else { continue }
                let table = q(layer.table), fidColumn = q(layer.columns[layer.fidIndex])
                // An attachment comes without its bytes: this device's own, or downloaded.
                var bytes: [UInt8]?
                if let media = layer.media {
                    if case .blob(let b)? = try layer.row(statements, globalid: row.globalid)?[media.data], !b.isEmpty {
                        bytes = b
                    } else {
                        let sha = row.values[layer.columns[media.sha256]]?.text ?? ""
                        guard let fetched = try attachment(sha) else {
                            throw SyncError(kind: .missingAttachment, message: "attachment \(row.globalid) of \(row.layer) (SHA-256 \(sha)) was not downloaded")
                        }
                        bytes = fetched
                    }
                }
                try statements.query("DELETE FROM \(table) WHERE \(q(layer.columns[layer.globalidIndex])) = ?", [.text(row.globalid)])
                // A feature added here holds the fid the portal gave another: it moves aside,
                // and takes its own fid when its row comes.
                if try statements.scalar("SELECT 1 FROM \(table) WHERE \(fidColumn) = ?", [.integer(fid)]) != nil {
                    try statements.query("UPDATE \(table) SET \(fidColumn) = (SELECT max(\(fidColumn)) + 1 FROM \(table)) WHERE \(fidColumn) = ?", [.integer(fid)])
                }
                var values = layer.columns.map { row.values[$0] ?? .null }
                values[layer.fidIndex] = .integer(fid)
                if let media = layer.media, let bytes { values[media.data] = .blob(bytes) }
                try statements.query(
                    "INSERT INTO \(table) (\(layer.columns.map(q).joined(separator: ", "))) VALUES (\(layer.columns.map { _ in "?" }.joined(separator: ", ")))", values)
            }
            if let through { try database.query("DELETE FROM \(Self.logTable) WHERE id <= ?", [.integer(through)]) }
            try database.query("UPDATE \(Self.syncTable) SET generation = ?, outbox = NULL, outbox_through = NULL", [.integer(response.generation)])
            for c in response.conflicts {
                try database.query(
                    "INSERT INTO \(Self.conflictsTable) (time, layer, globalid, column_name, base, theirs, ours, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [.integer(now), .text(c.layer), .text(c.globalid), .text(c.column), c.base, c.theirs, c.ours, .text(c.outcome.rawValue)])
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// The attachments `request` adds, with their bytes: what must be on the portal before it
    /// is sent.
    public func attachmentsToSend(_ request: SyncRequest) throws -> [(sha256: String, bytes: [UInt8])] {
        let layers = try SyncLayer.all(in: database)
        var found: [(String, [UInt8])] = []
        for change in try SQLiteChangeset.changes(request.changeset, source: dataPath) where change.operation == .insert {
            guard let layer = layers[change.table], let media = layer.media, let sha = change.new[safe: media.sha256]??.text,
                let globalid = change.new[safe: layer.globalidIndex]??.text, case .blob(let bytes)? = try layer.row(SQLiteStatementCache(database), globalid: globalid)?[media.data]
            else { continue }
            found.append((sha, bytes))
        }
        return found
    }

    /// The SHA-256 of each attachment the answer brings that this device does not have.
    public func attachmentsToFetch(_ response: SyncResponse) throws -> [String] {
        let layers = try SyncLayer.all(in: database)
        let statements = SQLiteStatementCache(database)
        var hashes: [String] = []
        for row in response.rows where !row.isDeleted {
            guard let layer = layers[row.layer], let media = layer.media, let sha = row.values[layer.columns[media.sha256]]?.text else { continue }
            if case .blob(let b)? = try layer.row(statements, globalid: row.globalid)?[media.data], !b.isEmpty { continue }
            if !hashes.contains(sha) { hashes.append(sha) }
        }
        return hashes
    }

    /// Every conflict reported to this device, oldest first, with when (Unix seconds).
    public func conflicts() throws -> [(time: Int64, conflict: SyncConflict)] {
        try database.query("SELECT time, layer, globalid, column_name, base, theirs, ours, outcome FROM \(Self.conflictsTable) ORDER BY id").map { row in
            (row[0].int64 ?? 0, SyncConflict(
                layer: row[1].text ?? "", globalid: row[2].text ?? "", column: row[3].text ?? "", base: row[4], theirs: row[5], ours: row[6],
                outcome: SyncConflict.Outcome(rawValue: row[7].text ?? "") ?? .ours))
        }
    }

    /// Refuses an edit while a sync's answer is outstanding.
    func checkNoSyncOutstanding() throws {
        if try database.scalar("SELECT outbox FROM \(Self.syncTable)")?.text != nil {
            throw SyncError(kind: .syncInProgress, message: "a sync of \(dataPath) has not completed; run mapbook sync again before editing")
        }
    }
}
