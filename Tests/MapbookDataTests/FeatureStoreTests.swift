import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookData

@Suite struct FeatureStoreTests {
    static let countries = "natural-earth/110m/ne_110m_admin_0_countries.json"

    /// Imports `source` into a fresh data.gpkg in `dir`; returns the summary.
    func importInto(_ dir: String, reader: FeatureReader, table: String, extent: BoundingBox? = nil) throws -> LayerImporter.Summary {
        let writer = try GeoPackageWriter(path: dir + "/data.gpkg", crs: .webMercator, timestamp: 1_700_000_000)
        let summary = try LayerImporter(target: .webMercator, extent: extent)
            .run(reader, table: table, writer: writer, identifier: table, description: "test", aliases: ["NAME": "Country name"], metadata: "{\"renderer\":null}")
        try writer.close()
        return summary
    }

    @Test(Fixtures.required, ExternalTools.validatorRequired, ExternalTools.ogrinfoRequired)
    func naturalEarthCountriesBecomeAValidGeoPackageThatGDALReadsAlike() throws {
        try withTemporaryDirectory { dir in
            let reader = try GeoJSONReader(path: Fixtures.path(Self.countries))
            let summary = try importInto(dir, reader: reader, table: "countries")
            #expect(summary.kept == 177)
            #expect(try ExternalTools.validateGeoPackage(dir + "/data.gpkg") == "")
            let ours = try ExternalTools.ogrLayerInfo(dir + "/data.gpkg", layer: "countries")
            let theirs = try ExternalTools.ogrLayerInfo(Fixtures.path(Self.countries), layer: "ne_110m_admin_0_countries")
            #expect(ours.featureCount == theirs.featureCount)
            #expect(ours.fields == theirs.fields)
            // GDAL calls a GeoJSON mixing Polygon and MultiPolygon "Unknown (any)"; we store
            // the one type both fit in.
            #expect(ours.geometry == "Multi Polygon")
            // Antarctica reaches -90°: kept, at the edge of Web Mercator, and said so.
            #expect(summary.report.count(.clampedLatitude) >= 1)
        }
    }

    @Test(Fixtures.required)
    func theStoreReadsBackInPlaceWithAliasesMetadataAndAnRTree() throws {
        try withTemporaryDirectory { dir in
            let summary = try importInto(dir, reader: try GeoJSONReader(path: Fixtures.path(Self.countries)), table: "countries")
            let back = try GeoPackageReader(path: dir + "/data.gpkg")
            #expect(back.schema.geometryType == .multiPolygon)
            #expect(back.schema.crs?.epsg == 3857)
            #expect(back.aliases["NAME"] == "Country name")
            var count = 0
            while try back.next() != nil { count += 1 }
            #expect(count == summary.kept)
            let db = try SQLiteDatabase(readOnlyPath: dir + "/data.gpkg")
            #expect(try db.scalar("SELECT count(*) FROM rtree_countries_geom")?.int64 == Int64(summary.kept))
            #expect(try db.scalar("SELECT metadata FROM gpkg_metadata")?.text == "{\"renderer\":null}")
            // The R-tree answers a window query: features around Paris.
            let x = 2.35 * 20037508.34 / 180
            let hits = try db.query("SELECT c.NAME FROM countries c JOIN rtree_countries_geom r ON r.id = c.fid WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= 6300000 AND r.maxy >= 6200000", [.real(x), .real(x)])
            #expect(hits.contains { $0[0].text == "France" })
        }
    }

    @Test(Fixtures.required)
    func aProjectExtentCutsGeometriesAtItsEdge() throws {
        try withTemporaryDirectory { dir in
            // A box over central Europe cuts France, Germany and their neighbours.
            let box = BoundingBox(minX: 0, minY: 45, maxX: 10, maxY: 50)
            let summary = try importInto(dir, reader: try GeoJSONReader(path: Fixtures.path(Self.countries)), table: "europe", extent: box)
            #expect(summary.kept > 3 && summary.kept < 15)
            #expect(summary.report.count(.clipped) == summary.kept)
            #expect(summary.report.count(.outsideExtent) == 177 - summary.kept)
            let limit = 10 * 20037508.34 / 180 + 0.01
            let e = try #require(summary.extent)
            #expect(e.maxX <= limit && e.minX >= -0.01)
        }
    }

    @Test(Fixtures.required)
    func antimeridianCrossingPolygonsAreSplitNotSmearedAcrossTheWorld() throws {
        try withTemporaryDirectory { dir in
            for input in ["tippecanoe-edge/tests/dateline/in.json", "tippecanoe-edge/tests/wraparound/in.json"] {
                let summary = try importInto(dir, reader: try GeoJSONReader(path: Fixtures.path(input)), table: "t")
                try? FileManager.default.removeItem(atPath: dir + "/data.gpkg")
                let back = summary.extent!
                #expect(back.minX >= -20037508.35 && back.maxX <= 20037508.35, "\(input)")
                #expect(summary.report.count(.coercedValue) > 0, "\(input): \(summary.report.lines)")
            }
            // The wraparound polygons are Aleutian islands: none may span more than a few degrees.
            let reader = try GeoJSONReader(path: Fixtures.path("tippecanoe-edge/tests/wraparound/in.json"))
            let writer = try GeoPackageWriter(path: dir + "/w.gpkg", crs: .webMercator, timestamp: 0)
            _ = try LayerImporter(target: .webMercator).run(reader, table: "w", writer: writer, identifier: "w", description: "")
            try writer.close()
            let store = try GeoPackageReader(path: dir + "/w.gpkg")
            while let f = try store.next() {
                guard case .multiPolygon(let parts) = f.geometry?.shape else { continue }
                for part in parts {
                    let e = Geometry(.polygon(part)).envelope!
                    #expect(e.width < 20 * 20037508.34 / 180, "row \(f.row) spans \(e.width / 111_319.49)°")
                }
            }
        }
    }

    @Test func impossibleDegreesDropTheirRowInsteadOfMovingItAcrossTheWorld() throws {
        try withTemporaryDirectory { dir in
            // Row 3's longitude was typed -200; row 4 has latitude and longitude swapped.
            try writeFile(dir + "/trees.csv", Array("id,lon,lat\n1,-122.61,45.57\n2,-200,45.57\n3,45.56,-122.6\n4,-122.56,45.58\n".utf8))
            let summary = try importInto(dir, reader: try CSVReader(path: dir + "/trees.csv"), table: "trees")
            #expect(summary.kept == 2)
            #expect(summary.report.count(.badCoordinate) == 2)
            #expect(summary.report.count(.coercedValue) == 0)
            // Both rows are named (by line), with the first one's reason.
            #expect(summary.report.lines.contains { $0.contains("rows 3, 4") && $0.contains("-200") }, "\(summary.report.lines)")
            // The extent stays around Portland instead of spanning the world.
            let e = try #require(summary.extent)
            #expect(e.width < 10_000)
        }
    }

    @Test(Fixtures.required)
    func aShapefileWithoutPrjSaysWhichCoordinateSystemWasAssumed() throws {
        try withTemporaryDirectory { dir in
            let summary = try importInto(dir, reader: try ShapefileReader(path: Fixtures.path("pyshp/blockgroups.shp")), table: "bg")
            #expect(summary.kept == 663)
            #expect(summary.warnings.count == 1 && summary.warnings[0].contains(".prj"), "\(summary.warnings)")
        }
    }

    @Test func aCSVWithoutACoordinateSystemSaysWhichWasAssumed() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/p.csv", "lon,lat\n5,45\n")
            let csv = try importInto(dir, reader: try CSVReader(path: dir + "/p.csv"), table: "p")
            #expect(csv.warnings.count == 1)
            try? FileManager.default.removeItem(atPath: dir + "/data.gpkg")
            let given = try importInto(dir, reader: try CSVReader(path: dir + "/p.csv", options: CSVOptions(crs: .wgs84)), table: "p")
            #expect(given.warnings.isEmpty)
        }
    }

    @Test(Fixtures.required)
    func antarcticaClosingAlongTheSouthPoleIsNotTakenForAWrap() throws {
        // Natural Earth closes Antarctica's ring along the pole from +180 to -180: an edge on
        // the antimeridian, not a crossing. Splitting it would turn the continent inside out.
        let reader = try GeoJSONReader(path: Fixtures.path("natural-earth/110m/ne_110m_admin_0_countries.json"))
        let nameField = try #require(reader.schema.fieldIndex("NAME"))
        var found = false
        while let f = try reader.next() {
            guard case .text("Antarctica") = f.values[nameField], let g = f.geometry else { continue }
            found = true
            let (normalized, changed) = Antimeridian.normalize(g)
            #expect(!changed)
            #expect(normalized == g)
        }
        #expect(found)
    }

    @Test(Fixtures.required)
    func readsGeoPackagesFromOtherImplementations() throws {
        let reader = try GeoPackageReader(path: Fixtures.path("pyogrio/test_gpkg_nulls.gpkg"))
        var rows = 0
        while try reader.next() != nil { rows += 1 }
        #expect(rows > 0)
        // Curves are not Simple Features: reported and dropped, never a crash.
        let curves = try GeoPackageReader(path: Fixtures.path("pyogrio/curvepolygon.gpkg"))
        while try curves.next() != nil {}
        #expect(curves.report.count(.unsupportedGeometry) > 0)
        let tables = try GeoPackageReader.tables(in: Fixtures.path("ngageoint-gpkg/import_db.gpkg"))
        #expect(!tables.isEmpty)
    }

    @Test(Fixtures.required)
    func aCorruptGeoPackageFailsWithAClearMessage() throws {
        #expect {
            _ = try GeoPackageReader(path: Fixtures.path("ngageoint-gpkg/import_db_corrupt.gpkg"))
        } throws: { error in
            guard let error = error as? DataError else { return false }
            switch error.kind {
            case .damaged, .sqlite(.corrupt), .sqlite(.notADatabase): return String(describing: error).contains("import_db_corrupt.gpkg")
            default: return false
            }
        }
    }
}
