import MapbookData
import MapbookSupport

/// An editable layer as a sync merges it: its columns by position (as a changeset names
/// them), which of them are the fid, the globalid and the edit-tracking fields, and the
/// layer's conflict policy.
struct SyncLayer {
    let table: String
    let columns: [String]
    let shape: LayerShape
    let fidIndex: Int
    let globalidIndex: Int
    /// Tracking fields change with every edit on both sides: never a conflict.
    let tracking: Set<Int>
    let policy: EditSchema.ConflictPolicy
    /// For a media table (a layer's attachments): where its bytes, their SHA-256 and size are,
    /// and the largest it may hold. The bytes travel by hash, never in changesets or answers.
    let media: Media?

    struct Media {
        let data: Int
        let sha256: Int
        let size: Int
        let maxBytes: Int64
    }

    /// The editable layers of `database`, by table.
    static func all(in database: SQLiteDatabase) throws -> [String: SyncLayer] {
        var layers: [String: SyncLayer] = [:]
        for table in try EditSchema.editableTables(database) {
            guard let schema = try EditSchema.read(database, table: table) else { continue }
            let base = try schema.attachmentsOf.flatMap { try EditSchema.read(database, table: $0) }
            layers[table] = try SyncLayer(database, table: table, schema: schema, maxAttachmentBytes: base?.attachments?.maxBytes)
        }
        return layers
    }

    init(_ database: SQLiteDatabase, table: String, schema: EditSchema, maxAttachmentBytes: Int64? = nil) throws {
        self.table = table
        let info = try database.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
        columns = info.map { $0[0].text ?? "" }
        shape = try LayerShape(database, table: table, schema: schema.json)
        guard let fid = info.firstIndex(where: { $0[1].int64 == 1 }),
            let globalid = columns.firstIndex(where: { $0.lowercased() == schema.globalIdField.lowercased() })
        else {
            throw SyncError(kind: .schemaMismatch, message: "\(table) has no integer primary key or no \(schema.globalIdField) column, so it cannot be synchronised")
        }
        fidIndex = fid
        globalidIndex = globalid
        let tracked = Set((schema.tracking?.fields ?? []).map { $0.lowercased() })
        let names = columns
        tracking = Set(names.indices.filter { tracked.contains(names[$0].lowercased()) })
        policy = schema.conflicts
        if schema.attachmentsOf != nil, let data = names.firstIndex(of: "data"), let sha = names.firstIndex(of: "sha256"), let size = names.firstIndex(of: "data_size") {
            media = Media(data: data, sha256: sha, size: size, maxBytes: maxAttachmentBytes ?? EditSchema.Attachments.defaultMaxBytes)
        } else {
            media = nil
        }
    }

    /// The feature with `globalid`, every column in table order; nil when there is none.
    func row(_ statements: SQLiteStatementCache, globalid: String) throws -> [SQLiteValue]? {
        let q = SQLiteDatabase.quote
        return try statements.query(
            "SELECT \(columns.map(q).joined(separator: ", ")) FROM \(q(table)) WHERE \(q(columns[globalidIndex])) = ?", [.text(globalid)]
        ).first
    }
}
