import MapbookSupport

/// GeoPackage's Related Tables Extension (OGC 18-000) as mapbook writes and reads it: a
/// `gpkgext_relations` row per relationship and a mapping table of `base_id`, `related_id`
/// (registered in `gpkg_extensions` as `related_tables`, what GDAL writes and its validator
/// checks).
///
/// The link itself is a key: the related record holds its base feature's globalid (ArcGIS's
/// relationship classes keyed by GlobalID do the same). Integer fids differ between devices;
/// globalids do not, so a synchronisation moves related records and attachments by that key.
/// The mapping table, which the extension reads by fid, is kept from the key by triggers on
/// both tables: any writer (mapbook, GDAL, QGIS) keeps it right, and a feature renumbered by a
/// sync keeps its records.
public enum RelatedTables {
    public static let extensionName = "related_tables"
    static let definition = "http://www.geopackage.org/18-000.html"

    /// One relationship as `gpkgext_relations` describes it.
    public struct Relation: Sendable, Equatable {
        public var base: String
        public var basePrimaryColumn: String
        public var related: String
        public var relatedPrimaryColumn: String
        /// `media`, `attributes`, `features`.
        public var name: String
        public var mapping: String
    }

    /// Relates `base` (primary key `basePK`, globalid column `baseGlobalID`) to `related`
    /// (primary key `relatedPK`), whose column `key` holds the base's globalid: the mapping
    /// table, its triggers, the `gpkgext_relations` row and the extension rows. The mapping is
    /// filled from the rows already there.
    public static func relate(
        _ database: SQLiteDatabase, base: String, basePK: String = "fid", baseGlobalID: String, related: String, relatedPK: String, key: String,
        relation: String, mapping: String
    ) throws(SQLiteError) {
        let q = SQLiteDatabase.quote
        try database.execute(
            """
            CREATE TABLE IF NOT EXISTS gpkgext_relations (
              id INTEGER PRIMARY KEY AUTOINCREMENT, base_table_name TEXT NOT NULL, base_primary_column TEXT NOT NULL DEFAULT 'id',
              related_table_name TEXT NOT NULL, related_primary_column TEXT NOT NULL DEFAULT 'id', relation_name TEXT NOT NULL,
              mapping_table_name TEXT NOT NULL UNIQUE);
            CREATE TABLE \(q(mapping)) (base_id INTEGER NOT NULL, related_id INTEGER NOT NULL);
            CREATE INDEX \(q(mapping + "_base")) ON \(q(mapping)) (base_id);
            CREATE INDEX \(q(mapping + "_related")) ON \(q(mapping)) (related_id);
            CREATE INDEX IF NOT EXISTS \(q(related + "_" + key)) ON \(q(related)) (\(q(key)));
            """)
        for table in ["gpkgext_relations", mapping] {
            try database.query(
                "INSERT INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope) SELECT ?, NULL, ?, ?, 'read-write' WHERE NOT EXISTS (SELECT 1 FROM gpkg_extensions WHERE table_name = ? AND extension_name = ?)",
                [.text(table), .text(extensionName), .text(definition), .text(table), .text(extensionName)])
        }
        try database.query(
            "INSERT INTO gpkgext_relations (base_table_name, base_primary_column, related_table_name, related_primary_column, relation_name, mapping_table_name) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(base), .text(basePK), .text(related), .text(relatedPK), .text(relation), .text(mapping)])
        let m = q(mapping), b = q(base), r = q(related), bpk = q(basePK), rpk = q(relatedPK), g = q(baseGlobalID), k = q(key)
        let link = "INSERT INTO \(m) (base_id, related_id) SELECT b.\(bpk), NEW.\(rpk) FROM \(b) b WHERE b.\(g) = NEW.\(k);"
        let linkBase = "INSERT INTO \(m) (base_id, related_id) SELECT NEW.\(bpk), r.\(rpk) FROM \(r) r WHERE r.\(k) = NEW.\(g);"
        try database.execute(
            """
            CREATE TRIGGER \(q(mapping + "_related_insert")) AFTER INSERT ON \(r) BEGIN \(link) END;
            CREATE TRIGGER \(q(mapping + "_related_update")) AFTER UPDATE OF \(rpk), \(k) ON \(r) BEGIN
              DELETE FROM \(m) WHERE related_id = OLD.\(rpk); \(link) END;
            CREATE TRIGGER \(q(mapping + "_related_delete")) AFTER DELETE ON \(r) BEGIN DELETE FROM \(m) WHERE related_id = OLD.\(rpk); END;
            CREATE TRIGGER \(q(mapping + "_base_insert")) AFTER INSERT ON \(b) BEGIN \(linkBase) END;
            CREATE TRIGGER \(q(mapping + "_base_update")) AFTER UPDATE OF \(bpk), \(g) ON \(b) BEGIN
              DELETE FROM \(m) WHERE base_id = OLD.\(bpk); \(linkBase) END;
            CREATE TRIGGER \(q(mapping + "_base_delete")) AFTER DELETE ON \(b) BEGIN DELETE FROM \(m) WHERE base_id = OLD.\(bpk); END;
            INSERT INTO \(m) (base_id, related_id) SELECT b.\(bpk), r.\(rpk) FROM \(b) b JOIN \(r) r ON r.\(k) = b.\(g);
            """)
    }

    /// Creates the media table `name` for attachments (the extension's `id`, `data`,
    /// `content_type`, and what a sync needs: `globalid`, `rel_globalid` (the feature's),
    /// `att_name`, `data_size`, `sha256`), registered as an attributes table.
    public static func createMediaTable(_ database: SQLiteDatabase, name: String, timestamp: String) throws(SQLiteError) {
        let q = SQLiteDatabase.quote
        try database.execute(
            """
            CREATE TABLE \(q(name)) (
              id INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL, content_type TEXT NOT NULL,
              globalid TEXT NOT NULL, rel_globalid TEXT NOT NULL, att_name TEXT NOT NULL, data_size INTEGER NOT NULL, sha256 TEXT NOT NULL)
            """)
        try database.query(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change) VALUES (?, 'attributes', ?, 'attachments', ?)",
            [.text(name), .text(name), .text(timestamp)])
    }

    /// Every relationship the GeoPackage declares.
    public static func relations(_ database: SQLiteDatabase) throws(SQLiteError) -> [Relation] {
        guard try database.tableExists("gpkgext_relations") else { return [] }
        return try database.query(
            "SELECT base_table_name, base_primary_column, related_table_name, related_primary_column, relation_name, mapping_table_name FROM gpkgext_relations ORDER BY id"
        ).map { row in
            Relation(
                base: row[0].text ?? "", basePrimaryColumn: row[1].text ?? "fid", related: row[2].text ?? "", relatedPrimaryColumn: row[3].text ?? "id",
                name: row[4].text ?? "", mapping: row[5].text ?? "")
        }
    }
}
