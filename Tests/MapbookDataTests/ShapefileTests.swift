import Foundation
import MapbookTestSupport
import Testing

@testable import MapbookData

/// Expected numbers for the fixtures come from GDAL 3.6.2: `ogrinfo -al -so`, and
/// `ogr2ogr -f GeoJSON` summarised per geometry type (features, polygons, holes, points).
@Suite struct ShapefileTests {
    // MARK: - Real shapefiles

    @Test(Fixtures.required) func readsPyshpBlockGroupsAsGDALDoes() throws {
        let reader = try ShapefileReader(path: Fixtures.path("pyshp/blockgroups.shp"))
        let schema = reader.schema
        #expect(schema.name == "blockgroups")
        // GDAL reads 8 of the 663 records as multipolygons, so the layer is multi.
        #expect(schema.geometryType == .multiPolygon)
        #expect(!schema.hasZ && !schema.hasM)
        #expect(schema.crs == nil)
        #expect(schema.fields.count == 43)
        #expect(schema.fields.prefix(4).map(\.name) == ["AREA", "BKG_KEY", "POP1990", "POP90_SQMI"])
        #expect(schema.fields.prefix(4).map(\.type) == [.real, .text, .integer, .real])
        #expect(schema.fields.last?.name == "MOBILEHOME")
        // The .dbf's language driver byte is 0x57.
        #expect(reader.textEncoding == "windows-1252 (from the .dbf language driver id 0x57)")
        #expect(reader.extent.map { abs($0.minX - -122.515048) < 1e-6 && abs($0.maxY - 37.863433) < 1e-6 } == true)

        let features = try readAll(reader)
        #expect(features.count == 663)
        #expect(features.map(\.row) == Array(1...663))
        let first = try #require(features.first)
        #expect(Array(first.values.prefix(5)) == [.real(0.96761), .text("060750179029"), .integer(4531), .real(4682.7), .integer(970)])
        #expect(features.last?.values[1] == .text("060816016021"))
        #expect(features.last?.values.last == .integer(0))
        // Record 1 is three polygons, the second with a hole.
        guard case .multiPolygon(let parts)? = first.geometry?.shape else {
            Issue.record("record 1 is not a multipolygon")
            return
        }
        #expect(parts.map(\.count) == [1, 2, 1])
        let summary = PolygonSummary(features)
        #expect(summary == PolygonSummary(multi: 8, polygons: 673, holes: 6, points: 10705))
        #expect(reader.report.isEmpty)
    }

    @Test(Fixtures.required) func readsPyshpMergeOfTenBlockGroups() throws {
        let reader = try ShapefileReader(path: Fixtures.path("pyshp/merge.shp"))
        let features = try readAll(reader)
        #expect(features.count == 6630)
        #expect(PolygonSummary(features) == PolygonSummary(multi: 80, polygons: 6730, holes: 60, points: 107050))
        #expect(reader.report.isEmpty)
    }

    @Test(Fixtures.required) func readsLatin1TextWithoutAnIndexOrEncoding() throws {
        // latin1.shp has no .shx (GDAL refuses it without SHAPE_RESTORE_SHX=YES), and its .dbf
        // declares no encoding: language driver 0, no .cpg.
        let reader = try ShapefileReader(path: Fixtures.path("pyshp/latin1.shp"))
        #expect(reader.schema.fields.map(\.name) == ["id", "Name"])
        let features = try readAll(reader)
        #expect(features.count == 1)
        #expect(features[0].values == [.integer(2), .text("Ñandú")])
        #expect(features[0].geometry?.positionCount == 4)
        #expect(reader.report.count(.encoding) == 1)

        let declared = try ShapefileReader(path: Fixtures.path("pyshp/latin1.shp"), encoding: "latin1")
        #expect(try readAll(declared)[0].values[1] == .text("Ñandú"))
        #expect(declared.report.isEmpty)
    }

    @Test(Fixtures.required) func readsCorruptTooLongAsPyshpAndGDALDo() throws {
        // pyshp's writer appended junk bytes to the .shp and .dbf; the headers, the index and
        // the record counts are right, and both pyshp and GDAL read ten line strings.
        let expected = Geometry(.lineString([Position(x: 1, y: 1), Position(x: 1, y: 2), Position(x: 2, y: 2)]))
        let reader = try ShapefileReader(path: Fixtures.path("pyshp/corrupt_too_long.shp"))
        let features = try readAll(reader)
        #expect(features.count == 10)
        #expect(features.allSatisfy { $0.geometry == expected && $0.values == [.text("value")] })
        #expect(reader.report.isEmpty)

        // Without the index the records are found by reading on, and the junk is ignored.
        try withTemporaryDirectory { dir in
            for ext in ["shp", "dbf"] {
                try writeFile("\(dir)/corrupt.\(ext)", readFile(Fixtures.path("pyshp/corrupt_too_long.\(ext)")))
            }
            let unindexed = try ShapefileReader(path: "\(dir)/corrupt.shp")
            #expect(try readAll(unindexed).count == 10)
            #expect(unindexed.report.isEmpty)
        }
    }

    @Test(Fixtures.required) func readsNaturalEarthWithItsPrjAndCpg() throws {
        let reader = try ShapefileReader(path: Fixtures.path("pyogrio/naturalearth_lowres/naturalearth_lowres.shp"))
        let schema = reader.schema
        #expect(schema.crs?.epsg == 4326)
        #expect(schema.crs?.wkt?.hasPrefix("GEOGCS[\"GCS_WGS_1984\"") == true)
        #expect(reader.textEncoding == "ISO-8859-1 (from the .cpg)")
        #expect(schema.fields.map(\.name) == ["pop_est", "continent", "name", "iso_a3", "gdp_md_est"])
        #expect(schema.fields.map(\.type) == [.integer, .text, .text, .text, .real])
        #expect(schema.geometryType == .multiPolygon)
        let features = try readAll(reader)
        #expect(features.count == 177)
        #expect(features[0].values == [.integer(920938), .text("Oceania"), .text("Fiji"), .text("FJI"), .real(8374)])
        #expect(features[60].values[2] == .text("Côte d'Ivoire"))
        #expect(PolygonSummary(features) == PolygonSummary(multi: 29, polygons: 288, holes: 1, points: 10654))
        #expect(reader.report.isEmpty)
    }

    // MARK: - Zipped shapefiles

    /// Zip tests run one at a time so that none sees another's extraction folder.
    @Suite(.serialized) struct Zipped {
        @Test(Fixtures.required) func readsAZippedShapefileAndLeavesNothingBehind() throws {
            let before = Self.extractionFolders()
            var reader: ShapefileReader? = try ShapefileReader(path: Fixtures.path("pyshp/blockgroups.zip"))
            // Removed as soon as the files are open.
            #expect(Self.extractionFolders() == before)
            #expect(reader?.schema.name == "blockgroups")
            #expect(reader?.schema.fields.count == 43)
            #expect(try readAll(reader!).count == 663)
            reader = nil
            #expect(Self.extractionFolders() == before)
        }

        @Test(Fixtures.required) func asksWhichShapefileOfSeveral() throws {
            let path = Fixtures.path("pyshp/blockgroups_multishapefile.zip")
            #expect(try ShapefileReader.layers(inZip: path) == ["blockgroups", "blockgroups2"])
            let error = #expect(throws: DataError.self) { try ShapefileReader(path: path) }
            #expect(error?.kind == .ambiguousLayer)
            #expect(error?.path == path)
            #expect(error?.message.contains("blockgroups, blockgroups2") == true)
            let reader = try ShapefileReader(path: path, layer: "BlockGroups2")
            #expect(reader.schema.name == "blockgroups2")
            #expect(try readAll(reader).count == 663)
            let missing = #expect(throws: DataError.self) { try ShapefileReader(path: path, layer: "roads") }
            #expect(missing?.kind == .noSuchLayer)
            #expect(missing?.path == path)
            #expect(missing?.message.contains("blockgroups, blockgroups2") == true)
        }

        @Test(Fixtures.required) func saysWhatAZipWithoutShapefilesHolds() {
            let path = Fixtures.path("pyshp/empty_zipfile.zip")
            let error = #expect(throws: DataError.self) { try ShapefileReader(path: path) }
            #expect(error?.kind == .noLayers)
            #expect(error?.path == path)
            #expect(error?.message.contains("dummyfile.txt") == true)
        }

        @Test(Fixtures.required) func readsAPolygonZInAFolderOfAZip() throws {
            // REL.zip keeps its shapefile in a folder, with a .prj (MGI / Austria Lambert) and
            // a .cpg; GDAL reads one "3D Polygon" of 10 points at z = 0.
            let reader = try ShapefileReader(path: Fixtures.path("pyshp/REL.zip"))
            let schema = reader.schema
            #expect(schema.name == "releaseArea20090407")
            #expect(schema.geometryType == .polygon)
            #expect(schema.hasZ && schema.hasM)
            #expect(schema.crs?.epsg == 31287)
            #expect(reader.textEncoding == "UTF-8 (from the .cpg)")
            #expect(schema.fields.map(\.name) == ["Id", "ci95", "thickness", "Name"])
            let features = try readAll(reader)
            #expect(features.count == 1)
            #expect(features[0].values == [.integer(1), .null, .real(1), .text("releaseArea20090407_1")])
            let g = try #require(features[0].geometry)
            #expect(g.hasZ && g.hasM && g.positionCount == 10)
            var zs: Set<Double> = []
            g.forEachPosition { zs.insert($0.z) }
            #expect(zs == [0])
            #expect(g.envelope.map { abs($0.minX - 319218.6384) < 1e-3 && abs($0.maxY - 337495.4527) < 1e-3 } == true)
        }

        @Test func ignoresEntriesThatAreNotPlainNames() throws {
            try withTemporaryDirectory { dir in
                let file = TestShapefile(type: 1, records: [Shp.point(1, 2)])
                let (shp, shx) = file.mainAndIndex()
                let zip = RawZip([
                    .init(name: "../escape.shp", data: shp),
                    .init(name: "/abs/olute.shp", data: shp),
                    .init(name: "__MACOSX/data/._points.shp", data: [0, 5, 22, 7]),
                    .init(name: "data/points.shp", data: shp),
                    .init(name: "data/POINTS.SHX", data: shx),
                ])
                try zip.write(to: "\(dir)/points.zip")
                #expect(try ShapefileReader.layers(inZip: "\(dir)/points.zip") == ["points"])
                let reader = try ShapefileReader(path: "\(dir)/points.zip")
                #expect(try readAll(reader).map(\.geometry) == [Geometry(.point(Position(x: 1, y: 2)))])
            }
        }

        static func extractionFolders() -> [String] {
            let tmp = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            return ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter { $0.hasPrefix("mapbook-shapefile-") }.sorted()
        }
    }

    // MARK: - Shapes built here

    @Test func readsPolyLineZWithMeasuresAndNoDataMeasures() throws {
        let content = Shp.parts(type: 13, [[(0, 0), (1, 1), (2, 0)]], z: [10, 11, 12], m: [5, -1e39, 7])
        let reader = try TestShapefile(type: 13, records: [content, Shp.parts(type: 13, [[(0, 0), (3, 3)]], z: [1, 2])]).open()
        #expect(reader.schema.geometryType == .lineString)
        #expect(reader.schema.hasZ && reader.schema.hasM)
        let features = try readAll(reader)
        #expect(features[0].geometry == Geometry(.lineString([
            Position(x: 0, y: 0, z: 10, m: 5), Position(x: 1, y: 1, z: 11, m: .nan), Position(x: 2, y: 0, z: 12, m: 7),
        ]), hasZ: true, hasM: true))
        // Measures are optional in Z records.
        #expect(features[1].geometry == Geometry(.lineString([Position(x: 0, y: 0, z: 1), Position(x: 3, y: 3, z: 2)]), hasZ: true, hasM: true))
    }

    @Test func readsPointZAndMultiPointMRecords() throws {
        let pointZ = try TestShapefile(type: 11, records: [Shp.pointZ(1, 2, 3, m: 4), Shp.pointZ(5, 6, 7, m: nil)]).open()
        #expect(try readAll(pointZ).map(\.geometry) == [
            Geometry(.point(Position(x: 1, y: 2, z: 3, m: 4)), hasZ: true, hasM: true),
            Geometry(.point(Position(x: 5, y: 6, z: 7)), hasZ: true, hasM: true),
        ])
        let multiM = try TestShapefile(type: 28, records: [Shp.multiPoint(type: 28, [(1, 1), (2, 2)], m: [8, 9]), Shp.pointM(3, 3, m: 1)]).open()
        #expect(multiM.schema.geometryType == .multiPoint)
        #expect(multiM.schema.hasM && !multiM.schema.hasZ)
        let features = try readAll(multiM)
        #expect(features[0].geometry == Geometry(.multiPoint([Position(x: 1, y: 1, m: 8), Position(x: 2, y: 2, m: 9)]), hasM: true))
        // A single point in a multipoint layer comes out as a one-point multipoint.
        #expect(features[1].geometry == Geometry(.multiPoint([Position(x: 3, y: 3, m: 1)]), hasM: true))
    }

    @Test func assignsHolesToTheOuterRingThatContainsThem() throws {
        // Shapefile exteriors run clockwise, holes counter-clockwise; the hole comes first here.
        let hole = ring([(2, 2), (4, 2), (4, 4), (2, 4)])
        let big = ring([(0, 0), (0, 10), (10, 10), (10, 0)])
        let other = ring([(20, 0), (20, 10), (30, 10), (30, 0)])
        let reader = try TestShapefile(type: 5, records: [
            Shp.parts(type: 5, [hole, big, other]),
            Shp.parts(type: 5, [big]),
        ]).open()
        #expect(reader.schema.geometryType == .multiPolygon)
        let features = try readAll(reader)
        #expect(features[0].geometry == Geometry(.multiPolygon([[positions(big), positions(hole)], [positions(other)]])))
        #expect(features[1].geometry == Geometry(.multiPolygon([[positions(big)]])))
        #expect(reader.report.isEmpty)
    }

    @Test func picksTheSmallestContainingOuterAndKeepsOrphanHoles() throws {
        // An island in a lake: the island's own hole belongs to the island, not the mainland.
        let mainland = ring([(0, 0), (0, 100), (100, 100), (100, 0)])
        let lake = ring([(10, 10), (90, 10), (90, 90), (10, 90)])
        let island = ring([(20, 20), (20, 80), (80, 80), (80, 20)])
        let pond = ring([(40, 40), (60, 40), (60, 60), (40, 60)])
        let stray = ring([(200, 200), (210, 200), (210, 210), (200, 210)])
        let geometry = try #require(try readAll(TestShapefile(type: 5, records: [
            Shp.parts(type: 5, [mainland, lake, island, pond, stray]),
        ]).open()).first?.geometry)
        #expect(geometry == Geometry(.multiPolygon([
            [positions(mainland), positions(lake)], [positions(island), positions(pond)], [positions(stray)],
        ])))
    }

    @Test func readsRingsOfWritersThatIgnoreOrientationByNesting() throws {
        // Every ring counter-clockwise: the inner one is still a hole.
        let outer = ring([(0, 0), (10, 0), (10, 10), (0, 10)])
        let inner = ring([(2, 2), (4, 2), (4, 4), (2, 4)])
        let geometry = try readAll(TestShapefile(type: 5, records: [Shp.parts(type: 5, [outer, inner])]).open()).first?.geometry
        #expect(geometry == Geometry(.polygon([positions(outer), positions(inner)])))
    }

    @Test func closesUnclosedRingsAndSaysSo() throws {
        let open: [(Double, Double)] = [(0, 0), (0, 1), (1, 1), (1, 0)]
        let reader = try TestShapefile(type: 5, records: [Shp.parts(type: 5, [open])]).open()
        let features = try readAll(reader)
        #expect(features[0].geometry == Geometry(.polygon([positions(open + [(0, 0)])])))
        #expect(reader.report.count(.unclosedRing) == 1)
    }

    @Test func keepsNullShapesWithTheirAttributesAndDropsMultiPatches() throws {
        let file = TestShapefile(
            type: 5,
            records: [Shp.null(), Shp.parts(type: 5, [ring([(0, 0), (0, 1), (1, 1), (1, 0)])]), Shp.multiPatch()],
            fields: [.init("NAME", "C", 10)], rows: [["none"], ["square"], ["patch"]])
        let reader = try file.open()
        let features = try readAll(reader)
        #expect(features.map(\.row) == [1, 2])
        #expect(features[0].geometry == nil)
        #expect(features[0].values == [.text("none")])
        #expect(reader.report.count(.nullGeometry) == 1)
        #expect(reader.report.entries[.unsupportedGeometry]?.rows == [3])
    }

    @Test func skipsATruncatedRecordAndReadsTheRest() throws {
        let square = Shp.parts(type: 5, [ring([(0, 0), (0, 1), (1, 1), (1, 0)])])
        let file = TestShapefile(type: 5, records: [square, square, square])
        let (full, shx) = file.mainAndIndex()
        var shp = full
        // Cut the last record short: its header still claims the full content.
        shp.removeLast(40)
        try withTemporaryDirectory { dir in
            try writeFile("\(dir)/cut.shp", shp)
            let sequential = try ShapefileReader(path: "\(dir)/cut.shp")
            #expect(try readAll(sequential).map(\.row) == [1, 2])
            #expect(sequential.report.entries[.invalidGeometry]?.rows == [3])

            // With an index, a broken record in the middle does not hide the ones after it.
            var middle = shx
            middle.replaceSubrange(108..<112, with: Shp.be32(Int32(shp.count)))  // record 2 points past the end
            try writeFile("\(dir)/mid.shp", full)
            try writeFile("\(dir)/mid.shx", middle)
            let indexed = try ShapefileReader(path: "\(dir)/mid.shp")
            #expect(try readAll(indexed).map(\.row) == [1, 3])
            #expect(indexed.report.entries[.invalidGeometry]?.rows == [2])
        }
    }

    @Test func refusesCountsLargerThanTheRecord() throws {
        // A polygon claiming 2^31 - 1 points in 60 bytes, and a multipoint claiming a billion.
        var huge = Shp.parts(type: 5, [ring([(0, 0), (0, 1), (1, 1)])])
        huge.replaceSubrange(40..<44, with: Shp.le32(.max))
        var many = Shp.multiPoint(type: 8, [(1, 1)])
        many.replaceSubrange(36..<40, with: Shp.le32(1_000_000_000))
        let polygons = try TestShapefile(type: 5, records: [huge]).open()
        #expect(try readAll(polygons).isEmpty)
        #expect(polygons.report.entries[.invalidGeometry]?.example == "record 1: the record claims 1 parts and 2147483647 points, more than its 112 bytes hold")
        let points = try TestShapefile(type: 8, records: [many]).open()
        #expect(try readAll(points).isEmpty)
        #expect(points.report.count(.invalidGeometry) == 1)
    }

    @Test(arguments: [
        (bytes: [UInt8](repeating: 0, count: 60), kind: DataError.Kind.truncated),
        (bytes: [UInt8](repeating: 0x41, count: 200), kind: .unsupportedFormat),
    ])
    func refusesFilesThatAreNotShapefiles(bytes: [UInt8], kind: DataError.Kind) throws {
        try withTemporaryDirectory { dir in
            try writeFile("\(dir)/bad.shp", bytes)
            let error = #expect(throws: DataError.self) { try ShapefileReader(path: "\(dir)/bad.shp") }
            #expect(error?.kind == kind)
            #expect(error?.description.hasPrefix("\(dir)/bad.shp: ") == true)
        }
    }

    // MARK: - Attributes

    @Test func readsEveryDBFFieldType() throws {
        let file = TestShapefile(
            type: 1, records: Array(repeating: Shp.point(0, 0), count: 4),
            fields: [
                .init("NAME", "C", 8), .init("COUNT", "N", 6), .init("RATIO", "N", 8, 3), .init("SCORE", "F", 8, 2),
                .init("OK", "L", 1), .init("DAY", "D", 8), .init("NOTE", "M", 10),
            ],
            rows: [
                ["  Main  ", "    42", "   1.250", "  -0.5", "T", "20240229", "        17"],
                ["", "", "", "", "?", "", ""],
                ["x", "  4x2 ", "   abc  ", "1e3", "n", "20230229", ""],
                ["y", "  12.0", "-1", "", "Q", "00000000", ""],
            ])
        let reader = try file.open()
        #expect(reader.schema.fields.map(\.type) == [.text, .integer, .real, .real, .boolean, .date, .text])
        let values = try readAll(reader).map(\.values)
        #expect(values[0] == [.text("Main"), .integer(42), .real(1.25), .real(-0.5), .integer(1), .text("2024-02-29"), .text("17")])
        #expect(values[1] == Array(repeating: .null, count: 7))
        #expect(values[2] == [.text("x"), .null, .null, .real(1000), .integer(0), .null, .null])
        #expect(values[3] == [.text("y"), .integer(12), .real(-1), .null, .null, .null, .null])
        // "4x2", "abc", 2023-02-29 and "Q" are bad; blanks, "?" and an all-zero date are null.
        #expect(reader.report.count(.badValue) == 4)
        #expect(reader.report.entries[.badValue]?.rows == [3, 3, 3, 4])
    }

    @Test func skipsDeletedRecordsAndRenamesDuplicateFields() throws {
        let file = TestShapefile(
            type: 1, records: [Shp.point(0, 0), Shp.point(1, 1), Shp.point(2, 2)],
            fields: [.init("Name", "C", 4), .init("NAME", "C", 4), .init("name_2", "C", 4)],
            rows: [["a", "b", "c"], ["d", "e", "f"], ["g", "h", "i"]], deleted: [2])
        let reader = try file.open()
        #expect(reader.schema.fields.map(\.name) == ["Name", "NAME_2", "name_2_2"])
        let features = try readAll(reader)
        #expect(features.map(\.row) == [1, 3])
        #expect(features[1].values == [.text("g"), .text("h"), .text("i")])
    }

    @Test func decodesWindows1252FromTheLanguageDriverAndTheCpg() throws {
        // 0x80 is the euro sign in windows-1252, a control character in Latin-1.
        let bytes: [UInt8] = [0x80, 0x20, 0x63, 0x61, 0x66, 0xE9]  // "€ café"
        let fields = [TestShapefile.Field("TEXT", "C", 10)]
        let byDriver = try TestShapefile(type: 1, records: [Shp.point(0, 0)], fields: fields, rawRows: [[bytes]], languageDriver: 0x57).open()
        #expect(try readAll(byDriver)[0].values == [.text("€ café")])
        let byCpg = try TestShapefile(type: 1, records: [Shp.point(0, 0)], fields: fields, rawRows: [[bytes]], cpg: "1252").open()
        #expect(try readAll(byCpg)[0].values == [.text("€ café")])
        #expect(byCpg.textEncoding == "windows-1252 (from the .cpg)")
        // A code page only iconv knows: 0x82 is é in CP850.
        let dos = try TestShapefile(type: 1, records: [Shp.point(0, 0)], fields: fields, rawRows: [[[0x63, 0x61, 0x66, 0x82]]], languageDriver: 0x02).open()
        #expect(try readAll(dos)[0].values == [.text("café")])
        // The caller's encoding wins over both.
        let given = try TestShapefile(type: 1, records: [Shp.point(0, 0)], fields: fields, rawRows: [[Array("café".utf8)]], languageDriver: 0x57)
            .open(encoding: "UTF-8")
        #expect(try readAll(given)[0].values == [.text("café")])
        #expect { try TestShapefile(type: 1, records: [Shp.point(0, 0)]).open(encoding: "klingon") } throws: { ($0 as? DataError)?.kind == .invalidOption }
    }

    @Test(arguments: [
        ("UTF-8", "UTF-8"), ("utf8", "UTF-8"), ("1252", "windows-1252"), ("Windows-1252", "windows-1252"),
        ("88591", "ISO-8859-1"), ("8859-1", "ISO-8859-1"), ("ISO-8859-1", "ISO-8859-1"), ("latin1", "ISO-8859-1"),
        ("850", "CP850"), ("cp850", "CP850"), ("8859-2", "ISO-8859-2"), ("88595", "ISO-8859-5"), ("ANSI 1251", "CP1251"), ("Big5", "BIG5"),
    ])
    func readsTheEncodingNamesCpgFilesUse(name: String, expected: String) throws {
        #expect(DBFTextDecoder(name: name)?.name == expected)
    }

    @Test func replacesBytesThatAreNotValidInTheDeclaredEncoding() throws {
        let file = TestShapefile(
            type: 1, records: [Shp.point(0, 0)], fields: [.init("TEXT", "C", 6)], rawRows: [[[0x61, 0xFF, 0x62]]], cpg: "UTF-8")
        let reader = try file.open()
        #expect(try readAll(reader)[0].values == [.text("a\u{FFFD}b")])
        #expect(reader.report.entries[.encoding]?.example == "field TEXT: 'a\u{FFFD}b' has bytes that are not valid UTF-8; they were replaced by U+FFFD")
    }

    @Test func promotesEveryLineWhenOneRecordHasSeveralParts() throws {
        let reader = try TestShapefile(type: 3, records: [
            Shp.parts(type: 3, [[(0, 0), (1, 1)]]),
            Shp.parts(type: 3, [[(0, 0), (1, 1)], [(2, 2), (3, 3)]]),
        ]).open()
        #expect(reader.schema.geometryType == .multiLineString)
        let shapes = try readAll(reader).map { $0.geometry?.shape }
        #expect(shapes == [
            .multiLineString([positions([(0, 0), (1, 1)])]),
            .multiLineString([positions([(0, 0), (1, 1)]), positions([(2, 2), (3, 3)])]),
        ])
    }

    @Test func readsTheSmallerCountWhenTheDBFDisagrees() throws {
        let points = TestShapefile(type: 1, records: [Shp.point(0, 0), Shp.point(1, 1), Shp.point(2, 2)], fields: [.init("N", "N", 3)], rows: [["1"], ["2"]])
        let reader = try points.open()
        #expect(reader.recordCount == 2)
        #expect(try readAll(reader).count == 2)
        #expect(reader.report.entries[.badValue]?.example == "the .shp holds 3 records and the .dbf 2; only the first 2 are read")
        let empty = TestShapefile(type: 1, records: [Shp.point(0, 0)], fields: [.init("N", "N", 3)], rows: [])
        let error = #expect(throws: DataError.self) { try empty.open() }
        #expect(error?.kind == .damaged)
    }

    @Test func saysWhenTheDBFIsCutShortOrTheCpgIsUnknown() throws {
        let file = TestShapefile(
            type: 1, records: [Shp.point(0, 0), Shp.point(1, 1), Shp.point(2, 2)], fields: [.init("N", "N", 3)],
            rows: [["1"], ["2"], ["3"]], cpg: "EBCDIC-KLINGON")
        var dbf = file.dbf()
        dbf.removeLast(5)  // the end-of-file mark and most of record 3
        let reader = try withTemporaryDirectory { dir in
            let (shp, shx) = file.mainAndIndex()
            try writeFile("\(dir)/cut.shp", shp)
            try writeFile("\(dir)/cut.shx", shx)
            try writeFile("\(dir)/cut.dbf", dbf)
            try writeFile("\(dir)/cut.cpg", "EBCDIC-KLINGON\r\n")
            return try ShapefileReader(path: "\(dir)/cut.shp")
        }
        #expect(try readAll(reader).map(\.values) == [[.integer(1)], [.integer(2)]])
        #expect(reader.textEncoding == "UTF-8, Latin-1 where not valid UTF-8 (the default: no .cpg or language driver id names a known encoding)")
        #expect(reader.report.entries[.encoding]?.example.hasSuffix("cut.dbf: the .cpg names the encoding 'EBCDIC-KLINGON', which this system does not know; text is read as UTF-8, or Latin-1 where it is not valid UTF-8") == true)
        #expect(reader.report.entries[.badValue]?.count == 2)
        #expect(reader.report.entries[.badValue]?.rows == [3, 3])
    }

    @Test func findsSiblingFilesWhateverTheirCase() throws {
        try withTemporaryDirectory { dir in
            let file = TestShapefile(type: 1, records: [Shp.point(5, 6)], fields: [.init("ID", "N", 4)], rows: [["7"]])
            let (shp, shx) = file.mainAndIndex()
            try writeFile("\(dir)/Roads.SHP", shp)
            try writeFile("\(dir)/ROADS.shx", shx)
            try writeFile("\(dir)/roads.DBF", file.dbf())
            try writeFile("\(dir)/Roads.Prj", "GEOGCS[\"GCS_WGS_1984\",DATUM[\"D_WGS_1984\",SPHEROID[\"WGS_1984\",6378137,298.257223563]],PRIMEM[\"Greenwich\",0],UNIT[\"Degree\",0.017453292519943295]]")
            let reader = try ShapefileReader(path: "\(dir)/Roads.SHP")
            #expect(reader.schema.name == "Roads")
            #expect(reader.schema.crs?.epsg == 4326)
            #expect(try readAll(reader).map(\.values) == [[.integer(7)]])
        }
    }
}

// MARK: - Helpers

private func readAll(_ reader: ShapefileReader) throws -> [Feature] {
    var features: [Feature] = []
    while let feature = try reader.next() { features.append(feature) }
    return features
}

/// Counts that `ogr2ogr -f GeoJSON` output can be summarised to.
private struct PolygonSummary: Equatable {
    var multi = 0, polygons = 0, holes = 0, points = 0

    init(multi: Int, polygons: Int, holes: Int, points: Int) {
        self.multi = multi
        self.polygons = polygons
        self.holes = holes
        self.points = points
    }

    init(_ features: [Feature]) {
        for feature in features {
            guard case .multiPolygon(let parts)? = feature.geometry?.shape else { continue }
            if parts.count > 1 { multi += 1 }
            polygons += parts.count
            holes += parts.reduce(0) { $0 + $1.count - 1 }
            points += feature.geometry!.positionCount
        }
    }
}

/// A closed ring from corner points.
private func ring(_ corners: [(Double, Double)]) -> [(Double, Double)] { corners + [corners[0]] }

private func positions(_ points: [(Double, Double)]) -> [Position] { points.map { Position(x: $0.0, y: $0.1) } }

/// Record contents of the ESRI Shapefile Technical Description, written byte by byte.
private enum Shp {
    static func le32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian, Array.init) }
    static func be32(_ v: Int32) -> [UInt8] { withUnsafeBytes(of: v.bigEndian, Array.init) }
    static func f64(_ v: Double) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) }
    static func f64s(_ values: [Double]) -> [UInt8] { values.flatMap(f64) }

    static func null() -> [UInt8] { le32(0) }
    static func point(_ x: Double, _ y: Double) -> [UInt8] { le32(1) + f64s([x, y]) }
    static func pointM(_ x: Double, _ y: Double, m: Double) -> [UInt8] { le32(21) + f64s([x, y, m]) }
    static func pointZ(_ x: Double, _ y: Double, _ z: Double, m: Double?) -> [UInt8] { le32(11) + f64s([x, y, z] + (m.map { [$0] } ?? [])) }

    static func box(_ points: [(Double, Double)]) -> [UInt8] {
        f64s([points.map(\.0).min()!, points.map(\.1).min()!, points.map(\.0).max()!, points.map(\.1).max()!])
    }

    static func range(_ values: [Double]?) -> [UInt8] {
        guard let values else { return [] }
        return f64s([values.min()!, values.max()!] + values)
    }

    static func multiPoint(type: Int32, _ points: [(Double, Double)], z: [Double]? = nil, m: [Double]? = nil) -> [UInt8] {
        le32(type) + box(points) + le32(Int32(points.count)) + points.flatMap { f64s([$0.0, $0.1]) } + range(z) + range(m)
    }

    static func parts(type: Int32, _ parts: [[(Double, Double)]], z: [Double]? = nil, m: [Double]? = nil) -> [UInt8] {
        let points = parts.flatMap { $0 }
        var bytes = le32(type) + box(points) + le32(Int32(parts.count)) + le32(Int32(points.count))
        var start: Int32 = 0
        for part in parts {
            bytes += le32(start)
            start += Int32(part.count)
        }
        return bytes + points.flatMap { f64s([$0.0, $0.1]) } + range(z) + range(m)
    }

    /// A MultiPatch of one triangle strip.
    static func multiPatch() -> [UInt8] {
        let points: [(Double, Double)] = [(0, 0), (1, 0), (0, 1)]
        return le32(31) + box(points) + le32(1) + le32(3) + le32(0) + le32(0) + points.flatMap { f64s([$0.0, $0.1]) } + range([0, 0, 0])
    }
}

/// A shapefile made in the test: main file, index and attribute table.
private struct TestShapefile {
    struct Field {
        var name: String, letter: Character, length: Int, decimals: Int
        init(_ name: String, _ letter: Character, _ length: Int, _ decimals: Int = 0) {
            self.name = name
            self.letter = letter
            self.length = length
            self.decimals = decimals
        }
    }

    var type: Int32
    var records: [[UInt8]]
    var fields: [Field] = []
    var rawRows: [[[UInt8]]] = []
    var deleted: Set<Int> = []
    var languageDriver: UInt8 = 0
    var cpg: String?

    init(type: Int32, records: [[UInt8]], fields: [Field] = [], rows: [[String]]? = nil, rawRows: [[[UInt8]]] = [], deleted: Set<Int> = [], languageDriver: UInt8 = 0, cpg: String? = nil) {
        self.type = type
        self.records = records
        self.fields = fields
        self.rawRows = rows.map { $0.map { $0.map { Array($0.utf8) } } } ?? rawRows
        self.deleted = deleted
        self.languageDriver = languageDriver
        self.cpg = cpg
        // Without rows, one empty row per record.
        if rows == nil && rawRows.isEmpty { self.rawRows = records.map { _ in fields.map { _ in [] } } }
    }

    func mainAndIndex() -> (shp: [UInt8], shx: [UInt8]) {
        func header(_ length: Int) -> [UInt8] {
            Shp.be32(9994) + [UInt8](repeating: 0, count: 20) + Shp.be32(Int32(length / 2)) + Shp.le32(1000) + Shp.le32(type)
                + [UInt8](repeating: 0, count: 64)
        }
        var body: [UInt8] = []
        var index: [UInt8] = []
        for (i, content) in records.enumerated() {
            index += Shp.be32(Int32((100 + body.count) / 2)) + Shp.be32(Int32(content.count / 2))
            body += Shp.be32(Int32(i + 1)) + Shp.be32(Int32(content.count / 2)) + content
        }
        return (header(100 + body.count) + body, header(100 + index.count) + index)
    }

    func dbf() -> [UInt8] {
        let recordLength = 1 + fields.reduce(0) { $0 + $1.length }
        let headerLength = 32 + 32 * fields.count + 1
        var bytes: [UInt8] = [0x03, 124, 5, 1] + Shp.le32(Int32(rawRows.count))
        bytes += [UInt8(headerLength & 0xFF), UInt8(headerLength >> 8), UInt8(recordLength & 0xFF), UInt8(recordLength >> 8)]
        bytes += [UInt8](repeating: 0, count: 17) + [languageDriver, 0, 0]
        for field in fields {
            bytes += Array(field.name.utf8.prefix(10)) + [UInt8](repeating: 0, count: 11 - min(field.name.utf8.count, 10))
            bytes += [field.letter.asciiValue!, 0, 0, 0, 0, UInt8(field.length), UInt8(field.decimals)] + [UInt8](repeating: 0, count: 14)
        }
        bytes.append(0x0D)
        for (i, row) in rawRows.enumerated() {
            bytes.append(deleted.contains(i + 1) ? 0x2A : 0x20)
            for (field, value) in zip(fields, row) {
                bytes += value.prefix(field.length) + [UInt8](repeating: 0x20, count: max(0, field.length - value.count))
            }
        }
        return bytes + [0x1A]
    }

    /// Writes the files into a fresh folder and opens them; the folder is removed at once
    /// (the reader holds the files open).
    func open(encoding: String? = nil) throws -> ShapefileReader {
        try withTemporaryDirectory { dir in
            let (shp, shx) = mainAndIndex()
            try writeFile("\(dir)/test.shp", shp)
            try writeFile("\(dir)/test.shx", shx)
            if !fields.isEmpty || !rawRows.isEmpty { try writeFile("\(dir)/test.dbf", dbf()) }
            if let cpg { try writeFile("\(dir)/test.cpg", cpg) }
            return try ShapefileReader(path: "\(dir)/test.shp", encoding: encoding)
        }
    }
}
