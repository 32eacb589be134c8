import MapbookSupport

/// The SQL functions GeoPackage's R-tree triggers call (`ST_IsEmpty`, `ST_MinX`, `ST_MaxX`,
/// `ST_MinY`, `ST_MaxY`; GeoPackage 1.3, the RTree Spatial Indexes extension), which SQLite
/// does not have: a connection that inserts, updates or deletes features of a table with a
/// spatial index needs them, or SQLite refuses the statement ("no such function").
public enum GeoPackageFunctions {
    public static func register(on database: SQLiteDatabase) throws(SQLiteError) {
        try database.defineFunction("ST_IsEmpty", argumentCount: 1) { args in
            guard case .blob(let b) = args[0] else { return .null }
            // The header's empty flag, else a geometry with no coordinates.
            if b.count >= 4, b[0] == 0x47, b[1] == 0x50, b[3] & 0x10 != 0 { return .integer(1) }
            guard let g = try? GeoPackageBinary.decode(b).geometry else { return .null }
            return .integer(g.envelope == nil ? 1 : 0)
        }
        let bounds: [(String, (BoundingBox) -> Double)] = [("ST_MinX", \.minX), ("ST_MaxX", \.maxX), ("ST_MinY", \.minY), ("ST_MaxY", \.maxY)]
        for (name, side) in bounds {
            try database.defineFunction(name, argumentCount: 1) { args in
                guard case .blob(let b) = args[0], let box = (try? GeoPackageBinary.decode(b))?.geometry.envelope else { return .null }
                return .real(side(box))
            }
        }
    }
}
