import MapbookData
import MapbookSupport

/// What merging a republished version into the copy did.
public struct RepublishMerge: Sendable {
    /// The generation the owner's changes were applied at; 0 when there were none.
    public var generation: Int64 = 0
    /// Features the owner added, changed or deleted since the version before.
    public var changes = 0
    /// Where the owner and the field changed the same column, or the owner changed a feature
    /// the field deleted (and the reverse), and how each ended: `ours` is the owner's side.
    public var conflicts: [SyncConflict] = []
    /// Fields the new version added (`layer.field`), and coded values added to a domain
    /// (`layer.field: code`).
    public var addedFields: [String] = []
    public var addedDomainValues: [String] = []

    public init() {}
}

/// Republishing over field work (issue 35, docs/PORTAL.md "Republishing an editable package"):
/// a new version the owner uploads for a package whose copy has received synchronised edits
/// is merged into the copy, not refused or ignored. The owner's changes are what differs
/// between the version published before (the base) and the new one, feature by feature
/// (by globalid) and column by column; they are applied to the copy as one more sync from the
/// owner, with the same three-way rules and the layer's conflict policy (`SyncMerge`), so the
/// field's changes stay, devices receive the owner's at their next sync, and every conflict
/// is reported. Fields and coded values the new version adds are carried into the copy; any
/// other change of the editable layers' schema is refused, naming the differences.
extension AuthoritativeCopy {
    /// The replica a republish is logged as.
    public static let republishReplica = "mapbook-republish"

    /// What in `ours` (the new version's data) a republish cannot carry into the copy, in
    /// words; empty when it can carry all of it. Also what it would add.
    public func republishPlan(ours: SQLiteDatabase) throws -> (refusals: [String], fields: [String: [(name: String, type: String)]], domainValues: [String]) {
        var refusals: [String] = []
        var fields: [String: [(name: String, type: String)]] = [:]
        var domainValues: [String] = []
        let theirs = Set(try EditSchema.editableTables(ours))
        for table in theirs.subtracting(layers.keys).sorted() {
            refusals.append("\(table): the new version makes this layer editable; the published one did not (delete the item and publish it again)")
        }
        for table in layers.keys.sorted() {
            guard theirs.contains(table), let mine = try EditSchema.read(database, table: table), let new = try EditSchema.read(ours, table: table) else {
                refusals.append("\(table): the published version has this editable layer; the new one has not")
                continue
            }
            let have = try Self.columns(database, table), get = try Self.columns(ours, table)
            let haveTypes = Dictionary(have.map { ($0.name.lowercased(), $0.type) }, uniquingKeysWith: { a, _ in a })
            let getTypes = Dictionary(get.map { ($0.name.lowercased(), $0.type) }, uniquingKeysWith: { a, _ in a })
            for c in have where getTypes[c.name.lowercased()] == nil {
                refusals.append("\(table): the new version has no field '\(c.name)'")
            }
            for c in get {
                if let type = haveTypes[c.name.lowercased()] {
                    if type != c.type { refusals.append("\(table): '\(c.name)' is \(type) in the published version and \(c.type) in the new one") }
                } else {
                    fields[table, default: []].append(c)
                }
            }
            var settings = (mine, new)
            settings.0.rules = []
            settings.1.rules = []
            if settings.0 != settings.1 {
                refusals.append("\(table): the edit settings (globalid, tracking, conflict policy, relations or attachments) changed")
            }
            let added = Set((fields[table] ?? []).map { $0.name.lowercased() })
            for rule in new.rules {
                guard let before = mine.rule(rule.field) else {
                    if !added.contains(rule.field.lowercased()) { refusals.append("\(table): '\(rule.field)' has edit rules the published version has not") }
                    continue
                }
                var widened = before
                if case .codedValues(let old)? = before.domain, case .codedValues(let now)? = rule.domain {
                    let codes = Set(now.map(\.code))
                    if old.allSatisfy({ codes.contains($0.code) && now.contains($0) }) {
                        widened.domain = rule.domain
                        let known = Set(old.map(\.code))
                        domainValues += now.filter { !known.contains($0.code) }.map { "\(table).\(rule.field): \($0.code.displayText ?? "")" }
                    }
                }
                if widened != rule { refusals.append("\(table): the edit rules of '\(rule.field)' changed (only added fields and coded values are carried)") }
            }
            for rule in mine.rules where new.rule(rule.field) == nil {
                refusals.append("\(table): '\(rule.field)' lost its edit rules")
            }
        }
        return (refusals, fields, domainValues)
    }

    /// Merges the owner's changes from `base` (the data of the version published before) to
    /// `ours` (the new version's) into the copy, as `user` at `now` (Unix seconds), in one
    /// transaction; refused with `.schemaMismatch` naming the differences when the new
    /// version's schema changes more than adding fields and coded values.
    public func republish(base: SQLiteDatabase, ours: SQLiteDatabase, user: String, now: Int64, changesetId: String) throws -> RepublishMerge {
        let plan = try republishPlan(ours: ours)
        guard plan.refusals.isEmpty else {
            throw SyncError(kind: .schemaMismatch, message: "the new version changes the editable layers in ways a republish cannot carry: " + plan.refusals.joined(separator: "; "))
        }
        var result = RepublishMerge()
        result.addedFields = plan.fields.sorted { $0.key < $1.key }.flatMap { table, list in list.map { "\(table).\($0.name)" } }
        result.addedDomainValues = plan.domainValues
        try database.execute("BEGIN IMMEDIATE")
        do {
            // The schema first: added fields, then the new version's rules (its added codes).
            for (table, list) in plan.fields {
                for c in list { try database.execute("ALTER TABLE \(SQLiteDatabase.quote(table)) ADD COLUMN \(SQLiteDatabase.quote(c.name)) \(c.type)") }
            }
            for table in layers.keys.sorted() where plan.fields[table] != nil || !plan.domainValues.isEmpty {
                guard let schema = try EditSchema.read(ours, table: table) else { continue }
                try schema.install(in: database, table: table, seed: "", timestamp: ISODate.format(seconds: now), ownTransaction: false)
            }
            let current = try SyncLayer.all(in: database)
            var changes: [SQLiteChange] = []
            var globalids: [String: [Int64: String]] = [:]
            for table in current.keys.sorted() {
                let layer = current[table]!
                let (found, ids) = try Self.ownerChanges(layer, base: base, ours: ours)
                changes += found
                globalids[table] = ids
            }
            if !changes.isEmpty {
                try database.query(
                    "INSERT INTO \(Self.logTable) (changeset_id, replica, user, time) VALUES (?, ?, ?, ?)",
                    [.text(changesetId), .text(Self.republishReplica), .text(user), .integer(now)])
                let generation = try database.scalar("SELECT last_insert_rowid()")?.int64 ?? 0
                let session = try SQLiteSession(database, tables: current.keys.sorted())
                var merge = SyncMerge(database: SQLiteStatementCache(database), generation: generation, attachment: attachmentBytes)
                for change in changes { try merge.apply(change, layer: current[change.table]!, globalids: globalids[change.table] ?? [:]) }
                try database.query(
                    "UPDATE \(Self.logTable) SET changes = ?, changeset = ?, conflicts = ? WHERE generation = ?",
                    [.integer(Int64(changes.count)), .blob(try session.changeset()), .text(JSONWriter.string(.array(merge.conflicts.map { $0.json }), style: .compact)), .integer(generation)])
                result.generation = generation
                result.changes = changes.count
                result.conflicts = merge.conflicts
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        return result
    }

    /// `name TYPE` of each column of `table`, in table order.
    static func columns(_ database: SQLiteDatabase, _ table: String) throws -> [(name: String, type: String)] {
        try database.query("SELECT name, upper(type) FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).map { ($0[0].text ?? "", $0[1].text ?? "") }
    }

    /// The owner's changes to `layer` (in the copy's columns) from `base` to `ours`, matched by
    /// globalid, as a sync's changes: inserts and deletes with whole rows, updates with the
    /// base's values and the owner's of the columns that changed (tracking fields aside: a
    /// rebuild stamps them anew). Updates name their feature by a key into the returned
    /// globalids, as a device's do.
    static func ownerChanges(_ layer: SyncLayer, base: SQLiteDatabase, ours: SQLiteDatabase) throws -> ([SQLiteChange], [Int64: String]) {
        func rows(_ database: SQLiteDatabase) throws -> [String: [SQLiteValue]] {
            let present = Set(try columns(database, layer.table).map { $0.name.lowercased() })
            let q = SQLiteDatabase.quote
            let select = layer.columns.map { present.contains($0.lowercased()) ? q($0) : "NULL" }.joined(separator: ", ")
            var out: [String: [SQLiteValue]] = [:]
            for row in try database.query("SELECT \(select) FROM \(q(layer.table))") {
                if let id = row[layer.globalidIndex].text { out[id] = row }
            }
            return out
        }
        let before = try rows(base), after = try rows(ours)
        let compared = layer.columns.indices.filter { $0 != layer.fidIndex && $0 != layer.globalidIndex && !layer.tracking.contains($0) && $0 != layer.media?.data }
        let key = layer.columns.indices.map { $0 == layer.fidIndex }
        var changes: [SQLiteChange] = []
        var globalids: [Int64: String] = [:]
        for id in after.keys.sorted() {
            let row = after[id]!
            guard let old = before[id] else {
                changes.append(SQLiteChange(table: layer.table, operation: .insert, old: [], new: row, primaryKey: key))
                continue
            }
            let changed = compared.filter { !SyncMessage.same(old[$0], row[$0]) }
            guard !changed.isEmpty else { continue }
            let handle = Int64(globalids.count + 1)
            globalids[handle] = id
            var oldValues = [SQLiteValue?](repeating: nil, count: row.count), newValues = oldValues
            oldValues[layer.fidIndex] = .integer(handle)
            for i in changed {
                oldValues[i] = old[i]
                newValues[i] = row[i]
            }
            changes.append(SQLiteChange(table: layer.table, operation: .update, old: oldValues, new: newValues, primaryKey: key))
        }
        for id in before.keys.sorted() where after[id] == nil {
            changes.append(SQLiteChange(table: layer.table, operation: .delete, old: before[id]!, new: [], primaryKey: key))
        }
        return (changes, globalids)
    }
}
