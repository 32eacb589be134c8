import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing

@testable import MapbookTiles
import MapbookInspection

/// The `.vtpk` writer and reader: layout, determinism, atomicity, and what the package
/// inspector and validator make of the result.
@Suite struct VectorTilePackageTests {
    @Test func writesEveryEntryStoredInEsrisLayout() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/Backdrop.vtpk"
            let (writer, tiles) = try TestTiles.writePackage(at: path, thumbnail: TestPackages.png)
            let archive = try ZipArchive(path: path)
            #expect(archive.entries.allSatisfy { $0.method == .stored })
            let names = archive.entries.map(\.name)
            #expect(Array(names.prefix(8)) == [
                "esriinfo/iteminfo.xml", "esriinfo/item.pkinfo", "esriinfo/thumbnail/thumbnail.png", "p12/root.json",
                "p12/metadata.json", "p12/resources/info/root.json", "p12/resources/styles/root.json", "p12/tilemap/root.json",
            ])
            let bundles = names.dropFirst(8)
            func hex(_ v: Int) -> String { let s = String(v / 128 * 128, radix: 16); return String(repeating: "0", count: 4 - s.count) + s }
            let expected = Set(tiles.map { "p12/tile/L\($0.z < 10 ? "0" : "")\($0.z)/R\(hex($0.y))C\(hex($0.x)).bundle" })
            #expect(Set(bundles) == expected)
            #expect(bundles.contains("p12/tile/L12/R0580C0400.bundle"))  // rows 1522-1525, columns 1043-1046
            #expect(writer.summary?.tiles == tiles.count)
            #expect(writer.summary?.bundles == bundles.count)
            #expect(writer.summary?.fileSize == Int64(try readFile(path).count))

            let item = try ItemInfo.parse(try archive.read(archive.entry(named: "esriinfo/iteminfo.xml")!), path: "iteminfo.xml")
            #expect(item.type == "Vector Tile Package")
            #expect(item.title == "Test Backdrop")
            #expect(item.thumbnail == "thumbnail/thumbnail.png")
            let extent = try #require(item.extent)
            #expect(abs(extent.minX + 88.25) < 1e-6 && abs(extent.maxY - 41.85) < 1e-6)
            let pkinfo = try PackageInfo.parse(try archive.read(archive.entry(named: "esriinfo/item.pkinfo")!), path: "item.pkinfo")
            #expect(pkinfo.type == "Vector Tile Package")
            #expect(pkinfo.id == item.guid)

            let style = try JSONParser.parse(try archive.read(archive.entry(named: "p12/resources/styles/root.json")!)).objectValue
            #expect(style?.object("sources")?.object("esri")?.string("url") == "../../")
            #expect(style?.object("sources")?.object("esri")?.string("type") == "vector")
        }
    }

    @Test func rootJSONHasTheShapeOfARealPackage() throws {
        try withTemporaryDirectory { dir in
            try TestTiles.writePackage(at: dir + "/b.vtpk", minLOD: 8, maxLOD: 12)
            let package = try TilePackage(archive: try ZipArchive(path: dir + "/b.vtpk"))
            let root = package.root
            #expect(package.kind == .vectorTilePackage)
            #expect(root.string("type") == "indexedVector")
            #expect(root.strings("tiles") == ["tile/{z}/{y}/{x}.pbf"])
            #expect(root.string("capabilities") == "TilesOnly")
            #expect(root.string("tileMap") == "tilemap")
            #expect(root.int("minLOD") == 8 && root.int("maxLOD") == 12)
            #expect(root.int("maxzoom") == 12)  // the TileJSON meaning: the last level with tiles
            let info = try #require(root.object("tileInfo"))
            #expect(info.int("rows") == 512 && info.int("cols") == 512 && info.int("dpi") == 96)
            #expect(info.object("origin")?.double("x") == -20037508.342787 && info.object("origin")?.double("y") == 20037508.342787)
            let lods = (info.array("lods") ?? []).compactMap(\.objectValue)
            #expect(lods.count == 17)  // 0 to maxLOD + 4 overzoom levels
            for lod in lods {
                let level = lod.int("level")!
                #expect(abs(lod.double("resolution")! - 78271.516964 / Double(1 << level)) < 1e-9)
                #expect(abs(lod.double("scale")! - 295828763.7957775 / Double(1 << level)) < 1e-3)
            }
            let storage = root.object("resourceInfo")?.object("cacheInfo")?.object("storageInfo")
            #expect(storage?.int("packetSize") == 128 && storage?.string("storageFormat") == "compactV2")
            #expect(root.object("resourceInfo")?.string("tileCompression") == "gzip")
            #expect(root.object("resourceInfo")?.int("styleVersion") == 8)
            #expect(root.object("fullExtent")?.object("spatialReference")?.int("wkid") == 102100)
        }
    }

    @Test(Fixtures.required) func writesEveryKeyOfEsrisSampleRoot() throws {
        try withTemporaryDirectory { dir in
            try TestTiles.writePackage(at: dir + "/b.vtpk")
            let ours = try TilePackage(archive: try ZipArchive(path: dir + "/b.vtpk")).root
            let theirs = try JSONParser.parse(try readFile(Fixtures.path("vtpk-basemapde/sample_cache/p12/root.json"))).objectValue!
            #expect(Set(theirs.keys).subtracting(ours.keys).isEmpty)
            #expect(Set(theirs.object("tileInfo")!.keys).subtracting(ours.object("tileInfo")!.keys).isEmpty)
        }
    }

    @Test func readsBackEveryTileAndTheMetadata() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/b.vtpk"
            let (_, tiles) = try TestTiles.writePackage(at: path, minLOD: 6, maxLOD: 13, shuffledWith: 7)
            let reader = try VectorTilePackageReader(path: path)
            #expect(try reader.tileCoordinates() == tiles)
            for c in tiles {
                #expect(try reader.tile(at: c) == TestTiles.gzipped(c))
            }
            #expect(try reader.tile(at: TileCoordinate(z: 13, x: 0, y: 0)) == nil)
            #expect(try reader.tile(at: TileCoordinate(z: 3, x: 2, y: 2)) == nil)
            let meta = reader.metadata
            #expect(meta.name == "Test Backdrop")
            #expect(meta.minZoom == 6 && meta.maxZoom == 13)
            #expect(meta.tileCompression == .gzip)
            #expect(meta.layers == TestTiles.layers)
            let bounds = try #require(meta.bounds)
            #expect(abs(bounds.minX + 88.25) < 1e-6 && abs(bounds.minY - 41.70) < 1e-6)
        }
    }

    @Test func identicalTilesAreStoredOnceAndReadBackInEverySlot() throws {
        try withTemporaryDirectory { dir in
            // A z6 block of 64 tiles where every other tile is the same all-sea tile.
            let sea = TestTiles.gzipped(TileCoordinate(z: 0, x: 0, y: 0))
            var expected: [TileCoordinate: [UInt8]] = [:]
            for x in 0..<8 {
                for y in 0..<8 {
                    let c = TileCoordinate(z: 6, x: 10 + x, y: 20 + y)
                    expected[c] = (x + y) % 2 == 0 ? sea : TestTiles.gzipped(c)
                }
            }
            func write(_ path: String, _ tiles: [TileCoordinate: [UInt8]]) throws {
                let writer = try VectorTilePackageWriter(path: path, description: TestTiles.description(minLOD: 6, maxLOD: 6))
                for (c, bytes) in tiles { try writer.addTile(bytes, at: c) }
                try writer.finish()
            }
            try write(dir + "/shared.vtpk", expected)
            let reader = try VectorTilePackageReader(path: dir + "/shared.vtpk")
            for (c, bytes) in expected { #expect(try reader.tile(at: c) == bytes) }
            let bundle = try #require(try ZipArchive(path: dir + "/shared.vtpk").entries.first { $0.name.hasSuffix(".bundle") })
            // 32 sea tiles share one copy: the bundle holds 33 tiles' bytes, not 64.
            let unique = Set(expected.values).reduce(Int64(0)) { $0 + 4 + Int64($1.count) }
            #expect(bundle.uncompressedSize == Int64(CompactCacheBundle.fixedSize) + unique)
            #expect(PackageValidator.validate(path: dir + "/shared.vtpk").passes(strict: true))
        }
    }

    @Test func levelsAboveTheFirstTileAreNotPromisedToClients() throws {
        try withTemporaryDirectory { dir in
            // Small polygons that first make tiles at level 2, in a package for levels 0 to 4.
            let writer = try VectorTilePackageWriter(path: dir + "/city.vtpk", description: TestTiles.description(minLOD: 0, maxLOD: 4))
            for c in [TileCoordinate(z: 2, x: 1, y: 1), TileCoordinate(z: 3, x: 2, y: 3), TileCoordinate(z: 4, x: 5, y: 6)] {
                try writer.addTile(TestTiles.gzipped(c), at: c)
            }
            try writer.finish()
            let report = PackageValidator.validate(path: dir + "/city.vtpk")
            #expect(report.passes(strict: true), "\(report.diagnostics)")
            let reader = try VectorTilePackageReader(path: dir + "/city.vtpk")
            #expect(reader.metadata.minZoom == 2)
        }
    }

    @Test func theSameTilesInAnyOrderGiveTheSameBytes() throws {
        try withTemporaryDirectory { dir in
            try TestTiles.writePackage(at: dir + "/a.vtpk", shuffledWith: nil)
            try TestTiles.writePackage(at: dir + "/b.vtpk", shuffledWith: 42)
            #expect(try readFile(dir + "/a.vtpk") == readFile(dir + "/b.vtpk"))
        }
    }

    @Test func tileMapListsExactlyTheTilesInTheBundles() throws {
        try withTemporaryDirectory { dir in
            let (_, tiles) = try TestTiles.writePackage(at: dir + "/b.vtpk", minLOD: 9, maxLOD: 12)
            let package = try TilePackage(archive: try ZipArchive(path: dir + "/b.vtpk"))
            let map = try #require(try package.tileMap())
            let listed = Set(map.leaves + map.branches.filter { $0.level >= 9 })
            #expect(listed == Set(tiles.map { TileCoordinate(level: $0.z, row: $0.y, column: $0.x) }))
            #expect(Set(try package.bundledTiles()) == listed)
            // Levels above minLOD only lead down to the tiles.
            #expect(map.branches.contains(TileCoordinate(level: 0, row: 0, column: 0)))
            #expect(map.leaves.allSatisfy { $0.level == 12 })
            #expect(package.consistencyFindings().isEmpty, "\(package.consistencyFindings())")
        }
    }

    @Test func tilesAcrossBundleBoundariesLandInTheirBundles() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/edge.vtpk"
            let writer = try VectorTilePackageWriter(path: path, description: TestTiles.description(minLOD: 8, maxLOD: 8))
            let tiles = [(127, 127), (128, 127), (127, 128), (128, 128), (255, 0), (0, 255)].map { TileCoordinate(z: 8, x: $0.0, y: $0.1) }
            for c in tiles { try writer.addTile(TestTiles.mvt(c), at: c) }  // uncompressed: the writer gzips them
            try writer.finish()
            let package = try TilePackage(archive: try ZipArchive(path: path))
            #expect(package.bundles.map(\.entry.name) == [
                "p12/tile/L08/R0000C0000.bundle", "p12/tile/L08/R0000C0080.bundle",
                "p12/tile/L08/R0080C0000.bundle", "p12/tile/L08/R0080C0080.bundle",
            ])
            let reader = try VectorTilePackageReader(package: package)
            for c in tiles { #expect(try reader.tile(at: c) == TestTiles.gzipped(c)) }
            #expect(package.consistencyFindings().isEmpty)
        }
    }

    @Test func anAbortedOrFailedPackageLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/b.vtpk"
            let writer = try VectorTilePackageWriter(path: path, description: TestTiles.description(minLOD: 8, maxLOD: 10))
            let c = TileCoordinate(z: 9, x: 131, y: 190)
            try writer.addTile(TestTiles.gzipped(c), at: c)
            #expect(throws: TileArchiveError.self) { try writer.addTile(TestTiles.gzipped(c), at: c) }
            #expect(throws: TileArchiveError.self) { try writer.addTile(TestTiles.gzipped(c), at: TileCoordinate(z: 11, x: 0, y: 0)) }
            writer.abort()
            #expect(throws: TileArchiveError.self) { try writer.finish() }
            #expect(listTree(dir).isEmpty)

            // A writer dropped without finishing leaves nothing either.
            do {
                let dropped = try VectorTilePackageWriter(path: path, description: TestTiles.description(minLOD: 8, maxLOD: 10))
                try dropped.addTile(TestTiles.gzipped(c), at: c)
            }
            #expect(listTree(dir).isEmpty)
        }
    }

    @Test(arguments: ["levels", "extent", "glyphs", "source", "labels"])
    func refusesADescriptionThatCannotMakeAValidPackage(defect: String) throws {
        try withTemporaryDirectory { dir in
            var d = TestTiles.description(minLOD: 8, maxLOD: 10)
            switch defect {
            case "levels": (d.minLOD, d.maxLOD) = (12, 10)
            case "extent": d.fullExtent = BoundingBox(minX: 0, minY: 0, maxX: 0, maxY: 0)
            case "glyphs": d.style["glyphs"] = "../fonts/{fontstack}/{range}.pbf"
            case "source": d.style["layers"] = [["id": "x", "type": "fill", "source": "osm", "source-layer": "parcels"]]
            default: d.style["layers"] = [["id": "x", "type": "symbol", "source": "esri", "source-layer": "poi", "layout": ["text-field": "{name}"]]]
            }
            let error = #expect(throws: TileArchiveError.self) { try VectorTilePackageWriter(path: dir + "/x.vtpk", description: d) }
            #expect(error?.kind == .invalidDescription)
            #expect(error?.description.contains(dir + "/x.vtpk") == true)
            #expect(listTree(dir).isEmpty)
        }
    }

    @Test func inspectAndValidateAcceptTheStandalonePackage() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/b.vtpk"
            let (_, tiles) = try TestTiles.writePackage(at: path, minLOD: 8, maxLOD: 12, thumbnail: TestPackages.png)
            let report = PackageValidator.validate(path: path)
            #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
            #expect(report.passes(strict: true))
            let inspection = try PackageInspector.inspect(path: path)
            let summary = try #require(inspection.tilePackages.first)
            #expect(summary.levels.map(\.level) == Array(8...12))
            #expect(summary.levels.reduce(0) { $0 + $1.tiles } == tiles.count)
        }
    }

    @Test func validateAcceptsThePackageInsideAMobileMapPackage() throws {
        try withTemporaryDirectory { dir in
            try TestTiles.writePackage(at: dir + "/Backdrop.vtpk")
            try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
            var contents = TestPackages.contents(geoPackage: dir + "/data.gpkg")
            contents.files.append(.init(path: "Backdrop.vtpk", source: .file(path: dir + "/Backdrop.vtpk")))
            _ = try PackageWriter.write(contents, to: dir + "/Sample.mmpk")
            let report = PackageValidator.validate(path: dir + "/Sample.mmpk")
            #expect(!report.diagnostics.contains { $0.code.hasPrefix("tiles.") }, "\(report.diagnostics)")
            #expect(report.passes(strict: false))

            // The reader opens the nested package in place, by name or as the only one.
            let nested = try VectorTilePackageReader(path: dir + "/Sample.mmpk")
            #expect(nested.path == dir + "/Sample.mmpk[p20/Backdrop.vtpk]")
            let named = try VectorTilePackageReader(path: dir + "/Sample.mmpk", entry: "Backdrop")
            let c = try #require(try named.tileCoordinates().first)
            #expect(try nested.tile(at: c) == TestTiles.gzipped(c))
            #expect(throws: TileArchiveError.self) { try VectorTilePackageReader(path: dir + "/Sample.mmpk", entry: "Other") }
        }
    }

    /// Rewrites `path` with some entries replaced, as a defective package for `validate`.
    func rewrite(_ path: String, to output: String, replacing: [String: [UInt8]], adding: [(String, [UInt8])] = []) throws {
        var entries = try TestPackages.rawEntries(of: path)
        for i in entries.indices { if let data = replacing[entries[i].name] { entries[i] = RawZip.Entry(name: entries[i].name, data: data) } }
        entries += adding.map { RawZip.Entry(name: $0.0, data: $0.1) }
        try writeFile(output, RawZip(entries).bytes())
    }

    /// Polygons collapsed to a line at low zooms (as Esri's basemap.de has) are a note for
    /// validate and are skipped without a word when drawing; an undecodable tile stays an error.
    @Test func polygonsWithNoAreaAreANoteNotAnError() throws {
        try withTemporaryDirectory { dir in
            let c = TileCoordinate(z: 2, x: 2, y: 1)
            var tile = TestTiles.mvt(c)
            // A "triangle" whose three points lie on one line.
            tile += TestTiles.field(3, TestTiles.layer("water", key: "kind", value: "lake", type: 3, geometry: [9, 0, 0, 18, 4, 4, 4, 4, 15]))
            let writer = try VectorTilePackageWriter(path: dir + "/de.vtpk", description: TestTiles.description(minLOD: 2, maxLOD: 2))
            try writer.addTile(tile, at: c)
            try writer.finish()
            let report = PackageValidator.validate(path: dir + "/de.vtpk")
            #expect(report.passes(strict: true), "\(report.diagnostics)")
            #expect(report.diagnostics.contains { $0.code == "tiles.degenerate" && $0.severity == .note && $0.message.hasPrefix("1 polygon in 1 tile") }, "\(report.diagnostics)")
        }
    }

    @Test func validateFindsATileMapThatDisagreesWithTheBundles() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/b.vtpk"
            let (_, tiles) = try TestTiles.writePackage(at: path, minLOD: 10, maxLOD: 12)
            // The tile map without the first level-12 tile, and with a level-12 tile no bundle holds.
            var listed = Set(tiles.map { TileCoordinate(level: $0.z, row: $0.y, column: $0.x) })
            let dropped = listed.filter { $0.level == 12 }.min()!
            listed.remove(dropped)
            listed.insert(TileCoordinate(level: 12, row: 0, column: 0))
            try rewrite(path, to: dir + "/bad.vtpk", replacing: ["p12/tilemap/root.json": JSONWriter.bytes(TileMap.document(tiles: listed))])
            let report = PackageValidator.validate(path: dir + "/bad.vtpk")
            let findings = report.diagnostics.filter { $0.code == "tiles.tilemap" }
            #expect(findings.count == 2, "\(report.diagnostics)")
            #expect(findings.contains { $0.message.contains("no bundle holds") && $0.message.contains("12/0/0") })
            #expect(findings.contains { $0.message.contains("does not list 1 tile") && $0.message.contains("12/\(dropped.row)/\(dropped.column)") })
            #expect(!report.passes(strict: false))
        }
    }

    @Test func aBundleIndexPointingOutsideItsBundleGivesErrorsNotCrashes() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/b.vtpk"
            let (_, tiles) = try TestTiles.writePackage(at: path, minLOD: 8, maxLOD: 8)
            let c = try #require(tiles.first)
            let name = "p12/tile/L08/R0000C0000.bundle"
            let archive = try ZipArchive(path: path)
            var bundle = try archive.read(archive.entry(named: name)!)
            // The tile's record now claims 1 MiB at the last offset 40 bits can hold.
            let at = 64 + 8 * ((c.y % 128) * 128 + c.x % 128)
            let forged = UInt64(1 << 20) << 40 | 0xFF_FFFF_FFFF
            for i in 0..<8 { bundle[at + i] = UInt8(truncatingIfNeeded: forged >> (8 * UInt64(i))) }
            try rewrite(path, to: dir + "/bad.vtpk", replacing: [name: bundle])
            let reader = try VectorTilePackageReader(path: dir + "/bad.vtpk")
            let error = #expect(throws: TileArchiveError.self) { try reader.tile(at: c) }
            #expect(error?.kind == .damaged)
            #expect(error?.description.contains(name) == true)
            let report = PackageValidator.validate(path: dir + "/bad.vtpk")
            #expect(report.diagnostics.contains { $0.code == "tiles.bundle-index" && $0.message.contains("runs past the end") }, "\(report.diagnostics)")
        }
    }

    /// validate decodes every tile of a backdrop: one finding per tile that breaks MVT 2.1,
    /// naming the tile, layer and feature; the sound tiles pass.
    @Test func validateReportsEachTileThatBreaksTheSpecification() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/spec.vtpk"
            let writer = try VectorTilePackageWriter(path: path, description: TestTiles.description(minLOD: 8, maxLOD: 8))
            let good = VectorTile.Feature(id: 1, type: .lineString, geometry: [9, 50, 34, 10, 40, 0])
            let closePathFirst = VectorTile.Feature(id: 2, type: .polygon, geometry: [15, 9, 0, 0])
            let bad = [TileCoordinate(z: 8, x: 10, y: 20), TileCoordinate(z: 8, x: 11, y: 20)]
            for c in bad + [TileCoordinate(z: 8, x: 12, y: 20)] {
                let features = bad.contains(c) ? [good, closePathFirst, closePathFirst] : [good]
                try writer.addTile(Gzip.compress(VectorTile(layers: [VectorTile.Layer(name: "roads", features: features)]).encoded()), at: c)
            }
            try writer.finish()
            let findings = PackageValidator.validate(path: path).diagnostics.filter { $0.code == "tiles.mvt" }
            #expect(findings.count == 2, "\(findings)")
            for (finding, c) in zip(findings.sorted { $0.message < $1.message }, bad) {
                #expect(finding.severity == .error)
                #expect(finding.message.hasPrefix("tile \(c): layer 'roads' feature 1 (id 2): ") && finding.message.hasSuffix("(and 1 more)"), "\(finding.message)")
            }
        }
    }

    @Test func validateFindsLevelsOutsideTheDeclaredRange() throws {
        try withTemporaryDirectory { dir in
            let path = dir + "/b.vtpk"
            try TestTiles.writePackage(at: path, minLOD: 10, maxLOD: 12)
            let archive = try ZipArchive(path: path)
            var root = try JSONParser.parse(try archive.read(archive.entry(named: "p12/root.json")!)).objectValue!
            root["maxLOD"] = 11
            var info = root.object("tileInfo")!
            var lods = info.array("lods")!
            lods.remove(at: 5)  // level 5 missing: levels no longer rise by one
            info["lods"] = .array(lods)
            root["tileInfo"] = .object(info)
            try rewrite(path, to: dir + "/bad.vtpk", replacing: ["p12/root.json": JSONWriter.bytes(.object(root))])
            let report = PackageValidator.validate(path: dir + "/bad.vtpk")
            #expect(report.diagnostics.contains { $0.code == "tiles.lods" && $0.message.contains("from level 4 to 6") }, "\(report.diagnostics)")
            #expect(report.diagnostics.contains { $0.code == "tiles.lod-range" && $0.message.contains("L12") })
        }
    }

    @Test(Fixtures.required) func readsEveryTileOfTheRealBasemapPackage() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            let reader = try VectorTilePackageReader(path: dir + "/basemap.vtpk")
            let coordinates = try reader.tileCoordinates()
            #expect(coordinates == [(0, 0, 0), (1, 1, 0), (2, 2, 1), (3, 4, 2), (4, 8, 5)].map { TileCoordinate(z: $0.0, x: $0.1, y: $0.2) })
            for c in coordinates {
                let source = try readFile(Fixtures.path("vtpk-basemapde/sample_pbf/\(c.z)/\(c.x)/\(c.y).pbf"))
                #expect(try reader.tile(at: c) == source)
            }
            let meta = reader.metadata
            #expect(meta.name == "Map")
            #expect(meta.minZoom == 0 && meta.maxZoom == 4)
            #expect(meta.tileCompression == .gzip)
            #expect(meta.layers.count == 34)
            #expect(meta.layers.contains { $0.id == "Verkehrslinie" && $0.fields.contains { $0.name == "name" } && $0.minZoom == 5 })
            let bounds = try #require(meta.bounds)
            #expect(bounds.minX > 4 && bounds.maxX < 18 && bounds.minY > 46 && bounds.maxY < 56)  // Germany, roughly

            // Esri's sample has no tile map; validate finds its bundles sound.
            let report = PackageValidator.validate(path: dir + "/basemap.vtpk")
            #expect(!report.diagnostics.contains { $0.severity == .error }, "\(report.diagnostics)")
        }
    }
}
