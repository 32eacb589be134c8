import MapbookData
import MapbookSupport

/// Online edits (a feature service's `applyEdits`, issue 33): recorded in the copy exactly as
/// a synchronised changeset is, with a generation of their own in the log and every feature
/// they touch marked with it, so a device that synchronises afterwards receives them and its
/// own edits of the same features merge against them by the layer's policy.
extension AuthoritativeCopy {
    typealias Result = FeatureEditResults.Result
    typealias Failure = FeatureEditResults.Failure

    /// Applies `edits` to `table` as `user` at `now` (Unix seconds), in one write
    /// transaction: each edit checked as `mapbook edit` checks it (`EditValidator`), its
    /// geometry read in the spatial reference it carries (else the layer's) and placed in the
    /// layer's. With `rollbackOnFailure`, one failure leaves everything as it was.
    public func applyEdits(_ edits: FeatureEdits, layer table: String, user: String, now: Int64) throws -> FeatureEditResults {
        guard let layer = layers[table], let schema = try EditSchema.read(database, table: table), schema.attachmentsOf == nil else {
            throw SyncError(kind: .schemaMismatch, message: "\(table) is not an editable layer of the portal's copy")
        }
        let features = try FeatureTable(database: database, table: table)
        let validator = EditValidator(layer: table, fields: features.fields, schema: schema)
        let media = schema.attachments.flatMap { layers[$0.table] }
        let (results, generation) = try logged(user: user, now: now, tables: [table] + (media.map { [$0.table] } ?? [])) { generation in
            let edit = OnlineEdit(
                database: database, features: features, validator: validator, layer: layer, media: media, generation: generation, user: user, now: now,
                useGlobalIds: edits.useGlobalIds)
            var results = FeatureEditResults()
            results.adds = edits.adds.map { feature in edit.attempt { try edit.add(feature) } }
            results.updates = edits.updates.map { feature in edit.attempt { try edit.update(feature) } }
            results.deletes = edits.deletes.map { key in edit.attempt { try edit.delete(key) } }
            let all = results.adds + results.updates + results.deletes
            let applied = all.filter(\.success).count
            guard edits.rollbackOnFailure, applied < all.count else { return (results, applied) }
            let undo = { (r: Result) -> Result in
                var r = r
                if r.success { r.failure = Failure(code: .rolledBack, description: "Not applied: another edit of the request failed and rollbackOnFailure is true.") }
                return r
            }
            results.adds = results.adds.map(undo)
            results.updates = results.updates.map(undo)
            results.deletes = results.deletes.map(undo)
            return (results, 0)
        }
        var answer = results
        answer.generation = generation
        return answer
    }

    /// Runs `body` in one write transaction under a new generation of the log (a changeset id
    /// of its own, replica `online`, `user`), recording the changes it makes to `tables`.
    /// `body` says how many edits it applied: none, and the transaction rolls back with no
    /// generation spent (nil); else its changeset is logged and committed.
    func logged<T>(user: String, now: Int64, tables: [String], _ body: (Int64) throws -> (T, applied: Int)) throws -> (T, Int64?) {
        try database.execute("BEGIN IMMEDIATE")
        do {
            try database.query(
                "INSERT INTO \(Self.logTable) (changeset_id, replica, user, time) VALUES (?, ?, ?, ?)",
                [.text("online-" + WorkingCopy.randomGlobalID()), .text(Self.onlineReplica), .text(user), .integer(now)])
            let generation = try database.scalar("SELECT last_insert_rowid()")?.int64 ?? 0
            let session = try SQLiteSession(database, tables: tables)
            let (result, applied) = try body(generation)
            guard applied > 0 else {
                try database.execute("ROLLBACK")
                return (result, nil)
            }
            let changeset = try session.changeset()
            try database.query(
                "UPDATE \(Self.logTable) SET changes = ?, changeset = ?, conflicts = '[]' WHERE generation = ?",
                [.integer(Int64(applied)), .blob(changeset), .integer(generation)])
            try database.execute("COMMIT")
            return (result, generation)
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// The replica online edits are logged under.
    public static let onlineReplica = "online"
}

/// One request's edits of one layer, each in a savepoint of the request's transaction.
private struct OnlineEdit {
    let database: SQLiteDatabase
    let features: FeatureTable
    let validator: EditValidator
    let layer: SyncLayer
    let media: SyncLayer?
    let generation: Int64
    let user: String
    let now: Int64
    let useGlobalIds: Bool

    struct Refused: Error {
        var failure: FeatureEditResults.Failure
        var objectId: Int64?
        var globalId: String?
    }

    var q: (String) -> String { SQLiteDatabase.quote }
    var schema: EditSchema { validator.schema }

    /// Runs one edit in a savepoint: applied, or undone with why.
    func attempt(_ body: () throws -> (Int64, String)) -> FeatureEditResults.Result {
        do {
            try database.execute("SAVEPOINT edit")
            do {
                let (fid, globalid) = try body()
                try database.execute("RELEASE edit")
                return .init(objectId: fid, globalId: globalid, failure: nil)
            } catch {
                try database.execute("ROLLBACK TO edit")
                try database.execute("RELEASE edit")
                throw error
            }
        } catch let refused as Refused {
            return .init(objectId: refused.objectId, globalId: refused.globalId, failure: refused.failure)
        } catch let error as EditError {
            return .init(objectId: nil, globalId: nil, failure: .init(code: .invalidValue, description: error.description))
        } catch {
            return .init(objectId: nil, globalId: nil, failure: .init(code: .failed, description: "\(error)"))
        }
    }

    func add(_ feature: FeatureEdits.Feature) throws -> (Int64, String) {
        var globalid = WorkingCopy.randomGlobalID()
        if useGlobalIds, let given = feature.attributes.first(where: { $0.key.lowercased() == schema.globalIdField.lowercased() })?.value.stringValue {
            guard let id = FeatureEdits.globalId(given) else { throw refused(.invalidValue, "'\(given)' is not a globalid", nil, nil) }
            let q = SQLiteDatabase.quote
            if try database.scalar("SELECT 1 FROM \(q(features.name)) WHERE \(q(schema.globalIdField)) = ?", [.text(id)]) != nil {
                throw refused(.invalidValue, "\(schema.globalIdField) \(id) is another feature's already", nil, id)
            }
            globalid = id
        }
        var values = try validator.insert(try typed(feature.attributes, current: nil))
        values[schema.globalIdField] = .text(globalid)
        if let tracking = schema.tracking {
            for field in [tracking.creator, tracking.editor] { values[field] = .text(user) }
            for field in [tracking.created, tracking.edited] { values[field] = .text(ISODate.format(seconds: now)) }
        }
        var columns = values.keys.sorted()
        var bindings = columns.map { values[$0]!.sqliteValue }
        if let column = features.geometryColumn {
            guard let json = feature.geometry else {
                throw refused(.failed, "a feature of \(features.name) needs a geometry", nil, globalid)
            }
            columns.append(column)
            bindings.append(.blob(try place(json, globalid: globalid)))
        }
        try database.query("INSERT INTO \(q(features.name)) (\(columns.map(q).joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))", bindings)
        let fid = try database.scalar("SELECT last_insert_rowid()")?.int64 ?? 0
        try mark(layer, globalid, deleted: false)
        return (fid, globalid)
    }

    func update(_ feature: FeatureEdits.Feature) throws -> (Int64, String) {
        let (fid, globalid) = try find(feature.attributes)
        let current = try database.query("SELECT * FROM \(q(features.name)) WHERE \(q(features.idColumn)) = ?", [.integer(fid)]).first ?? []
        let names = try database.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(features.name)]).compactMap { $0[0].text }
        var currentValues: [String: SQLiteValue] = [:]
        for (name, value) in zip(names, current) { currentValues[name.lowercased()] = value }
        var values: [String: FieldValue]
        do {
            values = try validator.update(try typed(feature.attributes, current: currentValues))
        } catch let error as EditError {
            throw refused(.invalidValue, error.description, fid, globalid)
        }
        if let tracking = schema.tracking {
            values[tracking.editor] = .text(user)
            values[tracking.edited] = .text(ISODate.format(seconds: now))
        }
        var assignments = values.keys.sorted().map { ($0, values[$0]!.sqliteValue) }
        if let json = feature.geometry, let column = features.geometryColumn {
            assignments.append((column, .blob(try place(json, globalid: globalid, fid: fid))))
        }
        if !assignments.isEmpty {
            try database.query(
                "UPDATE \(q(features.name)) SET \(assignments.map { "\(q($0.0)) = ?" }.joined(separator: ", ")) WHERE \(q(features.idColumn)) = ?",
                assignments.map(\.1) + [.integer(fid)])
        }
        try mark(layer, globalid, deleted: false)
        return (fid, globalid)
    }

    func delete(_ key: FeatureEdits.Key) throws -> (Int64, String) {
        let (fid, globalid) = try find(key)
        if let media {
            // The feature's attachments go with it, as `mapbook edit delete` does.
            let rows = try database.query("SELECT \(q(media.columns[media.globalidIndex])) FROM \(q(media.table)) WHERE rel_globalid = ?", [.text(globalid)])
            for row in rows { if let id = row[0].text { try mark(media, id, deleted: true) } }
            try database.query("DELETE FROM \(q(media.table)) WHERE rel_globalid = ?", [.text(globalid)])
        }
        try database.query("DELETE FROM \(q(features.name)) WHERE \(q(features.idColumn)) = ?", [.integer(fid)])
        try mark(layer, globalid, deleted: true)
        return (fid, globalid)
    }

    /// The feature an update names: by its object id, or its globalid with `useGlobalIds`.
    func find(_ attributes: JSONObject) throws -> (Int64, String) {
        let value = { (name: String) in attributes.first { $0.key.lowercased() == name.lowercased() }?.value }
        if useGlobalIds {
            guard let text = value(schema.globalIdField)?.stringValue, let id = FeatureEdits.globalId(text) else {
                throw refused(.missing, "an update with useGlobalIds needs the feature's \(schema.globalIdField)", nil, nil)
            }
            return try find(.globalId(id))
        }
        guard let id = value(features.idColumn)?.int64Value else {
            throw refused(.missing, "an update needs the feature's \(features.idColumn)", nil, nil)
        }
        return try find(.objectId(id))
    }

    func find(_ key: FeatureEdits.Key) throws -> (Int64, String) {
        let idColumn = q(features.idColumn), globalColumn = q(schema.globalIdField)
        let row: [SQLiteValue]?
        switch key {
        case .objectId(let id):
            row = try database.query("SELECT \(idColumn), \(globalColumn) FROM \(q(features.name)) WHERE \(idColumn) = ?", [.integer(id)]).first
            guard let row, let fid = row[0].int64, let globalid = row[1].text else {
                throw refused(.missing, "no feature of \(features.name) has \(features.idColumn) \(id) (it may have been deleted)", id, nil)
            }
            return (fid, globalid)
        case .globalId(let id):
            // Globalids are kept braced and upper case (`EditSchema.format`): the unique index finds them.
            row = try database.query("SELECT \(idColumn), \(globalColumn) FROM \(q(features.name)) WHERE \(globalColumn) = ?", [.text(id)]).first
            guard let row, let fid = row[0].int64, let globalid = row[1].text else {
                throw refused(.missing, "no feature of \(features.name) has \(schema.globalIdField) \(id) (it may have been deleted)", nil, id)
            }
            return (fid, globalid)
        }
    }

    /// The attributes as the validator takes them (text, as typed): the object id, the
    /// globalid and the edit-tracking fields left out (the service keeps them), and a
    /// read-only field left out when it still holds its value (clients send whole rows back).
    func typed(_ attributes: JSONObject, current: [String: SQLiteValue]?) throws -> [(field: String, text: String)] {
        var out: [(field: String, text: String)] = []
        let kept = Set(([features.idColumn] + schema.keptFields).map { $0.lowercased() })
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) where !kept.contains(name.lowercased()) {
            let field = features.field(named: name)
            var text: String
            switch value {
            case .null: text = ""
            case .bool(let b): text = b ? "true" : "false"
            case .integer(let i):
                text = (field?.type == .date || field?.type == .dateTime) ? ISODate.format(milliseconds: i) : String(i)
            case .number(let d):
                if field?.type == .date || field?.type == .dateTime {
                    guard let ms = Int64(exactly: d.rounded()) else {
                        throw EditError(kind: .wrongType, layer: features.name, field: name, message: "\(d) is not a date (Unix milliseconds)")
                    }
                    text = ISODate.format(milliseconds: ms)
                } else {
                    text = String(d)
                }
            case .string(let s): text = s
            case .array, .object:
                throw EditError(kind: .wrongType, layer: features.name, field: name, message: "an attribute must be a string, a number, true, false or null")
            }
            if let field, schema.rule(field.name)?.readOnly == true, let current {
                let stored = FieldValue(current[field.name.lowercased()] ?? .null)
                if stored.displayText ?? "" == text || FeatureService.attribute(stored, field.type) == value { continue }
            }
            out.append((name, text))
        }
        return out
    }

    /// An ArcGIS JSON geometry, in its own spatial reference or else the layer's, as the
    /// layer's GeoPackage geometry.
    func place(_ json: JSONValue, globalid: String, fid: Int64? = nil) throws -> [UInt8] {
        let family = features.geometryType?.family
        var geometry: Geometry
        do {
            geometry = try Geometry(esriJSON: json, family: family)
        } catch {
            throw refused(.failed, "the geometry cannot be used: \(error.message)", fid, globalid)
        }
        if let sr = json.objectValue?["spatialReference"], sr != .null, let crs = features.crs {
            let given: CoordinateReferenceSystem
            do {
                given = try ServiceSpatialReference.parse(JSONWriter.string(sr, style: .compact), parameter: "geometry.spatialReference")
            } catch {
                throw refused(.failed, error.description, fid, globalid)
            }
            if given != crs {
                guard let transform = try? CoordinateTransform(from: given, to: crs), let projected = transform.apply(geometry) else {
                    throw refused(.failed, "the geometry cannot be placed in the layer's coordinate system", fid, globalid)
                }
                geometry = projected
            }
        }
        geometry = geometry.withDimensions(z: features.hasZ, m: features.hasM)
        if let type = features.geometryType, type == .multiPoint || type == .multiLineString || type == .multiPolygon { geometry = geometry.promotedToMulti() }
        return GeoPackageBinary.encode(geometry, srsID: Int32(features.srsID ?? 4326))
    }

    func mark(_ layer: SyncLayer, _ globalid: String, deleted: Bool) throws {
        try database.query(AuthoritativeCopy.markRow, [.text(layer.table), .text(globalid), .integer(generation), .integer(deleted ? 1 : 0)])
    }

    func refused(_ code: FeatureEditResults.Code, _ description: String, _ fid: Int64?, _ globalid: String?) -> Refused {
        Refused(failure: .init(code: code, description: description), objectId: fid, globalId: globalid)
    }
}
