import MapbookSupport

/// Merges one device's changes into the portal's copy, column by column and three-way: the
/// changeset's old values are the base both sides last agreed on, its new values ours, the
/// copy's current values theirs (docs/FORMAT.md "Synchronisation" gives the rules as a table).
///
/// - Same new value on both sides, or only one side changed: no conflict.
/// - Both changed a column to different values: ours under `last_sync_wins` (this device
///   synchronises last), theirs kept under `manual`; either way reported.
/// - An update against a delete: the delete wins, the update is reported.
/// - An insert whose fid another device's feature already has gets the next free fid; the
///   device learns it from the rows it is sent back.
///
/// Features are found by globalid, never by fid. Every feature touched is marked with the
/// sync's generation, so the device is sent the merged result.
struct SyncMerge {
    let database: SQLiteStatementCache
    let generation: Int64
    /// An attachment's bytes by SHA-256, from the portal's store.
    let attachment: (String) throws -> [UInt8]?
    private(set) var conflicts: [SyncConflict] = []

    init(database: SQLiteStatementCache, generation: Int64, attachment: @escaping (String) throws -> [UInt8]? = { _ in nil }) {
        self.database = database
        self.generation = generation
        self.attachment = attachment
    }

    mutating func apply(_ change: SQLiteChange, layer: SyncLayer, globalids: [Int64: String]) throws {
        let globalid = try self.globalid(change, layer: layer, globalids: globalids)
        let current = try layer.row(database, globalid: globalid)
        switch change.operation {
        case .insert:
            if let current {
                // Already here (a device that lost its answer made the same feature again):
                // its values are the latest.
                try update(layer, globalid, current: current, base: current, ours: change.new)
            } else {
                try insert(layer, change.new)
                try fillAttachment(layer, globalid)
            }
            try mark(layer, globalid, deleted: false)
        case .update:
            guard let current else {
                for i in changedColumns(change, layer) {
                    report(layer, globalid, i, base: change.old[i] ?? .null, theirs: .null, ours: change.new[i] ?? .null, .deleted)
                }
                try mark(layer, globalid, deleted: true)
                return
            }
            try update(layer, globalid, current: current, base: change.old, ours: change.new)
            try mark(layer, globalid, deleted: false)
        case .delete:
            if let current {
                for i in layer.columns.indices where i < change.old.count && i != layer.fidIndex && !layer.tracking.contains(i) && i != layer.media?.data {
                    if let old = change.old[i], !SyncMessage.same(old, current[i]) {
                        report(layer, globalid, i, base: old, theirs: current[i], ours: .null, .deleted)
                    }
                }
                try database.query(
                    "DELETE FROM \(SQLiteDatabase.quote(layer.table)) WHERE \(SQLiteDatabase.quote(layer.columns[layer.globalidIndex])) = ?", [.text(globalid)])
            }
            try mark(layer, globalid, deleted: true)
        }
    }

    /// The columns an update changes, fid and tracking fields aside.
    func changedColumns(_ change: SQLiteChange, _ layer: SyncLayer) -> [Int] {
        layer.columns.indices.filter { $0 != layer.fidIndex && !layer.tracking.contains($0) && $0 != layer.media?.data && $0 < change.new.count && change.new[$0] != nil }
    }

    mutating func update(_ layer: SyncLayer, _ globalid: String, current: [SQLiteValue], base: [SQLiteValue?], ours: [SQLiteValue?]) throws {
        var assignments: [(String, SQLiteValue)] = []
        for i in layer.columns.indices where i != layer.fidIndex && i != layer.globalidIndex && i != layer.media?.data && i < ours.count {
            guard let mine = ours[i] else { continue }
            let theirs = current[i]
            let agreed = i < base.count ? base[i] ?? .null : .null
            if SyncMessage.same(theirs, mine) { continue }
            if SyncMessage.same(theirs, agreed) || layer.tracking.contains(i) {
                assignments.append((layer.columns[i], mine))
                continue
            }
            switch layer.policy {
            case .lastSyncWins:
                assignments.append((layer.columns[i], mine))
                report(layer, globalid, i, base: agreed, theirs: theirs, ours: mine, .ours)
            case .manual:
                report(layer, globalid, i, base: agreed, theirs: theirs, ours: mine, .manual)
            }
        }
        guard !assignments.isEmpty else { return }
        let q = SQLiteDatabase.quote
        try database.query(
            "UPDATE \(q(layer.table)) SET \(assignments.map { "\(q($0.0)) = ?" }.joined(separator: ", ")) WHERE \(q(layer.columns[layer.globalidIndex])) = ?",
            assignments.map(\.1) + [.text(globalid)])
    }

    func insert(_ layer: SyncLayer, _ values: [SQLiteValue?]) throws {
        let q = SQLiteDatabase.quote
        // A device from before a republish added fields sends fewer columns: the rest are null.
        var row = values.map { $0 ?? .null } + Array(repeating: .null, count: max(0, layer.columns.count - values.count))
        let fidColumn = q(layer.columns[layer.fidIndex])
        if let fid = row[layer.fidIndex].int64,
            try database.scalar("SELECT 1 FROM \(q(layer.table)) WHERE \(fidColumn) = ?", [.integer(fid)]) != nil
        {
            row[layer.fidIndex] = .integer((try database.scalar("SELECT max(\(fidColumn)) FROM \(q(layer.table))")?.int64 ?? 0) + 1)
        }
        try database.query(
            "INSERT INTO \(q(layer.table)) (\(layer.columns.map(q).joined(separator: ", "))) VALUES (\(layer.columns.map { _ in "?" }.joined(separator: ", ")))", row)
    }

    /// An attachment arrives without its bytes (they travel by hash): they come from the
    /// portal's store, checked against the row's hash and size and the layer's limit.
    func fillAttachment(_ layer: SyncLayer, _ globalid: String) throws {
        guard let media = layer.media, let row = try layer.row(database, globalid: globalid) else { return }
        if case .blob(let b) = row[media.data], !b.isEmpty { return }
        let sha = row[media.sha256].text ?? "", size = row[media.size].int64 ?? -1
        guard size <= media.maxBytes else {
            throw SyncError(kind: .tooLarge, message: "attachment \(globalid) of \(layer.table) is \(size) bytes; the layer takes at most \(media.maxBytes)")
        }
        guard let bytes = try attachment(sha), Int64(bytes.count) == size else {
            throw SyncError(kind: .missingAttachment, message: "attachment \(globalid) of \(layer.table) (SHA-256 \(sha)) has not been uploaded")
        }
        let q = SQLiteDatabase.quote
        try database.query("UPDATE \(q(layer.table)) SET \(q(layer.columns[media.data])) = ? WHERE \(q(layer.columns[layer.globalidIndex])) = ?", [.blob(bytes), .text(globalid)])
    }

    func mark(_ layer: SyncLayer, _ globalid: String, deleted: Bool) throws {
        try database.query(AuthoritativeCopy.markRow, [.text(layer.table), .text(globalid), .integer(generation), .integer(deleted ? 1 : 0)])
    }

    mutating func report(_ layer: SyncLayer, _ globalid: String, _ column: Int, base: SQLiteValue, theirs: SQLiteValue, ours: SQLiteValue, _ outcome: SyncConflict.Outcome) {
        conflicts.append(SyncConflict(layer: layer.table, globalid: globalid, column: layer.columns[column], base: base, theirs: theirs, ours: ours, outcome: outcome))
    }

    /// The globalid of the feature a change is about: in the row for inserts and deletes, from
    /// the device's list for updates (which carry only the columns that changed).
    func globalid(_ change: SQLiteChange, layer: SyncLayer, globalids: [Int64: String]) throws -> String {
        let found: String?
        switch change.operation {
        case .insert: found = change.new[safe: layer.globalidIndex]??.text
        case .delete: found = change.old[safe: layer.globalidIndex]??.text
        case .update: found = change.old[safe: layer.fidIndex]??.int64.flatMap { globalids[$0] }
        }
        guard let found, !found.isEmpty else {
            throw SyncError(kind: .damaged, message: "the changeset changes a feature of \(layer.table) without saying its globalid")
        }
        return found
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
