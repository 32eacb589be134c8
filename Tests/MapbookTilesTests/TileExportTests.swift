import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookTiles

/// MBTiles and tile folders, and exporting a `.vtpk` to every format, checked by the peers:
/// GDAL's MVT driver and the `pmtiles` and `mapbox-vector-tile` Python packages.
@Suite struct TileExportTests {
    @Test func mbtilesHasTheSpecSchemaAndTMSRows() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/t.mbtiles"
            let writer = try MBTilesWriter(path: path, metadata: PMTilesTests.metadata())
            let tiles = TestTiles.coordinates(minZoom: 9, maxZoom: 11)
            for c in tiles.reversed() { try writer.addTile(TestTiles.gzipped(c), at: c) }
            #expect(throws: TileArchiveError.self) { try writer.addTile([1], at: tiles[0]) }
            try writer.finish()
            #expect(listTree(dir) == ["t.mbtiles"])

            let db = try SQLiteDatabase(readOnlyPath: path)
            var rows: [String: String] = [:]
            for row in try db.query("SELECT name, value FROM metadata") { rows[row[0].text!] = row[1].text! }
            #expect(rows["name"] == "Test" && rows["format"] == "pbf")
            #expect(rows["minzoom"] == "9" && rows["maxzoom"] == "11")
            #expect(rows["bounds"] == "-88.25,41.7,-88.05,41.85")
            #expect(rows["center"] == "-88.15,41.775,10")
            let json = try JSONParser.parse(try #require(rows["json"])).objectValue
            #expect(TileArchiveMetadata.layers(fromVectorLayers: json?["vector_layers"]).map(\.id) == ["parcels", "roads", "poi"])
            #expect(try db.scalar("SELECT count(*) FROM tiles")?.int64 == Int64(tiles.count))
            for c in tiles {
                let row = (1 << c.z) - 1 - c.y
                let stored = try db.scalar(
                    "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                    [.integer(Int64(c.z)), .integer(Int64(c.x)), .integer(Int64(row))])
                #expect(stored == .blob(TestTiles.gzipped(c)))
            }
        }
    }

    @Test func mbtilesStoresIdenticalTilesOnce() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/t.mbtiles"
            let writer = try MBTilesWriter(path: path, metadata: PMTilesTests.metadata())
            let sea = TestTiles.gzipped(TileCoordinate(z: 0, x: 0, y: 0))
            let tiles = TestTiles.coordinates(minZoom: 9, maxZoom: 10)
            for (i, c) in tiles.enumerated() { try writer.addTile(i % 2 == 0 ? sea : TestTiles.gzipped(c), at: c) }
            try writer.finish()
            let db = try SQLiteDatabase(readOnlyPath: path)
            #expect(try db.scalar("SELECT count(*) FROM tiles")?.int64 == Int64(tiles.count))
            #expect(try db.scalar("SELECT count(*) FROM images")?.int64 == Int64(tiles.count / 2 + 1))
            for (i, c) in tiles.enumerated() {
                let stored = try db.scalar(
                    "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                    [.integer(Int64(c.z)), .integer(Int64(c.x)), .integer(Int64((1 << c.z) - 1 - c.y))])
                #expect(stored == .blob(i % 2 == 0 ? sea : TestTiles.gzipped(c)))
            }
        }
    }

    @Test func aTileFolderIsReplacedOnlyWhenAskedAndAbortingLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            let out = dir + "/tiles"
            let c = TileCoordinate(z: 9, x: 130, y: 190)
            let writer = try DirectoryTileWriter(path: out, metadata: PMTilesTests.metadata())
            try writer.addTile(TestTiles.gzipped(c), at: c)
            try writer.finish()
            #expect(listTree(out) == ["9", "9/130", "9/130/190.pbf", "metadata.json"])
            // The folder gets the mode a plain mkdir gives, not the temporary folder's 0700.
            try FileManager.default.createDirectory(atPath: dir + "/plain", withIntermediateDirectories: false)
            let modes = try [out, dir + "/plain"].map { try FileManager.default.attributesOfItem(atPath: $0)[.posixPermissions] as? Int }
            #expect(modes[0] == modes[1])
            try FileManager.default.removeItem(atPath: dir + "/plain")
            #expect(try readFile(out + "/9/130/190.pbf") == TestTiles.gzipped(c))
            let meta = try JSONParser.parse(try readFile(out + "/metadata.json")).objectValue
            #expect(meta?.string("format") == "pbf" && meta?.string("minzoom") == "9" && meta?.string("json") != nil)

            #expect(throws: TileArchiveError.self) { try DirectoryTileWriter(path: out, metadata: PMTilesTests.metadata()) }
            let again = try DirectoryTileWriter(path: out, metadata: PMTilesTests.metadata(), replacingExisting: true)
            let d = TileCoordinate(z: 10, x: 261, y: 380)
            try again.addTile(TestTiles.gzipped(d), at: d)
            try again.finish()
            #expect(listTree(out) == ["10", "10/261", "10/261/380.pbf", "metadata.json"])

            let aborted = try DirectoryTileWriter(path: dir + "/other", metadata: PMTilesTests.metadata())
            try aborted.addTile(TestTiles.gzipped(c), at: c)
            aborted.abort()
            #expect(listTree(dir).filter { !$0.hasPrefix("tiles") }.isEmpty)
        }
    }

    /// The test tiles between two levels as a `.vtpk`, and its reader.
    func smallPackage(in dir: String) throws -> VectorTilePackageReader {
        try TestTiles.writePackage(at: dir + "/small.vtpk", minLOD: 8, maxLOD: 11)
        return try VectorTilePackageReader(path: dir + "/small.vtpk")
    }

    @Test func exportsAPackageToEveryFormatWithTheSameTiles() throws {
        try withTemporaryDirectory { dir in
            let reader = try smallPackage(in: dir)
            let coordinates = try reader.tileCoordinates()
            for format in TileExportFormat.allCases {
                let out = dir + "/out." + format.rawValue
                let summary = try TileExporter.export(reader, to: out, format: format)
                #expect(summary.tiles == coordinates.count)
                #expect(summary.zooms == 8...11)
                #expect(summary.layers == ["parcels", "roads", "poi"])
            }
            let pmtiles = try PMTilesReader(path: dir + "/out.pmtiles")
            #expect(try pmtiles.tileCoordinates() == coordinates)
            for c in coordinates {
                let tile = try reader.tile(at: c)
                #expect(try pmtiles.tile(at: c) == tile)
                #expect(try readFile(dir + "/out.dir/\(c.z)/\(c.x)/\(c.y).pbf") == tile)
            }
            // An existing file is replaced only through a new name: the writer never half-writes it.
            #expect(listTree(dir).allSatisfy { !$0.contains(".tmp-") && !$0.contains(".spool-") })
        }
    }

    /// Reads a PMTiles archive with the `pmtiles` Python package: header, metadata and the
    /// SHA-256 of every tile, both by traversal and by `get(z, x, y)`.
    static let pmtilesScript = """
        import hashlib, json, sys
        from pmtiles.reader import Reader, MmapSource, all_tiles
        with open(sys.argv[1], "rb") as f:
            r = Reader(MmapSource(f))
            h = r.header()
            tiles = {"%d/%d/%d" % zxy: hashlib.sha256(data).hexdigest() for zxy, data in all_tiles(r.get_bytes)}
            got = {key: hashlib.sha256(r.get(*map(int, key.split("/")))).hexdigest() for key in tiles}
            header = {k: (v.value if hasattr(v, "value") else v) for k, v in h.items()}
            print(json.dumps({"header": header, "metadata": r.metadata(), "tiles": tiles, "get": got}))
        """

    func checkWithPythonPMTiles(_ path: String, against reader: any ReadableTileArchive) throws {
        let output = try ExternalTools.runPython(Self.pmtilesScript, [path])
        let last = String(output.split(separator: "\n").last ?? "")
        let result = try #require(try JSONParser.parse(last).objectValue)
        let header = try #require(result.object("header"))
        let coordinates = try reader.tileCoordinates()
        #expect(header.int("version") == 3)
        #expect(header.int("min_zoom") == coordinates.map(\.z).min() && header.int("max_zoom") == coordinates.map(\.z).max())
        #expect(header.int("tile_type") == 1 && header.int("tile_compression") == 2)
        if let bounds = reader.metadata.bounds {
            #expect(abs(Double(header.int("min_lon_e7")!) / 1e7 - bounds.minX) < 1e-6)
            #expect(abs(Double(header.int("max_lat_e7")!) / 1e7 - bounds.maxY) < 1e-6)
        }
        let tiles = try #require(result.object("tiles"))
        let got = try #require(result.object("get"))
        #expect(tiles.count == coordinates.count)
        for c in coordinates {
            let expected = SHA256Digest.hex(of: try #require(try reader.tile(at: c)))
            #expect(tiles.string("\(c.z)/\(c.x)/\(c.y)") == expected)
            #expect(got.string("\(c.z)/\(c.x)/\(c.y)") == expected)
        }
        let layers = TileArchiveMetadata.layers(fromVectorLayers: result.object("metadata")?["vector_layers"])
        #expect(layers.map(\.id) == reader.metadata.layers.map(\.id))
    }

    @Test(ExternalTools.pythonTilePeersRequired) func pythonPMTilesReadsTheExport() throws {
        try withTemporaryDirectory { dir in
            let reader = try smallPackage(in: dir)
            _ = try TileExporter.export(reader, to: dir + "/out.pmtiles", format: .pmtiles)
            try checkWithPythonPMTiles(dir + "/out.pmtiles", against: reader)
        }
    }

    @Test(ExternalTools.ogrinfoRequired) func gdalReadsEveryLayerOfTheFolderAndMBTilesExports() throws {
        try withTemporaryDirectory { dir in
            let reader = try smallPackage(in: dir)
            _ = try TileExporter.export(reader, to: dir + "/out", format: .directory)
            _ = try TileExporter.export(reader, to: dir + "/out.mbtiles", format: .mbtiles)
            for c in try reader.tileCoordinates() {
                let layers = try ExternalTools.ogrLayers(dir + "/out/\(c.z)/\(c.x)/\(c.y).pbf")
                #expect(layers == ["parcels": 1, "roads": 1, "poi": 1], "tile \(c)")
                #expect(layers == (try Self.featureCounts(try #require(try reader.tile(at: c)), source: "\(c)")))
            }
            // Each zoom level's folder as a whole (GDAL 3.6 opens a folder of tiles by its zoom
            // level, reading ../metadata.json), and the MBTiles file at its deepest zoom.
            for z in 8...11 {
                let level = try ExternalTools.ogrLayers(dir + "/out/\(z)")
                #expect(Set(level.keys) == ["parcels", "roads", "poi"], "zoom \(z)")
            }
            let mbtiles = try ExternalTools.ogrLayers(dir + "/out.mbtiles")
            #expect(Set(mbtiles.keys) == ["parcels", "roads", "poi"])
            #expect(mbtiles.values.allSatisfy { $0 > 0 }, "\(mbtiles)")
        }
    }

    /// Feature counts per layer of a tile, by our decoder, keeping every well-formed feature as
    /// GDAL and mapbox-vector-tile do. (With geometry checks on, the default, the decoder skips
    /// basemap.de background polygons that have a zero-area ring; the peers keep them.)
    static func featureCounts(_ tile: [UInt8], source: String) throws -> [String: Int] {
        let decoded = try VectorTileDecoder(checksGeometry: false).decode(tile, source: source)
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
        return decoded.tile.layers.reduce(into: [:]) { $0[$1.name, default: 0] += $1.features.count }
    }

    /// Feature counts per layer of a gzip-compressed tile, by `mapbox-vector-tile`.
    static let decodeScript = """
        import gzip, json, sys, mapbox_vector_tile
        out = {}
        for path in sys.argv[1:]:
            data = open(path, "rb").read()
            if data[:2] == b"\\x1f\\x8b":
                data = gzip.decompress(data)
            out[path] = {name: len(layer["features"]) for name, layer in mapbox_vector_tile.decode(data).items()}
        print(json.dumps(out))
        """

    @Test(Fixtures.required, ExternalTools.ogrinfoRequired, ExternalTools.pythonTilePeersRequired)
    func exportsTheRealBasemapPackageForEveryPeer() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            let reader = try VectorTilePackageReader(path: dir + "/basemap.vtpk")
            let coordinates = try reader.tileCoordinates()
            _ = try TileExporter.export(reader, to: dir + "/out", format: .directory)
            _ = try TileExporter.export(reader, to: dir + "/out.mbtiles", format: .mbtiles)
            _ = try TileExporter.export(reader, to: dir + "/out.pmtiles", format: .pmtiles)
            try checkWithPythonPMTiles(dir + "/out.pmtiles", against: reader)

            // GDAL, mapbox-vector-tile and our decoder count the same features in every layer
            // of every tile (Esri's tiles use extent 32768).
            let files = coordinates.map { dir + "/out/\($0.z)/\($0.x)/\($0.y).pbf" }
            let output = try ExternalTools.runPython(Self.decodeScript, files)
            let decoded = try #require(try JSONParser.parse(String(output.split(separator: "\n").last ?? "")).objectValue)
            let known = Set(reader.metadata.layers.map(\.id))
            for file in files {
                let gdal = try ExternalTools.ogrLayers(file)
                let python = (decoded.object(file) ?? JSONObject()).reduce(into: [String: Int]()) { $0[$1.key] = $1.value.intValue }
                #expect(!gdal.isEmpty && gdal == python, "\(file)")
                #expect(gdal == (try Self.featureCounts(try readFile(file), source: file)), "\(file)")
                #expect(Set(gdal.keys).isSubset(of: known))
            }
            let mbtiles = try ExternalTools.ogrLayers(dir + "/out.mbtiles")
            #expect(!mbtiles.isEmpty && Set(mbtiles.keys).isSubset(of: known))
        }
    }
}
