import MapbookPackage
import MapbookSupport

/// A feature or attribute table of a GeoPackage, read in place on an already open database:
/// its fields, geometry column, CRS and extent from the GeoPackage tables, and queries by
/// bounding box (through the R-tree), by distance from a point, and by id, under an optional
/// filter from the layer's `definitionExpression`.
///
/// Opening runs no `quick_check`: a table inside a package is opened often and read through
/// the range VFS, and a damaged page fails the query that reaches it instead. Tables of Esri
/// mobile geodatabases open too: their ST_Geometry blobs are decoded (`STGeometryBlob`) and
/// their R-trees (`st_spindex__<table>_<column>`) used as GeoPackage's are.
/// Not Sendable: use a table from one task at a time, like its database.
public final class FeatureTable {
    /// How the table stores its geometries.
    public enum GeometryFormat: Sendable, Hashable {
        /// GeoPackage binary: the "GP" header and ISO WKB (GeoPackage 1.4, clause 2.1.3).
        case geoPackage
        /// Esri's ST_Geometry blobs of a mobile geodatabase (`STGeometryBlob`).
        case esriSTGeometry
    }

    public let database: SQLiteDatabase
    /// The table's name as the database spells it.
    public let name: String
    /// The column holding the id: the INTEGER PRIMARY KEY, or `rowid` when there is none.
    public let idColumn: String
    /// Nil for an attribute table.
    public let geometryColumn: String?
    public let geometryFormat: GeometryFormat?
    /// The declared geometry type (`gpkg_geometry_columns`).
    public let geometryType: GeometryType?
    public let hasZ: Bool
    public let hasM: Bool
    public let srsID: Int64?
    public let crs: CoordinateReferenceSystem?
    /// Every column but the id and the geometry, with aliases from `gpkg_data_columns`.
    public let fields: [Field]
    /// The R-tree of the geometry column, when the table has one.
    public let spatialIndex: String?
    /// The R-tree's column of feature ids: `id` in a GeoPackage, `pkid` in Esri's.
    let spatialIndexID: String
    /// The integer grids of Esri's spatial references, by srid, for its ST_Geometry blobs.
    let grids: [Int: STGeometryBlob.Grid]
    /// Why geometries cannot be read, when they cannot.
    public let geometryProblem: String?
    /// The extent recorded in `gpkg_contents`, in the table's CRS.
    public let recordedExtent: BoundingBox?
    /// The filter every query applies.
    public private(set) var filter: FeatureFilter?

    private var idleStatements: [String: SQLiteStatement] = [:]

    /// The union of the R-tree root's boxes: the extent of every indexed geometry, read from
    /// one node; nil without an R-tree or when its root cannot be read.
    public private(set) lazy var indexedExtent: BoundingBox? = {
        guard let spatialIndex,
            case .blob(let node)?? = try? database.scalar("SELECT data FROM \(SQLiteDatabase.quote(spatialIndex + "_node")) WHERE nodeno = 1")
        else { return nil }
        return Self.rtreeRootExtent(node)
    }()

    /// The extent of an SQLite R-tree root node of 2-D float boxes: a 2-byte depth, a 2-byte
    /// count, then per cell an 8-byte id and minx, maxx, miny, maxy as big-endian 32-bit
    /// floats (sqlite.org, R-tree module, "Implementation details").
    static func rtreeRootExtent(_ node: [UInt8]) -> BoundingBox? {
        guard node.count >= 4 else { return nil }
        let count = Int(node[2]) << 8 | Int(node[3])
        guard count > 0, node.count >= 4 + count * 24 else { return nil }
        func float(_ at: Int) -> Double {
            let bits = UInt32(node[at]) << 24 | UInt32(node[at + 1]) << 16 | UInt32(node[at + 2]) << 8 | UInt32(node[at + 3])
            return Double(Float(bitPattern: bits))
        }
        var box: BoundingBox?
        for i in 0..<count {
            let at = 4 + i * 24 + 8
            let cell = BoundingBox(minX: float(at), minY: float(at + 8), maxX: float(at + 4), maxY: float(at + 12))
            guard [cell.minX, cell.minY, cell.maxX, cell.maxY].allSatisfy(\.isFinite), cell.minX <= cell.maxX, cell.minY <= cell.maxY else { return nil }
            box = box.map { BoundingBox(minX: min($0.minX, cell.minX), minY: min($0.minY, cell.minY), maxX: max($0.maxX, cell.maxX), maxY: max($0.maxY, cell.maxY)) } ?? cell
        }
        return box
    }

    /// The names of the feature and attribute tables `gpkg_contents` lists, in its order.
    public static func tableNames(in database: SQLiteDatabase) throws(FeatureTableError) -> [String] {
        do {
            guard try database.tableExists("gpkg_contents") else {
                throw FeatureTableError(kind: .notAGeoPackage, path: database.path, table: "", message: "it has no gpkg_contents table: not a GeoPackage")
            }
            return try database.query("SELECT table_name FROM gpkg_contents WHERE data_type IN ('features', 'attributes') ORDER BY rowid").compactMap { $0[0].text }
        } catch let error as FeatureTableError {
            throw error
        } catch {
            throw FeatureTableError(kind: .unreadable, path: database.path, table: "", message: "\(error)")
        }
    }

    /// Opens `table` (matched exactly, else ignoring case) on `database`, with the layer's
    /// `definitionExpression` as its filter when one is given.
    public init(database: SQLiteDatabase, table: String, definitionExpression: String? = nil) throws(FeatureTableError) {
        self.database = database
        func fail(_ kind: FeatureTableError.Kind, _ message: String) -> FeatureTableError {
            FeatureTableError(kind: kind, path: database.path, table: table, message: message)
        }
        do {
            let schema: Schema
            if try database.tableExists("gpkg_contents") {
                schema = try Self.geoPackageSchema(database, table)
            } else if try database.tableExists("GDB_Items") {
                schema = try Self.geodatabaseSchema(database, table)
            } else {
                throw fail(.notAGeoPackage, "it has neither gpkg_contents nor GDB_Items: not a GeoPackage or an Esri mobile geodatabase")
            }
            guard try database.tableExists(schema.name) else {
                throw fail(.noSuchTable, "the GeoPackage lists '\(table)' but has no such table")
            }
            name = schema.name
            idColumn = schema.idColumn
            geometryColumn = schema.geometryColumn
            geometryFormat = schema.geometryColumn == nil ? nil : schema.format
            geometryType = schema.geometryType
            hasZ = schema.hasZ
            hasM = schema.hasM
            srsID = schema.srsID
            crs = schema.crs
            fields = schema.fields
            recordedExtent = schema.extent
            grids = schema.grids
            geometryProblem = schema.format == .esriSTGeometry && schema.geometryColumn != nil && schema.grids.isEmpty
                ? "its mobile geodatabase has no st_aux_spatial_reference_systems table, so its ST_Geometry shapes cannot be placed; attributes and ids can be read" : nil
            let index = schema.format == .geoPackage ? "rtree_" : "st_spindex__"
            if let column = schema.geometryColumn, try database.tableExists("\(index)\(schema.name)_\(column)") {
                spatialIndex = "\(index)\(schema.name)_\(column)"
            } else {
                spatialIndex = nil
            }
            spatialIndexID = schema.format == .geoPackage ? "id" : "pkid"
        } catch let error as FeatureTableError {
            throw error
        } catch {
            throw fail(.unreadable, "\(error)")
        }
        try setFilter(definitionExpression)
    }

    /// Replaces the filter; nil or blank text removes it.
    public func setFilter(_ expression: String?) throws(FeatureTableError) {
        guard let expression, expression.contains(where: { !$0.isWhitespace }) else {
            filter = nil
            return
        }
        do {
            filter = try FeatureFilter(expression, fields: [idColumn] + fields.map(\.name))
        } catch {
            throw FeatureTableError(kind: .invalidFilter(error.kind), path: database.path, table: name, message: error.description)
        }
    }

    /// The field of this name (exactly, else ignoring case).
    public func field(named name: String) -> Field? {
        fields.first { $0.name == name } ?? fields.first { $0.name.lowercased() == name.lowercased() }
    }

    // MARK: Statements

    /// A prepared statement for `sql`, reused when an earlier query has finished with it.
    func checkOut(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = idleStatements.removeValue(forKey: sql) { return statement }
        return try database.prepare(sql)
    }

    /// Gives a statement back for the next query of the same text.
    func checkIn(_ sql: String, _ statement: SQLiteStatement) {
        statement.reset()
        idleStatements[sql] = statement
    }

    func failure(_ error: SQLiteError) -> FeatureTableError {
        FeatureTableError(kind: .unreadable, path: database.path, table: name, message: error.message)
    }

    // MARK: Schema

    struct Schema {
        var name: String
        var idColumn = "rowid"
        var geometryColumn: String?
        var format: GeometryFormat = .geoPackage
        var geometryType: GeometryType?
        var hasZ = false, hasM = false
        var srsID: Int64?
        var crs: CoordinateReferenceSystem?
        var fields: [Field] = []
        var extent: BoundingBox?
        var grids: [Int: STGeometryBlob.Grid] = [:]
    }

    private static func geoPackageSchema(_ database: SQLiteDatabase, _ table: String) throws -> Schema {
        let rows = try database.query("SELECT table_name, min_x, min_y, max_x, max_y FROM gpkg_contents WHERE data_type IN ('features', 'attributes')")
        guard let row = rows.first(where: { $0[0].text == table }) ?? rows.first(where: { $0[0].text?.lowercased() == table.lowercased() }),
            let name = row[0].text
        else {
            let names = rows.compactMap { $0[0].text }
            throw FeatureTableError(
                kind: .noSuchTable, path: database.path, table: table,
                message: "no feature or attribute table of that name; it has \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        }
        var schema = Schema(name: name)
        if let a = row[1].double, let b = row[2].double, let c = row[3].double, let d = row[4].double, a <= c, b <= d {
            schema.extent = BoundingBox(minX: a, minY: b, maxX: c, maxY: d)
        }
        if try database.tableExists("gpkg_geometry_columns"),
            let g = try database.query("SELECT column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)", [.text(name)]).first
        {
            schema.geometryColumn = g[0].text
            schema.geometryType = g[1].text.flatMap { GeometryType(gpkgName: $0.uppercased()) } ?? .geometry
            schema.hasZ = (g[3].int64 ?? 0) == 1
            schema.hasM = (g[4].int64 ?? 0) == 1
            schema.srsID = g[2].int64
            if let srs = g[2].int64 { schema.crs = try crs(database, srsID: srs) }
        }
        try readColumns(database, into: &schema)
        if try database.tableExists("gpkg_data_columns") {
            var aliases: [String: String] = [:]
            for a in try database.query("SELECT column_name, title FROM gpkg_data_columns WHERE table_name = ?", [.text(name)]) {
                if let column = a[0].text, let title = a[1].text, !title.isEmpty { aliases[column] = title }
            }
            for i in schema.fields.indices { schema.fields[i].alias = aliases[schema.fields[i].name] }
        }
        return schema
    }

    private static func geodatabaseSchema(_ database: SQLiteDatabase, _ table: String) throws -> Schema {
        let names = try MobileGeodatabase(database: database).tables.map(\.name)
        guard let name = names.first(where: { $0 == table }) ?? names.first(where: { $0.lowercased() == table.lowercased() }) else {
            throw FeatureTableError(
                kind: .noSuchTable, path: database.path, table: table,
                message: "no table of that name in the mobile geodatabase; it has \(names.isEmpty ? "none" : names.joined(separator: ", "))")
        }
        var schema = Schema(name: name)
        schema.format = .esriSTGeometry
        // Esri declares its shape column with the type "geometryblob".
        for column in try database.query("SELECT name, type FROM pragma_table_info(?)", [.text(name)]) where (column[1].text ?? "").lowercased() == "geometryblob" {
            schema.geometryColumn = column[0].text
        }
        try readColumns(database, into: &schema)
        guard let column = schema.geometryColumn, try database.tableExists("st_aux_spatial_reference_systems") else { return schema }
        var systems: [Int: (auth: String?, code: Int64?, wkt: String?)] = [:]
        for row in try database.query("SELECT srid, auth_name, auth_srid, srtext, falsex, falsey, xyunits FROM st_aux_spatial_reference_systems") {
            guard let srid = row[0].int64 else { continue }
            systems[Int(srid)] = (row[1].text, row[2].int64, row[3].text)
            if let x = row[4].double, let y = row[5].double, let units = row[6].double, units > 0 {
                schema.grids[Int(srid)] = STGeometryBlob.Grid(falseX: x, falseY: y, xyUnits: units)
            }
        }
        // st_geometry_columns: the declared type (ST_Geometry's codes) and the srid.
        if try database.tableExists("st_geometry_columns"),
            let row = try database.query("SELECT geometry_type, srid FROM st_geometry_columns WHERE lower(f_table_name) = lower(?) AND lower(f_geometry_column) = lower(?)", [.text(name), .text(column)]).first
        {
            schema.geometryType = [1: .point, 2: .lineString, 3: .polygon, 4: .multiPoint, 5: .multiLineString, 6: .multiPolygon][Int(row[0].int64 ?? 0)] ?? .geometry
            if let srid = row[1].int64 {
                schema.srsID = srid
                if let system = systems[Int(srid)] {
                    if system.auth?.uppercased() == "EPSG", let code = system.code, code > 0 {
                        schema.crs = CoordinateReferenceSystem(epsg: Int(code))
                    } else if let wkt = system.wkt, !wkt.isEmpty {
                        schema.crs = CoordinateReferenceSystem(wkt: wkt)
                    }
                } else if srid > 0, srid < 100_000 {
                    schema.crs = CoordinateReferenceSystem(epsg: Int(srid))
                }
            }
        }
        return schema
    }

    /// The id column and the fields, from the table's own declaration.
    private static func readColumns(_ database: SQLiteDatabase, into schema: inout Schema) throws {
        let columns = try database.query("SELECT name, type, pk FROM pragma_table_info(?)", [.text(schema.name)])
        let keys = columns.filter { ($0[2].int64 ?? 0) > 0 }
        // Only a lone INTEGER PRIMARY KEY is the rowid, which the R-tree's ids refer to.
        if keys.count == 1, (keys[0][1].text ?? "").uppercased() == "INTEGER", let key = keys[0][0].text { schema.idColumn = key }
        for column in columns {
            guard let name = column[0].text, name != schema.idColumn, name != schema.geometryColumn else { continue }
            schema.fields.append(Field(name: name, type: FieldType(gpkgDeclaration: column[1].text ?? "TEXT")))
        }
    }

    /// The coordinate system of a GeoPackage `srs_id`: by its EPSG code, else by its WKT.
    static func crs(_ database: SQLiteDatabase, srsID: Int64) throws -> CoordinateReferenceSystem? {
        guard let row = try database.query("SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?", [.integer(srsID)]).first else {
            return srsID > 0 ? CoordinateReferenceSystem(epsg: Int(srsID)) : nil
        }
        // GeoPackage reserves 0 for undefined geographic and -1 for undefined Cartesian.
        if srsID == 0 || srsID == -1 { return srsID == 0 ? .wgs84 : nil }
        if (row[0].text ?? "").uppercased() == "EPSG", let code = row[1].int64, code > 0 {
            return CoordinateReferenceSystem(epsg: Int(code))
        }
        if let wkt = row[2].text, wkt.contains("[") { return CoordinateReferenceSystem(wkt: wkt) }
        return nil
    }
}
