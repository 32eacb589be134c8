import MapbookData
import MapbookSupport

/// `queryRelatedRecords` and the attachments of a layer's features, read from the copy.
extension FeatureService {
    /// The records related to `objectIds` of `layer` through `relationshipId`, grouped by
    /// feature (`relatedRecordGroups`; a feature without related records has no group):
    /// `outFields`, `returnGeometry`, `outSR` and `definitionExpression` (on the related
    /// table) as `query` reads them.
    public func relatedRecords(_ parameters: [String: String], layer: Layer) throws -> JSONValue {
        var p: [String: String] = [:]
        for (key, value) in parameters { p[key.lowercased()] = value }
        guard let text = p["relationshipid"], let id = Int(text.trimming(" ")),
            let relationship = relationships.first(where: { $0.id == id && ($0.origin == layer.id || $0.destination == layer.id) })
        else {
            let ids = relationships.filter { $0.origin == layer.id || $0.destination == layer.id }.map { String($0.id) }
            throw FeatureServiceError(
                .badParameter, parameter: "relationshipId", "give one of this layer's relationships: \(ids.isEmpty ? "it has none" : ids.joined(separator: ", "))")
        }
        let isOrigin = relationship.origin == layer.id
        let other = try self.layer(isOrigin ? relationship.destination : relationship.origin)
        var asked: [String: String] = ["where": p["definitionexpression"] ?? ""]
        for key in ["outfields", "returngeometry", "outsr", "returnz", "returnm", "f"] { asked[key] = p[key] }
        let query = try FeatureQuery(asked, layer: other, maxRecordCount: maxRecordCount)
        let objectIds = try FeatureQuery(["objectIds": p["objectids"] ?? ""], layer: layer, maxRecordCount: maxRecordCount).selection.ids ?? []
        let (mine, theirs) = isOrigin ? (relationship.originKey, relationship.destinationKey) : (relationship.destinationKey, relationship.originKey)
        let q = SQLiteDatabase.quote
        let features = other.features
        do {
            try features.setFilter(query.filter)
        } catch {
            throw FeatureServiceError(.badWhere, parameter: "definitionExpression", error.message)
        }
        defer { try? features.setFilter(nil) }
        let fields = query.outFields.map { names in names.compactMap { features.field(named: $0) } } ?? features.fields
        let transform = try Self.transform(from: features.crs, to: query.outCRS ?? features.crs)
        var groups: [JSONValue] = []
        for objectId in objectIds {
            guard let key = try database.scalar("SELECT \(q(mine)) FROM \(q(layer.name)) WHERE \(q(layer.features.idColumn)) = ?", [.integer(objectId)]), key != .null else { continue }
            let ids = try database.query("SELECT \(q(features.idColumn)) FROM \(q(features.name)) WHERE \(q(theirs)) = ?", [key]).compactMap { $0[0].int64 }
            guard !ids.isEmpty else { continue }
            let cursor = try features.features(FeatureSelection(ids: ids), fields: query.outFields, geometry: query.returnGeometry && !other.isTable)
            var records: [JSONValue] = []
            while let row = try cursor.next() {
                let geometry = query.returnGeometry ? row.geometry.flatMap { transform?.apply($0) ?? $0 } : nil
                records.append(Self.featureJSON(row, idField: features.idColumn, fields: fields, geometry: geometry))
            }
            groups.append(.object(["objectId": .integer(objectId), "relatedRecords": .array(records)]))
        }
        var o = JSONObject()
        o["fields"] = .array(Self.fieldsJSON(other, names: query.outFields.map { Set($0.map { $0.lowercased() }) }))
        if !other.isTable, query.returnGeometry {
            o["geometryType"] = .string(Self.geometryType(features))
            o["spatialReference"] = Self.spatialReferenceJSON(query.outCRS ?? features.crs)
        }
        o["relatedRecordGroups"] = .array(groups)
        return .object(o)
    }

    /// One attachment of a feature, as `attachments/{id}` sends it.
    public struct Attachment {
        public var id: Int64
        public var globalId: String
        public var name: String
        public var contentType: String
        public var size: Int64
        public var bytes: [UInt8]
    }

    /// The attachments of feature `featureId` of `layer` (without their bytes when `bytes`
    /// is false), in id order; only `attachmentId` when given.
    public func attachments(layer: Layer, featureId: Int64, attachmentId: Int64? = nil, bytes: Bool = false) throws -> [Attachment] {
        guard let schema = layer.schema, let media = schema.attachments?.table else {
            throw FeatureServiceError(.unsupported, "\(layer.title) has no attachments (hasAttachments is false)")
        }
        let q = SQLiteDatabase.quote
        guard let parent = try database.scalar(
            "SELECT \(q(schema.globalIdField)) FROM \(q(layer.name)) WHERE \(q(layer.features.idColumn)) = ?", [.integer(featureId)])
        else {
            throw FeatureServiceError(.noSuchFeature, "\(layer.title) has no feature \(featureId)")
        }
        var sql = "SELECT id, globalid, att_name, content_type, data_size, \(bytes ? "data" : "NULL") FROM \(q(media)) WHERE rel_globalid = ?"
        var bindings = [parent]
        if let attachmentId {
            sql += " AND id = ?"
            bindings.append(.integer(attachmentId))
        }
        return try database.query(sql + " ORDER BY id", bindings).map { row in
            var data: [UInt8] = []
            if case .blob(let b) = row[5] { data = b }
            return Attachment(
                id: row[0].int64 ?? 0, globalId: row[1].text ?? "", name: row[2].text ?? "", contentType: row[3].text ?? "application/octet-stream",
                size: row[4].int64 ?? Int64(data.count), bytes: data)
        }
    }

    /// `attachmentInfos` as the API lists a feature's attachments.
    public func attachmentInfos(layer: Layer, featureId: Int64) throws -> JSONValue {
        let found = try attachments(layer: layer, featureId: featureId)
        let q = SQLiteDatabase.quote
        let parent = try layer.schema.flatMap { schema in
            try database.scalar("SELECT \(q(schema.globalIdField)) FROM \(q(layer.name)) WHERE \(q(layer.features.idColumn)) = ?", [.integer(featureId)])?.text
        }
        return .object([
            "attachmentInfos": .array(found.map { a in
                .object([
                    "id": .integer(a.id), "globalId": .string(a.globalId), "parentGlobalId": parent.map { .string($0) } ?? .null, "name": .string(a.name),
                    "contentType": .string(a.contentType), "size": .integer(a.size), "keywords": "",
                ])
            })
        ])
    }
}
