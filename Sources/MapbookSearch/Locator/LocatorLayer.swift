import MapbookData
import MapbookSupport

/// A searchable layer's table in a GeoPackage, read in place: field values, geometries and
/// label points in WGS84, and features near a point through the table's `FeatureTable`.
final class LocatorLayer {
    let database: SQLiteDatabase
    let table: String
    let features: FeatureTable
    var geometryColumn: String? { features.geometryColumn }
    /// The table's geometry type; nil without a geometry column.
    var geometryType: GeometryType? { features.geometryColumn == nil ? nil : features.geometryType }
    private let toWGS84: CoordinateTransform?
    private let fromWGS84: CoordinateTransform?
    private var statements: [String: SQLiteStatement] = [:]
    private var valueStatements: [[String]: SQLiteStatement] = [:]
    /// Every column: the id, the fields and the geometry.
    let fieldNames: [String]

    init(database: SQLiteDatabase, table: String) throws {
        self.database = database
        self.table = table
        do {
            features = try FeatureTable(database: database, table: table)
        } catch {
            switch error.kind {
            case .noSuchTable: throw LocatorError(kind: .missingLayer, path: database.path, message: "the locator's layer '\(table)' is not in the GeoPackage")
            case .notAGeoPackage: throw LocatorError(kind: .wrongFormat, path: database.path, message: error.message)
            case .noSuchField, .noGeometry: throw LocatorError(kind: .missingField, path: database.path, message: error.message)
            case .invalidFilter, .geometryFormatNotPublic: throw LocatorError(kind: .invalidValue, path: database.path, message: error.message)
            case .unreadable: throw LocatorError(kind: .damaged, path: database.path, message: error.message)
            }
        }
        fieldNames = [features.idColumn] + features.fields.map(\.name) + (features.geometryColumn.map { [$0] } ?? [])
        if let crs = features.crs, !crs.isWGS84 {
            toWGS84 = try? CoordinateTransform(from: crs, to: .wgs84)
            fromWGS84 = try? CoordinateTransform(from: .wgs84, to: crs)
        } else {
            toWGS84 = nil
            fromWGS84 = nil
        }
    }

    func hasField(_ name: String) -> Bool { fieldNames.contains(name) }

    private func statement(_ sql: String) throws -> SQLiteStatement {
        if let s = statements[sql] { return s }
        let s = try database.prepare(sql)
        statements[sql] = s
        return s
    }

    /// The values of `fields` for feature `fid` (nil when there is no such feature).
    func values(_ fid: Int64, _ fields: [String]) throws -> [SQLiteValue]? {
        guard !fields.isEmpty else { return [] }
        // Looked up by the field list: building the SQL text costs more than the lookup.
        let s: SQLiteStatement
        if let cached = valueStatements[fields] {
            s = cached
        } else {
            let columns = fields.map(SQLiteDatabase.quote).joined(separator: ", ")
            s = try statement("SELECT \(columns) FROM \(SQLiteDatabase.quote(table)) WHERE fid = ?")
            valueStatements[fields] = s
        }
        try s.bind([.integer(fid)])
        defer { s.reset() }
        return try s.step() ? s.row() : nil
    }

    /// A feature's geometry by id, for a candidate's label point: read with the same cached
    /// statements as its values, since geocoding asks for up to ten of them a query and a
    /// `FeatureTable` cursor a call (its SQL text built, a cursor made) cost geocode 15%
    /// (docs/PERFORMANCE.md, "The groundwork change").
    func geometry(_ fid: Int64) throws -> Geometry? {
        guard let column = geometryColumn, case .blob(let bytes)? = try values(fid, [column])?.first else { return nil }
        return try? GeoPackageBinary.decode(bytes).geometry
    }

    /// A position of the layer's CRS in WGS84.
    func wgs84(_ p: Position) -> Position? {
        guard let toWGS84 else { return p }
        return toWGS84.apply(p)
    }

    /// The geometry in WGS84.
    func wgs84(_ g: Geometry) -> Geometry? {
        guard let toWGS84 else { return g }
        return toWGS84.apply(g)
    }

    /// Where a feature is shown: its label point in WGS84.
    func location(_ fid: Int64) throws -> Position? {
        guard let g = try geometry(fid), let p = LabelPoint.of(g) else { return nil }
        return wgs84(p)
    }

    /// Features whose geometry meets a WGS84 box, through the R-tree when the table has one.
    func features(near box: (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)) throws -> [TableFeature] {
        guard geometryColumn != nil else { return [] }
        // The box in the layer's CRS: the bounds of its sides, sampled.
        var envelope = BoundingBox.empty
        for i in 0...8 {
            let t = Double(i) / 8
            for p in [
                Position(x: box.minLon + t * (box.maxLon - box.minLon), y: box.minLat), Position(x: box.minLon + t * (box.maxLon - box.minLon), y: box.maxLat),
                Position(x: box.minLon, y: box.minLat + t * (box.maxLat - box.minLat)), Position(x: box.maxLon, y: box.minLat + t * (box.maxLat - box.minLat)),
            ] {
                guard let q = fromWGS84.map({ $0.apply(p) }) ?? p else { continue }
                envelope.include(x: q.x, y: q.y)
            }
        }
        guard !envelope.isEmpty else { return [] }
        return try features.features(in: envelope, fields: []).collect()
    }

    /// Every feature's id and value of `field` (for coverage checks).
    func allValues(_ field: String) throws -> [(fid: Int64, value: SQLiteValue)] {
        try database.query("SELECT fid, \(SQLiteDatabase.quote(field)) FROM \(SQLiteDatabase.quote(table)) ORDER BY fid").compactMap { row in
            row[0].int64.map { ($0, row[1]) }
        }
    }
}
