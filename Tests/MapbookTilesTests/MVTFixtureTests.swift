import Foundation
import MapbookSupport
import MapbookTestSupport
import Testing
@testable import MapbookTiles

/// mapbox/mvt-fixtures (../shared/fixtures/mvt-fixtures): every valid fixture decodes to its
/// tile.json and survives a re-encode; every invalid one present is refused or loses its bad
/// feature; the real-world tiles decode, geometry and all. Invalid fixtures the shared copy
/// leaves out are rebuilt byte for byte in `MVTMalformedTileTests`, one test per defect.
@Suite(Fixtures.required) struct MVTFixtureTests {
    static let root = Fixtures.path("mvt-fixtures")

    struct Fixture: CustomTestStringConvertible, Sendable {
        var name: String
        var path: String
        var validV2: Bool
        var testDescription: String { name }
    }

    static let fixtures: [Fixture] = {
        guard Fixtures.available else { return [] }
        let dir = root + "/fixtures"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return names.sorted().compactMap { name in
            guard let info = try? JSONParser.parse(readFile("\(dir)/\(name)/info.json")).objectValue else { return nil }
            let valid = info.object("validity")?["v2"]?.boolValue ?? false
            return Fixture(name: name, path: "\(dir)/\(name)", validV2: valid)
        }
    }()

    static var valid: [Fixture] { fixtures.filter(\.validV2) }
    static var invalid: [Fixture] { fixtures.filter { !$0.validV2 } }

    /// Decodes without geometry checks: tile.json holds the raw commands, even bad ones (057).
    static func decodeRaw(_ bytes: [UInt8], source: String) throws(MVTError) -> VectorTile.Decoded {
        try VectorTileDecoder(checksGeometry: false).decode(bytes, source: source)
    }

    @Test func theSharedCopyHoldsTheValidFixtures() {
        #expect(Self.valid.count >= 40, "found \(Self.valid.count) valid fixtures in \(Self.root)")
    }

    @Test(arguments: valid)
    func validFixtureDecodesToItsJSON(_ fixture: Fixture) throws {
        let decoded = try Self.decodeRaw(readFile(fixture.path + "/tile.mvt"), source: fixture.name)
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
        let expected = try JSONParser.parse(readFile(fixture.path + "/tile.json"))
        try Self.expect(decoded.tile, matches: expected, fixture: fixture.name)
    }

    @Test(arguments: valid)
    func validFixtureReencodesToTheSameTile(_ fixture: Fixture) throws {
        let tile = try Self.decodeRaw(readFile(fixture.path + "/tile.mvt"), source: fixture.name).tile
        let again = try Self.decodeRaw(tile.encoded(), source: fixture.name + " re-encoded")
        #expect(again.tile == tile)
        #expect(again.warnings.isEmpty)
        // And gzipped, through the auto-detection.
        let zipped = try VectorTileDecoder(checksGeometry: false).decode(Gzip.compress(tile.encoded()), source: fixture.name + ".gz")
        #expect(zipped.wasCompressed && zipped.tile == tile)
    }

    // The shared copy of mvt-fixtures may hold only the valid fixtures; the invalid ones are
    // rebuilt in code in MVTMalformedTileTests. Skipped, with that reason, when there are none.
    @Test(
        .enabled(if: !invalid.isEmpty, "the shared mvt-fixtures copy has no invalid fixtures; MVTMalformedTileTests rebuilds them in code"),
        arguments: invalid)
    func invalidFixtureIsRefusedOrLosesItsBadFeature(_ fixture: Fixture) throws {
        let bytes = try readFile(fixture.path + "/tile.mvt")
        do {
            let decoded = try VectorTileDecoder().decode(bytes, source: fixture.name)
            #expect(!decoded.warnings.isEmpty, "\(fixture.name) decoded without a warning")
        } catch {
            #expect(error.source == fixture.name)
        }
    }

    // MARK: geometry of the valid fixtures (vtzero's fixture_tests.cpp expectations)

    static func geometry(_ name: String) throws -> TileGeometry {
        let tile = try decodeRaw(readFile(root + "/fixtures/\(name)/tile.mvt"), source: name).tile
        return try tile.layers[0].features[0].decodeGeometry()
    }

    @Test func fixture017DecodesAPoint() throws {
        #expect(try Self.geometry("017") == .points([TilePoint(25, 17)]))
    }

    @Test func fixture018DecodesALineString() throws {
        #expect(try Self.geometry("018") == .lines([[TilePoint(2, 2), TilePoint(2, 10), TilePoint(10, 10)]]))
    }

    @Test func fixture019DecodesAPolygon() throws {
        #expect(try Self.geometry("019") == .polygons([[[TilePoint(3, 6), TilePoint(8, 12), TilePoint(20, 34)]]]))
    }

    @Test func fixture020DecodesAMultiPoint() throws {
        #expect(try Self.geometry("020") == .points([TilePoint(5, 7), TilePoint(3, 2)]))
    }

    @Test func fixture021DecodesAMultiLineString() throws {
        #expect(try Self.geometry("021") == .lines([[TilePoint(2, 2), TilePoint(2, 10), TilePoint(10, 10)], [TilePoint(1, 1), TilePoint(3, 5)]]))
    }

    @Test func fixture022DecodesAMultiPolygonWithAHole() throws {
        let square = [TilePoint(0, 0), TilePoint(10, 0), TilePoint(10, 10), TilePoint(0, 10)]
        let second = [TilePoint(11, 11), TilePoint(20, 11), TilePoint(20, 20), TilePoint(11, 20)]
        let hole = [TilePoint(13, 13), TilePoint(13, 17), TilePoint(17, 17), TilePoint(17, 13)]
        #expect(try Self.geometry("022") == .polygons([[square], [second, hole]]))
    }

    @Test func fixtures049And050WrapCoordinatesAt32Bits() throws {
        #expect(try Self.geometry("049") == .lines([[TilePoint(Int32.max, 0), TilePoint(Int32.min, 1)]]))
        #expect(try Self.geometry("050") == .lines([[TilePoint(0, Int32.min), TilePoint(-1, Int32.max)]]))
    }

    @Test func fixture053To056ClippedSquaresAreExteriorRings() throws {
        for name in ["053", "054", "055", "056"] {
            guard case .polygons(let polygons) = try Self.geometry(name) else {
                Issue.record("\(name) is not a polygon")
                continue
            }
            #expect(polygons.count == 1 && polygons[0].count == 1, "\(name)")
            #expect(TileGeometry.ringArea(polygons[0][0]) > 0, "\(name)")
        }
    }

    @Test func fixture057GiganticMoveToIsRefusedWithoutAllocating() throws {
        let error = #expect(throws: MVTError.self) { try Self.geometry("057") }
        #expect(error?.kind == .invalidGeometry)
        // With geometry checks on (the default) the decoder skips the feature and says why.
        let decoded = try VectorTileDecoder().decode(readFile(Self.root + "/fixtures/057/tile.mvt"), source: "057/tile.mvt")
        #expect(decoded.tile.layers[0].features.isEmpty)
        #expect(decoded.warnings.map(\.kind) == [.invalidGeometry])
        #expect(decoded.warnings.first?.description.hasPrefix("057/tile.mvt: layer 'hello' feature 0 (id 1): ") == true)
    }

    /// 016 is a feature of type UNKNOWN with a point's geometry ("Encoders/decoders can choose
    /// to use or throw on this geometry type"); 039 encodes every default explicitly, its
    /// feature's type UNKNOWN (0) among them. MVT 4.3.4 gives UNKNOWN no encoding: skipped.
    @Test(arguments: ["016", "039"])
    func unknownTypeWithAGeometryIsSkippedWhenChecked(_ name: String) throws {
        let decoded = try VectorTileDecoder().decode(readFile(Self.root + "/fixtures/\(name)/tile.mvt"), source: "\(name)/tile.mvt")
        #expect(decoded.tile.layers[0].features.isEmpty)
        #expect(decoded.warnings.map(\.kind) == [.unknownGeometryType])
        #expect(decoded.warnings.first?.description.hasPrefix("\(name)/tile.mvt: layer 'hello' feature 0") == true, "\(decoded.warnings)")
    }

    @Test func everyOtherValidFixtureHasDecodableGeometry() throws {
        for fixture in Self.valid where !["016", "039", "057"].contains(fixture.name) {
            let decoded = try VectorTileDecoder().decode(readFile(fixture.path + "/tile.mvt"), source: fixture.name)
            #expect(decoded.warnings.isEmpty, "\(fixture.name): \(decoded.warnings)")
        }
    }

    // MARK: real-world tiles

    static var realWorldTiles: [String] {
        guard Fixtures.available else { return [] }
        return ["norway", "uruguay", "compressed", "chicago", "sanfrancisco"].flatMap { area -> [String] in
            let dir = root + "/real-world/" + area
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            return names.sorted().map { "\(dir)/\($0)" }
        }
    }

    @Test func realWorldTilesDecodeWithValidGeometry() throws {
        let paths = Self.realWorldTiles
        #expect(paths.count >= 40, "found \(paths.count) real-world tiles")
        var features = 0
        for path in paths {
            let bytes = try readFile(path)
            let decoded = try VectorTileDecoder().decode(bytes, source: path)
            #expect(decoded.warnings.isEmpty, "\(decoded.warnings.prefix(3))")
            let raw = try Self.decodeRaw(bytes, source: path).tile
            #expect(decoded.tile == raw, "geometry checks dropped features of \(path)")
            for layer in decoded.tile.layers {
                #expect(layer.version == 2 && layer.extent == 4096)
                for feature in layer.features where feature.type != .unknown {
                    let geometry = try feature.decodeGeometry()
                    #expect(geometry.type == feature.type)
                    features += 1
                }
            }
        }
        #expect(features > 5000)
    }

    @Test func realWorldTilesRoundTripGzippedOrNot() throws {
        for path in Self.realWorldTiles {
            let bytes = try readFile(path)
            let tile = try VectorTileDecoder().decode(bytes, source: path).tile
            let plain = tile.encoded()
            // Our encoding of a real tile is as compact as the original's, field for field.
            let original = Gzip.hasMagic(bytes) ? try Gzip.decompress(bytes, source: path) : bytes
            #expect(plain.count <= original.count, "\(path): \(plain.count) > \(original.count)")
            for input in [plain, Gzip.compress(plain)] {
                let again = try VectorTileDecoder().decode(input, source: path)
                #expect(again.tile == tile)
                #expect(again.wasCompressed == Gzip.hasMagic(input))
            }
        }
    }

    @Test func everyPrefixOfARealTileIsRefusedOrEndsBetweenLayers() throws {
        let path = Self.root + "/real-world/norway/12-2167-1071.mvt"
        let bytes = try readFile(path)
        let whole = try VectorTileDecoder().decode(bytes, source: path).tile
        var refused = 0
        for length in 0..<bytes.count {
            do {
                // A cut that falls between two layers leaves a shorter, valid tile.
                let layers = try VectorTileDecoder().decode(Array(bytes[..<length]), source: "prefix").tile.layers
                #expect(layers == Array(whole.layers.prefix(layers.count)), "prefix of \(length) bytes")
            } catch {
                refused += 1
            }
        }
        #expect(refused >= bytes.count - whole.layers.count)
        // Gzipped, every cut is refused: the gzip trailer is missing.
        let zipped = Gzip.compress(bytes)
        for length in 1..<zipped.count {
            #expect(throws: MVTError.self) { try VectorTileDecoder().decode(Array(zipped[..<length]), source: "prefix.gz") }
        }
    }

    @Test func reencodingFeaturesFromTheirGeometryGivesTheSameGeometry() throws {
        for path in Self.realWorldTiles.prefix(12) {
            let tile = try VectorTileDecoder().decode(readFile(path), source: path).tile
            for layer in tile.layers {
                for feature in layer.features where feature.type != .unknown {
                    let geometry = try feature.decodeGeometry()
                    let rebuilt = VectorTile.Feature(id: feature.id, tags: feature.tags, geometry: geometry)
                    #expect(try rebuilt.decodeGeometry() == geometry, "\(path) layer \(layer.name)")
                    #expect(rebuilt.geometry.count <= feature.geometry.count)
                }
            }
        }
    }

    // MARK: tile.json comparison

    static func expect(_ tile: VectorTile, matches json: JSONValue, fixture: String) throws {
        let layers = json.objectValue?.array("layers") ?? []
        try #require(tile.layers.count == layers.count, "\(fixture): \(tile.layers.count) layers, tile.json has \(layers.count)")
        for (layer, expected) in zip(tile.layers, layers.compactMap(\.objectValue)) {
            #expect(layer.name == expected.string("name"), "\(fixture)")
            #expect(Int(layer.version) == expected.int("version"), "\(fixture)")
            #expect(Int(layer.extent) == (expected.int("extent") ?? 4096), "\(fixture)")
            #expect(layer.keys == (expected.array("keys") ?? []).compactMap(\.stringValue), "\(fixture)")
            let values = (expected.array("values") ?? []).compactMap(\.objectValue)
            #expect(layer.values.count == values.count, "\(fixture)")
            for (value, expectedValue) in zip(layer.values, values) {
                #expect(matches(value, expectedValue), "\(fixture): \(value) vs \(expectedValue)")
            }
            let features = (expected.array("features") ?? []).compactMap(\.objectValue)
            #expect(layer.features.count == features.count, "\(fixture)")
            for (feature, expectedFeature) in zip(layer.features, features) {
                #expect(feature.id == expectedFeature["id"]?.int64Value.map { UInt64($0) }, "\(fixture)")
                #expect(feature.tags == (expectedFeature.array("tags") ?? []).compactMap { $0.int64Value.map { UInt32($0) } }, "\(fixture)")
                #expect(Int(feature.type.rawValue) == expectedFeature.int("type"), "\(fixture)")
                #expect(feature.geometry == (expectedFeature.array("geometry") ?? []).compactMap { $0.int64Value.map { UInt32($0) } }, "\(fixture)")
            }
        }
    }

    static func matches(_ value: VectorTile.Value, _ json: JSONObject) -> Bool {
        guard json.count == 1, let (key, v) = json.entries.first else { return false }
        switch (value, key) {
        // Fixture 076's tile.json has a number where its tile holds the string "613".
        case (.string(let s), "string_value"): return v.stringValue == s || v.int64Value.map(String.init) == s
        case (.float(let f), "float_value"): return v.doubleValue.map(Float.init) == f
        case (.double(let d), "double_value"): return v.doubleValue == d
        case (.int(let i), "int_value"), (.sint(let i), "sint_value"): return v.int64Value == i
        case (.uint(let u), "uint_value"): return v.int64Value.map { UInt64($0) } == u
        case (.bool(let b), "bool_value"): return v.boolValue == b
        default: return false
        }
    }
}
