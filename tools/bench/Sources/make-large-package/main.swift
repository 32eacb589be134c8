// Writes a large package for the inspect benchmark: three maps over a GeoPackage, a thumbnail
// and ENTRIES attachment entries of pseudo-random bytes (incompressible, like photos), in all
// at least SIZE bytes. Written through PackageWriter, so it has a real manifest with hashes.
//
//   make-large-package OUTPUT.mmpk [ENTRIES=10000] [MiB=1100]

import MapbookPackage

#if canImport(Glibc)
import Glibc
#endif
import MapbookSupport

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: make-large-package OUTPUT.mmpk [ENTRIES] [MiB]")
    exit(64)
}
let output = arguments[1]
let entryCount = arguments.count > 2 ? Int(arguments[2]) ?? 10_000 : 10_000
let mebibytes = arguments.count > 3 ? Int(arguments[3]) ?? 1100 : 1100
let entrySize = Int64(mebibytes) * 1_048_576 / Int64(entryCount)

// One blob file holds every attachment's bytes; each entry is a slice of it, so nothing is
// held in memory.
let blobPath = output + ".blob"
do {
    let blob = try AtomicFile(destination: blobPath)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var chunk = [UInt64](repeating: 0, count: 1 << 17)
    var written: Int64 = 0
    let total = entrySize * Int64(entryCount)
    while written < total {
        for i in 0..<chunk.count {
            // xorshift64*: fast, deterministic, incompressible enough.
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            chunk[i] = state &* 0x2545_F491_4F6C_DD1D
        }
        let n = Int(min(Int64(chunk.count * 8), total - written))
        try chunk.withUnsafeBytes { try blob.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        written += Int64(n)
    }
    try blob.commit()
}
defer { unlink(blobPath) }

let blob = try RandomAccessFile(path: blobPath)

// A small GeoPackage the maps point at.
let gpkgPath = output + ".gpkg"
defer { unlink(gpkgPath) }
unlink(gpkgPath)
let db = try SQLiteDatabase(writablePath: gpkgPath)
try db.execute("""
    PRAGMA application_id = 1196444487; PRAGMA user_version = 10400;
    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84"]', NULL), ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', NULL), ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', NULL), ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'PROJCS["WGS 84 / Pseudo-Mercator"]', NULL);
    CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE, description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT '2026-01-01T00:00:00.000Z', min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, PRIMARY KEY (table_name, column_name));
    CREATE TABLE assets (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POINT, PHOTO TEXT);
    INSERT INTO gpkg_geometry_columns VALUES ('assets', 'geom', 'POINT', 3857, 0, 0);
    INSERT INTO gpkg_contents (table_name, data_type, identifier, min_x, min_y, max_x, max_y, srs_id) VALUES ('assets', 'features', 'assets', -9814000, 5120000, -9812000, 5122000, 3857);
    """)
try db.execute("BEGIN")
let insert = try db.prepare("INSERT INTO assets (PHOTO) VALUES (?)")
for i in 0..<entryCount {
    try insert.bind([.text("attachments/photo-\(i).jpg")])
    _ = try insert.step()
}
try db.execute("COMMIT")
try db.close()

var manifest = PackageManifest()
manifest.name = "Large"
manifest.guid = "00000000-0000-5000-8000-000000000001"
manifest.title = "Large benchmark package"
manifest.type = PackageManifest.mobileMapPackageType
manifest.created = 1_795_305_600_000
manifest.modified = 1_795_305_600_000
manifest.extent = BoundingBox(minX: -88.2, minY: 41.7, maxX: -88.1, maxY: 41.8)
var itemInfo = ItemInfo()
itemInfo.name = "Large"
itemInfo.title = manifest.title!
itemInfo.guid = manifest.guid!
var packageInfo = PackageInfo()
packageInfo.id = manifest.guid!

var maps: [(fileName: String, map: MobileMap)] = []
for name in ["Assets", "Inspections", "Overview"] {
    var web = WebMap(spatialReference: .webMercator)
    web.operationalLayers = [OperationalLayer(id: "assets", title: "Assets", path: LayerDataPath(file: "data.gpkg", table: "assets"))]
    maps.append((name, MobileMap(map: web, item: MapItem(guid: "G-\(name)", name: name, title: name))))
}
var files: [PackageContents.File] = [.init(path: "data.gpkg", source: .file(path: gpkgPath))]
for i in 0..<entryCount {
    files.append(.init(path: "attachments/photo-\(i).jpg", source: .range(ByteRange(file: blob, offset: Int64(i) * entrySize, length: entrySize))))
}
let contents = PackageContents(
    name: "Large", manifest: manifest, itemInfo: itemInfo, packageInfo: packageInfo, thumbnail: nil,
    maps: maps, files: files, timestamp: 1_795_305_600, generator: "make-large-package")
let summary = try PackageWriter.write(contents, to: output)
print("\(output): \(summary.entries.count) entries, \(summary.fileSize) bytes")
