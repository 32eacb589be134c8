import MapbookPackage
import MapbookSupport

/// What an editable layer allows (issue 19, DESIGN.md 7.2): per field a domain (coded values
/// or a range), whether a value is required, its default and whether it is read-only; the
/// `globalid` every feature carries so copies on different devices agree on identity; the
/// edit-tracking fields; and the conflict policy synchronisation follows.
///
/// Stored in the layer's GeoPackage where other tools see it: domains in the schema extension
/// (`gpkg_data_column_constraints`, named from `gpkg_data_columns`), which GDAL and QGIS read as
/// field domains; the whole schema as JSON in `gpkg_metadata` (standard URI
/// `https://mapbook.dev/edit-schema`), which `read` takes back.
public struct EditSchema: Sendable, Equatable {
    public enum Domain: Sendable, Equatable {
        /// Codes and the names users see, in order.
        case codedValues([CodedValue])
        /// Inclusive bounds.
        case range(min: Double, max: Double)

        /// Whether `value` is one of the codes, or a number within the range.
        public func admits(_ value: FieldValue) -> Bool {
            switch self {
            case .codedValues(let values): return values.contains { $0.code == value }
            case .range(let lo, let hi): return value.double.map { $0 >= lo && $0 <= hi } ?? false
            }
        }
    }

    public struct CodedValue: Sendable, Equatable {
        public var code: FieldValue
        public var name: String

        public init(code: FieldValue, name: String) {
            self.code = code
            self.name = name
        }
    }

    public struct Rule: Sendable, Equatable {
        public var field: String
        public var domain: Domain?
        public var required = false
        public var defaultValue: FieldValue?
        public var readOnly = false
        public init(field: String, domain: Domain? = nil, required: Bool = false, defaultValue: FieldValue? = nil, readOnly: Bool = false) {
            self.field = field
            self.domain = domain
            self.required = required
            self.defaultValue = defaultValue
            self.readOnly = readOnly
        }
    }

    /// Who made and last changed a feature, and when (UTC, ISO 8601), as ArcGIS's
    /// `editFieldsInfo` names them.
    public struct Tracking: Sendable, Equatable {
        public var creator = "created_user"
        public var created = "created_date"
        public var editor = "last_edited_user"
        public var edited = "last_edited_date"
        public init() {}
        public var fields: [String] { [creator, created, editor, edited] }
    }

    /// Which value a synchronisation keeps when two devices changed one column differently.
    public enum ConflictPolicy: String, Sendable, Equatable {
        case lastSyncWins = "last_sync_wins"
        /// Both kept, for a person to choose.
        case manual
    }

    /// A one-to-many relationship from this layer to records of another editable table (one
    /// tree, many inspections), stored with GeoPackage's Related Tables Extension
    /// (`RelatedTables`): `key` is the related table's column holding this layer's globalid.
    public struct Relationship: Sendable, Equatable {
        /// The related table.
        public var table: String
        public var key: String
        /// The RTE mapping table (`base_id`, `related_id`), kept by triggers from `key`.
        public var mapping: String

        public init(table: String, key: String, mapping: String) {
            self.table = table
            self.key = key
            self.mapping = mapping
        }
    }

    /// Photos and documents attached to this layer's features: an RTE media table.
    public struct Attachments: Sendable, Equatable {
        /// The media table (`RelatedTables.createMediaTable`).
        public var table: String
        public var mapping: String
        /// The largest file that may be attached (and synchronised).
        public var maxBytes: Int64

        public static let defaultMaxBytes: Int64 = 10 << 20

        public init(table: String, mapping: String, maxBytes: Int64 = defaultMaxBytes) {
            self.table = table
            self.mapping = mapping
            self.maxBytes = maxBytes
        }
    }

    public var globalIdField = "globalid"
    public var rules: [Rule] = []
    public var tracking: Tracking?
    public var conflicts = ConflictPolicy.lastSyncWins
    public var related: [Relationship] = []
    public var attachments: Attachments?
    /// For a media table: the layer whose attachments it holds.
    public var attachmentsOf: String?

    public init(rules: [Rule] = [], tracking: Tracking? = nil, conflicts: ConflictPolicy = .lastSyncWins) {
        self.rules = rules
        self.tracking = tracking
        self.conflicts = conflicts
    }

    public func rule(_ field: String) -> Rule? { rules.first { $0.field.lowercased() == field.lowercased() } }

    /// The fields mapbook keeps itself: the globalid and the edit-tracking fields.
    public var keptFields: [String] { [globalIdField] + (tracking?.fields ?? []) }

    /// Whether a user may set `field`: not a kept field, not read-only.
    public func isEditable(_ field: String) -> Bool {
        !keptFields.contains { $0.lowercased() == field.lowercased() } && !(rule(field)?.readOnly ?? false)
    }

    static let standardURI = "https://mapbook.dev/edit-schema"

    /// The constraint name of a field's domain in `gpkg_data_column_constraints`.
    public static func domainName(table: String, field: String) -> String { "\(table)_\(field)_domain" }
}

// MARK: - GeoPackage

extension EditSchema {
    /// Makes `table` of the GeoPackage editable: adds the globalid column (a UUID per feature,
    /// derived from `seed`, the table and the fid, so the same build gives the same ids) with a
    /// unique index, the tracking columns, the domains in the schema extension and the schema
    /// in `gpkg_metadata`. In one transaction: all of it or nothing; inside the caller's when
    /// `ownTransaction` is false (a republish changing the schema with the data).
    public func install(in database: SQLiteDatabase, table: String, seed: String, timestamp: String, ownTransaction: Bool = true) throws(SQLiteError) {
        try GeoPackageFunctions.register(on: database)
        if ownTransaction { try database.execute("BEGIN") }
        do {
            let existing = Set(try database.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0[0].text?.lowercased() })
            let q = SQLiteDatabase.quote
            if !existing.contains(globalIdField.lowercased()) {
                try database.execute("ALTER TABLE \(q(table)) ADD COLUMN \(q(globalIdField)) TEXT")
                let fids = try database.query("SELECT fid FROM \(q(table)) ORDER BY fid").compactMap { $0[0].int64 }
                let update = try database.prepare("UPDATE \(q(table)) SET \(q(globalIdField)) = ? WHERE fid = ?")
                for fid in fids {
                    try update.bind([.text(Self.globalID(seed: seed, table: table, fid: fid)), .integer(fid)])
                    try update.run()
                    update.reset()
                }
            }
            try database.execute("CREATE UNIQUE INDEX IF NOT EXISTS \(q(table + "_" + globalIdField)) ON \(q(table)) (\(q(globalIdField)))")
            if let tracking {
                for field in tracking.fields where !existing.contains(field.lowercased()) {
                    try database.execute("ALTER TABLE \(q(table)) ADD COLUMN \(q(field)) \(field == tracking.created || field == tracking.edited ? "DATETIME" : "TEXT")")
                }
            }
            try installConstraints(database, table: table)
            try database.query("DELETE FROM gpkg_metadata WHERE md_standard_uri = ? AND id IN (SELECT md_file_id FROM gpkg_metadata_reference WHERE table_name = ?)", [.text(Self.standardURI), .text(table)])
            let id = (try database.scalar("SELECT coalesce(max(id), 0) + 1 FROM gpkg_metadata"))?.int64 ?? 1
            try database.query(
                "INSERT INTO gpkg_metadata (id, md_scope, md_standard_uri, mime_type, metadata) VALUES (?, 'attributeType', ?, 'application/json', ?)",
                [.integer(id), .text(Self.standardURI), .text(JSONWriter.string(json, style: .compact))])
            try database.query(
                "INSERT INTO gpkg_metadata_reference (reference_scope, table_name, timestamp, md_file_id) VALUES ('table', ?, ?, ?)",
                [.text(table), .text(timestamp), .integer(id)])
            if ownTransaction { try database.execute("COMMIT") }
        } catch {
            if ownTransaction { try? database.execute("ROLLBACK") }
            throw error
        }
    }

    /// Domains as `gpkg_data_column_constraints` rows (an `enum` row per code, one `range`
    /// row), named from the field's `gpkg_data_columns` row.
    func installConstraints(_ database: SQLiteDatabase, table: String) throws(SQLiteError) {
        guard rules.contains(where: { $0.domain != nil }) else { return }
        if !(try database.tableExists("gpkg_data_column_constraints")) {
            try database.execute(
                """
                CREATE TABLE gpkg_data_column_constraints (
                  constraint_name TEXT NOT NULL, constraint_type TEXT NOT NULL, value TEXT,
                  min NUMERIC, min_is_inclusive BOOLEAN, max NUMERIC, max_is_inclusive BOOLEAN, description TEXT,
                  CONSTRAINT gdcc_ntv UNIQUE (constraint_name, constraint_type, value))
                """)
            try database.query(
                "INSERT INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope) VALUES ('gpkg_data_column_constraints', NULL, 'gpkg_schema', 'http://www.geopackage.org/spec/#extension_schema', 'read-write')")
        }
        for rule in rules {
            guard let domain = rule.domain else { continue }
            let name = Self.domainName(table: table, field: rule.field)
            try database.query("DELETE FROM gpkg_data_column_constraints WHERE constraint_name = ?", [.text(name)])
            switch domain {
            case .codedValues(let values):
                for v in values {
                    try database.query(
                        "INSERT INTO gpkg_data_column_constraints (constraint_name, constraint_type, value, description) VALUES (?, 'enum', ?, ?)",
                        [.text(name), .text(v.code.displayText ?? ""), .text(v.name)])
                }
            case .range(let min, let max):
                try database.query(
                    "INSERT INTO gpkg_data_column_constraints (constraint_name, constraint_type, min, min_is_inclusive, max, max_is_inclusive) VALUES (?, 'range', ?, 1, ?, 1)",
                    [.text(name), .real(min), .real(max)])
            }
            let has = try database.scalar("SELECT count(*) FROM gpkg_data_columns WHERE table_name = ? AND column_name = ?", [.text(table), .text(rule.field)])?.int64 ?? 0
            if has > 0 {
                try database.query("UPDATE gpkg_data_columns SET constraint_name = ? WHERE table_name = ? AND column_name = ?", [.text(name), .text(table), .text(rule.field)])
            } else {
                try database.query("INSERT INTO gpkg_data_columns (table_name, column_name, name, constraint_name) VALUES (?, ?, ?, ?)", [.text(table), .text(rule.field), .text(rule.field), .text(name)])
            }
        }
    }

    /// The schema `install` stored for `table`, or nil when the layer is not editable.
    public static func read(_ database: SQLiteDatabase, table: String) throws(SQLiteError) -> EditSchema? {
        guard try database.tableExists("gpkg_metadata"), try database.tableExists("gpkg_metadata_reference") else { return nil }
        let rows = try database.query(
            "SELECT m.metadata FROM gpkg_metadata m JOIN gpkg_metadata_reference r ON r.md_file_id = m.id WHERE m.md_standard_uri = ? AND r.table_name = ? ORDER BY m.id DESC LIMIT 1",
            [.text(standardURI), .text(table)])
        guard let text = rows.first?[0].text, let object = try? JSONParser.parse(Array(text.utf8)).objectValue else { return nil }
        return EditSchema(json: object)
    }

    /// The tables of `database` that have an edit schema, by name.
    public static func editableTables(_ database: SQLiteDatabase) throws(SQLiteError) -> [String] {
        guard try database.tableExists("gpkg_metadata"), try database.tableExists("gpkg_metadata_reference") else { return [] }
        return try database.query(
            "SELECT DISTINCT r.table_name FROM gpkg_metadata m JOIN gpkg_metadata_reference r ON r.md_file_id = m.id WHERE m.md_standard_uri = ? ORDER BY r.table_name",
            [.text(standardURI)]
        ).compactMap { $0[0].text }
    }

    /// `{XXXXXXXX-XXXX-8XXX-YXXX-XXXXXXXXXXXX}` (RFC 9562 version 8, from SHA-256 of the
    /// seed, table and fid): ArcGIS's braced upper-case form.
    public static func globalID(seed: String, table: String, fid: Int64) -> String {
        var digest = SHA256Digest()
        digest.update(Array("\(seed)\u{0}\(table)\u{0}\(fid)".utf8))
        return format(uuidBytes: Array(digest.finalizeBytes().prefix(16)), version: 8)
    }

    /// Sixteen bytes as a braced upper-case UUID, with `version` and the RFC variant set.
    public static func format(uuidBytes: [UInt8], version: UInt8) -> String {
        var b = uuidBytes
        b[6] = (b[6] & 0x0F) | (version << 4)
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = SHA256Digest.hex(b).uppercased()
        let h = Array(hex)
        func part(_ r: Range<Int>) -> String { String(h[r]) }
        return "{\(part(0..<8))-\(part(8..<12))-\(part(12..<16))-\(part(16..<20))-\(part(20..<32))}"
    }
}

// MARK: - JSON

extension EditSchema {
    public var json: JSONValue {
        var o = JSONObject()
        o["globalIdField"] = .string(globalIdField)
        o["conflicts"] = .string(conflicts.rawValue)
        if let tracking {
            o["editFieldsInfo"] = .object([
                "creatorField": .string(tracking.creator), "creationDateField": .string(tracking.created),
                "editorField": .string(tracking.editor), "editDateField": .string(tracking.edited), "dateFieldsTimeReference": .object(["timeZone": .string("UTC")]),
            ])
        }
        o["fields"] = .array(rules.map { rule in
            var f = JSONObject()
            f["name"] = .string(rule.field)
            if rule.required { f["nullable"] = .bool(false) }
            if rule.readOnly { f["editable"] = .bool(false) }
            if let d = rule.defaultValue { f["defaultValue"] = Self.jsonValue(d) }
            if let domain = rule.domain { f["domain"] = .object(Self.domainJSON(domain, name: rule.field)) }
            return .object(f)
        })
        if !related.isEmpty {
            o["relationships"] = .array(related.map { .object(["relatedTable": .string($0.table), "keyField": .string($0.key), "mappingTable": .string($0.mapping)]) })
        }
        if let a = attachments {
            o["attachments"] = .object(["table": .string(a.table), "mappingTable": .string(a.mapping), "maxSize": .integer(a.maxBytes)])
        }
        if let base = attachmentsOf { o["attachmentsOf"] = .string(base) }
        return .object(o)
    }

    /// A domain as the ArcGIS REST API writes it in a layer's `fields`.
    public static func domainJSON(_ domain: Domain, name: String) -> JSONObject {
        switch domain {
        case .codedValues(let values):
            return ["type": .string("codedValue"), "name": .string(name), "codedValues": .array(values.map { .object(["name": .string($0.name), "code": jsonValue($0.code)]) })]
        case .range(let min, let max):
            return ["type": .string("range"), "name": .string(name), "range": .array([.number(min), .number(max)])]
        }
    }

    public static func jsonValue(_ v: FieldValue) -> JSONValue {
        switch v {
        case .null, .blob: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .number(d)
        case .text(let s): return .string(s)
        }
    }

    static func fieldValue(_ v: JSONValue) -> FieldValue {
        switch v {
        case .integer(let i): return .integer(i)
        case .number(let d): return .real(d)
        case .string(let s): return .text(s)
        default: return .null
        }
    }

    init(json o: JSONObject) {
        globalIdField = o.string("globalIdField") ?? "globalid"
        conflicts = o.string("conflicts").flatMap(ConflictPolicy.init(rawValue:)) ?? .lastSyncWins
        if let e = o.object("editFieldsInfo") {
            var t = Tracking()
            t.creator = e.string("creatorField") ?? t.creator
            t.created = e.string("creationDateField") ?? t.created
            t.editor = e.string("editorField") ?? t.editor
            t.edited = e.string("editDateField") ?? t.edited
            tracking = t
        }
        related = (o.array("relationships") ?? []).compactMap { item in
            guard let r = item.objectValue, let t = r.string("relatedTable"), let k = r.string("keyField"), let m = r.string("mappingTable") else { return nil }
            return Relationship(table: t, key: k, mapping: m)
        }
        if let a = o.object("attachments"), let t = a.string("table"), let m = a.string("mappingTable") {
            attachments = Attachments(table: t, mapping: m, maxBytes: a["maxSize"]?.int64Value ?? Attachments.defaultMaxBytes)
        }
        attachmentsOf = o.string("attachmentsOf")
        rules = (o.array("fields") ?? []).compactMap { item in
            guard let f = item.objectValue, let name = f.string("name") else { return nil }
            var rule = Rule(field: name)
            rule.required = f["nullable"] == .bool(false)
            rule.readOnly = f["editable"] == .bool(false)
            if let d = f["defaultValue"], d != .null { rule.defaultValue = Self.fieldValue(d) }
            if let d = f.object("domain") {
                if d.string("type") == "codedValue" {
                    rule.domain = .codedValues((d.array("codedValues") ?? []).compactMap { c in
                        guard let c = c.objectValue, let n = c.string("name"), let code = c["code"] else { return nil }
                        return CodedValue(code: Self.fieldValue(code), name: n)
                    })
                } else if let r = d.array("range"), r.count == 2, let lo = r[0].doubleValue, let hi = r[1].doubleValue {
                    rule.domain = .range(min: lo, max: hi)
                }
            }
            return rule
        }
    }
}
