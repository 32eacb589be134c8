import Foundation
import MapbookPackage
import MapbookPackager
import MapbookTestSupport
import Testing

@Suite struct PackagerTests {
    /// A project over a GeoPackage made in code and, when present, the real Esri geodatabase.
    func project(in dir: String, sources: String = "", extra: String = "", layers: String = "[points]") throws -> Project {
        try TestPackages.makeGeoPackage(at: dir + "/data.gpkg")
        try writeFile(dir + "/thumb.png", TestPackages.png)
        let text = """
            title: Test Town
            summary: Prepared data
            thumbnail: thumb.png
            sources:
              points: { path: data.gpkg, table: points, title: Points }
            \(sources)
            \(extra)
            maps:
              - name: First
                layers: \(layers)
                bookmarks:
                  - { name: Here, extent: [-88.16, 41.74, -88.14, 41.76] }
                  - { name: There, center: [-88.15, 41.75], scale: 4000 }
              - name: Second
                layers: [points]
            """
        try writeFile(dir + "/project.yaml", text)
        return try Project.load(path: dir + "/project.yaml")
    }

    @Test func buildsAValidPackageFromPreparedData() throws {
        try withTemporaryDirectory { dir in
            let summary = try Packager.build(try project(in: dir), output: dir + "/out.mmpk", timestamp: 1_795_305_600)
            #expect(summary.maps.map(\.name) == ["First", "Second"])
            let report = PackageValidator.validate(path: dir + "/out.mmpk", options: ValidationOptions(now: 1_795_305_600_000))
            #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
            let package = try MobileMapPackage(path: dir + "/out.mmpk")
            #expect(package.manifest.title == "Test Town")
            #expect(package.manifest.created == 1_795_305_600_000)
            // The extent comes from the table's recorded extent, in WGS84.
            let extent = try #require(package.manifest.extent)
            #expect(abs(extent.xmin - WebMercator.unproject(x: -9_814_000, y: 0).longitude) < 1e-9)
            let first = try package.map(package.mapEntries[0])
            #expect(first.map.spatialReference?.latestWkid == 3857)
            #expect(first.map.bookmarks?.count == 2)
            let tower = try #require(first.map.bookmarks?[1])
            #expect(tower.viewpoint?.scale == 4000)
            #expect(tower.viewpoint?.targetPoint != nil)
            // Scale is in projected metres (as Esri's tiling scheme levels are): 1024 px at 96 dpi.
            let width = try #require(tower.extent?.bounds?.width)
            #expect(abs(width - 1024 * 4000 * 0.0254 / 96) < 0.02)
            let layer = try #require(first.map.operationalLayers?.first)
            #expect(layer.path == "file:./data.gpkg?table=points")
            #expect(layer.popupInfo?.fieldInfos?.map(\.fieldName) == ["NAME", "KIND", "SIZE"])
            if case .simple(let r)? = layer.renderer, case .simpleMarker? = r.symbol {} else {
                Issue.record("a point layer without a renderer gets a simple marker")
            }
            #expect(first.item.thumbnail?.hasPrefix("data:image/png;base64,") == true)
        }
    }

    @Test func sameProjectAndTimeGiveTheSameBytes() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir)
            _ = try Packager.build(p, output: dir + "/a.mmpk", timestamp: 1_700_000_000)
            _ = try Packager.build(p, output: dir + "/b.mmpk", timestamp: 1_700_000_000)
            #expect(try readFile(dir + "/a.mmpk") == readFile(dir + "/b.mmpk"))
        }
    }

    @Test(arguments: [
        ("", "[{ source: points, renderer: { type: uniqueValue, field1: MATERAL } }]", "'MATERAL' is not a column of points"),
        ("", "[{ source: points, definition_expression: \"NAME = \" }]", "is not a valid filter on points"),
        ("", "[{ source: points, popup: { fields: [NOPE] } }]", "'NOPE' is not a column"),
        ("backdrop: { path: data.gpkg }", "[points]", "not a readable vector tile package"),
        ("", "[points]\n    thumbnail: data.gpkg", "not a PNG or JPEG image"),
    ])
    func checksEveryNameAgainstTheData(_ input: (String, String, String)) throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir, extra: input.0, layers: input.1)
            #expect {
                try Packager.build(p, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains(input.2) }
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.mmpk"))
        }
    }

    @Test func explainsWhatItCannotPackage() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/mains.kml", "<kml/>")
            try writeFile(dir + "/p.yaml", "title: T\nsources:\n  mains: mains.kml\nmaps:\n  - name: M\n    layers: [mains]\n")
            #expect {
                try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/o.mmpk")
            } throws: { e in
                let text = "\(e)"
                return text.contains("p.yaml:3") && text.contains("sources.mains") && text.contains(".geojson") && text.contains(".shp")
            }
            try writeFile(dir + "/p2.yaml", "title: T\nsources:\n  a: { path: missing.gpkg }\nmaps: [{ name: M, layers: [a] }]\n")
            #expect { try Packager.build(try Project.load(path: dir + "/p2.yaml"), output: dir + "/o.mmpk") } throws: { "\($0)".contains("cannot read 'missing.gpkg'") }
        }
    }

    @Test func refusesADatabaseWithUnsavedChangesInItsLog() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir)
            // What a program editing the GeoPackage in WAL mode leaves beside it.
            try writeFile(dir + "/data.gpkg-wal", [UInt8](repeating: 1, count: 4096))
            #expect {
                try Packager.build(p, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains("data.gpkg-wal") && "\($0)".contains("wal_checkpoint") }
            #expect(!FileManager.default.fileExists(atPath: dir + "/out.mmpk"))
        }
    }

    @Test func tablesWithoutGeometryGoToTheWebMapsTables() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir, sources: "  inspections: { path: data.gpkg, table: inspections }", layers: "[points, inspections]")
            let db = try SQLiteDatabase(writablePath: dir + "/data.gpkg", create: false)
            try db.execute("""
                CREATE TABLE inspections (id INTEGER PRIMARY KEY, VALVE TEXT, RESULT TEXT);
                INSERT INTO inspections (VALVE, RESULT) VALUES ('WV-1', 'ok');
                INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES ('inspections', 'attributes', 'inspections');
                """)
            try db.close()
            _ = try Packager.build(p, output: dir + "/t.mmpk", timestamp: 1_795_305_600)
            let package = try MobileMapPackage(path: dir + "/t.mmpk")
            let map = try package.map(package.mapEntries[0]).map
            #expect(map.operationalLayers?.map(\.displayName) == ["Points"])
            #expect(map.tables?.first?.path == "file:./data.gpkg?table=inspections")
            #expect(map.tables?.first?.layerType == nil && map.tables?.first?.renderer == nil)
            #expect(PackageValidator.validate(path: dir + "/t.mmpk").count(.error) == 0)
        }
    }

    @Test func refusesToOverwriteAnInput() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir)
            #expect { try Packager.build(p, output: dir + "/data.gpkg") } throws: { "\($0)".contains("is one of the project's inputs") }
        }
    }

    @Test(Fixtures.required)
    func packagesRealEsriDataAndAVectorTileBackdrop() throws {
        try withTemporaryDirectory { dir in
            try zipStored(folder: Fixtures.path("vtpk-basemapde/sample_cache"), to: dir + "/basemap.vtpk")
            let gdb = Fixtures.path("esri-runtime-data/usa.geodatabase")
            let sources = """
                  states: { path: \(gdb), table: USStates }
                  cities: { path: \(gdb), table: US-Major-Cities }
                  nulls: { path: \(Fixtures.path("pyogrio/test_gpkg_nulls.gpkg")) }
                """
            let extra = "backdrop: { path: basemap.vtpk, title: Basemap DE }\nextent: [-125, 24, -66, 50]"
            let layers = "[states, { source: cities, renderer: { type: classBreaks, field: RuleID, classBreakInfos: [] } }, nulls]"
            let p = try project(in: dir, sources: sources, extra: extra, layers: layers)
            _ = try Packager.build(p, output: dir + "/usa.mmpk", timestamp: 1_795_305_600)
            let report = PackageValidator.validate(path: dir + "/usa.mmpk", options: ValidationOptions(now: 1_795_305_600_000))
            #expect(report.diagnostics.isEmpty, "\(report.diagnostics)")
            let inspection = try PackageInspector.inspect(path: dir + "/usa.mmpk")
            let layers0 = try #require(inspection.maps.first?.layers)
            #expect(layers0.first { $0.title == "states" }?.data == "usa.geodatabase › USStates")
            #expect(layers0.first { $0.title == "cities" }?.rowCount == 118)
            // The four points of "nulls" lie at 0°-4°, outside the project extent: cut away.
            #expect(layers0.first { $0.title == "nulls" }?.rowCount == 0)
            #expect(layers0.first { $0.isBasemap }?.title == "Basemap DE")
            #expect(inspection.tilePackages.first?.levels.count == 5)
            // The geodatabase is packaged once although two sources use it.
            #expect(inspection.entries.filter { $0.name.hasSuffix(".geodatabase") }.count == 1)
        }
    }
}
