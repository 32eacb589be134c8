#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSupport

/// The portal's copy of an editable package's data: what every device synchronises with
/// (docs/FORMAT.md "Synchronisation"). A `data.gpkg` taken from the published package, with
/// three tables of its own (and the feature service's layer names, `FeatureService`): the log of changesets applied (one generation each, with the
/// changeset id that makes a resend harmless), the generation at which each feature last
/// changed (what a device is sent), and the replicas that synchronised.
///
/// A sync runs in one write transaction: the changeset is merged column by column against
/// the copy (`merge`), logged and answered, or nothing of it happens.
public final class AuthoritativeCopy {
    public let path: String
    let database: SQLiteDatabase
    let layers: [String: SyncLayer]

    static let logTable = "mapbook_sync_log"
    static let rowsTable = "mapbook_sync_rows"
    static let replicasTable = "mapbook_sync_replicas"
    /// Marks a feature (layer, globalid) changed at a generation, deleted or not: what a
    /// device that synchronises next is sent.
    static let markRow = "INSERT INTO \(rowsTable) (layer, globalid, generation, deleted) VALUES (?, ?, ?, ?) ON CONFLICT (layer, globalid) DO UPDATE SET generation = excluded.generation, deleted = excluded.deleted"
    /// In data published from a copy: the generation it holds (a device starts from there).
    public static let baseTable = "mapbook_sync_base"

    /// Makes the copy at `path` from `package`'s data, when it has editable layers (false
    /// otherwise: nothing is written). Written to a temporary file and renamed. The service's
    /// layers keep the numbers they had in the copy at `replacing` (else at `path`), if any.
    @discardableResult
    public static func make(from package: MobileMapPackage, at path: String, replacing: String? = nil) throws -> Bool {
        guard let entry = package.dataEntry else { return false }
        var earlier: [String: Int64] = [:]
        if access(replacing ?? path, F_OK) == 0, let old = try? SQLiteDatabase(readOnlyPath: replacing ?? path) {
            earlier = (try? FeatureService.layerNumbers(in: old)) ?? [:]
            try? old.close()
        }
        let file = try AtomicFile(destination: path)
        try file.write(try package.archive.read(entry))
        let database = try SQLiteDatabase(writablePath: file.temporaryPath, create: false)
        let editable = try EditSchema.editableTables(database)
        if !editable.isEmpty { try FeatureService.recordLayers(of: package, in: database, keeping: earlier) }
        try database.close()
        guard !editable.isEmpty else {
            file.discard()
            return false
        }
        try file.commit()
        return true
    }

    public init(path: String) throws {
        self.path = path
        database = try SQLiteDatabase(writablePath: path, create: false)
        // Savepoints (one per online edit) journal in memory, not in a temporary file.
        try database.execute("PRAGMA busy_timeout = 10000; PRAGMA temp_store = MEMORY")
        try GeoPackageFunctions.register(on: database)
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS \(Self.logTable) (
              generation INTEGER PRIMARY KEY AUTOINCREMENT, changeset_id TEXT NOT NULL UNIQUE, replica TEXT NOT NULL,
              user TEXT NOT NULL, time INTEGER NOT NULL, changes INTEGER NOT NULL DEFAULT 0, changeset BLOB, conflicts TEXT);
            CREATE TABLE IF NOT EXISTS \(Self.rowsTable) (
              layer TEXT NOT NULL, globalid TEXT NOT NULL, generation INTEGER NOT NULL, deleted INTEGER NOT NULL,
              PRIMARY KEY (layer, globalid));
            CREATE INDEX IF NOT EXISTS \(Self.rowsTable)_generation ON \(Self.rowsTable) (generation);
            CREATE TABLE IF NOT EXISTS \(Self.replicasTable) (
              replica TEXT PRIMARY KEY, user TEXT NOT NULL, generation INTEGER NOT NULL, time INTEGER NOT NULL)
            """)
        layers = try SyncLayer.all(in: database)
    }

    deinit { try? database.close() }

    /// Records the feature service's layers again from a new version of the package (its
    /// maps' titles, order and drawing info); the data and what was synchronised stay.
    public func recordServiceLayers(from package: MobileMapPackage) throws {
        try database.execute("BEGIN IMMEDIATE")
        do {
            try FeatureService.recordLayers(of: package, in: database)
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// The latest generation (0: as published).
    public func generation() throws -> Int64 {
        let logged = try database.scalar("SELECT max(generation) FROM \(Self.logTable)")?.int64 ?? 0
        let base = try database.tableExists(Self.baseTable) ? try database.scalar("SELECT generation FROM \(Self.baseTable)")?.int64 ?? 0 : 0
        return max(logged, base)
    }

    /// Applies `request`'s changes by `user` at `now` (Unix seconds), once per changeset id,
    /// and answers with the conflicts met and every feature changed since `request.since`.
    public func synchronise(_ request: SyncRequest, user: String, now: Int64) throws -> SyncResponse {
        try database.execute("BEGIN IMMEDIATE")
        do {
            let response = try synchroniseInTransaction(request, user: user, now: now)
            try database.execute("COMMIT")
            return response
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    func synchroniseInTransaction(_ request: SyncRequest, user: String, now: Int64) throws -> SyncResponse {
        if let prior = try database.query("SELECT conflicts, changes FROM \(Self.logTable) WHERE changeset_id = ?", [.text(request.changesetId)]).first {
            let report = try prior[0].text.map { try JSONParser.parse($0) } ?? .array([])
            var conflicts: [SyncConflict] = []
            for c in report.arrayValue ?? [] { conflicts.append(try SyncConflict(json: c, source: "the portal's log")) }
            return SyncResponse(
                generation: try generation(), applied: false, changes: Int(prior[1].int64 ?? 0), conflicts: conflicts, rows: try rows(since: request.since))
        }
        try checkShapes(request)
        let changes = try SQLiteChangeset.changes(request.changeset, source: "the changeset \(request.changesetId)")
        guard !changes.isEmpty else {
            // Nothing to apply (a device only receiving): no generation is spent on it.
            let current = try generation()
            try recordReplica(request.replica, user: user, generation: current, now: now)
            return SyncResponse(generation: current, applied: true, changes: 0, conflicts: [], rows: try rows(since: request.since))
        }
        try database.query(
            "INSERT INTO \(Self.logTable) (changeset_id, replica, user, time) VALUES (?, ?, ?, ?)",
            [.text(request.changesetId), .text(request.replica), .text(user), .integer(now)])
        let generation = try database.scalar("SELECT last_insert_rowid()")?.int64 ?? 0
        let session = try SQLiteSession(database, tables: layers.keys.sorted())
        let statements = SQLiteStatementCache(database)
        var merge = SyncMerge(database: statements, generation: generation, attachment: attachmentBytes)
        for change in changes {
            guard let layer = layers[change.table] else {
                throw SyncError(kind: .schemaMismatch, message: "the changeset changes \(change.table), which is not an editable layer of the portal's copy")
            }
            try merge.apply(change, layer: layer, globalids: request.globalids[change.table] ?? [:])
        }
        let applied = try session.changeset()
        try database.query(
            "UPDATE \(Self.logTable) SET changes = ?, changeset = ?, conflicts = ? WHERE generation = ?",
            [.integer(Int64(changes.count)), .blob(applied), .text(JSONWriter.string(.array(merge.conflicts.map(\.json)), style: .compact)), .integer(generation)])
        try recordReplica(request.replica, user: user, generation: generation, now: now)
        return SyncResponse(generation: generation, applied: true, changes: changes.count, conflicts: merge.conflicts, rows: try rows(since: request.since, statements))
    }

    func recordReplica(_ replica: String, user: String, generation: Int64, now: Int64) throws {
        try database.query(
            "INSERT INTO \(Self.replicasTable) (replica, user, generation, time) VALUES (?, ?, ?, ?) ON CONFLICT (replica) DO UPDATE SET user = excluded.user, generation = excluded.generation, time = excluded.time",
            [.text(replica), .text(user), .integer(generation), .integer(now)])
    }

    /// Refuses a request whose layers differ from the copy's, saying how.
    func checkShapes(_ request: SyncRequest) throws {
        var differences: [String] = []
        for name in layers.keys.sorted() {
            guard let theirs = request.layers[name] else {
                differences.append("\(name): the portal's copy has this editable layer, this device's has not")
                continue
            }
            differences += theirs.differences(from: layers[name]!.shape, layer: name)
        }
        for name in request.layers.keys.sorted() where layers[name] == nil {
            differences.append("\(name): this device has this editable layer, the portal's copy has not")
        }
        guard differences.isEmpty else {
            throw SyncError(kind: .schemaMismatch, message: "the device's data and the portal's copy differ (download the package again): " + differences.joined(separator: "; "))
        }
    }

    /// Every feature changed after generation `since`, as the copy now holds it.
    func rows(since: Int64, _ statements: SQLiteStatementCache? = nil) throws -> [SyncRow] {
        let statements = statements ?? SQLiteStatementCache(database)
        var rows: [SyncRow] = []
        for row in try database.query("SELECT layer, globalid, deleted FROM \(Self.rowsTable) WHERE generation > ? ORDER BY generation, layer, globalid", [.integer(since)]) {
            let name = row[0].text ?? "", globalid = row[1].text ?? ""
            guard let layer = layers[name] else { continue }
            if row[2].int64 == 1 {
                rows.append(SyncRow(layer: name, globalid: globalid, fid: nil, values: [:]))
                continue
            }
            guard let values = try layer.row(statements, globalid: globalid) else { continue }
            var named: [String: SQLiteValue] = [:]
            for (i, column) in layer.columns.enumerated() where i != layer.media?.data { named[column] = values[i] }
            rows.append(SyncRow(layer: name, globalid: globalid, fid: values[layer.fidIndex].int64, values: named))
        }
        return rows
    }

    // MARK: Attachments

    /// Where attachments' bytes are kept, one file per SHA-256, until a sync puts them in.
    public var attachmentsFolder: String { String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) + "/attachments" }

    /// The largest attachment any layer of the copy takes (0: none takes any).
    public var maxAttachmentBytes: Int64 { layers.values.compactMap { $0.media?.maxBytes }.max() ?? 0 }

    /// The file holding the attachment with this SHA-256 (64 lowercase hex digits), if stored.
    public func attachmentPath(_ sha256: String) -> String? {
        guard SHA256Digest.isHex(sha256) else { return nil }
        let path = attachmentsFolder + "/" + sha256
        return access(path, F_OK) == 0 ? path : nil
    }

    /// The bytes of the stored attachment with this SHA-256; nil when it is not stored.
    func attachmentBytes(_ sha256: String) throws -> [UInt8]? {
        guard let path = attachmentPath(sha256) else { return nil }
        let file = try RandomAccessFile(path: path)
        return try file.read(at: 0, count: Int(file.size))
    }

    /// Which of `hashes` are not stored.
    public func missingAttachments(_ hashes: [String]) -> [String] {
        hashes.filter { attachmentPath($0) == nil }
    }

    /// Stores the uploaded file at `file` under its SHA-256 (the file is moved); returns the
    /// hash. Refused above `maxAttachmentBytes`.
    public func storeAttachment(_ file: String) throws -> String {
        let handle = try RandomAccessFile(path: file)
        guard handle.size <= maxAttachmentBytes else {
            throw SyncError(kind: .tooLarge, message: "the attachment is \(handle.size) bytes; this item's layers take at most \(maxAttachmentBytes)")
        }
        var sha = SHA256Digest()
        try ByteRange(file: handle).forEachChunk { sha.update($0) }
        let hash = sha.finalizeHex()
        let code = FileSystem.makeDirectory(attachmentsFolder, mode: 0o755)
        guard code == 0 else {
            throw SyncError(kind: .missingAttachment, message: "cannot make \(attachmentsFolder): \(FileSystem.errorMessage(code))")
        }
        guard rename(file, attachmentsFolder + "/" + hash) == 0 else {
            throw SyncError(kind: .missingAttachment, message: "cannot store the attachment in \(attachmentsFolder): \(FileSystem.errorMessage())")
        }
        return hash
    }

    /// Writes the copy's data to `path` as a package's `data.gpkg` would hold it: the sync's
    /// own tables left out, the generation it holds recorded, so devices that start from it
    /// ask only for what came after.
    public func export(to path: String) throws {
        let file = try AtomicFile(destination: path)
        try database.query("VACUUM INTO ?", [.text(file.temporaryPath)])
        let copy = try SQLiteDatabase(writablePath: file.temporaryPath, create: false)
        try copy.execute(
            """
            DROP TABLE \(Self.logTable); DROP TABLE \(Self.rowsTable); DROP TABLE \(Self.replicasTable);
            DROP TABLE IF EXISTS \(Self.baseTable); DROP TABLE IF EXISTS \(FeatureService.layersTable);
            CREATE TABLE \(Self.baseTable) (generation INTEGER NOT NULL);
            INSERT INTO \(Self.baseTable) (generation) VALUES (\(try generation()));
            VACUUM
            """)
        try copy.close()
        try file.commit()
    }
}
