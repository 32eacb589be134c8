import Foundation
import MapbookPackage
import MapbookPackager
import MapbookSearch
import MapbookSupport
import MapbookTestSupport
import Testing
import MapbookInspection

@Suite struct PackagerTests {
    /// A project over a GeoPackage made in code and, when present, the real Esri geodatabase.
    /// The points are searchable by `search`.
    func project(in dir: String, sources: String = "", extra: String = "", layers: String = "[points]", search: String = "{ field: NAME, rank: SIZE, output_fields: [KIND] }") throws -> Project {
        if !FileManager.default.fileExists(atPath: dir + "/data.gpkg") { try TestPackages.makeGeoPackage(at: dir + "/data.gpkg") }
        try writeFile(dir + "/thumb.png", TestPackages.png)
        let text = """
            title: Test Town
            summary: Prepared data
            thumbnail: thumb.png
            sources:
              points: { path: data.gpkg, table: points, title: Points, search: \(search) }
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
            // Clean but for the note that nothing signed it.
            #expect(report.diagnostics.map(\.code) == ["signature.none"], "\(report.diagnostics)")
            let package = try MobileMapPackage(path: dir + "/out.mmpk")
            #expect(package.manifest.title == "Test Town")
            #expect(package.manifest.created == 1_795_305_600_000)
            // The extent comes from the table's recorded extent, in WGS84.
            let extent = try #require(package.manifest.extent)
            #expect(abs(extent.minX - WebMercator.unproject(x: -9_814_000, y: 0).longitude) < 1e-9)
            // The points are searchable through the package's composite locator.
            #expect(package.manifest.locators == ["p20/locators/TestTownLocator.loc.json"])
            let locator = try #require(try CompositeLocator.open(package))
            #expect(locator.participants.map(\.name) == ["Points"])
            let found = try #require(try locator.geocode("point 2").first)
            #expect(found.label == "Point 2" && found.attributes.string("KIND") == "even")
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

    /// Trees by diameter with breaks that stop below the largest trees, one cell unreadable,
    /// and a condition whose domain has a code no tree has yet.
    @Test func everyFeatureHasAClassOrTheOtherSymbolAndCreateCountsThem() throws {
        try withTemporaryDirectory { dir in
            var csv = "lon,lat,dbh,condition\n"
            for i in 0..<40 { csv += "-122.6\(i),45.5,\(i * 2),\(i % 2 == 0 ? "Good" : "Fair")\n" }
            csv += "-122.7,45.5,n/a,Good\n"
            try writeFile(dir + "/trees.csv", csv)
            try writeFile(dir + "/p.yaml", """
                title: Trees
                sources:
                  trees: { path: trees.csv, crs: EPSG:4326, edit: { fields: { condition: { domain: [Good, Fair, Poor, Dead] } } } }
                maps:
                  - name: Size
                    layers: [ { source: trees, renderer: { classBreaks: { field: dbh, breaks: [6, 12, 24, 48] } } } ]
                  - name: Condition
                    layers: [ { source: trees, renderer: { uniqueValue: { field: condition } } } ]
                """)
            let summary = try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/t.mmpk", timestamp: 1_700_000_000)
            let package = try MobileMapPackage(path: dir + "/t.mmpk")
            let maps = try package.mapEntries.map { try package.map($0) }
            let size = try #require(maps.first { $0.item.title == "Size" || $0.item.name == "Size" }?.map.operationalLayers?.first?.renderer)
            let classes = RendererClasses(size)
            // 48 < dbh <= 78 has a class; the unreadable cell is "Other".
            #expect(classes.classIndex { _ in .number(78) } == classes.classes.count - 1)
            #expect(classes.defaultClass?.label == "Other")
            let sizeCounts = try #require(summary.classes.first { $0.field == "dbh" })
            #expect(sizeCounts.classes.map(\.count).reduce(0, +) == 41)
            #expect(sizeCounts.classes.last?.label == "Other" && sizeCounts.classes.last?.count == 1)
            #expect(sizeCounts.classes.dropLast().last?.count == 15, "dbh 50 to 78: \(sizeCounts.classes)")

            let condition = try #require(maps.first { $0.item.title == "Condition" || $0.item.name == "Condition" }?.map.operationalLayers?.first?.renderer)
            // "Dead" has its own class before any tree is dead.
            let conditionClasses = RendererClasses(condition)
            #expect(conditionClasses.classIndex { _ in .string("Dead") } != nil)
            let conditionCounts = try #require(summary.classes.first { $0.field == "condition" })
            #expect(conditionCounts.classes.first { $0.label == "Dead" }?.count == 0)
            #expect(conditionCounts.classes.first { $0.label == "Good" }?.count == 21)
        }
    }

    /// A package of a city's trees and a world map: each map opens on its own layers.
    @Test func aMapWithoutAnExtentOpensOnItsOwnLayers() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/trees.csv", "lon,lat\n-122.61,45.56\n-122.56,45.58\n")
            try writeFile(dir + "/cities.csv", "lon,lat\n-170,-50\n170,70\n")
            try writeFile(dir + "/p.yaml", "title: T\nsources:\n  trees: { path: trees.csv, crs: EPSG:4326 }\n  cities: { path: cities.csv, crs: EPSG:4326 }\nmaps:\n  - { name: Trees, layers: [trees] }\n  - { name: World, layers: [cities] }\n")
            let summary = try Packager.build(try Project.load(path: dir + "/p.yaml"), output: dir + "/t.mmpk", timestamp: 1_700_000_000)
            #expect(summary.extent.width > 300)
            let package = try MobileMapPackage(path: dir + "/t.mmpk")
            var extents: [String: BoundingBox] = [:]
            for entry in package.mapEntries {
                let map = try package.map(entry)
                extents[map.item.name ?? ""] = try #require(map.item.extent?.bounds)
            }
            let trees = try #require(extents["Trees"])
            // The trees with a margin, not the world.
            #expect(trees.minX < -122.61 && trees.maxX > -122.56 && trees.width < 0.1, "\(trees)")
            #expect(try #require(extents["World"]).width > 300)
        }
    }

    @Test func sameProjectAndTimeGiveTheSameBytes() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/q.yaml", "- { text: point 1, expect: Point 1 }\n")
            let p = try project(in: dir, extra: "locator: { quality: q.yaml }")
            _ = try Packager.build(p, output: dir + "/a.mmpk", timestamp: 1_700_000_000)
            _ = try Packager.build(p, output: dir + "/b.mmpk", timestamp: 1_700_000_000)
            // The locator's index, definitions and quality file are part of what must not change.
            let entries = try ZipArchive(path: dir + "/a.mmpk").entries.map(\.name)
            #expect(entries.contains("p20/locators/points/index.sqlite") && entries.contains("p20/locators/TestTownLocator.quality.json"))
            #expect(try readFile(dir + "/a.mmpk") == readFile(dir + "/b.mmpk"))
        }
    }

    @Test(arguments: [
        // (the points' search, top-level keys, words in the message)
        ("NAM", "", "the search field 'NAM' is not a column of points; did you mean 'NAME'? Its columns are: NAME, KIND, SIZE"),
        ("name", "", "did you mean 'NAME'?"),
        ("{ field: NAME, display: LABEL }", "", "the display field 'LABEL' is not a column"),
        ("{ field: NAME, rank: KIND }", "", "'KIND' holds text values; a rank must be a number"),
        ("{ field: NAME, output_fields: [KIND, COLOR] }", "", "the output field 'COLOR' is not a column"),
        ("NAME", "locator: { quality: missing.yaml }", "cannot read the search-quality file 'missing.yaml'"),
    ])
    func checksEverySearchFieldAgainstTheData(_ input: (String, String, String)) throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir, extra: input.1, search: input.0)
            #expect {
                try Packager.build(p, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains(input.2) && "\($0)".contains("project.yaml:") }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["data.gpkg", "project.yaml", "thumb.png"])
        }
    }

    @Test func aLocatorNeedsAnImportedLayerWithGeometry() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir, sources: "  inspections: { path: data.gpkg, table: inspections, search: VALVE }", layers: "[points, inspections]")
            let db = try SQLiteDatabase(writablePath: dir + "/data.gpkg", create: false)
            try db.execute("""
                CREATE TABLE inspections (id INTEGER PRIMARY KEY, VALVE TEXT, RESULT TEXT);
                INSERT INTO inspections (VALVE, RESULT) VALUES ('WV-1', 'ok');
                INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES ('inspections', 'attributes', 'inspections');
                """)
            try db.close()
            #expect {
                try Packager.build(p, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains("sources.inspections.search") && "\($0)".contains("'inspections' has no geometry; a locator answers with places") }
        }
    }

    @Test(Fixtures.required)
    func aGeodatabasePackagedAsItIsCannotBeSearched() throws {
        try withTemporaryDirectory { dir in
            let gdb = Fixtures.path("esri-runtime-data/usa.geodatabase")
            let p = try project(in: dir, sources: "  cities: { path: \(gdb), table: US-Major-Cities, search: AREANAME }", extra: "extent: [-125, 24, -66, 50]")
            #expect {
                try Packager.build(p, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains("sources.cities.search") && "\($0)".contains("Esri mobile geodatabase") }
        }
    }

    @Test func theSearchQualityFileIsCheckedWithItsLines() throws {
        try withTemporaryDirectory { dir in
            // A query without `expect`, on line 4 of the file.
            try writeFile(dir + "/q.yaml", "# queries\nqueries:\n  - { text: Point 1, expect: Point 1 }\n  - { text: Point 2 }\n")
            let missing = try project(in: dir, extra: "locator: { quality: q.yaml }")
            #expect {
                try Packager.build(missing, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains("q.yaml:4") && "\($0)".contains("query 2 ('Point 2') has no 'expect'") }
            // A participant the project does not have.
            try writeFile(dir + "/q.yaml", "queries:\n  - { text: Point 1, expect: Point 1, participant: Valves }\n")
            #expect {
                try Packager.build(missing, output: dir + "/out.mmpk")
            } throws: { "\($0)".contains("participant 'Valves', which is not a locator of this project; they are: Points") }
            // Texts stay text as written: 00123 is not the number 123. JSON works as well.
            try writeFile(dir + "/q.json", "[{\"text\": \"x\", \"expect\": \"Point 1\"}]")
            try writeFile(dir + "/q.yaml", "queries:\n  - { text: 00123, expect: Point 1, near: [-88.15, 41.75], suggest: true }\n")
            _ = try Packager.build(missing, output: dir + "/out.mmpk", timestamp: 1_700_000_000)
            let package = try MobileMapPackage(path: dir + "/out.mmpk")
            let entry = try #require(package.archive.entry(named: "p20/locators/TestTownLocator.quality.json"))
            let quality = try SearchQuality.parse(try JSONParser.parse(try package.bytes(of: entry, limit: 1 << 20)), path: entry.name)
            #expect(quality.queries == [SearchQuality.Query(text: "00123", expect: "Point 1", near: (-88.15, 41.75), suggest: true)])
            let json = try project(in: dir, extra: "locator: { quality: q.json }")
            _ = try Packager.build(json, output: dir + "/json.mmpk", timestamp: 1_700_000_000)
            #expect(try CompositeLocator.open(try MobileMapPackage(path: dir + "/json.mmpk"))?.definition.quality == "TestTownLocator.quality.json")
        }
    }

    /// A locator on a code with nothing more said: its results show the feature's name
    /// beside the code, and carry the fields of the layer's pop-up as attributes.
    @Test func aCodeLocatorShowsTheNameAndThePopupFields() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir, layers: "[{ source: points, popup: { title: \"{NAME}\", fields: [KIND, SIZE] } }]", search: "{ field: SIZE }")
            try Packager.build(p, output: dir + "/out.mmpk", timestamp: 1_700_000_000)
            let locator = try #require(try CompositeLocator.open(try MobileMapPackage(path: dir + "/out.mmpk")))
            let definition = try #require(locator.participants.first?.definition)
            #expect(definition.displayField == "NAME" && definition.outputFields == ["KIND", "SIZE"])
            let hit = try #require(try locator.geocode("2").first)
            #expect(hit.matchedText == "2" && hit.label == "Point 2", "\(hit)")
            #expect(hit.attributes.string("KIND") == "even" && hit.attributes.keys == ["KIND", "SIZE"], "\(hit.attributes)")
        }
    }

    @Test func featuresWithoutSearchableTextAreCountedAndLeftOut() throws {
        try withTemporaryDirectory { dir in
            let p = try project(in: dir, search: "NAME")
            let db = try SQLiteDatabase(writablePath: dir + "/data.gpkg", create: false)
            try db.execute("INSERT INTO points (geom, NAME, KIND, SIZE) SELECT geom, NULL, KIND, SIZE FROM points WHERE fid = 1")
            try db.execute("INSERT INTO points (geom, NAME, KIND, SIZE) SELECT geom, ' -- ', KIND, SIZE FROM points WHERE fid = 1")
            try db.close()
            let summary = try Packager.build(p, output: dir + "/out.mmpk", timestamp: 1_700_000_000)
            let points = try #require(summary.locator?.participants.first)
            #expect(points.features == 5 && points.entries == 3 && points.skipped == 2 && points.groups == 3)
            #expect(points.textBytes == "Point 0Point 1Point 2".utf8.count)
            #expect(points.indexBytes == Int64(try #require(summary.entries.first { $0.name == "p20/locators/points/index.sqlite" }).size))
        }
    }

    @Test func aDryRunBuildsTheLocatorsAndWritesNothing() throws {
        try withTemporaryDirectory { dir in
            let plan = try Packager.dryRun(try project(in: dir), output: dir + "/out.mmpk", timestamp: 1_700_000_000)
            let locator = try #require(plan.locator)
            #expect(locator.name == "TestTownLocator" && locator.entry == "p20/locators/TestTownLocator.loc.json")
            #expect(locator.participants.map(\.entries) == [3])
            #expect(plan.contents.manifest.locators == [locator.entry])
            #expect(plan.contents.files.map(\.path).filter { $0.hasPrefix("locators/") } == [
                "locators/points/locator.json", "locators/points/index.sqlite", "locators/TestTownLocator.loc.json",
            ])
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["data.gpkg", "project.yaml", "thumb.png"])
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
            let summary = try Packager.build(p, output: dir + "/usa.mmpk", timestamp: 1_795_305_600)
            // A German basemap under the United States is said.
            #expect(summary.warnings.contains { $0.hasPrefix("backdrop: 'Basemap DE' covers") }, "\(summary.warnings)")
            let report = PackageValidator.validate(path: dir + "/usa.mmpk", options: ValidationOptions(now: 1_795_305_600_000))
            // Clean but for the note that nothing signed it.
            #expect(report.diagnostics.map(\.code) == ["signature.none"], "\(report.diagnostics)")
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
