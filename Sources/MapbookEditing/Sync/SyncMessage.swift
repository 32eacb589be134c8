import MapbookSupport

/// What a device sends to synchronise (docs/FORMAT.md "Synchronisation"): its pending edits as
/// one changeset in SQLite's session format, the globalid of every feature the changeset
/// names by fid (fids differ between devices; globalids do not), and the shape of its
/// editable layers, which must match the portal's copy.
public struct SyncRequest: Sendable, Equatable {
    /// This working copy's replica id (a UUID made at its first sync).
    public var replica: String
    /// The id of this changeset: sending it twice applies it once.
    public var changesetId: String
    /// The last generation of the portal's copy this device has.
    public var since: Int64
    /// Each editable layer's columns (`name TYPE`, in table order) and edit schema.
    public var layers: [String: LayerShape]
    /// The net changes since the last sync (`SQLiteChangeset.combine` of the pending edits).
    public var changeset: [UInt8]
    /// Per layer, the globalid of each fid the changeset names.
    public var globalids: [String: [Int64: String]]

    public init(replica: String, changesetId: String, since: Int64, layers: [String: LayerShape], changeset: [UInt8], globalids: [String: [Int64: String]]) {
        self.replica = replica
        self.changesetId = changesetId
        self.since = since
        self.layers = layers
        self.changeset = changeset
        self.globalids = globalids
    }

    public var json: JSONValue {
        .object(JSONObject([
            ("replica", .string(replica)), ("changesetId", .string(changesetId)), ("since", .integer(since)),
            ("layers", .object(JSONObject(layers.keys.sorted().map { ($0, layers[$0]!.json) }))),
            ("changeset", .string(Base64.encode(changeset))),
            ("globalids", .object(JSONObject(globalids.keys.sorted().map { layer in
                (layer, .object(JSONObject(globalids[layer]!.keys.sorted().map { (String($0), .string(globalids[layer]![$0]!)) })))
            }))),
        ]))
    }

    /// Reads a request, checking every field; `source` names it in errors.
    public init(json: JSONValue, source: String) throws(SyncError) {
        guard let o = json.objectValue else { throw SyncMessage.damaged(source, "is not a JSON object") }
        replica = try SyncMessage.string(o, "replica", source)
        changesetId = try SyncMessage.string(o, "changesetId", source)
        guard let since = o["since"]?.int64Value, since >= 0 else { throw SyncMessage.damaged(source, "has no generation (since)") }
        self.since = since
        guard let text = o["changeset"]?.stringValue, let bytes = Base64.decode(text) else { throw SyncMessage.damaged(source, "has no changeset") }
        changeset = bytes
        var layers: [String: LayerShape] = [:]
        for (name, value) in o["layers"]?.objectValue ?? JSONObject() {
            layers[name] = try LayerShape(json: value, source: source)
        }
        self.layers = layers
        var globalids: [String: [Int64: String]] = [:]
        for (layer, value) in o["globalids"]?.objectValue ?? JSONObject() {
            var ids: [Int64: String] = [:]
            for (fid, id) in value.objectValue ?? JSONObject() {
                guard let f = Int64(fid), let g = id.stringValue else { throw SyncMessage.damaged(source, "names a feature of \(layer) without fid and globalid") }
                ids[f] = g
            }
            globalids[layer] = ids
        }
        self.globalids = globalids
    }
}

/// An editable layer's shape as a sync compares it: its columns in order and its edit schema.
public struct LayerShape: Sendable, Equatable {
    /// `name TYPE` per column, in table order (a changeset names columns by position).
    public var columns: [String]
    public var schema: JSONValue

    public init(columns: [String], schema: JSONValue) {
        self.columns = columns
        self.schema = schema
    }

    /// The shape of `table` in `database`.
    public init(_ database: SQLiteDatabase, table: String, schema: JSONValue) throws(SQLiteError) {
        columns = try database.query("SELECT name, upper(type) FROM pragma_table_info(?) ORDER BY cid", [.text(table)]).map {
            "\($0[0].text ?? "") \($0[1].text ?? "")"
        }
        self.schema = schema
    }

    var json: JSONValue { .object(["columns": .array(columns.map { .string($0) }), "schema": schema]) }

    init(json: JSONValue, source: String) throws(SyncError) {
        guard let o = json.objectValue, let columns = o["columns"]?.arrayValue?.compactMap(\.stringValue) else {
            throw SyncMessage.damaged(source, "describes a layer without columns")
        }
        self.columns = columns
        schema = o["schema"] ?? .null
    }

    /// What differs from `other` (the portal's), in words; empty when nothing does.
    ///
    /// A device whose columns are the first of the portal's, in order, holds a version from
    /// before a republish added fields at the end (and perhaps coded values to the rules): its
    /// changes still apply column by column, and what it is sent back is by column name, so
    /// its pending edits go through and none is lost; it takes the new fields by updating.
    public func differences(from other: LayerShape, layer: String) -> [String] {
        if columns.count <= other.columns.count, Array(other.columns.prefix(columns.count)) == columns, columns != other.columns || schema != other.schema {
            return []
        }
        var found: [String] = []
        let mine = Set(columns), theirs = Set(other.columns)
        for c in other.columns where !mine.contains(c) { found.append("\(layer): the portal's copy has the column '\(c)', this device's has not") }
        for c in columns where !theirs.contains(c) { found.append("\(layer): this device has the column '\(c)', the portal's copy has not") }
        if found.isEmpty, columns != other.columns { found.append("\(layer): the columns are in another order") }
        if schema != other.schema { found.append("\(layer): the edit rules (domains, ranges, required fields) differ") }
        return found
    }
}

/// One conflict a sync met and how it ended, from the syncing device's side: `base` is the
/// value both sides last agreed on, `theirs` the portal's before this sync, `ours` this
/// device's.
public struct SyncConflict: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// Different values: the last to synchronise (this device) wins.
        case ours
        /// Different values under the `manual` policy: the portal's kept, both reported for a
        /// person to choose.
        case manual
        /// An update met a delete: the feature is deleted, the update kept here.
        case deleted
    }

    public var layer: String
    public var globalid: String
    public var column: String
    public var base: SQLiteValue
    public var theirs: SQLiteValue
    public var ours: SQLiteValue
    public var outcome: Outcome

    public init(layer: String, globalid: String, column: String, base: SQLiteValue, theirs: SQLiteValue, ours: SQLiteValue, outcome: Outcome) {
        self.layer = layer
        self.globalid = globalid
        self.column = column
        self.base = base
        self.theirs = theirs
        self.ours = ours
        self.outcome = outcome
    }

    public var json: JSONValue {
        .object(JSONObject([
            ("layer", .string(layer)), ("globalid", .string(globalid)), ("column", .string(column)),
            ("base", SyncMessage.json(base)), ("theirs", SyncMessage.json(theirs)), ("ours", SyncMessage.json(ours)),
            ("outcome", .string(outcome.rawValue)),
        ]))
    }

    init(json: JSONValue, source: String) throws(SyncError) {
        guard let o = json.objectValue, let outcome = o["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:)) else {
            throw SyncMessage.damaged(source, "reports a conflict without an outcome")
        }
        layer = try SyncMessage.string(o, "layer", source)
        globalid = try SyncMessage.string(o, "globalid", source)
        column = try SyncMessage.string(o, "column", source)
        base = try SyncMessage.value(o["base"] ?? .null, source)
        theirs = try SyncMessage.value(o["theirs"] ?? .null, source)
        ours = try SyncMessage.value(o["ours"] ?? .null, source)
        self.outcome = outcome
    }
}

/// A feature as the portal's copy holds it after a sync, or its deletion.
public struct SyncRow: Sendable, Equatable {
    public var layer: String
    public var globalid: String
    /// The fid on the portal, which the device takes (renumbering a feature it added when
    /// another device's took that fid first). Nil for a deletion.
    public var fid: Int64?
    /// Column name to value; empty for a deletion.
    public var values: [String: SQLiteValue]
    public var isDeleted: Bool { fid == nil }

    public init(layer: String, globalid: String, fid: Int64?, values: [String: SQLiteValue]) {
        self.layer = layer
        self.globalid = globalid
        self.fid = fid
        self.values = values
    }

    var json: JSONValue {
        .object(JSONObject([
            ("layer", .string(layer)), ("globalid", .string(globalid)), ("fid", fid.map(JSONValue.integer) ?? .null),
            ("values", .object(JSONObject(values.keys.sorted().map { ($0, SyncMessage.json(values[$0]!)) }))),
        ]))
    }

    init(json: JSONValue, source: String) throws(SyncError) {
        guard let o = json.objectValue else { throw SyncMessage.damaged(source, "holds a row that is not an object") }
        layer = try SyncMessage.string(o, "layer", source)
        globalid = try SyncMessage.string(o, "globalid", source)
        fid = o["fid"]?.int64Value
        var values: [String: SQLiteValue] = [:]
        for (column, value) in o["values"]?.objectValue ?? JSONObject() { values[column] = try SyncMessage.value(value, source) }
        self.values = values
    }
}

/// The portal's answer: the generation the device now has, the conflicts its changes met,
/// and every feature changed since the device's last sync (its own included, as merged).
public struct SyncResponse: Sendable, Equatable {
    public var generation: Int64
    /// False when the changeset had been applied before (sent again after a lost answer).
    public var applied: Bool
    /// How many changes of the request were applied.
    public var changes: Int
    public var conflicts: [SyncConflict]
    public var rows: [SyncRow]

    public init(generation: Int64, applied: Bool, changes: Int, conflicts: [SyncConflict], rows: [SyncRow]) {
        self.generation = generation
        self.applied = applied
        self.changes = changes
        self.conflicts = conflicts
        self.rows = rows
    }

    public var json: JSONValue {
        .object(JSONObject([
            ("generation", .integer(generation)), ("applied", .bool(applied)), ("changes", .integer(Int64(changes))),
            ("conflicts", .array(conflicts.map(\.json))), ("rows", .array(rows.map(\.json))),
        ]))
    }

    public init(json: JSONValue, source: String) throws(SyncError) {
        guard let o = json.objectValue, let generation = o["generation"]?.int64Value else { throw SyncMessage.damaged(source, "has no generation") }
        self.generation = generation
        applied = o["applied"]?.boolValue ?? true
        changes = o["changes"]?.intValue ?? 0
        var conflicts: [SyncConflict] = []
        for c in o["conflicts"]?.arrayValue ?? [] { conflicts.append(try SyncConflict(json: c, source: source)) }
        self.conflicts = conflicts
        var rows: [SyncRow] = []
        for r in o["rows"]?.arrayValue ?? [] { rows.append(try SyncRow(json: r, source: source)) }
        self.rows = rows
    }
}

/// The JSON form of values in sync messages: null, integers and strings as themselves, reals
/// as numbers, blobs (geometries) as `{"base64": ...}`.
enum SyncMessage {
    static func json(_ value: SQLiteValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return d.isFinite ? .number(d) : .null
        case .text(let s): return .string(s)
        case .blob(let b): return .object(["base64": .string(Base64.encode(b))])
        }
    }

    static func value(_ json: JSONValue, _ source: String) throws(SyncError) -> SQLiteValue {
        switch json {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .number(let d): return .real(d)
        case .string(let s): return .text(s)
        case .bool(let b): return .integer(b ? 1 : 0)
        case .object(let o):
            guard let text = o["base64"]?.stringValue, let bytes = Base64.decode(text) else { throw damaged(source, "holds a value that is not one") }
            return .blob(bytes)
        case .array: throw damaged(source, "holds a list where a value belongs")
        }
    }

    static func string(_ o: JSONObject, _ key: String, _ source: String) throws(SyncError) -> String {
        guard let s = o[key]?.stringValue, !s.isEmpty else { throw damaged(source, "has no \(key)") }
        return s
    }

    static func damaged(_ source: String, _ problem: String) -> SyncError {
        SyncError(kind: .damaged, message: "\(source) \(problem)")
    }

    /// Whether two stored values are the same value: numbers compare by value (SQLite gives
    /// a REAL column's 3.0 back as a real, JSON carries it as 3).
    static func same(_ a: SQLiteValue, _ b: SQLiteValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .real(let y)), (.real(let y), .integer(let x)): return Double(x) == y
        default: return a == b
        }
    }
}
