import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing

/// End-to-end: `mapbook tiles decode` on mvt-fixtures tiles.
@Suite(Fixtures.required) struct TilesCommandTests {
    let allTypes = Fixtures.path("mvt-fixtures/fixtures/038/tile.mvt")
    let norway = Fixtures.path("mvt-fixtures/real-world/norway/12-2167-1070.mvt")

    /// A gzip member made here from zlib's raw deflate, not by the code under test.
    func gzip(_ bytes: [UInt8]) -> [UInt8] {
        let crc = RawZip.crc32(bytes), size = UInt32(bytes.count)
        let trailer = [crc, size].flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }
        return [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + RawZip.deflate(bytes) + trailer
    }

    @Test func decodePrintsLayersFeaturesAndTypedAttributes() throws {
        let plain = try MapbookBinary.run(["tiles", "decode", allTypes])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.isEmpty)
        for expected in ["1 layer, 173 bytes", "Layer \"hello\"  version 2, extent 4096, 1 feature, 7 keys, 7 values",
            "#0  id 1  point: 1 point at (25, 17)", "string_value = \"ello\"", "float_value = 3.1 (float)", "sint_value = -87948 (sint)", "bool_value = true"] {
            #expect(plain.stdout.contains(expected), "missing '\(expected)' in:\n\(plain.stdout)")
        }

        let json = try MapbookBinary.run(["tiles", "decode", "--json", allTypes])
        #expect(json.status == 0, "\(json.stderr)")
        let root = try #require(JSONParser.parse(json.stdout).objectValue)
        #expect(root.string("type") == "FeatureCollection")
        let layer = try #require(root.array("features")?.first?.objectValue)
        #expect(layer.object("properties")?.string("layer") == "hello")
        #expect(layer.object("properties")?.int("extent") == 4096)
        let feature = try #require(layer.array("features")?.first?.objectValue)
        #expect(feature.int("id") == 1)
        #expect(feature.object("properties")?["float_value"]?.doubleValue == 3.1)
        #expect(feature.object("properties")?["uint_value"]?.intValue == 87948)
        #expect(feature.object("geometry")?["coordinates"] == [25, 17])
    }

    @Test func decodeGivesLongitudeAndLatitudeForATileAddressGzippedOrNot() throws {
        try withTemporaryDirectory { dir in
            let zipped = dir + "/1070.pbf"
            try writeFile(zipped, gzip(readFile(norway)))
            let result = try MapbookBinary.run(["tiles", "decode", "--json", "--tile", "12/2167/1070", zipped])
            #expect(result.status == 0, "\(result.stderr)")
            let root = try #require(JSONParser.parse(result.stdout).objectValue)
            #expect(root.object("properties")?.int("zoom") == 12)
            #expect(root.object("properties")?["compressed"]?.boolValue == true)
            let water = try #require(root.array("features")?.first?.objectValue)
            #expect(water.object("properties")?.string("layer") == "water")
            let polygon = try #require(water.array("features")?.first?.objectValue?.object("geometry"))
            #expect(polygon.string("type") == "Polygon")
            // The first vertex as tippecanoe-decode prints it: 10.541790, 64.810388.
            let first = try #require(polygon.array("coordinates")?.first?.arrayValue?.first?.arrayValue)
            #expect(abs((first[0].doubleValue ?? 0) - 10.541790) < 1e-6)
            #expect(abs((first[1].doubleValue ?? 0) - 64.810388) < 1e-6)
        }
    }

    @Test func badTilesAndBadFeatures() throws {
        try withTemporaryDirectory { dir in
            try writeFile(dir + "/junk.mvt", [0x1A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
            let junk = try MapbookBinary.run(["tiles", "decode", dir + "/junk.mvt"])
            #expect(junk.status == 1)
            #expect(junk.stderr.contains("junk.mvt: not valid protobuf at byte 1: a varint is longer than 10 bytes"), "\(junk.stderr)")
            #expect(junk.stdout.isEmpty)
        }
        // Fixture 057's only feature claims half a billion points: the tile breaks the
        // specification, exit 1 naming the tile, layer and feature; --lenient prints what can
        // be read and leaves the feature out with a warning.
        let path = Fixtures.path("mvt-fixtures/fixtures/057/tile.mvt")
        let giant = try MapbookBinary.run(["tiles", "decode", path])
        #expect(giant.status == 1 && giant.stdout.isEmpty)
        #expect(giant.stderr.contains("error: \(path): layer 'hello' feature 0 (id 1): MoveTo count 536870911 runs past the end of the geometry"), "\(giant.stderr)")
        let lenient = try MapbookBinary.run(["tiles", "decode", "--lenient", path])
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("0 features"))
        #expect(lenient.stderr.contains("warning: ") && lenient.stderr.contains("layer 'hello' feature 0 (id 1): MoveTo count 536870911"), "\(lenient.stderr)")
        // Fixture 016: a feature of type UNKNOWN with a geometry.
        let unknown = try MapbookBinary.run(["tiles", "decode", Fixtures.path("mvt-fixtures/fixtures/016/tile.mvt")])
        #expect(unknown.status == 1 && unknown.stderr.contains("layer 'hello' feature 0"), "\(unknown.stderr)")
        let usage = try MapbookBinary.run(["tiles", "decode", "--tile", "3/9/1", allTypes])
        #expect(usage.status == 64)
    }
}
