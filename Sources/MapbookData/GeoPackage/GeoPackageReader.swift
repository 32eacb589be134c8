import MapbookSupport

/// Reads one feature or attribute table of a GeoPackage written by any implementation (GDAL,
/// NGA's geopackage-java, ...), opened read-only and immutable so the file is never touched.
public final class GeoPackageReader: FeatureReader {
    public let path: String
    public let table: String
    public private(set) var schema: LayerSchema
    public private(set) var report = ImportReport()
    /// Field aliases from `gpkg_data_columns`.
    public private(set) var aliases: [String: String] = [:]

    private let database: SQLiteDatabase
    private var statement: SQLiteStatement?
    private let geometryColumn: String?
    private var row = 0

    /// The tables a GeoPackage lists in `gpkg_contents`, with their data type.
    public static func tables(in path: String) throws -> [(name: String, dataType: String)] {
        let db = try open(path)
        return try db.query("SELECT table_name, data_type FROM gpkg_contents ORDER BY table_name").compactMap { row in
            guard let name = row[0].text, let type = row[1].text else { return nil }
            return (name, type)
        }
    }

    private static func open(_ path: String) throws -> SQLiteDatabase {
        let db: SQLiteDatabase
        do {
            db = try SQLiteDatabase(readOnlyPath: path)
        } catch {
            throw DataError(kind: .sqlite(error.kind), path: path, message: "not a readable GeoPackage: \(error.message)")
        }
        do {
            guard try db.tableExists("gpkg_contents") else {
                throw DataError(kind: .unsupportedFormat, path: path, message: "not a GeoPackage: it has no gpkg_contents table")
            }
            let check = try db.scalar("PRAGMA quick_check")
            guard check?.text == "ok" else {
                throw DataError(kind: .damaged, path: path, message: "the database is damaged (SQLite quick_check: \(check?.text ?? "no answer"))")
            }
        } catch let error as SQLiteError {
            throw DataError(kind: .sqlite(error.kind), path: path, message: "the database is damaged: \(error.message)")
        }
        return db
    }

    /// Opens `table`, or the only table of the file when nil.
    public init(path: String, table: String? = nil) throws {
        self.path = path
        database = try Self.open(path)
        let contents = try database.query("SELECT table_name, data_type, srs_id FROM gpkg_contents WHERE data_type IN ('features', 'attributes')")
        let names = contents.compactMap { $0[0].text }
        let chosen: String
        if let table {
            guard let match = names.first(where: { $0 == table }) ?? names.first(where: { $0.lowercased() == table.lowercased() }) else {
                throw DataError(kind: .noSuchLayer, path: path, message: "no feature or attribute table '\(table)'; it has \(names.isEmpty ? "none" : names.joined(separator: ", "))")
            }
            chosen = match
        } else {
            guard names.count == 1 else {
                throw DataError(kind: .noLayers, path: path, message: names.isEmpty ? "no feature or attribute tables" : "several tables (\(names.joined(separator: ", "))); name one with `table:`")
            }
            chosen = names[0]
        }
        self.table = chosen
        guard try database.tableExists(chosen) else {
            throw DataError(kind: .damaged, path: path, message: "gpkg_contents lists '\(chosen)' but the table does not exist")
        }

        let features: FeatureTable
        do {
            features = try FeatureTable(database: database, table: chosen)
        } catch {
            throw DataError(kind: .featureTable(error.kind), path: path, message: error.message)
        }
        let geometryColumn = features.geometryColumn
        let geometryType = geometryColumn == nil ? nil : features.geometryType
        self.geometryColumn = geometryColumn
        let fields = features.fields
        for field in fields { if let alias = field.alias { aliases[field.name] = alias } }
        schema = LayerSchema(name: chosen, fields: fields, geometryType: geometryType, hasZ: features.hasZ, hasM: features.hasM, crs: features.crs)

        let q = SQLiteDatabase.quote
        if let geometryColumn, geometryType?.family == nil || !(geometryType?.isMulti ?? true) {
            // The declared type may be generic or single while rows hold multi geometries:
            // look at every row's type code (not the coordinates) to choose the layer's type.
            schema.geometryType = try scanTypes(column: geometryColumn, declared: geometryType ?? .geometry)
        }
        let select = ([q(features.idColumn)] + (geometryColumn.map { [q($0)] } ?? []) + fields.map { q($0.name) }).joined(separator: ", ")
        statement = try database.prepare("SELECT \(select) FROM \(q(chosen)) ORDER BY 1")
    }

    private func scanTypes(column: String, declared: GeometryType) throws -> GeometryType? {
        let q = SQLiteDatabase.quote
        // Byte 4 of the header holds the flags; the envelope size follows from them; the WKB
        // type code comes after the byte-order byte.
        // Stepped one row at a time: a table of millions is scanned in constant memory.
        let scan = try database.prepare("""
            SELECT substr(\(q(column)), 1, 80) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL
            """)
        var counts: [GeometryFamily: Int] = [:]
        var order: [GeometryFamily] = []
        var multi: Set<GeometryFamily> = []
        while try scan.step() {
            guard case .blob(let b) = scan.column(0), let type = Self.typeCode(b)?.type else { continue }
            let family: GeometryFamily?
            if type == .geometryCollection { family = declared.family } else { family = type.family }
            guard let family else { continue }
            if counts[family] == nil { order.append(family) }
            counts[family, default: 0] += 1
            if type.isMulti { multi.insert(family) }
        }
        if let family = declared.family, counts.isEmpty || counts.keys.contains(family) {
            return family.type(multi: declared.isMulti || multi.contains(family))
        }
        guard let dominant = order.max(by: { counts[$0]! < counts[$1]! }) else { return declared.family == nil ? nil : declared }
        return dominant.type(multi: multi.contains(dominant))
    }

    /// The geometry type in a GeoPackage blob's WKB, read from the header alone.
    static func typeCode(_ b: [UInt8]) -> (type: GeometryType, code: UInt32)? {
        guard b.count >= 8, b[0] == 0x47, b[1] == 0x50 else { return nil }
        let envelope: Int
        switch (b[3] >> 1) & 7 {
        case 0: envelope = 0
        case 1: envelope = 32
        case 2, 3: envelope = 48
        case 4: envelope = 64
        default: return nil
        }
        let start = 8 + envelope
        guard b.count >= start + 5 else { return nil }
        let little = b[start] == 1
        var code: UInt32 = 0
        for i in 0..<4 { code |= UInt32(b[start + 1 + i]) << (8 * i) }
        if !little { code = code.byteSwapped }
        guard let type = GeometryType(rawValue: Int(code & 0x0FFF_FFFF) % 1000) else { return nil }
        return (type, code)
    }

    public func next() throws -> Feature? {
        guard let statement else { return nil }
        let hasGeometry = geometryColumn != nil
        while try statement.step() {
            row += 1
            var geometry: Geometry?
            var skip = false
            if hasGeometry {
                switch statement.column(1) {
                case .null:
                    report.note(.nullGeometry, row: row, "the feature has no geometry")
                case .blob(let bytes):
                    do {
                        geometry = try GeoPackageBinary.decode(bytes).geometry
                    } catch {
                        if error.kind == .wkb(.unsupportedType) {
                            let code = Self.typeCode(bytes)?.code ?? 0
                            report.note(.unsupportedGeometry, row: row, "WKB geometry type \(code) (curves and surfaces) is not supported")
                        } else {
                            report.note(.invalidGeometry, row: row, error.description)
                        }
                        skip = true
                    }
                default:
                    report.note(.invalidGeometry, row: row, "the geometry column holds a value that is not a blob")
                    skip = true
                }
            }
            if skip { continue }
            let offset = hasGeometry ? 2 : 1
            var values: [FieldValue] = []
            values.reserveCapacity(schema.fields.count)
            for (i, field) in schema.fields.enumerated() {
                values.append(Self.value(statement.column(offset + i), as: field.type))
            }
            return Feature(row: row, geometry: geometry, values: values)
        }
        self.statement = nil
        return nil
    }

    static func value(_ v: SQLiteValue, as type: FieldType) -> FieldValue {
        switch v {
        case .null, .blob: return FieldValue(v)
        case .integer(let i): return type == .real ? .real(Double(i)) : (type == .text ? .text(String(i)) : .integer(i))
        case .real(let d): return type == .integer ? (Int64(exactly: d).map(FieldValue.integer) ?? .real(d)) : (type == .text ? .text(String(d)) : .real(d))
        case .text(let s): return .text(s)
        }
    }
}

extension FieldValue {
    /// The value to bind in SQLite (a real that is not finite is null: SQLite has no NaN).
    public var sqliteValue: SQLiteValue {
        switch self {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .real(let v): return v.isFinite ? .real(v) : .null
        case .text(let v): return .text(v)
        case .blob(let v): return .blob(v)
        }
    }

    /// A value as SQLite returned it.
    public init(_ value: SQLiteValue) {
        switch value {
        case .null: self = .null
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .text(let s): self = .text(s)
        case .blob(let b): self = .blob(b)
        }
    }
}
