import MapbookSupport

/// The tables a GeoPackage declares in `gpkg_contents`, with their extents; `FeatureTable`
/// (MapbookData) counts their rows.
public struct GeoPackageContents: Sendable {
    public struct Table: Sendable, Hashable {
        public var name: String
        /// `features`, `attributes`, `tiles`, ...
        public var dataType: String
        public var identifier: String?
        public var srsID: Int?
        /// The extent in the table's spatial reference, when recorded.
        public var bounds: BoundingBox?
        public var geometryType: String?
    }

    public var path: String
    public var applicationID: String?
    public var tables: [Table]

    public init(database: SQLiteDatabase) throws(PackageFormatError) {
        path = database.path
        do {
            guard try database.tableExists("gpkg_contents") else {
                throw PackageFormatError(kind: .wrongFormat, path: path, message: "no gpkg_contents table: not a GeoPackage")
            }
            if let id = try database.scalar("PRAGMA application_id")?.int64 {
                let v = UInt32(truncatingIfNeeded: id)
                let bytes = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
                applicationID = bytes.allSatisfy { (0x20..<0x7F).contains($0) } ? String(decoding: bytes, as: UTF8.self) : String(v, radix: 16)
            }
            var geometryTypes: [String: String] = [:]
            if try database.tableExists("gpkg_geometry_columns") {
                for row in try database.query("SELECT table_name, geometry_type_name FROM gpkg_geometry_columns") {
                    if let t = row[0].text, let g = row[1].text { geometryTypes[t] = g }
                }
            }
            var tables: [Table] = []
            for row in try database.query("SELECT table_name, data_type, identifier, srs_id, min_x, min_y, max_x, max_y FROM gpkg_contents ORDER BY rowid") {
                guard let name = row[0].text else { continue }
                var bounds: BoundingBox?
                if let a = row[4].double, let b = row[5].double, let c = row[6].double, let d = row[7].double {
                    bounds = BoundingBox(minX: a, minY: b, maxX: c, maxY: d)
                }
                let table = Table(
                    name: name, dataType: row[1].text ?? "", identifier: row[2].text,
                    srsID: row[3].int64.map { Int($0) }, bounds: bounds, geometryType: geometryTypes[name])
                tables.append(table)
            }
            self.tables = tables
        } catch let error as PackageFormatError {
            throw error
        } catch {
            throw PackageFormatError(error, path: path)
        }
    }

    public func table(named name: String) -> Table? {
        tables.first { $0.name == name } ?? tables.first { $0.name.lowercased() == name.lowercased() }
    }
}
