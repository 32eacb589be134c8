import MapbookData
import MapbookPackage
import MapbookSupport

/// A feature service's `addAttachment` and `deleteAttachments` (issue 33): rows of the layer's
/// media table, each change logged with a generation as `applyEdits` logs one, so devices
/// receive them on their next sync (the bytes by SHA-256, from the attachments folder, as
/// attachments synchronised from a device travel).
extension AuthoritativeCopy {
    /// The layer's media table and the feature's globalid; refused when either is missing.
    func attachmentTarget(_ table: String, featureId: Int64) throws -> (media: SyncLayer, globalid: String) {
        guard let schema = try EditSchema.read(database, table: table), let name = schema.attachments?.table, let media = layers[name] else {
            throw FeatureServiceError(.unsupported, "\(table) takes no attachments (hasAttachments is false)")
        }
        let q = SQLiteDatabase.quote
        let id = try FeatureTable(database: database, table: table).idColumn
        guard let globalid = try database.scalar("SELECT \(q(schema.globalIdField)) FROM \(q(table)) WHERE \(q(id)) = ?", [.integer(featureId)])?.text else {
            throw FeatureServiceError(.noSuchFeature, "\(table) has no feature \(featureId)")
        }
        return (media, globalid)
    }

    /// Attaches the file at `file` (moved into the attachments folder) to feature `featureId`
    /// of `table`, named `name`; refused above the layer's limit. The new attachment's id and
    /// globalid, and the generation.
    public func addAttachment(layer table: String, featureId: Int64, file: String, name: String, contentType: String, user: String, now: Int64) throws -> (
        result: FeatureEditResults.Result, sha256: String, generation: Int64?
    ) {
        let (media, parent) = try attachmentTarget(table, featureId: featureId)
        let size = try RandomAccessFile(path: file).size
        guard size <= media.media?.maxBytes ?? EditSchema.Attachments.defaultMaxBytes else {
            throw FeatureServiceError(
                .badParameter, parameter: "attachment", "'\(name)' is \(size) bytes; attachments of \(table) are at most \(media.media?.maxBytes ?? 0) bytes")
        }
        let sha = try storeAttachment(file)
        let stored = try RandomAccessFile(path: attachmentsFolder + "/" + sha)
        let bytes = try stored.read(at: 0, count: Int(stored.size))
        let globalid = WorkingCopy.randomGlobalID()
        let q = SQLiteDatabase.quote
        let (id, generation) = try logged(user: user, now: now, tables: [media.table]) { generation in
            let id = (try database.scalar("SELECT coalesce(max(id), 0) + 1 FROM \(q(media.table))")?.int64) ?? 1
            try database.query(
                "INSERT INTO \(q(media.table)) (id, data, content_type, globalid, rel_globalid, att_name, data_size, sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [.integer(id), .blob(bytes), .text(contentType), .text(globalid), .text(parent), .text(name), .integer(Int64(bytes.count)), .text(sha)])
            try database.query(Self.markRow, [.text(media.table), .text(globalid), .integer(generation), .integer(0)])
            return (id, 1)
        }
        return (FeatureEditResults.Result(objectId: id, globalId: globalid, failure: nil), sha, generation)
    }

    /// Deletes attachments `ids` of feature `featureId` of `table`: a result for each, in order
    /// (1019 for an id that is not one of the feature's attachments).
    public func deleteAttachments(layer table: String, featureId: Int64, ids: [Int64], user: String, now: Int64) throws -> [FeatureEditResults.Result] {
        let (media, parent) = try attachmentTarget(table, featureId: featureId)
        let q = SQLiteDatabase.quote
        let (results, _) = try logged(user: user, now: now, tables: [media.table]) { generation in
            var results: [FeatureEditResults.Result] = []
            for id in ids {
                guard let globalid = try database.scalar("SELECT globalid FROM \(q(media.table)) WHERE id = ? AND rel_globalid = ?", [.integer(id), .text(parent)])?.text else {
                    results.append(.init(objectId: id, globalId: nil, failure: .init(code: .missing, description: "feature \(featureId) of \(table) has no attachment \(id)")))
                    continue
                }
                try database.query("DELETE FROM \(q(media.table)) WHERE id = ?", [.integer(id)])
                try database.query(Self.markRow, [.text(media.table), .text(globalid), .integer(generation), .integer(1)])
                results.append(.init(objectId: id, globalId: globalid, failure: nil))
            }
            return (results, results.filter(\.success).count)
        }
        return results
    }
}
