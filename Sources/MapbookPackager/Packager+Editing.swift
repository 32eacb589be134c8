import MapbookData
import MapbookSupport

extension Packager.Context {
    /// Makes each source with `edit:` editable in `dataFile` (issue 19): its rules checked
    /// against the layer's fields (a field it does not have, codes or a default of the wrong
    /// type, a default outside its domain), then the globalid, tracking columns, domains and
    /// schema installed (`EditSchema.install`). Returns the schemas by source, with codes in
    /// the fields' types.
    func installEditSchemas(dataFile: String, seed: String, timestamp: Int64) throws -> [String: EditSchema] {
        var installed: [String: EditSchema] = [:]
        let stamp = String(ISODate.format(seconds: timestamp).dropLast()) + ".000Z"
        for spec in project.sources {
            guard var schema = spec.edit else { continue }
            let key = spec.editKey ?? spec.key + ".edit", line = spec.editLine ?? spec.line
            guard let layer = imported?.layers[spec.name] else {
                throw error(.unsupported, key, line, "'\(spec.name)' is an Esri mobile geodatabase, packaged as it is; editable layers are imported sources (GeoJSON, CSV, Shapefile, GeoPackage)")
            }
            try resolveRelated(&schema, of: spec, table: layer.table, key: key, line: line)
            let fields = layer.summary.schema.fields
            let names = fields.map(\.name)
            let reserved = schema.keptFields
            for i in schema.rules.indices {
                let rule = schema.rules[i]
                let ruleKey = key + ".fields." + rule.field
                if reserved.contains(where: { $0.lowercased() == rule.field.lowercased() }) {
                    throw error(.invalidValue, ruleKey, line, "'\(rule.field)' is kept by mapbook (the globalid and edit-tracking fields); it takes no rules")
                }
                try checkColumn(rule.field, "editable field", of: spec.name, columns: names, key: ruleKey, line: line)
                let type = fields.first { $0.name == rule.field }!.type
                func typed(_ value: FieldValue, _ what: String) throws -> FieldValue {
                    guard let v = Self.coerce(value, to: type) else {
                        throw error(.invalidValue, ruleKey, line, "\(what) \(value.displayText.map { "'\($0)'" } ?? "null") is not a value of '\(rule.field)', a \(type.rawValue) field")
                    }
                    return v
                }
                if case .codedValues(let values) = rule.domain {
                    var coded: [EditSchema.CodedValue] = []
                    for v in values { coded.append(.init(code: try typed(v.code, "the code"), name: v.name)) }
                    schema.rules[i].domain = .codedValues(coded)
                }
                if case .range = rule.domain, type != .integer, type != .real {
                    throw error(.invalidValue, ruleKey, line, "'\(rule.field)' is a \(type.rawValue) field; a range needs numbers")
                }
                if let d = rule.defaultValue {
                    let v = try typed(d, "the default")
                    schema.rules[i].defaultValue = v
                    if let problem = Self.outside(v, schema.rules[i].domain) {
                        throw error(.invalidValue, ruleKey, line, "the default of '\(rule.field)' \(problem)")
                    }
                }
            }
            for name in reserved where names.contains(where: { $0.lowercased() == name.lowercased() }) && name != schema.globalIdField {
                throw error(.invalidValue, key, line, "'\(spec.name)' already has a field '\(name)', which edit tracking would add; rename it in the source")
            }
            let database = try SQLiteDatabase(writablePath: dataFile, create: false)
            defer { try? database.close() }
            do {
                try schema.install(in: database, table: layer.table, seed: seed, timestamp: stamp)
            } catch {
                if error.kind == .constraint {
                    throw self.error(.invalidValue, key, line, "'\(spec.name)' has a globalid field whose values repeat; each feature needs its own")
                }
                throw self.error(.sqlite(error.kind), key, line, "cannot make '\(spec.name)' editable: \(error)")
            }
            installed[spec.name] = schema
        }
        try installRelations(installed, dataFile: dataFile, seed: seed, timestamp: stamp)
        return installed
    }

    /// Checks `related:` against the project (each related table an editable source with the
    /// key column) and names the tables: the related tables' and the mapping tables
    /// (`<base>_<related>`), the media table of `attachments:` (`<base>_attachments`) and its
    /// mapping table.
    func resolveRelated(_ schema: inout EditSchema, of spec: Project.SourceSpec, table: String, key: String, line: Int?) throws {
        for i in schema.related.indices {
            let name = schema.related[i].table, relatedKey = key + ".related." + name
            guard let related = project.sources.first(where: { $0.name == name }), related.edit != nil, let imported = imported?.layers[name] else {
                let editable = project.sources.filter { $0.edit != nil && $0.name != spec.name }.map(\.name)
                throw error(.invalidValue, relatedKey, line, "'\(name)' is not an editable source of the project; related records go in one (editable sources: \(editable.isEmpty ? "none" : editable.joined(separator: ", ")))")
            }
            try checkColumn(schema.related[i].key, "key", of: name, columns: imported.summary.schema.fields.map(\.name), key: relatedKey + ".key", line: line)
            schema.related[i].table = imported.table
            schema.related[i].mapping = table + "_" + imported.table
        }
        if schema.attachments != nil {
            schema.attachments?.table = table + "_attachments"
            schema.attachments?.mapping = table + "_attachments_mapping"
        }
    }

    /// The Related Tables Extension for every relationship and attachments table of the
    /// installed schemas (`RelatedTables`); each media table gets its own edit schema (its
    /// globalid, the layer it belongs to), so it synchronises like a layer.
    func installRelations(_ installed: [String: EditSchema], dataFile: String, seed: String, timestamp: String) throws {
        let database = try SQLiteDatabase(writablePath: dataFile, create: false)
        defer { try? database.close() }
        for spec in project.sources {
            guard let schema = installed[spec.name], let layer = imported?.layers[spec.name] else { continue }
            for r in schema.related {
                let isTable = imported?.layers.values.first { $0.table == r.table }?.summary.schema.geometryType == nil
                try RelatedTables.relate(
                    database, base: layer.table, baseGlobalID: schema.globalIdField, related: r.table, relatedPK: "fid", key: r.key,
                    relation: isTable ? "attributes" : "features", mapping: r.mapping)
            }
            if let a = schema.attachments {
                try RelatedTables.createMediaTable(database, name: a.table, timestamp: timestamp)
                var media = EditSchema()
                media.attachmentsOf = layer.table
                try media.install(in: database, table: a.table, seed: seed, timestamp: timestamp)
                try RelatedTables.relate(
                    database, base: layer.table, baseGlobalID: schema.globalIdField, related: a.table, relatedPK: "id", key: "rel_globalid",
                    relation: "media", mapping: a.mapping)
            }
        }
    }

    /// `value` as a value of a `type` field, or nil if it cannot be one.
    static func coerce(_ value: FieldValue, to type: FieldType) -> FieldValue? {
        switch (type, value) {
        case (_, .null): return .null
        case (.integer, .integer), (.boolean, .integer), (.real, .real): return value
        case (.real, .integer(let i)): return .real(Double(i))
        case (.integer, .real(let d)): return Int64(exactly: d).map { .integer($0) }
        case (.integer, .text(let s)), (.boolean, .text(let s)): return Int64(s).map { .integer($0) }
        case (.real, .text(let s)): return Double(s).map { .real($0) }
        case (.text, _), (.date, _), (.dateTime, _): return value.displayText.map { .text($0) }
        default: return nil
        }
    }

    /// What is wrong with `value` under `domain`, or nil.
    static func outside(_ value: FieldValue, _ domain: EditSchema.Domain?) -> String? {
        guard let domain, !domain.admits(value) else { return nil }
        switch domain {
        case .codedValues(let values):
            return "\(value.displayText ?? "null") is not one of its codes (\(values.map { $0.code.displayText ?? "" }.joined(separator: ", ")))"
        case .range(let lo, let hi):
            return value.double == nil ? "is not a number" : "\(value.displayText ?? "") is outside its range \(FieldValue.real(lo).displayText ?? "")-\(FieldValue.real(hi).displayText ?? "")"
        }
    }
}
