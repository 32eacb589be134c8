import MapbookData
import MapbookPackage
import MapbookSupport

/// The features of a GeoPackage cut to an area: what a map area taken offline keeps of its
/// package's data (issue 33).
///
/// Works on a copy exported for a device (`AuthoritativeCopy.export(to:)`): a feature whose
/// geometry meets the area is kept whole, others are deleted, with the attachments and
/// related records (media, attributes) that hang from them. Attribute tables on their own,
/// features with no geometry and tables whose coordinate system is unknown are kept. The
/// R-tree finds the candidates and `Geometry.intersects` decides, in each table's
/// coordinates. The copy keeps its generation, so the area's package synchronises with the
/// copy it came from.
public enum AreaCut {
    /// What the cut kept and removed, per table.
    public struct TableCount: Sendable, Equatable {
        public var table: String
        public var kept: Int
        public var removed: Int
    }

    /// An area in WGS84 longitude and latitude: a rectangle, or a polygon.
    public struct Area: Sendable, Equatable {
        public var geometry: Geometry

        /// The rectangle `west`, `south`, `east`, `north` (degrees), with points along its
        /// edges so that it keeps its shape in other coordinates.
        public init(west: Double, south: Double, east: Double, north: Double) {
            geometry = FeatureQuery.densified(FeatureQuery.rectangle(west, south, east, north))
        }

        /// A polygon (or multipolygon) in WGS84.
        public init(polygon: Geometry) {
            geometry = polygon
        }

        public var box: BoundingBox? { geometry.envelope }
    }

    /// Deletes from the GeoPackage at `path` every feature missing `area`, except in the
    /// tables `whole` (a street network's source, which the network's edges name).
    public static func cut(_ path: String, to area: Area, keepingWhole whole: Set<String> = []) throws -> [TableCount] {
        let database = try SQLiteDatabase(writablePath: path, create: false)
        defer { try? database.close() }
        let relations = try RelatedTables.relations(database)
        var counts: [TableCount] = []
        try database.execute("BEGIN IMMEDIATE")
        do {
            try database.execute("CREATE TEMP TABLE mapbook_area_keep (id INTEGER PRIMARY KEY)")
            for name in try FeatureTable.tableNames(in: database) {
                let table = try FeatureTable(database: database, table: name)
                // A table whose coordinates are not known cannot be placed against the area:
                // it is kept whole rather than cut by a guess.
                guard table.geometryColumn != nil, table.crs != nil, !whole.contains(table.name) else { continue }
                let placed = try placedArea(area, in: table)
                try database.execute("DELETE FROM temp.mapbook_area_keep")
                var selection = FeatureSelection(box: placed.envelope)
                selection.test = { $0.intersects(placed) }
                let cursor = try table.features(selection, fields: [], geometry: true)
                let insert = try database.prepare("INSERT INTO temp.mapbook_area_keep (id) VALUES (?)")
                while let feature = try cursor.next() {
                    try insert.bind([.integer(feature.id)])
                    try insert.run()
                }
                let q = SQLiteDatabase.quote
                let outside = "SELECT \(q(table.idColumn)) FROM \(q(table.name)) WHERE \(q(table.idColumn)) NOT IN (SELECT id FROM temp.mapbook_area_keep)"
                    + " AND \(q(table.geometryColumn ?? "")) IS NOT NULL"
                // Attachments and related records of the features that go, before them: the
                // mapping rows that say which they are go with the features (RelatedTables'
                // triggers). Related features are cut by their own geometry.
                for relation in relations where relation.base == table.name && relation.name != "features" {
                    try database.query(
                        "DELETE FROM \(q(relation.related)) WHERE \(q(relation.relatedPrimaryColumn)) IN (SELECT related_id FROM \(q(relation.mapping)) WHERE base_id IN (\(outside)))")
                }
                let before = try database.scalar("SELECT count(*) FROM \(q(table.name))")?.int64 ?? 0
                try database.query("DELETE FROM \(q(table.name)) WHERE \(q(table.idColumn)) IN (\(outside))")
                let after = try database.scalar("SELECT count(*) FROM \(q(table.name))")?.int64 ?? 0
                counts.append(TableCount(table: table.name, kept: Int(after), removed: Int(before - after)))
            }
            try database.execute("DROP TABLE temp.mapbook_area_keep")
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
        try database.execute("VACUUM")
        return counts
    }

    /// The area in the table's coordinates.
    static func placedArea(_ area: Area, in table: FeatureTable) throws -> Geometry {
        guard let crs = table.crs, crs != .wgs84 else { return area.geometry }
        guard let placed = try CoordinateTransform(from: .wgs84, to: crs).apply(area.geometry), placed.envelope != nil else {
            throw SyncError(kind: .schemaMismatch, message: "the area cannot be placed in the coordinates of \(table.name)")
        }
        return placed
    }
}
