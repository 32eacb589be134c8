import MapbookData
import MapbookPackage

/// A searchable layer's table in a GeoPackage, read in place: field values, geometries and
/// label points in WGS84, and features near a point through the table's R-tree.
final class LocatorLayer {
    let database: SQLiteDatabase
    let table: String
    let geometryColumn: String?
    /// Point layers answer reverse geocoding before lines and polygons.
    let geometryType: GeometryType?
    private let toWGS84: CoordinateTransform?
    private let fromWGS84: CoordinateTransform?
    private let rtree: String?
    private var statements: [String: SQLiteStatement] = [:]
    private var valueStatements: [[String]: SQLiteStatement] = [:]
    let fieldNames: [String]

    init(database: SQLiteDatabase, table: String) throws {
        self.database = database
        self.table = table
        func fail(_ message: String) -> LocatorError { LocatorError(path: database.path, message: message) }
        do {
            guard try database.tableExists(table) else { throw fail("the locator's layer '\(table)' is not in the GeoPackage") }
            fieldNames = try database.query("SELECT name FROM pragma_table_info(?)", [.text(table)]).compactMap { $0[0].text }
            let geometry = try database.query(
                "SELECT column_name, geometry_type_name, srs_id FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)", [.text(table)]
            ).first
            geometryColumn = geometry?[0].text
            geometryType = (geometry?[1].text).flatMap { GeometryType(gpkgName: $0.uppercased()) }
            var crs: CoordinateReferenceSystem?
            if let srs = geometry?[2].int64, srs > 0 {
                let row = try database.query(
                    "SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?", [.integer(srs)]
                ).first
                if let row, row[0].text?.uppercased() == "EPSG", let code = row[1].int64 {
                    crs = CoordinateReferenceSystem(epsg: Int(code))
                } else if let wkt = row?[2].text, wkt != "undefined" {
                    crs = CoordinateReferenceSystem(wkt: wkt)
                } else {
                    crs = CoordinateReferenceSystem(epsg: Int(srs))
                }
            }
            if let crs, !crs.isWGS84 {
                toWGS84 = try? CoordinateTransform(from: crs, to: .wgs84)
                fromWGS84 = try? CoordinateTransform(from: .wgs84, to: crs)
            } else {
                toWGS84 = nil
                fromWGS84 = nil
            }
            if let column = geometryColumn, try database.tableExists("rtree_\(table)_\(column)") {
                rtree = "rtree_\(table)_\(column)"
            } else {
                rtree = nil
            }
        } catch let e as SQLiteError {
            throw fail(e.message)
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

    /// Features whose envelope meets a WGS84 box, through the R-tree when the table has one.
    func features(near box: (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)) throws -> [Int64] {
        guard let column = geometryColumn else { return [] }
        // The box in the layer's CRS: the bounds of its sides, sampled.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for i in 0...8 {
            let t = Double(i) / 8
            for p in [
                Position(x: box.minLon + t * (box.maxLon - box.minLon), y: box.minLat), Position(x: box.minLon + t * (box.maxLon - box.minLon), y: box.maxLat),
                Position(x: box.minLon, y: box.minLat + t * (box.maxLat - box.minLat)), Position(x: box.maxLon, y: box.minLat + t * (box.maxLat - box.minLat)),
            ] {
                guard let q = fromWGS84.map({ $0.apply(p) }) ?? p else { continue }
                minX = min(minX, q.x)
                minY = min(minY, q.y)
                maxX = max(maxX, q.x)
                maxY = max(maxY, q.y)
            }
        }
        guard minX <= maxX, minY <= maxY else { return [] }
        let bounds: [SQLiteValue] = [.real(maxX), .real(minX), .real(maxY), .real(minY)]
        if let rtree {
            let s = try statement("SELECT id FROM \(SQLiteDatabase.quote(rtree)) WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?")
            try s.bind(bounds)
            defer { s.reset() }
            var out: [Int64] = []
            while try s.step() { if let id = s.column(0).int64 { out.append(id) } }
            return out
        }
        // No spatial index: every feature, filtered by its envelope.
        let s = try statement("SELECT fid, \(SQLiteDatabase.quote(column)) FROM \(SQLiteDatabase.quote(table))")
        try s.bind([])
        defer { s.reset() }
        var out: [Int64] = []
        while try s.step() {
            guard let fid = s.column(0).int64, case .blob(let bytes) = s.column(1),
                let envelope = (try? GeoPackageBinary.decode(bytes))?.geometry.envelope
            else { continue }
            if envelope.minX <= maxX, envelope.maxX >= minX, envelope.minY <= maxY, envelope.maxY >= minY { out.append(fid) }
        }
        return out
    }

    /// Every feature's id and value of `field` (for coverage checks).
    func allValues(_ field: String) throws -> [(fid: Int64, value: SQLiteValue)] {
        try database.query("SELECT fid, \(SQLiteDatabase.quote(field)) FROM \(SQLiteDatabase.quote(table)) ORDER BY fid").compactMap { row in
            row[0].int64.map { ($0, row[1]) }
        }
    }
}
