import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookData

@Suite struct CSVTests {
    /// Every feature of a reader, in order.
    private func readAll(_ reader: CSVReader) throws -> [Feature] {
        var features: [Feature] = []
        while let f = try reader.next() { features.append(f) }
        return features
    }

    /// A reader of `text` written to a file of its own.
    private func withCSV<T>(_ text: String, options: CSVOptions = .init(), _ body: (CSVReader) throws -> T) throws -> T {
        try withCSV(Array(text.utf8), options: options, body)
    }

    private func withCSV<T>(_ bytes: [UInt8], options: CSVOptions = .init(), _ body: (CSVReader) throws -> T) throws -> T {
        try withTemporaryDirectory { dir in
            let path = dir + "/data.csv"
            try writeFile(path, bytes)
            return try body(try CSVReader(path: path, options: options))
        }
    }

    private func point(_ f: Feature) -> (x: Double, y: Double)? {
        guard case .point(let p)? = f.geometry?.shape else { return nil }
        return (p.x, p.y)
    }

    private func value(_ reader: CSVReader, _ f: Feature, _ name: String) -> FieldValue? {
        reader.schema.fieldIndex(name).map { f.values[$0] }
    }

    // MARK: Real files, compared with GDAL

    /// `ogrinfo -al -so -oo GEOM_POSSIBLE_NAMES=the_geom pdx_street_trees.csv` (GDAL 3.6.2):
    /// 676 features, extent (-122.611771, 45.567252) - (-122.555644, 45.577917); every cell of
    /// `the_geom` is hex EWKB of a point with SRID 4326. Points below from `ogr2ogr -f CSV
    /// -lco GEOMETRY=AS_XY`.
    @Test(Fixtures.required)
    func readsPortlandStreetTreesFromHexEWKBAsGDALDoes() throws {
        let reader = try CSVReader(path: Fixtures.path("portland/pdx_street_trees.csv"))
        #expect(reader.geometrySource == .column("the_geom"))
        #expect(reader.schema.geometryType == .point)
        #expect(reader.schema.crs == .wgs84)
        #expect(reader.schema.name == "pdx_street_trees")
        #expect(reader.schema.fields.count == 25)
        #expect(reader.schema.fieldIndex("the_geom") == nil)
        let types = Dictionary(uniqueKeysWithValues: reader.schema.fields.map { ($0.name, $0.type) })
        // As GDAL's AUTODETECT_TYPE, except `edible` ("no" throughout), which GDAL makes a
        // boolean and we keep as text.
        #expect(types["cartodb_id"] == .integer)
        #expect(types["objectid"] == .integer)
        #expect(types["dbh"] == .real)
        #expect(types["site_width"] == .real)
        #expect(types["date_inven"] == .dateTime)
        #expect(types["species"] == .text)
        #expect(types["edible"] == .text)

        let features = try readAll(reader)
        #expect(features.count == 676)
        #expect(reader.recordCount == 676)
        #expect(features.allSatisfy { $0.geometry?.type == .point })
        #expect(reader.report.isEmpty, "\(reader.report.lines)")

        let checks: [(row: Int, x: Double, y: Double, objectid: Int64)] = [
            (2, -122.566117575382, 45.5755184789626, 213107),
            (339, -122.57072266382, 45.5707697972951, 213333),
            (677, -122.611409771421, 45.577191980114, 214682),
        ]
        for check in checks {
            let f = try #require(features.first { $0.row == check.row })
            let p = try #require(point(f))
            #expect(abs(p.x - check.x) < 1e-11 && abs(p.y - check.y) < 1e-11, "line \(check.row): \(p)")
            #expect(value(reader, f, "objectid") == .integer(check.objectid))
        }
        #expect(value(reader, features[0], "date_inven") == .text("2016-09-22T17:47:40Z"))
        #expect(value(reader, features[0], "dbh") == .real(11.3))

        var extent = BoundingBox.empty
        for f in features { extent.include(try #require(f.geometry?.envelope)) }
        #expect(abs(extent.minX - -122.611771) < 1e-6 && abs(extent.minY - 45.567252) < 1e-6)
        #expect(abs(extent.maxX - -122.555644) < 1e-6 && abs(extent.maxY - 45.577917) < 1e-6)
    }

    /// `ogr2ogr -oo X_POSSIBLE_NAMES=longitude -oo Y_POSSIBLE_NAMES=latitude` gives 248
    /// features, 5 without geometry (lines 245 to 249: a row of empty cells, then `nan` and
    /// `inf` latitudes and longitudes), and the extent (-175.220564, -41.299988) -
    /// (179.216647, 64.150024).
    @Test(Fixtures.required)
    func readsTippecanoesPlacesWithItsBadCoordinatesReportedByLine() throws {
        let reader = try CSVReader(path: Fixtures.path("tippecanoe-edge/tests/csv/ne_110m_populated_places_simple.csv"))
        #expect(reader.geometrySource == .coordinates(x: "longitude", y: "latitude"))
        #expect(reader.schema.geometryType == .point)
        #expect(reader.schema.crs == nil)
        let features = try readAll(reader)
        #expect(features.count == 248)
        #expect(features.filter { $0.geometry != nil }.count == 243)
        #expect(features.filter { $0.geometry == nil }.map(\.row) == [245, 246, 247, 248, 249])
        #expect(reader.report.count(.badCoordinate) == 5)
        #expect(reader.report.entries[.badCoordinate]?.rows == [245, 246, 247, 248, 249])
        #expect(reader.report.entries[.badCoordinate]?.example == "line 245 has no value in column 'longitude'")

        let vatican = try #require(features.first)
        #expect(vatican.row == 2)
        #expect(value(reader, vatican, "name") == .text("Vatican City"))
        let p = try #require(point(vatican))
        #expect(p.x == 12.4478083889 && p.y == 41.9000122264)
        #expect(value(reader, vatican, "scalerank") == .integer(8))
        #expect(value(reader, vatican, "adm0cap") == .real(1))
        // `nan` and `inf` are not numbers, so the coordinate columns are text here (GDAL says
        // Real and warns); they stay attributes either way.
        #expect(value(reader, vatican, "latitude") == .text("41.90001222640"))

        var extent = BoundingBox.empty
        for f in features { if let e = f.geometry?.envelope { extent.include(e) } }
        #expect(abs(extent.minX - -175.220564) < 1e-6 && abs(extent.minY - -41.299988) < 1e-6)
        #expect(abs(extent.maxX - 179.216647) < 1e-6 && abs(extent.maxY - 64.150024) < 1e-6)
    }

    @Test(Fixtures.required)
    func readsTheSameFeaturesWhateverTheChunkSize() throws {
        let path = Fixtures.path("portland/pdx_street_trees.csv")
        var small = CSVOptions()
        small.chunkSize = 37
        let whole = try CSVReader(path: path)
        let chunked = try CSVReader(path: path, options: small)
        #expect(chunked.schema == whole.schema)
        #expect(try readAll(chunked) == readAll(whole))
    }

    // MARK: Splitting records

    @Test func readsQuotedCellsWithDelimitersQuotesAndLineBreaksAndNumbersRowsByLine() throws {
        let text = "id,name,lon,lat\r\n1,\"Smith, \"\"Bob\"\"\",1,2\r\n2,\"two\nlines\",3,4\r\n3,plain,5,6\r\n"
        for chunkSize in [1 << 20, 5] {
            var options = CSVOptions()
            options.chunkSize = chunkSize
            try withCSV(text, options: options) { reader in
                let features = try readAll(reader)
                #expect(features.map(\.row) == [2, 3, 5])
                #expect(value(reader, features[0], "name") == .text("Smith, \"Bob\""))
                #expect(value(reader, features[1], "name") == .text("two\nlines"))
                #expect(value(reader, features[2], "name") == .text("plain"))
                #expect(point(features[2])! == (5, 6))
                #expect(reader.report.isEmpty)
            }
        }
    }

    /// Outcome of reading a whole file: its features and warnings, or the error.
    private func outcome(_ bytes: [UInt8], chunkSize: Int) -> String {
        var options = CSVOptions()
        options.chunkSize = chunkSize
        do {
            return try withCSV(bytes, options: options) { reader in
                "\(try readAll(reader)) \(reader.report.lines) \(reader.schema)"
            }
        } catch let error as DataError {
            return "\(error.location): \(error.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func readsRandomTextTheSameWayWhateverTheChunkSize() {
        // Records straddling reads must split exactly as they do in one read, however the
        // quotes, line breaks and delimiters fall. A fixed-seed generator keeps failures
        // reproducible.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let pieces = ["1", "-2.5", ",", ",", "\"", "\"\"", "\n", "\r\n", "\r", " ", "x", "POINT(1 2)", "é", "\u{0}"]
        for _ in 0..<150 {
            var text = "lon,lat,name\n"
            for _ in 0..<random(60) { text += pieces[random(pieces.count)] }
            let bytes = Array(text.utf8)
            let whole = outcome(bytes, chunkSize: 1 << 20)
            #expect(outcome(bytes, chunkSize: 16) == whole, "\(text.debugDescription)")
        }
    }

    @Test(arguments: [
        ("a;b;lon;lat\n1;x;1.5;2.5\n", UInt8(ascii: ";")),
        ("a\tb\tlon\tlat\n1\tx\t1.5\t2.5\n", 0x09),
        ("a|b|lon|lat\n1|x|1.5|2.5\n", UInt8(ascii: "|")),
        ("\"a,b\";c;lon;lat\n1;x;1.5;2.5\n", UInt8(ascii: ";")),
    ])
    func detectsTheDelimiterFromTheHeader(text: String, delimiter: UInt8) throws {
        try withCSV(text) { reader in
            #expect(reader.delimiter == delimiter)
            #expect(reader.columns.count == 4)
            let f = try #require(try reader.next())
            #expect(point(f)! == (1.5, 2.5))
        }
    }

    @Test(arguments: ["lon,lat\n1,2\n3,4", "lon,lat\r1,2\r3,4\r", "lon,lat\n1,2\n\n3,4\n\n", "lon,lat\r\n1,2\r\n3,4\r\n"])
    func acceptsAnyLineEndingBlankLinesAndNoFinalLineBreak(text: String) throws {
        try withCSV(text) { reader in
            let features = try readAll(reader)
            #expect(features.count == 2)
            #expect(features.compactMap(point).map(\.x) == [1, 3])
            #expect(features[0].row == 2)
        }
    }

    @Test func fillsShortRowsWithNullsAndDropsExtraCellsNotingEachRowOnce() throws {
        let text = "name,kind,lon,lat\na,b,1,2\nshort,x\nlong,y,3,4,extra,more\n"
        try withCSV(text) { reader in
            let features = try readAll(reader)
            #expect(features.count == 3)
            #expect(features[1].values == [.text("short"), .text("x"), .null, .null])
            #expect(features[1].geometry == nil)
            #expect(features[2].values == [.text("long"), .text("y"), .integer(3), .integer(4)])
            #expect(point(features[2])! == (3, 4))
            #expect(reader.report.entries[.badValue]?.rows == [3, 4])
            #expect(reader.report.entries[.badValue]?.example == "line 3 has 2 cells where the header has 4; the missing ones are null")
            #expect(reader.report.entries[.badCoordinate]?.rows == [3])
        }
    }

    @Test func namesEmptyAndRepeatedHeaders() throws {
        try withCSV("lon,lat,,Name,name,NAME,\n1,2,a,b,c,d,e\n") { reader in
            #expect(reader.columns == ["lon", "lat", "field_3", "Name", "name_2", "NAME_3", "field_7"])
            let f = try #require(try reader.next())
            #expect(value(reader, f, "name_2") == .text("c"))
        }
    }

    @Test func skipsAUTF8ByteOrderMark() throws {
        try withCSV([0xEF, 0xBB, 0xBF] + Array("name,lon,lat\nA,1,2\n".utf8)) { reader in
            #expect(reader.columns == ["name", "lon", "lat"])
            let first = try reader.next()?.values.first
            #expect(first == .text("A"))
        }
    }

    @Test func refusesAQuoteThatNeverClosesNamingItsLine() throws {
        #expect {
            try withCSV("name,lon,lat\nA,1,2\n\"open,3,4\nB,5,6\n") { _ in }
        } throws: { error in
            let e = try #require(error as? DataError)
            return e.kind == .unclosedQuote && e.location == "line 3" && !e.path.isEmpty && e.description.hasPrefix(e.path)
        }
    }

    // MARK: Types

    @Test func infersTypesKeepingIdentifiersWithLeadingZerosAsText() throws {
        let text = """
            zip,phone,count,ratio,sci,day,when,flag,lon,lat,huge,note
            02134,+441234,7,0.5,1e5,2024-02-29,2024-03-01T10:00:00+02:00,true,-71.1,42.3,12345678901234567890,a
            10001,+15550,-12,-.5,2.5E-3,2023-12-31,2024-03-01 23:30,false,-74,40.7,1,NaN
            ,,,,,,,,,,,

            """
        try withCSV(text) { reader in
            let types = reader.schema.fields.map(\.type)
            #expect(
                types == [.text, .text, .integer, .real, .real, .date, .dateTime, .text, .real, .real, .text, .text])
            let features = try readAll(reader)
            #expect(features[0].values[0] == .text("02134"))
            #expect(features[0].values[2] == .integer(7))
            #expect(features[1].values[3] == .real(-0.5))
            #expect(features[0].values[4] == .real(100_000))
            #expect(features[0].values[5] == .text("2024-02-29"))
            // Offsets are applied: stored in UTC; without a zone it stays local time.
            #expect(features[0].values[6] == .text("2024-03-01T08:00:00Z"))
            #expect(features[1].values[6] == .text("2024-03-01T23:30:00"))
            #expect(features[2].values.allSatisfy { $0 == .null })
            #expect(features[1].values[11] == .text("NaN"))
        }
    }

    @Test func readsAQuotedEmptyCellAsAnEmptyStringAndAnEmptyOneAsNull() throws {
        try withCSV("name,lon,lat\n\"\",1,2\n,3,4\n") { reader in
            let features = try readAll(reader)
            #expect(features.map { $0.values[0] } == [.text(""), .null])
        }
    }

    @Test func appliesTypeOverridesNullingCellsThatDoNotFit() throws {
        let text = "zip,active,score,lon,lat\n02134,yes,1.5,1,2\n10001,N,2,3,4\nN/A,maybe,x,5,6\n"
        var options = CSVOptions()
        options.types = ["zip": .integer, "Active": .boolean, "score": .text]
        try withCSV(text, options: options) { reader in
            #expect(reader.schema.fields.map(\.type) == [.integer, .boolean, .text, .integer, .integer])
            let features = try readAll(reader)
            #expect(features.map { $0.values[0] } == [.integer(2134), .integer(10001), .null])
            #expect(features.map { $0.values[1] } == [.integer(1), .integer(0), .null])
            #expect(features.map { $0.values[2] } == [.text("1.5"), .text("2"), .text("x")])
            // One note for the row, naming its first bad cell.
            #expect(reader.report.count(.badValue) == 1)
            #expect(reader.report.entries[.badValue]?.rows == [4])
            #expect(reader.report.entries[.badValue]?.example == "line 4: 'N/A' in column 'zip' is not an integer; it is left null")
            #expect(features[2].geometry != nil)
        }
    }

    @Test func refusesOptionsNamingMissingColumnsListingTheColumns() throws {
        var options = CSVOptions()
        options.types = ["nope": .integer]
        #expect {
            try withCSV("name,lon,lat\nA,1,2\n", options: options) { _ in }
        } throws: { error in
            guard let error = error as? DataError, error.kind == .noSuchColumn else { return false }
            return error.message.contains("'name', 'lon', 'lat'")
        }
    }

    // MARK: Encodings

    @Test func readsLatin1AndWindows1252WhenToldAndNotesInvalidUTF8Otherwise() throws {
        // "name,lon,lat\nCafé – Zoë,1,2\n" with é and ë in Latin-1 and an en dash in 1252.
        let bytes: [UInt8] = Array("name,lon,lat\nCaf".utf8) + [0xE9, 0x20, 0x96, 0x20] + Array("Zo".utf8) + [0xEB] + Array(",1,2\n".utf8)
        var windows = CSVOptions()
        windows.encoding = .windows1252
        try withCSV(bytes, options: windows) { reader in
            let first = try reader.next()?.values.first
            #expect(first == .text("Café – Zoë"))
            #expect(reader.report.isEmpty)
        }
        var latin1 = CSVOptions()
        latin1.encoding = try #require(CSVOptions.Encoding(name: "ISO-8859-1"))
        try withCSV(bytes, options: latin1) { reader in
            let first = try reader.next()?.values.first
            #expect(first == .text("Café \u{96} Zoë"))
        }
        try withCSV(bytes) { reader in
            let first = try reader.next()?.values.first
            #expect(first == .text("Caf\u{FFFD} \u{FFFD} Zo\u{FFFD}"))
            #expect(reader.report.entries[.encoding]?.rows == [2])
            #expect(reader.report.entries[.encoding]?.example.contains("set `encoding:`") == true)
        }
    }

    // MARK: Coordinates

    @Test func reportsMissingAndNonNumericCoordinatesWithTheirLines() throws {
        let text = """
            name,Longitude,Latitude
            ok,-122.5,45.5
            missing,,45.6
            "two
            lines",-122.7,45.7
            letters,abc,45.8
            ok2, -122.9 ,45.9

            """
        try withCSV(text) { reader in
            #expect(reader.geometrySource == .coordinates(x: "Longitude", y: "Latitude"))
            let features = try readAll(reader)
            #expect(features.map(\.row) == [2, 3, 4, 6, 7])
            #expect(features.map { $0.geometry != nil } == [true, false, true, false, true])
            #expect(reader.report.entries[.badCoordinate]?.rows == [3, 6])
            #expect(reader.report.entries[.badCoordinate]?.example == "line 3 has no value in column 'Longitude'")
            #expect(point(features[4])! == (-122.9, 45.9))
            // The coordinate columns stay attributes; "abc" makes Longitude text.
            #expect(value(reader, features[3], "Longitude") == .text("abc"))
        }
        try withCSV("name,x,y\nletters,abc,1\n") { reader in
            _ = try readAll(reader)
            #expect(reader.report.entries[.badCoordinate]?.example == "line 2 has 'abc', not a number, in column 'x'")
        }
    }

    @Test func usesTheCoordinateColumnsTheOptionsName() throws {
        var options = CSVOptions()
        options.x = "E"
        options.y = "N"
        options.crs = CoordinateReferenceSystem(epsg: 2913)
        try withCSV("lon,lat,E,N\n1,2,7600000.5,680000.25\n", options: options) { reader in
            #expect(reader.geometrySource == .coordinates(x: "E", y: "N"))
            #expect(reader.schema.crs?.epsg == 2913)
            let f = try #require(try reader.next())
            #expect(point(f)! == (7_600_000.5, 680_000.25))
        }
    }

    @Test func refusesCoordinateAndGeometryOptionsTogetherOrXWithoutY() throws {
        var both = CSVOptions()
        both.x = "lon"
        both.y = "lat"
        both.geometry = "wkt"
        var xOnly = CSVOptions()
        xOnly.x = "lon"
        for options in [both, xOnly] {
            #expect {
                try withCSV("lon,lat,wkt\n1,2,POINT(1 2)\n", options: options) { _ in }
            } throws: { ($0 as? DataError)?.kind == .invalidOption }
        }
    }

    @Test func refusesAFileWithoutGeometrySayingWhatToSet() throws {
        #expect {
            try withCSV("name,easting_m,northing_m\nA,1,2\n") { _ in }
        } throws: { error in
            guard let error = error as? DataError, error.kind == .noGeometry else { return false }
            return error.message.contains("'name', 'easting_m', 'northing_m'")
        }
    }

    // MARK: Geometry columns

    @Test func promotesAWKTColumnOfPolygonsAndMultiPolygonsToMultiPolygons() throws {
        let text = """
            id,WKT,name
            1,"POLYGON((0 0,1 0,1 1,0 0))",a
            2,"MULTIPOLYGON(((5 5,6 5,6 6,5 5)),((8 8,9 8,9 9,8 8)))",b
            3,,c
            4,"POLYGON((0 0,1 0,1 1))",d

            """
        try withCSV(text) { reader in
            #expect(reader.geometrySource == .column("WKT"))
            #expect(reader.schema.geometryType == .multiPolygon)
            #expect(reader.schema.fields.map(\.name) == ["id", "name"])
            let features = try readAll(reader)
            #expect(features.count == 4)
            #expect(features[0].geometry?.type == .multiPolygon)
            #expect(features[1].geometry?.positionCount == 8)
            #expect(features[2].geometry == nil)
            #expect(features[0].values == [.integer(1), .text("a")])
            // An unclosed ring is closed and noted; an empty cell is a null geometry.
            #expect(features[3].geometry?.positionCount == 4)
            #expect(reader.report.entries[.unclosedRing]?.rows == [5])
            #expect(reader.report.entries[.nullGeometry]?.rows == [4])
        }
    }

    @Test func keepsTheMostCommonFamilyAndDropsTheOthers() throws {
        let text = """
            geom
            POINT(1 2)
            "LINESTRING(0 0,1 1)"
            "MULTIPOINT(3 4,5 6)"
            GEOMETRYCOLLECTION(POINT(7 8))
            "GEOMETRYCOLLECTION(POINT(7 8),LINESTRING(0 0,1 1))"

            """
        try withCSV(text) { reader in
            #expect(reader.schema.geometryType == .multiPoint)
            let features = try readAll(reader)
            #expect(features.map { $0.geometry?.type } == [.multiPoint, nil, .multiPoint, .multiPoint, nil])
            #expect(reader.report.entries[.unsupportedGeometry]?.rows == [3, 6])
            #expect(
                reader.report.entries[.unsupportedGeometry]?.example
                    == "line 3 has a LINESTRING in a layer of MULTIPOINT (the file's most common type)")
        }
    }

    @Test func refusesHostileNestingInACellAndReadsTheOtherRows() throws {
        let hostile = String(repeating: "GEOMETRYCOLLECTION(", count: 50_000) + "POINT(1 2)" + String(repeating: ")", count: 50_000)
        let text = "id,geometry\n1,POINT(1 2)\n2,\(hostile)\n3,POINT(3 4)\n"
        try withCSV(text) { reader in
            let features = try readAll(reader)
            #expect(features.map { $0.geometry != nil } == [true, false, true])
            #expect(reader.report.entries[.invalidGeometry]?.rows == [3])
            #expect(reader.report.entries[.invalidGeometry]?.example.contains("nested deeper than 32") == true)
        }
    }

    @Test func findsAGeometryColumnByItsContentAndTakesTheCRSFromEWKB() throws {
        // SELECT ST_AsEWKB('SRID=4326;POINT(-122.6 45.5)'), as in WKBTests.
        let ewkb = "0101000020E61000006666666666A65EC00000000000C04640"
        let text = "name,footprint\nA,\(ewkb)\nB,\\x\(ewkb.lowercased())\nC,SRID=4326;POINT(1 2)\n"
        try withCSV(text) { reader in
            #expect(reader.geometrySource == .column("footprint"))
            #expect(reader.schema.crs == .wgs84)
            let features = try readAll(reader)
            #expect(features.compactMap(point).map(\.x) == [-122.6, -122.6, 1])
        }
        var options = CSVOptions()
        options.crs = .webMercator
        try withCSV(text, options: options) { reader in
            #expect(reader.schema.crs == .webMercator)
        }
    }

    @Test func notesUnreadableAndDifferentlyReferencedGeometries() throws {
        let text = "wkt\nSRID=4326;POINT(1 2)\nPOINT(1 2\nSRID=3857;POINT(100 200)\nPOINT EMPTY\nPOINT(3 4)\n"
        try withCSV(text) { reader in
            #expect(reader.schema.crs == .wgs84)
            let features = try readAll(reader)
            #expect(features.map { $0.geometry != nil } == [true, false, false, false, true])
            #expect(reader.report.entries[.invalidGeometry]?.rows == [3, 4])
            #expect(
                reader.report.entries[.invalidGeometry]?.example
                    == "line 3, column 'wkt': WKT at character 9: expected ')', found end of text")
            #expect(reader.report.entries[.emptyGeometry]?.rows == [5])
        }
    }

    @Test func keepsZWhenAnyRowHasIt() throws {
        try withCSV("geom\nPOINT Z (1 2 3)\nPOINT(4 5)\n") { reader in
            #expect(reader.schema.hasZ)
            let features = try readAll(reader)
            #expect(features.allSatisfy { $0.geometry?.hasZ == true })
            #expect(features[1].geometry?.shape == .point(Position(x: 4, y: 5, z: 0)))
        }
    }
}
