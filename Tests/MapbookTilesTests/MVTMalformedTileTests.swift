import MapbookTestSupport
import Testing
@testable import MapbookTiles

/// Protobuf pieces for tiles made by hand, wrong on purpose.
enum Wire {
    static func varint(_ value: UInt64) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.appendVarint(value)
        return writer.bytes
    }

    static func key(_ field: UInt32, _ wireType: UInt8) -> [UInt8] { varint(UInt64(field) << 3 | UInt64(wireType)) }
    static func field(_ field: UInt32, varint value: UInt64) -> [UInt8] { key(field, 0) + varint(value) }
    static func field(_ field: UInt32, bytes: [UInt8]) -> [UInt8] { key(field, 2) + varint(UInt64(bytes.count)) + bytes }
    static func field(_ field: UInt32, string: String) -> [UInt8] { self.field(field, bytes: Array(string.utf8)) }
    static func packed(_ field: UInt32, _ values: [UInt32]) -> [UInt8] { self.field(field, bytes: values.flatMap { varint(UInt64($0)) }) }

    static func feature(id: UInt64? = 1, tags: [UInt32]? = nil, type: UInt64? = 1, geometry: [UInt32]? = [9, 50, 34], extra: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        if let id { bytes += field(1, varint: id) }
        if let tags { bytes += packed(2, tags) }
        if let type { bytes += field(3, varint: type) }
        if let geometry { bytes += packed(4, geometry) }
        return bytes + extra
    }

    static func layer(name: String? = "hello", version: UInt64? = 2, extent: UInt64? = 4096, features: [[UInt8]] = [feature()], keys: [String] = [], values: [[UInt8]] = [], extra: [UInt8] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        if let version { bytes += field(15, varint: version) }
        if let name { bytes += field(1, string: name) }
        for f in features { bytes += field(2, bytes: f) }
        for k in keys { bytes += field(3, string: k) }
        for v in values { bytes += field(4, bytes: v) }
        if let extent { bytes += field(5, varint: extent) }
        return bytes + extra
    }

    static func tile(_ layers: [UInt8]...) -> [UInt8] { layers.flatMap { field(3, bytes: $0) } }

    static func string(_ s: String) -> [UInt8] { field(1, string: s) }
}

/// Tiles that break MVT one way each, named after the defect (the invalid mvt-fixtures, which
/// the shared copy leaves out, rebuilt here with their numbers, and hostile inputs of our own).
/// Each is refused with an error naming the tile and the problem, or loses exactly its bad
/// feature with a warning; none crashes, hangs or allocates by a size it claims.
@Suite struct MVTMalformedTileTests {
    let decoder = VectorTileDecoder()

    func refusal(_ bytes: [UInt8], source: String = "bad.mvt") -> String? {
        do {
            _ = try decoder.decode(bytes, source: source)
            return nil
        } catch {
            #expect(error.source == source)
            return error.description
        }
    }

    /// The one warning for a tile whose only feature is bad; the layer must survive, empty.
    func skippedFeature(_ bytes: [UInt8]) throws -> String? {
        let decoded = try decoder.decode(bytes, source: "bad.mvt")
        #expect(decoded.tile.layers.count == 1)
        #expect(decoded.tile.layers.first?.features.isEmpty == true)
        #expect(decoded.warnings.count == 1)
        return decoded.warnings.first?.description
    }

    // MARK: features skipped with a warning (recoverable)

    @Test func fixture003FeatureWithoutTypeIsKeptAsUnknown() throws {
        // The same bytes as the valid fixture 016: protobuf leaves the default UNKNOWN out.
        let decoded = try decoder.decode(Wire.tile(Wire.layer(features: [Wire.feature(type: nil)])), source: "t.mvt")
        #expect(decoded.tile.layers[0].features.map(\.type) == [.unknown])
        #expect(decoded.warnings.isEmpty)
    }

    @Test func fixture004FeatureWithoutGeometryIsSkipped() throws {
        #expect(try skippedFeature(Wire.tile(Wire.layer(features: [Wire.feature(geometry: nil)])))?.hasSuffix("it has no geometry field (MVT 4.2: a feature MUST have one)") == true)
    }

    @Test func fixture005OddNumberOfTagsIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(tags: [0])], keys: ["a"], values: [Wire.string("b")]))
        #expect(try skippedFeature(tile)?.hasSuffix("it has 1 tags; tags come in key-value pairs") == true)
    }

    @Test func fixture006UnknownGeometryTypeEnumIsSkipped() throws {
        #expect(try skippedFeature(Wire.tile(Wire.layer(features: [Wire.feature(type: 8)])))?.contains("its geometry type 8 is not") == true)
    }

    @Test func fixture030TwoGeometryFieldsAreSkipped() throws {
        let feature = Wire.feature(extra: Wire.packed(4, [9, 0, 0]))
        #expect(try skippedFeature(Wire.tile(Wire.layer(features: [feature])))?.hasSuffix("it has two geometry fields (MVT 4.2: exactly one)") == true)
    }

    @Test func fixture040TagPointingPastTheKeysIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(tags: [1, 0])], keys: ["a"], values: [Wire.string("b")]))
        #expect(try skippedFeature(tile) == "bad.mvt: layer 'hello' feature 0 (id 1): tag 0 points to key 1, but the layer has 1 key")
    }

    @Test func fixture041TagsEncodedAsFloatsAreSkipped() throws {
        // Packed floats read as varints: indexes far past the tables.
        let floats = [Float(2.2391), Float(4.5654)].flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian, Array.init) }
        let feature = Wire.field(1, varint: 1) + Wire.field(2, bytes: floats) + Wire.field(3, varint: 1) + Wire.packed(4, [9, 50, 34])
        let tile = Wire.tile(Wire.layer(features: [feature], keys: ["type"], values: [Wire.string("park"), Wire.string("lake")]))
        let warning = try skippedFeature(tile)
        #expect(warning?.contains("points to key") == true || warning?.contains("does not fit 32 bits") == true, "\(warning ?? "")")
    }

    @Test func fixture042TagPointingPastTheValuesIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(tags: [0, 3])], keys: ["a"], values: [Wire.string("b")]))
        #expect(try skippedFeature(tile)?.hasSuffix("tag 0 points to value 3, but the layer has 1 value") == true)
    }

    @Test func fixture044GeometryStartingWithClosePathIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [15, 9, 2, 2])]))
        #expect(try skippedFeature(tile)?.hasSuffix("a ring starts with ClosePath, not MoveTo") == true)
    }

    @Test func fixture045PointWithHalfACoordinateIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [9, 50])]))
        #expect(try skippedFeature(tile)?.hasSuffix("MoveTo count 1 runs past the end of the geometry (1 integer left)") == true)
    }

    @Test func fixture046LineRepeatingAPointIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 18, 0, 16, 0, 0])]))
        #expect(try skippedFeature(tile)?.hasSuffix("LineTo point 1 of a line repeats the point before it (MVT 4.3.3.2: dX and dY MUST NOT both be 0)") == true)
    }

    @Test func fixture047ClosePathCount2IsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 6, 12, 18, 10, 12, 24, 44, 23])]))
        #expect(try skippedFeature(tile)?.hasSuffix("ClosePath count 2 ends ring 0 (it must be 1)") == true)
    }

    @Test func fixture048ClosePathCount0IsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 6, 12, 18, 10, 12, 24, 44, 7])]))
        #expect(try skippedFeature(tile)?.hasSuffix("ClosePath count 0 ends ring 0 (it must be 1)") == true)
    }

    @Test func fixture051MultiPointWithAHugeCountIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [4_294_967_289, 10, 10])]))
        #expect(try skippedFeature(tile)?.hasSuffix("MoveTo count 536870911 runs past the end of the geometry (2 integers left)") == true)
    }

    @Test func fixture052MultiPointWithTooFewPointsIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [17, 10, 14])]))
        #expect(try skippedFeature(tile)?.hasSuffix("MoveTo count 2 runs past the end of the geometry (2 integers left)") == true)
    }

    @Test func fixture058LineToWithAGiganticCountIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 4_294_967_290, 0, 16])]))
        #expect(try skippedFeature(tile)?.hasSuffix("LineTo count 536870911 runs past the end of the geometry (2 integers left)") == true)
    }

    @Test func fixture061LineWithClosePathIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 18, 0, 16, 16, 0, 15])]))
        #expect(try skippedFeature(tile)?.hasSuffix("ClosePath in a line geometry (MVT 2 allows it only in polygons)") == true)
    }

    @Test func lineToCountOf2To29IsSkippedWithoutAllocating() throws {
        // The largest count a command integer holds, 2^29 - 1, on a 3-integer geometry.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, UInt32((1 << 29) - 1) << 3 | 2, 2, 2])]))
        #expect(try skippedFeature(tile) == "bad.mvt: layer 'hello' feature 0 (id 1): LineTo count 536870911 runs past the end of the geometry (2 integers left)")
    }

    @Test func unknownCommandId5IsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 13, 2, 2])]))
        #expect(try skippedFeature(tile)?.hasSuffix("unknown command id 5 at integer 3 (MVT 4.3.3 defines MoveTo 1, LineTo 2 and ClosePath 7)") == true)
    }

    @Test func zeroAreaRingIsSkipped() throws {
        // A "triangle" whose three points lie on one line.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 0, 0, 18, 4, 4, 4, 4, 15])]))
        #expect(try skippedFeature(tile)?.hasSuffix("ring 0 has zero area (a degenerate ring of 3 points)") == true)
    }

    @Test func holeBeforeAnyExteriorRingIsSkipped() throws {
        // Fixture 019's triangle wound the other way.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 6, 12, 18, 34, 56, 23, 43, 15])]))
        #expect(try skippedFeature(tile)?.contains("ring 0 has negative area") == true)
    }

    @Test func onlyTheBadFeatureIsSkipped() throws {
        let features = [Wire.feature(id: 1), Wire.feature(id: 2, geometry: [9, 50]), Wire.feature(id: 3, tags: [0, 0])]
        let decoded = try decoder.decode(Wire.tile(Wire.layer(features: features, keys: ["k"], values: [Wire.string("v")])), source: "t.mvt")
        #expect(decoded.tile.layers[0].features.map(\.id) == [1, 3])
        #expect(decoded.warnings.map(\.feature) == [1])
        #expect(decoded.warnings.first?.featureID == 2)
    }

    @Test func geometryChecksCanBeTurnedOffToKeepTheTileAsEncoded() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [9, 50])]))
        let raw = try VectorTileDecoder(checksGeometry: false).decode(tile, source: "t.mvt")
        #expect(raw.warnings.isEmpty)
        #expect(raw.tile.layers[0].features[0].geometry == [9, 50])
        // ... and validated() finds the same problem afterwards.
        let checked = raw.tile.validated(source: "t.mvt")
        #expect(checked.tile.layers[0].features.isEmpty)
        #expect(checked.warnings.map(\.message) == ["MoveTo count 1 runs past the end of the geometry (1 integer left)"])
    }

    @Test func invalidUTF8IsRepairedWithAWarning() throws {
        let layer = Wire.layer(keys: [], values: []) + Wire.field(3, bytes: [0x66, 0xFF, 0x6F])
        let decoded = try decoder.decode(Wire.tile(layer), source: "t.mvt")
        #expect(decoded.tile.layers[0].keys == ["f\u{FFFD}o"])
        #expect(decoded.warnings.map(\.message) == ["key 0 is not valid UTF-8; bad bytes became U+FFFD"])
    }

    // MARK: tiles refused (fatal)

    @Test func fixture007VersionAsAStringIsRefused() {
        let layer = Wire.layer(version: nil) + Wire.field(15, string: "2")
        #expect(refusal(Wire.tile(layer)) == "bad.mvt: layer 'hello': field 15 (version) has wire type length-delimited, not varint")
    }

    @Test func fixture008ExtentAsAStringIsRefused() {
        let layer = Wire.layer(extent: nil) + Wire.field(5, string: "4096")
        #expect(refusal(Wire.tile(layer)) == "bad.mvt: layer 'hello': field 5 (extent) has wire type length-delimited, not varint")
    }

    @Test func fixture010StringValueEncodedAsAnIntegerIsRefused() {
        let layer = Wire.layer(keys: ["key1"], values: [Wire.field(1, varint: 1_234_567_890_123_456)])
        #expect(refusal(Wire.tile(layer)) == "bad.mvt: layer 'hello': value 0 has its string_value as wire type varint, not length-delimited")
    }

    @Test func fixture011ValueOfAnUnknownTypeIsRefused() {
        let layer = Wire.layer(keys: ["hello"], values: [Wire.field(8, bytes: Wire.string("hello"))])
        #expect(refusal(Wire.tile(layer))?.hasSuffix("value 0 has field 8, which MVT 2.1 does not define (a value holds one of string, float, double, int, uint, sint, bool)") == true)
    }

    @Test func fixture012UnknownLayerVersionIsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(version: 50))) == "bad.mvt: layer 'hello': version 50 is not a Mapbox Vector Tile version this decoder reads (1 or 2)")
    }

    @Test func version3IsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(version: 3)))?.contains("version 3 is not") == true)
    }

    @Test func fixture013KeyEncodedAsAnIntegerIsRefused() {
        let layer = Wire.layer() + Wire.field(3, varint: 7)
        #expect(refusal(Wire.tile(layer)) == "bad.mvt: layer 'hello': field 3 (key) has wire type varint, not length-delimited")
    }

    @Test func fixture014LayerWithoutANameIsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(name: nil))) == "bad.mvt: layer 0: the layer has no name (MVT 4.1: a layer MUST have a name)")
    }

    @Test func fixture015TwoLayersWithTheSameNameAreRefused() {
        let tile = Wire.tile(Wire.layer(), Wire.layer())
        #expect(refusal(tile) == "bad.mvt: layer 'hello': a second layer has this name (MVT 4.1: a tile MUST NOT hold two layers of the same name)")
    }

    @Test func fixture023LayerWithAnEmptyNameIsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(name: "")))?.hasSuffix("the layer name is empty (MVT 4.1: a layer MUST have a name)") == true)
    }

    @Test func fixture024LayerWithoutAVersionIsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(version: nil))) == "bad.mvt: layer 'hello': the layer has no version field (MVT 4.1: a layer MUST have one)")
    }

    @Test func fixture026ValueWithAnExtraFieldIsRefused() {
        let layer = Wire.layer(values: [Wire.field(20, varint: 10)])
        #expect(refusal(Wire.tile(layer))?.contains("value 0 has field 20") == true)
    }

    @Test func valueWithTwoFieldsOrNoneIsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(values: [Wire.string("a") + Wire.field(7, varint: 1)])))?.hasSuffix("value 0 has more than one field (MVT 4.1: exactly one)") == true)
        #expect(refusal(Wire.tile(Wire.layer(values: [[]])))?.hasSuffix("value 0 is empty (MVT 4.1: it holds exactly one field)") == true)
    }

    @Test func extentZeroIsRefused() {
        #expect(refusal(Wire.tile(Wire.layer(extent: 0)))?.contains("extent 0 is not a usable tile size") == true)
    }

    @Test func missingExtentDefaultsTo4096() throws {
        let decoded = try decoder.decode(Wire.tile(Wire.layer(extent: nil)), source: "t.mvt")
        #expect(decoded.tile.layers[0].extent == 4096)
    }

    // MARK: broken protobuf

    @Test func elevenByteVarintIsRefused() {
        // A layer field whose length is a varint of eleven bytes.
        let tile: [UInt8] = [0x1A] + [UInt8](repeating: 0xFF, count: 10) + [0x01]
        #expect(refusal(tile) == "bad.mvt: not valid protobuf at byte 1: a varint is longer than 10 bytes")
    }

    @Test func varintOverflowing64BitsIsRefused() {
        let tile: [UInt8] = [0x1A] + [UInt8](repeating: 0xFF, count: 9) + [0x02]
        #expect(refusal(tile) == "bad.mvt: not valid protobuf at byte 1: a varint overflows 64 bits")
    }

    @Test func hugeClaimedLengthIsRefused() {
        let tile = Wire.key(3, 2) + Wire.varint(UInt64.max >> 1) + [1, 2, 3]
        #expect(refusal(tile) == "bad.mvt: not valid protobuf at byte 1: a field claims 9223372036854775807 bytes but only 3 remain")
    }

    @Test func lengthPastTheEnclosingMessageIsRefused() {
        // A feature that claims more bytes than its layer holds.
        let layer = Wire.layer(features: []) + Wire.key(2, 2) + Wire.varint(200) + [8, 1]
        #expect(refusal(Wire.tile(layer))?.contains("a field claims 200 bytes but only 2 remain") == true)
    }

    @Test(arguments: [(UInt8(3), "a deprecated group (wire type 3), which MVT never uses"), (4, "a deprecated group (wire type 4), which MVT never uses"), (6, "wire type 6, which protobuf does not define"), (7, "wire type 7, which protobuf does not define")])
    func groupsAndUndefinedWireTypesAreRefused(wireType: UInt8, message: String) {
        #expect(refusal(Wire.key(20, wireType) + [0, 0]) == "bad.mvt: not valid protobuf at byte 0: field 20 is \(message)")
        // Inside a feature, too: the bytes are broken, so the whole tile goes.
        let feature = Wire.feature(extra: Wire.key(9, wireType))
        #expect(refusal(Wire.tile(Wire.layer(features: [feature])))?.contains("layer 'hello' feature 0: not valid protobuf") == true)
    }

    @Test func fieldNumberZeroIsRefused() {
        #expect(refusal([0x00, 0x01]) == "bad.mvt: not valid protobuf at byte 0: field number 0 is outside 1...536870911")
    }

    @Test func layersFieldWithTheWrongWireTypeIsRefused() {
        #expect(refusal(Wire.field(3, varint: 1)) == "bad.mvt: the tile's field 3 (layers) has wire type varint, not length-delimited")
    }

    @Test func unknownFieldsOfEveryWireTypeAreSkipped() throws {
        let unknown = Wire.field(20, varint: 300) + Wire.key(21, 1) + [1, 2, 3, 4, 5, 6, 7, 8] + Wire.field(22, bytes: [9, 9]) + Wire.key(23, 5) + [1, 2, 3, 4]
        let tile = unknown + Wire.tile(Wire.layer(features: [Wire.feature(extra: unknown)], extra: unknown)) + unknown
        let decoded = try decoder.decode(tile, source: "t.mvt")
        #expect(decoded.warnings.isEmpty)
        #expect(decoded.tile == VectorTile(layers: [VectorTile.Layer(name: "hello", features: [VectorTile.Feature(id: 1, type: .point, geometry: [9, 50, 34])])]))
    }

    @Test func everyPrefixOfABuiltTileIsRefused() throws {
        var builder = VectorTileLayerBuilder(name: "roads")
        for i in 0..<40 {
            let p = Int32(i * 10)
            builder.add(id: UInt64(i), attributes: [("name", .string("road \(i)")), ("lanes", .uint(UInt64(i % 4)))], geometry: .lines([[TilePoint(p, 0), TilePoint(p + 5, 100), TilePoint(p, 200)]]))
            builder.add(id: nil, attributes: [("kind", .string("park"))], geometry: .polygons([[[TilePoint(p, p), TilePoint(p + 9, p), TilePoint(p + 9, p + 9)]]]))
        }
        let bytes = VectorTile(layers: [builder.build()]).encoded()
        var refused = 0
        for length in 0..<bytes.count {
            let prefix = Array(bytes[..<length])
            do {
                _ = try decoder.decode(prefix, source: "prefix")
            } catch {
                refused += 1
            }
        }
        // Every cut inside the one layer message leaves its length claim unmet.
        #expect(refused == bytes.count - 1)
        #expect(try decoder.decode(bytes, source: "whole").tile.layers[0].features.count == 80)
    }

    @Test func everyPrefixOfAGzippedTileIsRefused() throws {
        let bytes = Gzip.compress(VectorTile(layers: [VectorTile.Layer(name: "a", features: [VectorTile.Feature(type: .point, geometry: [9, 2, 2])])]).encoded())
        for length in 2..<bytes.count {
            #expect(refusal(Array(bytes[..<length])) != nil, "prefix of \(length) bytes")
        }
    }

    @Test func randomBytesNeverCrashTheDecoder() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<2000 {
            let count = Int(generator.next() % 200)
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? decoder.decode(bytes, source: "random")
        }
        // And bit flips of a valid tile: refused, or decoded with warnings, never a crash.
        let valid = Wire.tile(Wire.layer(features: [Wire.feature(tags: [0, 0], type: 3, geometry: [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15])], keys: ["k"], values: [Wire.string("v")]))
        for i in 0..<valid.count {
            for bit in 0..<8 {
                var flipped = valid
                flipped[i] ^= 1 << bit
                _ = try? decoder.decode(flipped, source: "flipped")
            }
        }
    }
}
