import MapbookSupport

/// Writes a GeoPackage 1.3 of feature tables, as a package's `data.gpkg` (DESIGN.md section
/// 3.3, docs/FORMAT.md for why 1.3): the required tables, one feature table per layer with
/// `fid` and `geom`, an R-tree index with the 1.3 triggers on every table, field aliases in `gpkg_data_columns`, and
/// per-layer JSON in `gpkg_metadata`.
///
/// Features are streamed in one transaction per layer; the R-tree is packed from their
/// envelopes when the layer is finished (24 bytes a feature held until then).
/// The file is built at the given path, which should be a temporary one: the caller renames
/// it into place when everything succeeded. Not Sendable: one task writes.
public final class GeoPackageWriter {
    public let path: String
    public let crs: CoordinateReferenceSystem
    public let srsID: Int32
    let database: SQLiteDatabase
    /// "YYYY-MM-DDTHH:MM:SS.000Z", written as every `last_change`, so rebuilds are identical.
    private let timestamp: String
    var current: LayerState?
    private var metadataCount = 0

    /// What a finished layer holds.
    public struct LayerSummary: Sendable {
        public var table: String
        public var count: Int
        public var extent: BoundingBox?
        public var geometryType: GeometryType?
    }

    struct LayerState {
        var table: String
        var schema: LayerSchema
        var columns: [String]
        var insert: SQLiteStatement
        /// The features' envelopes, packed into the layer's R-tree when it is finished.
        var rtree: SQLiteRTreeLoader?
        var extent = BoundingBox.empty
        var count = 0
        var nextFID: Int64 = 1
    }

    /// Creates the file and its required tables. `timestamp` is Unix seconds.
    public init(path: String, crs: CoordinateReferenceSystem, timestamp: Int64) throws {
        self.path = path
        self.crs = crs
        self.timestamp = String(ISODate.format(seconds: timestamp).dropLast()) + ".000Z"
        guard let epsg = crs.epsg ?? CoordinateTransform.identifyEPSG(crs), let description = CoordinateTransform.describe(crs) else {
            throw DataError(kind: .crs(.unknownCRS), path: path, message: "the package coordinate system \(crs) has no EPSG code PROJ knows; use an EPSG code")
        }
        srsID = Int32(epsg)
        database = try SQLiteDatabase(writablePath: path)
        // Built once into a temporary file that is renamed into place: no journal is needed.
        // Rows, R-tree nodes and R-tree rowids are all appended in key order, so a 16 MiB
        // page cache holds every page still being written.
        try database.execute("""
            PRAGMA application_id = 1196444487;
            PRAGMA user_version = 10300;
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA page_size = 4096;
            PRAGMA locking_mode = EXCLUSIVE;
            PRAGMA temp_store = MEMORY;
            PRAGMA cache_size = -16384;
            """)
        try createRequiredTables(epsg: epsg, name: description.name, wkt: description.wkt)
    }

    // GeoPackage 1.4, clauses 1.1.2 to 1.1.3 and annex C (table definitions).
    private func createRequiredTables(epsg: Int, name: String, wkt: String) throws {
        try database.execute("""
            BEGIN;
            CREATE TABLE gpkg_spatial_ref_sys (
              srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
              organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
            CREATE TABLE gpkg_contents (
              table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
              description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
              min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
              CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
            CREATE TABLE gpkg_geometry_columns (
              table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
              srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
              CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
              CONSTRAINT uk_gc_table_name UNIQUE (table_name),
              CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
              CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
            CREATE TABLE gpkg_extensions (
              table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL, definition TEXT NOT NULL,
              scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
            CREATE TABLE gpkg_data_columns (
              table_name TEXT NOT NULL, column_name TEXT NOT NULL, name TEXT, title TEXT, description TEXT,
              mime_type TEXT, constraint_name TEXT,
              CONSTRAINT pk_gdc PRIMARY KEY (table_name, column_name),
              CONSTRAINT gdc_tn UNIQUE (table_name, name));
            CREATE TABLE gpkg_data_column_constraints (
              constraint_name TEXT NOT NULL, constraint_type TEXT NOT NULL, value TEXT, min NUMERIC,
              min_is_inclusive BOOLEAN, max NUMERIC, max_is_inclusive BOOLEAN, description TEXT,
              CONSTRAINT gdcc_ntv UNIQUE (constraint_name, constraint_type, value));
            CREATE TABLE gpkg_metadata (
              id INTEGER CONSTRAINT m_pk PRIMARY KEY ASC NOT NULL, md_scope TEXT NOT NULL DEFAULT 'dataset',
              md_standard_uri TEXT NOT NULL, mime_type TEXT NOT NULL DEFAULT 'text/xml', metadata TEXT NOT NULL DEFAULT '');
            CREATE TABLE gpkg_metadata_reference (
              reference_scope TEXT NOT NULL, table_name TEXT, column_name TEXT, row_id_value INTEGER,
              timestamp DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
              md_file_id INTEGER NOT NULL, md_parent_id INTEGER,
              CONSTRAINT crmr_mfi_fk FOREIGN KEY (md_file_id) REFERENCES gpkg_metadata(id),
              CONSTRAINT crmr_mpi_fk FOREIGN KEY (md_parent_id) REFERENCES gpkg_metadata(id));
            CREATE TABLE gpkg_ogr_contents (table_name TEXT NOT NULL PRIMARY KEY, feature_count INTEGER DEFAULT NULL);
            INSERT INTO gpkg_extensions VALUES
              ('gpkg_data_columns', NULL, 'gpkg_schema', 'http://www.geopackage.org/spec/#extension_schema', 'read-write'),
              ('gpkg_data_column_constraints', NULL, 'gpkg_schema', 'http://www.geopackage.org/spec/#extension_schema', 'read-write'),
              ('gpkg_metadata', NULL, 'gpkg_metadata', 'http://www.geopackage.org/spec/#extension_metadata', 'read-write'),
              ('gpkg_metadata_reference', NULL, 'gpkg_metadata', 'http://www.geopackage.org/spec/#extension_metadata', 'read-write');
            """)
        let srs = try database.prepare("INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)")
        var rows: [[SQLiteValue]] = [
            [.text("Undefined cartesian SRS"), .integer(-1), .text("NONE"), .integer(-1), .text("undefined"), .text("undefined cartesian coordinate reference system")],
            [.text("Undefined geographic SRS"), .integer(0), .text("NONE"), .integer(0), .text("undefined"), .text("undefined geographic coordinate reference system")],
        ]
        let wgs84 = CoordinateTransform.describe(.wgs84)
        rows.append([.text("WGS 84 geodetic"), .integer(4326), .text("EPSG"), .integer(4326), .text(wgs84?.wkt ?? "undefined"), .text("longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid")])
        if epsg != 4326 {
            rows.append([.text(name), .integer(Int64(epsg)), .text("EPSG"), .integer(Int64(epsg)), .text(wkt), .null])
        }
        for row in rows {
            try srs.bind(row)
            try srs.run()
        }
        try database.execute("COMMIT")
    }

    /// Starts a feature table (or an attribute table when the schema has no geometry type).
    /// Field names are used as given; `table` must be unique in the file.
    public func beginLayer(table: String, schema: LayerSchema, identifier: String, description: String) throws {
        precondition(current == nil, "finish the previous layer first")
        let q = SQLiteDatabase.quote
        var columns = ["fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL"]
        if let type = schema.geometryType { columns.append("geom \(type.gpkgName)") }
        for field in schema.fields { columns.append("\(q(field.name)) \(field.type.gpkgDeclaration)") }
        let dataType = schema.geometryType == nil ? "attributes" : "features"
        try database.execute("BEGIN")
        try database.execute("CREATE TABLE \(q(table)) (\(columns.joined(separator: ", ")))")
        try database.query(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, last_change, srs_id) VALUES (?, ?, ?, ?, ?, ?)",
            [.text(table), .text(dataType), .text(identifier), .text(description), .text(timestamp), schema.geometryType == nil ? .null : .integer(Int64(srsID))])
        if let type = schema.geometryType {
            try database.query(
                "INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, ?, ?)",
                [.text(table), .text(type.gpkgName), .integer(Int64(srsID)), .integer(schema.hasZ ? 1 : 0), .integer(schema.hasM ? 1 : 0)])
        }
        let names = (schema.geometryType == nil ? [] : ["geom"]) + schema.fields.map(\.name)
        let placeholders = (["?"] + names.map { _ in "?" }).joined(separator: ", ")
        let insert = try database.prepare(
            "INSERT INTO \(q(table)) (fid\(names.isEmpty ? "" : ", ")\(names.map(q).joined(separator: ", "))) VALUES (\(placeholders))")
        current = LayerState(table: table, schema: schema, columns: names, insert: insert, rtree: schema.geometryType == nil ? nil : SQLiteRTreeLoader())
    }

    /// Adds a feature, already in the package CRS and of the layer's declared type; returns its fid.
    @discardableResult
    public func add(geometry: Geometry?, values: [FieldValue]) throws -> Int64 {
        guard var state = current else { preconditionFailure("beginLayer first") }
        // Held by `state` alone while it changes, so the envelopes are appended in place.
        current = nil
        defer { current = state }
        let fid = state.nextFID
        state.nextFID += 1
        let insert = state.insert
        try insert.bind(.integer(fid), at: 1)
        var index: Int32 = 2
        if state.schema.geometryType != nil {
            if let geometry {
                try insert.bind(.blob(GeoPackageBinary.encode(geometry, srsID: srsID)), at: index)
            } else {
                try insert.bind(.null, at: index)
            }
            index += 1
        }
        for value in values {
            try insert.bind(value.sqliteValue, at: index)
            index += 1
        }
        try insert.run()
        state.count += 1
        if let e = geometry?.envelope, state.schema.geometryType != nil {
            state.extent.include(e)
            state.rtree?.add(id: fid, minX: e.minX, maxX: e.maxX, minY: e.minY, maxY: e.maxY)
        }
        return fid
    }

    /// Ends the layer: records its extent and count, aliases and metadata, adds the R-tree
    /// triggers, and commits.
    @discardableResult
    public func finishLayer(aliases: [String: String] = [:], metadata: String? = nil) throws -> LayerSummary {
        guard var state = current else { preconditionFailure("beginLayer first") }
        current = nil
        do {
            return try finish(&state, aliases: aliases, metadata: metadata)
        } catch {
            // Nothing of a layer that failed to finish stays in the file.
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    private func finish(_ state: inout LayerState, aliases: [String: String], metadata: String?) throws -> LayerSummary {
        let table = state.table
        let extent = state.extent.isEmpty ? nil : state.extent
        if let extent {
            try database.query(
                "UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?",
                [.real(extent.minX), .real(extent.minY), .real(extent.maxX), .real(extent.maxY), .text(table)])
        }
        try database.query("INSERT INTO gpkg_ogr_contents VALUES (?, ?)", [.text(table), .integer(Int64(state.count))])
        for field in state.schema.fields {
            let title = aliases[field.name] ?? field.alias
            guard let title, title != field.name else { continue }
            try database.query(
                "INSERT INTO gpkg_data_columns (table_name, column_name, name, title) VALUES (?, ?, ?, ?)",
                [.text(table), .text(field.name), .text(field.name), .text(title)])
        }
        if let metadata {
            metadataCount += 1
            try database.query(
                "INSERT INTO gpkg_metadata (id, md_scope, md_standard_uri, mime_type, metadata) VALUES (?, 'dataset', 'https://mapbook.dev/layer-defaults', 'application/json', ?)",
                [.integer(Int64(metadataCount)), .text(metadata)])
            try database.query(
                "INSERT INTO gpkg_metadata_reference (reference_scope, table_name, timestamp, md_file_id) VALUES ('table', ?, ?, ?)",
                [.text(table), .text(timestamp), .integer(Int64(metadataCount))])
        }
        if var rtree = state.rtree.take() {
            // The index is made after the load, packed in one go (SQLiteRTreeLoader), then
            // kept by the triggers through later edits.
            let index = "rtree_\(table)_geom"
            try database.execute("CREATE VIRTUAL TABLE \(SQLiteDatabase.quote(index)) USING rtree(id, minx, maxx, miny, maxy)")
            try database.query(
                "INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec/#extension_rtree', 'write-only')",
                [.text(table)])
            try rtree.write(into: database, table: index)
            try createTriggers(table: table)
        }
        try database.execute("COMMIT")
        return LayerSummary(table: table, count: state.count, extent: extent, geometryType: state.schema.geometryType)
    }

    /// Abandons the layer under way (a failed import), leaving the file without it.
    public func abandonLayer() {
        guard current != nil else { return }
        current = nil
        try? database.execute("ROLLBACK")
    }

    // The R-tree triggers of GeoPackage 1.3 (annex F.3: insert, update1-4, delete), plus GDAL's
    // feature-count triggers so gpkg_ogr_contents stays right after edits. 1.4 replaced update1
    // and update3 with update5-7, but the GDAL most Linux machines run (Debian 12's and Ubuntu
    // 22.04's 3.4-3.6) warns on a 1.4 file and its validator requires update1 and update3, while
    // GDAL 3.13's validator refuses them in a 1.4 file: 1.3 is the version both accept (GDAL 3.6
    // itself writes an older version with these triggers). They are sound for this file, built
    // once and read in place.
    private func createTriggers(table t: String) throws {
        let q = SQLiteDatabase.quote
        let r = q("rtree_\(t)_geom")
        let name = { (suffix: String) in q("rtree_\(t)_geom_\(suffix)") }
        let literal = "'" + t.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        try database.execute("""
            CREATE TRIGGER \(name("insert")) AFTER INSERT ON \(q(t)) WHEN (new.geom NOT NULL AND NOT ST_IsEmpty(NEW.geom))
            BEGIN INSERT OR REPLACE INTO \(r) VALUES (NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom)); END;
            CREATE TRIGGER \(name("update1")) AFTER UPDATE OF geom ON \(q(t)) WHEN OLD.fid = NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
            BEGIN INSERT OR REPLACE INTO \(r) VALUES (NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom)); END;
            CREATE TRIGGER \(name("update2")) AFTER UPDATE OF geom ON \(q(t)) WHEN OLD.fid = NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
            BEGIN DELETE FROM \(r) WHERE id = OLD.fid; END;
            CREATE TRIGGER \(name("update3")) AFTER UPDATE ON \(q(t)) WHEN OLD.fid != NEW.fid AND (NEW.geom NOTNULL AND NOT ST_IsEmpty(NEW.geom))
            BEGIN DELETE FROM \(r) WHERE id = OLD.fid;
              INSERT OR REPLACE INTO \(r) VALUES (NEW.fid, ST_MinX(NEW.geom), ST_MaxX(NEW.geom), ST_MinY(NEW.geom), ST_MaxY(NEW.geom)); END;
            CREATE TRIGGER \(name("update4")) AFTER UPDATE ON \(q(t)) WHEN OLD.fid != NEW.fid AND (NEW.geom ISNULL OR ST_IsEmpty(NEW.geom))
            BEGIN DELETE FROM \(r) WHERE id IN (OLD.fid, NEW.fid); END;
            CREATE TRIGGER \(name("delete")) AFTER DELETE ON \(q(t)) WHEN old.geom NOT NULL
            BEGIN DELETE FROM \(r) WHERE id = OLD.fid; END;
            CREATE TRIGGER \(q("trigger_insert_feature_count_\(t)")) AFTER INSERT ON \(q(t))
            BEGIN UPDATE gpkg_ogr_contents SET feature_count = feature_count + 1 WHERE lower(table_name) = lower(\(literal)); END;
            CREATE TRIGGER \(q("trigger_delete_feature_count_\(t)")) AFTER DELETE ON \(q(t))
            BEGIN UPDATE gpkg_ogr_contents SET feature_count = feature_count - 1 WHERE lower(table_name) = lower(\(literal)); END;
            """)
    }

    /// Finishes the file: checks it, and closes it.
    public func close() throws {
        if current != nil { abandonLayer() }
        let check = try database.scalar("PRAGMA quick_check")
        guard check?.text == "ok" else {
            throw DataError(kind: .damaged, path: path, message: "the GeoPackage failed SQLite's check: \(check?.text ?? "no answer")")
        }
        try database.close()
    }
}

extension GeoPackageWriter {
    /// Changes the layer under way to a multi type (a line cut by the extent became two), by
    /// copying it into a table declared with the new type and re-encoding single geometries.
    public func promoteCurrentLayerToMulti(_ type: GeometryType) throws {
        guard let state = current else { preconditionFailure("beginLayer first") }
        let q = SQLiteDatabase.quote
        let table = state.table
        let temporary = table + "_mapbook_promote"
        var columns = ["fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", "geom \(type.gpkgName)"]
        for field in state.schema.fields { columns.append("\(q(field.name)) \(field.type.gpkgDeclaration)") }
        try database.execute("""
            CREATE TABLE \(q(temporary)) (\(columns.joined(separator: ", ")));
            INSERT INTO \(q(temporary)) SELECT * FROM \(q(table));
            DROP TABLE \(q(table));
            ALTER TABLE \(q(temporary)) RENAME TO \(q(table));
            """)
        try database.query("UPDATE gpkg_geometry_columns SET geometry_type_name = ? WHERE table_name = ?", [.text(type.gpkgName), .text(table)])
        let rows = try database.query("SELECT fid, geom FROM \(q(table)) WHERE geom IS NOT NULL")
        let update = try database.prepare("UPDATE \(q(table)) SET geom = ? WHERE fid = ?")
        for row in rows {
            guard case .blob(let bytes) = row[1], let fid = row[0].int64, let (g, _) = try? GeoPackageBinary.decode(bytes), !g.type.isMulti else { continue }
            try update.bind(.blob(GeoPackageBinary.encode(g.promotedToMulti(), srsID: srsID)), at: 1)
            try update.bind(.integer(fid), at: 2)
            try update.run()
        }
        var promoted = state
        promoted.schema.geometryType = type
        let names = ["geom"] + state.schema.fields.map(\.name)
        promoted.insert = try database.prepare(
            "INSERT INTO \(q(table)) (fid, \(names.map(q).joined(separator: ", "))) VALUES (\((["?"] + names.map { _ in "?" }).joined(separator: ", ")))")
        current = promoted
    }
}
