import Foundation
import MapbookPackage
import MapbookSupport
import MapbookTestSupport
import Testing
import MapbookInspection

@Suite struct InspectorTests {
    @Test(Fixtures.required)
    func readsARealMobileGeodatabaseThroughPlainSQLite() throws {
        let report = try PackageInspector.inspect(path: Fixtures.path("esri-runtime-data/usa.geodatabase"))
        #expect(report.kind == "Mobile Geodatabase")
        let tables = try #require(report.dataFiles.first).tables
        let states = try #require(tables.first { $0.name == "USStates" })
        #expect(states.rowCount == 49)
        #expect(states.itemId == 2)
        #expect(states.geometryType == "esriGeometryPolygon")
        #expect(tables.first { $0.name == "USMajorCities" }?.rowCount == 118)
        #expect(tables.first { $0.name == "USMajorHighways" }?.rowCount == 228)
        // Read in place and immutable: no -wal or -shm file appears beside the fixture.
        #expect(!FileManager.default.fileExists(atPath: Fixtures.path("esri-runtime-data/usa.geodatabase-wal")))
    }

    @Test(Fixtures.required)
    func readsARealCompactCacheBundle() throws {
        let report = try PackageInspector.inspect(path: Fixtures.path("esri-compactcache/L01_R0000C0000.bundle"))
        let level = try #require(report.tilePackages.first?.levels.first)
        #expect(level.level == 1)
        #expect(level.tiles == 4)  // a 2 x 2 tile level
        #expect(report.notes.isEmpty)
        let folder = try PackageInspector.inspect(path: Fixtures.path("esri-compactcache"))
        #expect(folder.tilePackages.first?.format == "JPEG")
        #expect(folder.tilePackages.first?.tileSize == 256)
    }

    @Test(Fixtures.required)
    func readsARealVectorTilePackageZippedStored() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            let report = try PackageInspector.inspect(path: dir + "/basemap.vtpk")
            #expect(report.kind == "Vector Tile Package")
            #expect(report.item?.guid == "B7035C69-DC2D-4BA0-B5A4-3656B8C3AA66")
            let tiles = try #require(report.tilePackages.first)
            #expect(tiles.levels.map(\.level) == [0, 1, 2, 3, 4])
            #expect(tiles.levels.allSatisfy { $0.tiles == 1 })
            #expect(tiles.levelsOfDetail == 20)
            #expect(tiles.tileSize == 512)
            // Each bundle's tile is the gzip-compressed source tile of the same z/x/y.
            let archive = try ZipArchive(path: dir + "/basemap.vtpk")
            let package = try TilePackage(archive: archive)
            for bundle in package.bundles {
                let index = try package.index(of: bundle)
                let z = bundle.level, size = 1 << z
                for row in 0..<min(size, 128) {
                    for column in 0..<min(size, 128) {
                        guard let tile = index.tile(row: row, column: column) else { continue }
                        let range = try archive.dataRange(of: bundle.entry)
                        let bytes = try range.read(at: tile.offset, count: tile.size)
                        #expect(bytes.starts(with: [0x1F, 0x8B]), "L\(z) \(row)/\(column) is not gzip")
                        let source = Fixtures.path("vtpk-basemapde/sample_pbf/\(z)/\(column)/\(row).pbf")
                        #expect(FileManager.default.fileExists(atPath: source), "no source tile for z\(z) x\(column) y\(row)")
                    }
                }
            }
        }
    }

    @Test(Fixtures.required)
    func readsACompactTilePackageLaidOutAsTheTpkxSpecSays() throws {
        try withTemporaryDirectory { dir in
            // github.com/Esri/tile-package-spec: root.json, iteminfo.json and tile/Lnn/ at the top.
            let root = #"{"name": "Raster", "tileBundlesPath": "./tile", "tileImageInfo": {"format": "JPEG"}, "tileInfo": {"rows": 256, "cols": 256, "lods": [{"level": 0}, {"level": 1}]}, "storageInfo": {"storageFormat": "esriMapCacheStorageModeCompactV2", "packetSize": 128}}"#
            let item = #"{"name": "Raster", "title": "Raster tiles", "type": "Compact Tile Package", "tags": "a, b", "thumbnail": "./thumbnail.png", "extent": {"xmin": -10, "ymin": -10, "xmax": 10, "ymax": 10}}"#
            try RawZip([
                .init(name: "iteminfo.json", text: item),
                .init(name: "root.json", text: root),
                .init(name: "thumbnail.png", data: TestPackages.png),
                .init(name: "tile/L01/R0000C0000.bundle", data: try readFile(Fixtures.path("esri-compactcache/L01_R0000C0000.bundle"))),
            ]).write(to: dir + "/raster.tpkx")
            let report = try PackageInspector.inspect(path: dir + "/raster.tpkx")
            #expect(report.kind == "Compact Tile Package")
            #expect(report.item?.title == "Raster tiles")
            #expect(report.item?.tags == ["a", "b"])
            #expect(report.item?.hasThumbnail == true)
            let tiles = try #require(report.tilePackages.first)
            #expect(tiles.format == "JPEG")
            #expect(tiles.levels.map(\.level) == [1])
            #expect(tiles.tiles == 4)
            #expect(report.notes.isEmpty)
        }
    }

    @Test(Fixtures.required)
    func readsARealEsriLocatorDescription() throws {
        let loc = LocatorDescription.esri(
            try readFile(Fixtures.path("esri-runtime-data/san-diego-locator.loc")), path: "san-diego-locator.loc",
            styleXML: try readFile(Fixtures.path("esri-runtime-data/san-diego-locator.loc.xml")))
        #expect(loc.name == "SanDiegoLocator")
        #expect(loc.description == "US Dual Range Addresses")
        #expect(loc.category == "Address")
        #expect(loc.style == "US Address")
    }

    @Test(Fixtures.required)
    func inspectsAnEsriStylePackageWithItsGeodatabaseInPlace() throws {
        try withTemporaryDirectory { dir in
            let map = #"{"map": {"operationalLayers": [{"id": "s", "title": "States", "layerType": "ArcGISFeatureLayer", "path": "file:./usa.geodatabase?itemId=2", "layerDefinition": {"drawingInfo": {"renderer": {"type": "classBreaks", "field": "POP2010", "classBreakInfos": [{"classMaxValue": 1000000}, {"classMaxValue": 40000000}]}}}}], "spatialReference": {"wkid": 102100}, "bookmarks": [{"name": "West", "extent": {"xmin": -1.39e7, "ymin": 3.5e6, "xmax": -1.22e7, "ymax": 6.2e6, "spatialReference": {"wkid": 102100}}}]}, "item": {"title": "USA"}}"#
            try RawZip([
                .init(name: "esriinfo/iteminfo.xml", text: "<ESRI_ItemInformation><title>USA</title><type>Mobile Map Package</type></ESRI_ItemInformation>"),
                .init(name: "p13/USA.mmap", text: map),
                .init(name: "p13/usa.geodatabase", data: try readFile(Fixtures.path("esri-runtime-data/usa.geodatabase"))),
                .init(name: "p13/loc/SanDiego.loc", data: try readFile(Fixtures.path("esri-runtime-data/san-diego-locator.loc"))),
                .init(name: "USA.info", text: #"{"name": "USA", "title": "USA Package", "maps": ["USA"], "created": 1392917671000}"#),
            ]).write(to: dir + "/usa.mmpk")
            let report = try PackageInspector.inspect(path: dir + "/usa.mmpk")
            #expect(report.notes.isEmpty, "\(report.notes)")
            #expect(report.item?.title == "USA Package")
            let layer = try #require(report.maps.first?.layers.first)
            #expect(layer.data == "usa.geodatabase › USStates")
            #expect(layer.rowCount == 49)
            #expect(layer.rendererType == "classBreaks")
            #expect(layer.rendererFields == ["POP2010"])
            #expect(layer.rendererClasses == 2)
            #expect(report.maps.first?.bookmarks.first?.name == "West")
            #expect(report.locators.first?.name == "SanDiegoLocator")
            #expect(report.locators.first?.description == "US Dual Range Addresses")
            #expect(report.dataFiles.first?.tables.count == 4)
        }
    }

    /// The item description comes from the manifest, and from `iteminfo.xml` only for what the
    /// manifest leaves out (reading the XML loads libxml2; issue 36).
    @Test func readsItemInfoOnlyForWhatTheManifestLeavesOut() throws {
        try withTemporaryDirectory { dir in
            let full = #"{"name": "N", "guid": "G", "version": "1.0", "created": 1, "modified": 2, "snippet": "S", "description": "D", "summary": "U", "title": "Full", "tags": ["t"], "type": "Mobile Map Package", "extent": [[0, 0], [1, 1]], "spatialreference": "WGS_1984", "accessinformation": "C", "licenseinfo": "L", "thumbnail": "data:image/png;base64,AA=="}"#
            let sparse = #"{"name": "N", "title": "Sparse"}"#
            let good = "<ESRI_ItemInformation><title>XML title</title><snippet>From the XML</snippet></ESRI_ItemInformation>"
            func make(_ name: String, manifest: String, itemInfo: String, thumbnail: Bool = false) throws -> InspectionReport {
                var entries: [RawZip.Entry] = [.init(name: "esriinfo/iteminfo.xml", text: itemInfo), .init(name: name + ".info", text: manifest)]
                if thumbnail { entries.append(.init(name: "esriinfo/thumbnail/thumbnail.png", data: TestPackages.png)) }
                try RawZip(entries).write(to: "\(dir)/\(name).mmpk")
                return try PackageInspector.inspect(path: "\(dir)/\(name).mmpk")
            }
            // A sparse manifest is filled in from the XML; the manifest still wins where it has a
            // value; the usual thumbnail counts though the XML names none.
            let filled = try make("filled", manifest: sparse, itemInfo: good, thumbnail: true)
            #expect(filled.item?.title == "Sparse" && filled.item?.snippet == "From the XML" && filled.notes.isEmpty)
            #expect(filled.item?.hasThumbnail == true)
            // A damaged XML is noted when it was needed, and not read when the manifest has it all.
            let needed = try make("needed", manifest: sparse, itemInfo: "<ESRI_ItemInformation><title>")
            #expect(needed.item?.title == "Sparse" && needed.notes.contains { $0.contains("iteminfo.xml") })
            let unneeded = try make("unneeded", manifest: full, itemInfo: "<ESRI_ItemInformation><title>")
            #expect(unneeded.item?.title == "Full" && unneeded.item?.credits == "C" && unneeded.item?.hasThumbnail == true)
            #expect(unneeded.notes.isEmpty, "\(unneeded.notes)")
        }
    }

    @Test func notesWhatCannotBeReadAndGoesOn() throws {
        try withTemporaryDirectory { dir in
            let path = try BadPackage.mapNotJSON.make(in: dir)
            let report = try PackageInspector.inspect(path: path)
            #expect(report.maps.count == 1)
            #expect(report.notes.contains { $0.contains("Second Map.mmap") && $0.contains("JSON") })
            #expect(throws: (any Error).self) { try PackageInspector.inspect(path: try BadPackage.missingInfo.make(in: dir)) }
        }
    }

    @Test func opensAGeoPackageInsideAPackageWithoutExtracting() throws {
        try withTemporaryDirectory { dir in
            let path = try TestPackages.makePackage(in: dir)
            let package = try MobileMapPackage(path: path)
            let entry = try #require(package.archive.entry(named: "p20/data.gpkg"))
            let db = try package.database(entry)
            #expect(try db.scalar("SELECT count(*) FROM points")?.int64 == 3)
            #expect(try db.scalar("SELECT NAME FROM points WHERE fid = 2")?.text == "Point 1")
            #expect(throws: SQLiteError.self) { try db.execute("DELETE FROM points") }
            #expect(listTree(dir).sorted() == ["Sample.mmpk", "data.gpkg"])
        }
    }
}
