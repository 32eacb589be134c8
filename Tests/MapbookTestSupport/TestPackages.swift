import CZlib
import Foundation
import MapbookPackage
import MapbookSupport

/// Small packages built in code, for tests that need no third-party data.
public enum TestPackages {
    /// A 2 x 2 PNG, made with zlib so it is a real image.
    public static let png: [UInt8] = {
        func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(UInt32(data.count)) + body + be32(RawZip.crc32(body))
        }
        let raw: [UInt8] = [0, 255, 0, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 255, 0]
        var compressed = [UInt8](repeating: 0, count: 256)
        var length = uLongf(compressed.count)
        _ = compress(&compressed, &length, raw, uLong(raw.count))
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be32(2) + be32(2) + [8, 2, 0, 0, 0])
            + chunk("IDAT", Array(compressed[0..<Int(length)]))
            + chunk("IEND", [])
    }()

    /// A GeoPackage with one point table, `points`, in EPSG:3857 (a GeoPackage 1.4 layout,
    /// without the R-tree extension, which these tests do not read).
    public static func makeGeoPackage(at path: String, table: String = "points", rows: Int = 3) throws {
        let db = try SQLiteDatabase(writablePath: path)
        try db.execute("""
            PRAGMA application_id = 1196444487;
            PRAGMA user_version = 10400;
            CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
              organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
            INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84"]', NULL),
              ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', NULL), ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', NULL),
              ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'PROJCS["WGS 84 / Pseudo-Mercator"]', NULL);
            CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
              description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT '2026-01-01T00:00:00.000Z',
              min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
            CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
              srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name));
            CREATE TABLE \(SQLiteDatabase.quote(table)) (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POINT, NAME TEXT, KIND TEXT, SIZE INTEGER);
            INSERT INTO gpkg_geometry_columns VALUES ('\(table)', 'geom', 'POINT', 3857, 0, 0);
            INSERT INTO gpkg_contents (table_name, data_type, identifier, min_x, min_y, max_x, max_y, srs_id)
              VALUES ('\(table)', 'features', '\(table)', -9814000, 5120000, -9812000, 5122000, 3857);
            """)
        let insert = try db.prepare("INSERT INTO \(SQLiteDatabase.quote(table)) (geom, NAME, KIND, SIZE) VALUES (?, ?, ?, ?)")
        for i in 0..<rows {
            let x = -9_814_000.0 + Double(i) * 500, y = 5_120_000.0 + Double(i) * 500
            try insert.bind([.blob(pointBlob(x: x, y: y)), .text("Point \(i)"), .text(i % 2 == 0 ? "even" : "odd"), .integer(Int64(i))])
            _ = try insert.step()
        }
        try db.close()
    }

    /// GeoPackage binary geometry (header without envelope) for a point in EPSG:3857.
    static func pointBlob(x: Double, y: Double) -> [UInt8] {
        var out: [UInt8] = [0x47, 0x50, 0, 0x01]
        withUnsafeBytes(of: Int32(3857).littleEndian) { out += $0 }
        out += [1]
        withUnsafeBytes(of: UInt32(1).littleEndian) { out += $0 }
        withUnsafeBytes(of: x.bitPattern.littleEndian) { out += $0 }
        withUnsafeBytes(of: y.bitPattern.littleEndian) { out += $0 }
        return out
    }

    /// The contents of a valid two-map package around a GeoPackage at `geoPackage`.
    public static func contents(geoPackage: String, timestamp: Int64 = 1_795_305_600) -> PackageContents {
        var manifest = PackageManifest()
        manifest.name = "Sample"
        manifest.guid = "11111111-2222-5333-8444-555555555555"
        manifest.title = "Sample Package"
        manifest.summary = "For tests"
        manifest.type = PackageManifest.mobileMapPackageType
        manifest.created = timestamp * 1000
        manifest.modified = timestamp * 1000
        manifest.tags = ["test"]
        manifest.extent = BoundingBox(minX: -88.2, minY: 41.7, maxX: -88.1, maxY: 41.8)
        manifest.thumbnail = DataURI.encode(png, mimeType: "image/png")
        var itemInfo = ItemInfo()
        itemInfo.name = "Sample"
        itemInfo.guid = manifest.guid!
        itemInfo.title = "Sample Package"
        itemInfo.thumbnail = "thumbnail/thumbnail.png"
        var packageInfo = PackageInfo()
        packageInfo.id = manifest.guid!
        packageInfo.name = "Sample"

        func map(_ name: String, bookmark: BoundingBox) -> MobileMap {
            var web = WebMap(spatialReference: .webMercator)
            var layer = OperationalLayer(id: "points", title: "Points", path: LayerDataPath(file: "data.gpkg", table: "points"))
            layer.layerDefinition = LayerDefinition(drawingInfo: DrawingInfo(renderer: .simple(SimpleRenderer(
                symbol: .simpleMarker(SimpleMarkerSymbol(color: RGBAColor(red: 0, green: 114, blue: 178), size: 7)))))
            )
            web.operationalLayers = [layer]
            let e = Envelope(xmin: bookmark.minX, ymin: bookmark.minY, xmax: bookmark.maxX, ymax: bookmark.maxY, spatialReference: .webMercator)
            web.bookmarks = [Bookmark(name: "Here", extent: e, viewpoint: Viewpoint(extent: e))]
            return MobileMap(map: web, item: MapItem(guid: "G-\(name)", name: name, title: name))
        }
        let box = BoundingBox(minX: -9_814_000, minY: 5_120_000, maxX: -9_812_000, maxY: 5_122_000)
        return PackageContents(
            name: "Sample", manifest: manifest, itemInfo: itemInfo, packageInfo: packageInfo, thumbnail: png,
            maps: [("First Map", map("First Map", bookmark: box)), ("Second Map", map("Second Map", bookmark: box))],
            files: [.init(path: "data.gpkg", source: .file(path: geoPackage))],
            timestamp: timestamp, generator: "mapbook tests")
    }

    /// Writes a valid package into `directory` and returns its path.
    @discardableResult
    public static func makePackage(in directory: String, name: String = "Sample.mmpk", timestamp: Int64 = 1_795_305_600) throws -> String {
        let gpkg = directory + "/data.gpkg"
        if !FileManager.default.fileExists(atPath: gpkg) { try makeGeoPackage(at: gpkg) }
        let path = directory + "/" + name
        _ = try PackageWriter.write(contents(geoPackage: gpkg, timestamp: timestamp), to: path)
        return path
    }

    /// The entries of a package as `RawZip` entries, to rewrite with a defect.
    public static func rawEntries(of path: String) throws -> [RawZip.Entry] {
        let archive = try ZipArchive(path: path)
        return try archive.entries.map { RawZip.Entry(name: $0.name, data: try archive.read($0)) }
    }
}
