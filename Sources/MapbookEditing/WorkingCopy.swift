#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookSupport

/// A package's data as edited on this device: a copy of its `data.gpkg` in a folder of the
/// device library (`edits/<package GUID>/data.gpkg`, docs/LIBRARY.md), so the package file stays
/// as published (its checksum still matches the portal's, and an update is still found) while
/// every edit lands in a file the viewers can read. Each edit runs in one transaction that also
/// appends its changeset (SQLite's session format) to the copy's `mapbook_changesets` table:
/// the feature and the record of it are written together or not at all.
public final class WorkingCopy {
    public let folder: String
    public var dataPath: String { folder + "/data.gpkg" }
    let database: SQLiteDatabase

    /// A pending edit: what `mapbook edit edits` lists and a sync sends.
    public struct Change: Sendable, Equatable {
        public enum Operation: String, Sendable { case insert, update, delete }
        public var id: Int64
        public var layer: String
        public var operation: Operation
        public var fid: Int64
        public var globalid: String
        /// Unix seconds.
        public var time: Int64
        public var changeset: [UInt8]

        /// As `mapbook edit edits --json` lists it and a page shows it.
        public var jsonValue: JSONValue {
            .object([
                "id": .integer(id), "layer": .string(layer), "operation": .string(operation.rawValue), "fid": .integer(fid),
                "globalid": .string(globalid), "time": .string(ISODate.format(seconds: time)), "changesetBytes": .integer(Int64(changeset.count)),
            ])
        }

        /// "3. 2026-11-27T10:00:00Z update mains 12 {GUID}".
        public var line: String { "\(id). \(ISODate.format(seconds: time)) \(operation.rawValue) \(layer) \(fid) \(globalid)" }
    }

    static let logTable = "mapbook_changesets"
    /// The data the copy was made from (`ZipEntry.contentKey`).
    static let baseTable = ZipEntry.workingCopyBaseTable

    /// Opens the working copy in `folder` (which the device library made), first copying the
    /// package's `data.gpkg` there when there is none (to a temporary file, renamed when
    /// complete).
    ///
    /// The copy remembers which data it was made from (the entry's CRC-32 and size). When the
    /// package has changed since (an update was downloaded), a copy without pending edits is
    /// made again from the new data (keeping what syncs brought that the new data lacks,
    /// `remake`); one with pending edits is refused (`packageChanged`):
    /// they must be synchronised or discarded first, or they would be lost or applied to data
    /// they were not made on.
    ///
    /// `forSync` opens a copy with pending edits made on older data as it is, to send them:
    /// a sync matches features by globalid and merges against the values the edits started
    /// from, whatever version of the package is beside it. Once synchronised, the next open
    /// makes the copy again from the package.
    public init(package: MobileMapPackage, folder: String, forSync: Bool = false) throws {
        self.folder = folder
        let path = folder + "/data.gpkg"
        guard let entry = package.dataEntry else {
            throw EditError(kind: .notEditable, layer: "", field: "", message: "\(package.path) has no data.gpkg, so nothing in it can be edited")
        }
        let base = entry.contentKey
        if access(path, F_OK) == 0 {
            let existing = try SQLiteDatabase(writablePath: path, create: false)
            let recorded = try existing.tableExists(Self.baseTable) ? try existing.scalar("SELECT base FROM \(Self.baseTable)")?.text : nil
            let pending = try existing.tableExists(Self.logTable) ? try existing.scalar("SELECT count(*) FROM \(Self.logTable)")?.int64 ?? 0 : 0
            try existing.close()
            if recorded != base, !(forSync && pending > 0) {
                guard pending == 0 else {
                    throw EditError(kind: .packageChanged, layer: "", field: "", message: "\(package.path) changed since this device's \(pending) pending edit\(pending == 1 ? "" : "s") were made; synchronise them (mapbook sync), or throw them away with mapbook edit discard")
                }
                try Self.remake(path, from: try package.archive.read(entry))
            }
        } else {
            try AtomicFile.write(try package.archive.read(entry), to: path)
        }
        database = try SQLiteDatabase(writablePath: path, create: false)
        try GeoPackageFunctions.register(on: database)
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS \(Self.logTable) (
              id INTEGER PRIMARY KEY AUTOINCREMENT, layer TEXT NOT NULL, operation TEXT NOT NULL,
              fid INTEGER NOT NULL, globalid TEXT NOT NULL, time INTEGER NOT NULL, changeset BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS \(Self.baseTable) (base TEXT NOT NULL);
            \(Self.syncSchema)
            """)
        if try database.scalar("SELECT count(*) FROM \(Self.baseTable)")?.int64 == 0 {
            try database.query("INSERT INTO \(Self.baseTable) (base) VALUES (?)", [.text(base)])
        }
    }

    deinit { try? database.close() }

    /// Makes the copy at `path` again from a package's new `data`. When the old copy had
    /// synchronised past the generation the new data was published at (a version published
    /// from the portal's copy while this device kept synchronising), its editable layers, its
    /// replica and its conflicts are carried into the new copy: the views keep showing what
    /// this device already received, and the next sync asks only for what came after. Other
    /// layers come from the new data. One rename: the old copy stays until the new one is
    /// complete.
    static func remake(_ path: String, from data: [UInt8]) throws {
        let file = try AtomicFile(destination: path)
        try file.write(data)
        let fresh = try SQLiteDatabase(writablePath: file.temporaryPath, create: false)
        let old = try SQLiteDatabase(readOnlyPath: path)
        let published = try fresh.tableExists(AuthoritativeCopy.baseTable) ? try fresh.scalar("SELECT generation FROM \(AuthoritativeCopy.baseTable)")?.int64 ?? 0 : 0
        let received = try old.tableExists(syncTable) ? try old.scalar("SELECT generation FROM \(syncTable)")?.int64 ?? 0 : 0
        let tables = try EditSchema.editableTables(fresh)
        let same = try tables == EditSchema.editableTables(old) && tables.allSatisfy { table in
            guard let a = try EditSchema.read(fresh, table: table), let b = try EditSchema.read(old, table: table) else { return false }
            return try LayerShape(fresh, table: table, schema: a.json) == LayerShape(old, table: table, schema: b.json)
        }
        try old.close()
        if received > published, same {
            try GeoPackageFunctions.register(on: fresh)
            try fresh.query("ATTACH DATABASE ? AS previous", [.text(path)])
            try fresh.execute("BEGIN IMMEDIATE")
            do {
                let q = SQLiteDatabase.quote
                for table in tables {
                    try fresh.execute("DELETE FROM main.\(q(table)); INSERT INTO main.\(q(table)) SELECT * FROM previous.\(q(table))")
                }
                try fresh.execute(
                    """
                    \(syncSchema);
                    INSERT INTO main.\(syncTable) (replica, generation) SELECT replica, generation FROM previous.\(syncTable);
                    INSERT INTO main.\(conflictsTable) SELECT * FROM previous.\(conflictsTable)
                    """)
                try fresh.execute("COMMIT")
            } catch {
                try? fresh.execute("ROLLBACK")
                throw error
            }
            try fresh.execute("DETACH DATABASE previous")
        }
        try fresh.close()
        try file.commit()
    }

    /// Refuses, before any working copy is made, a package without data to edit and a layer
    /// without an edit schema, reading the package's own data in place.
    public static func checkEditable(package: MobileMapPackage, layer table: String) throws {
        guard let entry = package.dataEntry else {
            throw EditError(kind: .notEditable, layer: "", field: "", message: "\(package.path) has no data.gpkg (an Esri package keeps its data in a mobile geodatabase), so nothing in it can be edited")
        }
        let data = try package.database(entry)
        guard try EditSchema.read(data, table: table) == nil else { return }
        let editable = (try? EditSchema.editableTables(data)) ?? []
        throw EditError(
            kind: .notEditable, layer: table, field: "",
            message: "is not editable (its source has no edit: in the project); " + (editable.isEmpty ? "no layer of this package is" : "the editable layers are: \(editable.sorted().joined(separator: ", "))"))
    }

    /// The layer `table`, with what its edit schema allows; refused when it has none.
    public func layer(_ table: String) throws -> (table: FeatureTable, validator: EditValidator) {
        let features = try FeatureTable(database: database, table: table)
        guard let schema = try EditSchema.read(database, table: table) else {
            throw EditError(kind: .notEditable, layer: table, field: "", message: "is not editable (its source has no edit: in the project)")
        }
        return (features, EditValidator(layer: table, fields: features.fields, schema: schema))
    }

    /// Adds a feature: `geometry` in WGS84, `values` checked (`EditValidator.insert`). A new
    /// random globalid (RFC 9562 version 4), so features added on different devices never
    /// share one; the tracking fields say `user` and `now`.
    public func add(layer table: String, geometry: Geometry?, values typed: [(field: String, text: String)], user: String, now: Int64) throws -> Change {
        try add(layer: table, geometry: geometry, values: typed, set: [:], user: user, now: now)
    }

    /// `add` with `set` written as given (a related record's key), past the validator.
    func add(layer table: String, geometry: Geometry?, values typed: [(field: String, text: String)], set: [String: FieldValue], user: String, now: Int64) throws -> Change {
        let (features, validator) = try layer(table)
        if geometry == nil, features.geometryColumn != nil {
            throw EditError(kind: .noPlace, layer: table, field: "", message: "a feature of this layer needs a place: give --at LON,LAT or --geometry WKT")
        }
        var values = try validator.insert(typed)
        for (field, value) in set { values[field] = value }
        let globalid = Self.randomGlobalID()
        values[validator.schema.globalIdField] = .text(globalid)
        if let tracking = validator.schema.tracking {
            values[tracking.creator] = .text(user)
            values[tracking.created] = .text(ISODate.format(seconds: now))
            values[tracking.editor] = .text(user)
            values[tracking.edited] = .text(ISODate.format(seconds: now))
        }
        let q = SQLiteDatabase.quote
        var columns = [features.idColumn] + values.keys.sorted()
        var bindings = [SQLiteValue.integer(try unusedFid(table, idColumn: features.idColumn))] + values.keys.sorted().map { values[$0]!.sqliteValue }
        if let geometry, let column = features.geometryColumn {
            columns.append(column)
            bindings.append(.blob(try encode(geometry, for: features)))
        }
        let sql = "INSERT INTO \(q(table)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        return try record(table, .insert, globalid: globalid, now: now) { () throws -> Int64 in
            try database.query(sql, bindings)
            return try database.scalar("SELECT last_insert_rowid()")?.int64 ?? 0
        }
    }

    /// Changes the fields `typed` names of feature `fid`, and its geometry when given.
    public func update(layer table: String, fid: Int64, geometry: Geometry? = nil, values typed: [(field: String, text: String)], user: String, now: Int64) throws -> Change {
        let (features, validator) = try layer(table)
        var values = try validator.update(typed)
        if let tracking = validator.schema.tracking {
            values[tracking.editor] = .text(user)
            values[tracking.edited] = .text(ISODate.format(seconds: now))
        }
        let globalid = try self.globalid(table, fid, validator.schema, idColumn: features.idColumn)
        var assignments = values.keys.sorted().map { ($0, values[$0]!.sqliteValue) }
        if let geometry, let column = features.geometryColumn {
            assignments.append((column, .blob(try encode(geometry, for: features))))
        }
        let q = SQLiteDatabase.quote
        let sql = "UPDATE \(q(table)) SET \(assignments.map { "\(q($0.0)) = ?" }.joined(separator: ", ")) WHERE \(q(features.idColumn)) = ?"
        return try record(table, .update, globalid: globalid, now: now) { () throws -> Int64 in
            try database.query(sql, assignments.map(\.1) + [.integer(fid)])
            return fid
        }
    }

    /// Deletes a feature, and its attachments with it (in the same changeset); its related
    /// records stay, as ArcGIS keeps a simple relationship's.
    public func delete(layer table: String, fid: Int64, now: Int64) throws -> Change {
        let (features, validator) = try layer(table)
        let globalid = try self.globalid(table, fid, validator.schema, idColumn: features.idColumn)
        let q = SQLiteDatabase.quote
        let sql = "DELETE FROM \(q(table)) WHERE \(q(features.idColumn)) = ?"
        let media = validator.schema.attachments?.table
        return try record(table, .delete, globalid: globalid, now: now, tables: [table] + (media.map { [$0] } ?? [])) { () throws -> Int64 in
            if let media { try database.query("DELETE FROM \(q(media)) WHERE rel_globalid = ?", [.text(globalid)]) }
            try database.query(sql, [.integer(fid)])
            return fid
        }
    }

    /// Adds a record to the table related to feature `fid` of `table` (a tree's inspection):
    /// `values` checked against the related table's rules, its key set to the feature's
    /// globalid.
    public func relate(layer table: String, fid: Int64, related: String, values typed: [(field: String, text: String)], user: String, now: Int64) throws -> Change {
        let (features, validator) = try layer(table)
        guard let relationship = validator.schema.related.first(where: { $0.table.lowercased() == related.lowercased() }) else {
            let names = validator.schema.related.map(\.table)
            throw EditError(kind: .notEditable, layer: table, field: "", message: "has no related table '\(related)'; \(names.isEmpty ? "it has none" : "its related tables are: " + names.joined(separator: ", "))")
        }
        if typed.contains(where: { $0.field.lowercased() == relationship.key.lowercased() }) {
            throw EditError(kind: .readOnly, layer: relationship.table, field: relationship.key, message: "is set to the feature's globalid; it cannot be given")
        }
        let base = try globalid(table, fid, validator.schema, idColumn: features.idColumn)
        return try add(layer: relationship.table, geometry: nil, values: typed, set: [relationship.key: .text(base)], user: user, now: now)
    }

    /// Attaches a file (`bytes`, named `name`) to feature `fid` of `table`: a row of the
    /// layer's media table whose bytes stay out of the changeset (a sync sends them once, by
    /// their SHA-256). Refused above the layer's size limit.
    public func attach(layer table: String, fid: Int64, bytes: [UInt8], name: String, contentType: String, now: Int64) throws -> Change {
        let (features, validator) = try layer(table)
        guard let attachments = validator.schema.attachments else {
            throw EditError(kind: .notEditable, layer: table, field: "", message: "takes no attachments (its source has no attachments: in the project)")
        }
        guard Int64(bytes.count) <= attachments.maxBytes else {
            throw EditError(kind: .tooLarge, layer: table, field: "", message: "'\(name)' is \(bytes.count) bytes; attachments of this layer are at most \(attachments.maxBytes) bytes")
        }
        let base = try globalid(table, fid, validator.schema, idColumn: features.idColumn)
        let globalid = Self.randomGlobalID()
        let media = SQLiteDatabase.quote(attachments.table)
        let id = try unusedFid(attachments.table, idColumn: "id")
        return try record(attachments.table, .insert, globalid: globalid, now: now) { () throws -> Int64 in
            try database.query(
                "INSERT INTO \(media) (id, data, content_type, globalid, rel_globalid, att_name, data_size, sha256) VALUES (?, x'', ?, ?, ?, ?, ?, ?)",
                [.integer(id), .text(contentType), .text(globalid), .text(base), .text(name), .integer(Int64(bytes.count)), .text(SHA256Digest.hex(of: bytes))])
            return id
        } after: { id in
            try self.database.query("UPDATE \(media) SET data = ? WHERE id = ?", [.blob(bytes), .integer(id)])
        }
    }

    /// The MIME type of a file by its name's extension, as attachments record it.
    public static func contentType(forName name: String) -> String {
        let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let types = [
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "heic": "image/heic", "webp": "image/webp",
            "tif": "image/tiff", "tiff": "image/tiff", "pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv", "mp4": "video/mp4",
            "mov": "video/quicktime", "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav", "zip": "application/zip",
        ]
        return types[ext] ?? "application/octet-stream"
    }

    /// The edits not yet synchronised, oldest first.
    public func pending() throws -> [Change] {
        try database.query("SELECT id, layer, operation, fid, globalid, time, changeset FROM \(Self.logTable) ORDER BY id").map { row in
            var bytes: [UInt8] = []
            if case .blob(let b) = row[6] { bytes = b }
            return Change(
                id: row[0].int64 ?? 0, layer: row[1].text ?? "", operation: Change.Operation(rawValue: row[2].text ?? "") ?? .update,
                fid: row[3].int64 ?? 0, globalid: row[4].text ?? "", time: row[5].int64 ?? 0, changeset: bytes)
        }
    }

    /// Deletes the working copy and its log: every edit not yet synchronised is gone, and the
    /// package's own data shows again. The object is unusable after.
    public func discard() throws {
        try database.close()
        _ = try Self.discard(folder: folder)
    }

    /// Deletes the working copy in `folder` without opening it as one (it may have been made
    /// from data the package no longer holds); returns the pending edits it held.
    public static func discard(folder: String) throws -> Int {
        let path = folder + "/data.gpkg"
        var pending = 0
        if access(path, F_OK) == 0, let copy = try? SQLiteDatabase(readOnlyPath: path) {
            if (try? copy.tableExists(logTable)) == true { pending = Int((try? copy.scalar("SELECT count(*) FROM \(logTable)"))??.int64 ?? 0) }
            try? copy.close()
        }
        for suffix in ["", "-wal", "-shm", "-journal"] where unlink(path + suffix) != 0 && errno != ENOENT {
            throw EditError(kind: .notEditable, layer: "", field: "", message: "cannot remove \(path + suffix): \(FileSystem.errorMessage())")
        }
        // Everything else the copy made (the locator index of the edited data, attachments).
        FileSystem.removeTree(folder)
        return pending
    }

    /// Runs `body` (which returns the feature's fid) in a transaction with a session on
    /// `tables` (the layer's, by default), and appends the changeset it made to the log, in
    /// the same transaction. `after` runs in the transaction once the session is gone: what it
    /// writes is not in the changeset (an attachment's bytes, which travel by hash).
    func record(
        _ table: String, _ operation: Change.Operation, globalid: String, now: Int64, tables: [String]? = nil, _ body: () throws -> Int64,
        after: ((Int64) throws -> Void)? = nil
    ) throws -> Change {
        try checkNoSyncOutstanding()
        try database.execute("BEGIN IMMEDIATE")
        do {
            let (fid, changeset) = try { () throws -> (Int64, [UInt8]) in
                let session = try SQLiteSession(database, tables: tables ?? [table])
                let fid = try body()
                return (fid, try session.changeset())
            }()
            guard !changeset.isEmpty else {
                throw EditError(kind: .noSuchFeature, layer: table, field: "", message: "feature \(fid) does not exist")
            }
            try after?(fid)
            try database.query(
                "INSERT INTO \(Self.logTable) (layer, operation, fid, globalid, time, changeset) VALUES (?, ?, ?, ?, ?, ?)",
                [.text(table), .text(operation.rawValue), .integer(fid), .text(globalid), .integer(now), .blob(changeset)])
            let id = try database.scalar("SELECT last_insert_rowid()")?.int64 ?? 0
            try database.execute("COMMIT")
            return Change(id: id, layer: table, operation: operation, fid: fid, globalid: globalid, time: now, changeset: changeset)
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// A fid for a new row of `table` that no row and no pending edit has used: the pending
    /// changesets are combined when sent, and a delete and an insert of one fid would combine
    /// into an update of another feature.
    func unusedFid(_ table: String, idColumn: String) throws -> Int64 {
        let q = SQLiteDatabase.quote
        return max(
            try database.scalar("SELECT coalesce(max(\(q(idColumn))), 0) FROM \(q(table))")?.int64 ?? 0,
            try database.scalar("SELECT coalesce(max(fid), 0) FROM \(Self.logTable) WHERE layer = ?", [.text(table)])?.int64 ?? 0) + 1
    }

    func globalid(_ table: String, _ fid: Int64, _ schema: EditSchema, idColumn: String = "fid") throws -> String {
        let q = SQLiteDatabase.quote
        guard let id = try database.scalar("SELECT \(q(schema.globalIdField)) FROM \(q(table)) WHERE \(q(idColumn)) = ?", [.integer(fid)])?.text else {
            throw EditError(kind: .noSuchFeature, layer: table, field: "", message: "feature \(fid) does not exist")
        }
        return id
    }

    /// `geometry` (WGS84) in the layer's coordinate system, as GeoPackage binary.
    func encode(_ geometry: Geometry, for features: FeatureTable) throws -> [UInt8] {
        var g = geometry
        if let crs = features.crs, !crs.isWGS84 {
            guard let projected = try CoordinateTransform(from: .wgs84, to: crs).apply(geometry) else {
                throw EditError(kind: .wrongType, layer: features.name, field: features.geometryColumn ?? "geom", message: "the geometry cannot be put in the layer's coordinate system")
            }
            g = projected
        }
        if let type = features.geometryType, let family = type.family, family != g.type.family {
            throw EditError(kind: .wrongType, layer: features.name, field: features.geometryColumn ?? "geom", message: "the layer holds \(type.gpkgName.lowercased())s, not this geometry")
        }
        return GeoPackageBinary.encode(g, srsID: Int32(features.srsID ?? 4326))
    }

    static func randomGlobalID() -> String {
        // Two draws of the system's generator, not sixteen: each is a system call.
        var rng = SystemRandomNumberGenerator()
        let (high, low) = (rng.next(), rng.next())
        return EditSchema.format(uuidBytes: (0..<16).map { i in UInt8(truncatingIfNeeded: (i < 8 ? high : low) >> (UInt64(i % 8) * 8)) }, version: 4)
    }
}
