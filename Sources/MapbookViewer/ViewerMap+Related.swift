import MapbookData
import MapbookSupport

extension ViewerMap {
    /// Adds to a feature's pop-up the records of its related tables and its attachments
    /// (issue 19), as the layer's edit schema names them: each related record's fields but its
    /// key, ids and edit tracking, and each attachment's name, type and size. Nothing for a
    /// layer without relationships; a table that cannot be read adds nothing rather than
    /// failing the pop-up.
    func addRelated(to popup: inout Popup, source: FeatureSource, featureID: Int64) {
        let database = source.table.database, table = source.table.name
        guard let schema = try? EditSchema.read(database, table: table), !schema.related.isEmpty || schema.attachments != nil else { return }
        let q = SQLiteDatabase.quote
        guard let globalid = (try? database.scalar("SELECT \(q(schema.globalIdField)) FROM \(q(table)) WHERE \(q(source.table.idColumn)) = ?", [.integer(featureID)]))??.text else { return }
        for relationship in schema.related {
            let kept = Set(((try? EditSchema.read(database, table: relationship.table))??.keptFields ?? []).map { $0.lowercased() } + ["fid", relationship.key.lowercased()])
            guard let columns = try? database.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(relationship.table)]).compactMap({ $0[0].text }).filter({ !kept.contains($0.lowercased()) }),
                let rows = try? database.query(
                    "SELECT fid\(columns.map { ", " + q($0) }.joined()) FROM \(q(relationship.table)) WHERE \(q(relationship.key)) = ? ORDER BY fid", [.text(globalid)])
            else { continue }
            let records = rows.map { row in
                (id: row[0].int64 ?? 0, fields: columns.enumerated().map { i, column in
                    let value = FieldValue(row[i + 1])
                    return Popup.Field(name: column, label: column, value: value.displayText ?? "", raw: value)
                })
            }
            popup.related.append(Popup.RelatedRecords(table: relationship.table, records: records))
        }
        if let attachments = schema.attachments,
            let rows = try? database.query(
                "SELECT id, att_name, content_type, data_size FROM \(q(attachments.table)) WHERE rel_globalid = ? ORDER BY id", [.text(globalid)])
        {
            popup.attachments = rows.map {
                Popup.Attachment(id: $0[0].int64 ?? 0, name: $0[1].text ?? "", contentType: $0[2].text ?? "", size: $0[3].int64 ?? 0)
            }
        }
    }
}

extension ViewerMap {
    /// One attachment of a feature, its bytes included (a photo a page displays); nil when the
    /// feature has no attachment of that id.
    public func attachment(layer: ViewerLayer, featureID: Int64, attachmentID: Int64) throws -> (name: String, contentType: String, bytes: [UInt8])? {
        let source = try featureSource(for: layer)
        let database = source.table.database, table = source.table.name
        guard let schema = try EditSchema.read(database, table: table), let attachments = schema.attachments else { return nil }
        let q = SQLiteDatabase.quote
        let rows = try database.query(
            """
            SELECT att_name, content_type, data FROM \(q(attachments.table)) WHERE id = ? AND rel_globalid =
              (SELECT \(q(schema.globalIdField)) FROM \(q(table)) WHERE \(q(source.table.idColumn)) = ?)
            """, [.integer(attachmentID), .integer(featureID)])
        guard let row = rows.first else { return nil }
        guard case .blob(let bytes) = row[2] else { return (row[0].text ?? "", row[1].text ?? "application/octet-stream", []) }
        return (row[0].text ?? "", row[1].text ?? "application/octet-stream", bytes)
    }
}

extension Popup {
    /// The related records and attachments as lines of text, for `identify` and the viewer's
    /// pop-up panel: a heading per related table with its records numbered, their fields on
    /// one line; then the attachments with type and size. Empty when there are none.
    public var relatedLines: [String] {
        var lines: [String] = []
        for group in related {
            lines.append("\(group.table) (\(group.records.count)):")
            for (i, record) in group.records.enumerated() {
                let shown = record.fields.filter { !$0.value.isEmpty }.map { "\($0.label): \($0.value)" }
                lines.append("  \(i + 1). " + (shown.isEmpty ? "(no values)" : shown.joined(separator: " · ")))
            }
        }
        if !attachments.isEmpty {
            lines.append("attachments (\(attachments.count)):")
            for a in attachments { lines.append("  \(a.name) (\(a.contentType), \(Self.size(a.size)))") }
        }
        return lines
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        if bytes < 1 << 20 { return "\((bytes * 10 / 1024) / 10).\((bytes * 10 / 1024) % 10) KB" }
        return "\((bytes * 10 >> 20) / 10).\((bytes * 10 >> 20) % 10) MB"
    }
}
