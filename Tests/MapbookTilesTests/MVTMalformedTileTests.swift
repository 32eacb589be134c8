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

    func refusal(_ bytes: [UInt8], source: String = "bad.mvt") -> MVTError? {
        do {
            _ = try decoder.decode(bytes, source: source)
            return nil
        } catch {
            #expect(error.source == source)
            return error
        }
    }

    /// Whether the tile is refused with an error of `kind` whose description starts with
    /// `place`: the tile and, where there is one, the layer and feature.
    func refused(_ bytes: [UInt8], _ kind: MVTError.Kind, at place: String = "bad.mvt: ") -> Bool {
        guard let error = refusal(bytes) else { return false }
        #expect(error.kind == kind, "\(error)")
        #expect(error.description.hasPrefix(place), "\(error)")
        return error.kind == kind && error.description.hasPrefix(place)
    }

    /// The one warning for a tile whose only feature is bad; the layer must survive, empty.
    func skippedFeature(_ bytes: [UInt8]) throws -> MVTError? {
        let decoded = try decoder.decode(bytes, source: "bad.mvt")
        #expect(decoded.tile.layers.count == 1)
        #expect(decoded.tile.layers.first?.features.isEmpty == true)
        #expect(decoded.warnings.count == 1)
        return decoded.warnings.first
    }

    /// Whether the tile's only feature is skipped with a warning of `kind` naming the tile,
    /// the layer and the feature.
    func skipped(_ bytes: [UInt8], _ kind: MVTError.Kind) throws -> Bool {
        guard let warning = try skippedFeature(bytes) else { return false }
        #expect(warning.kind == kind, "\(warning)")
        let place = "bad.mvt: layer 'hello' feature 0 (id 1): "
        #expect(warning.description.hasPrefix(place), "\(warning)")
        return warning.kind == kind && warning.description.hasPrefix(place)
    }

    // MARK: features skipped with a warning (recoverable)

    @Test func fixture003FeatureWithoutTypeButWithAGeometryIsSkipped() throws {
        // The same bytes as fixture 016: protobuf leaves the default UNKNOWN out.
        #expect(try skipped(Wire.tile(Wire.layer(features: [Wire.feature(type: nil)])), .unknownGeometryType))
        // Kept as encoded when geometry is not checked.
        let raw = try VectorTileDecoder(checksGeometry: false).decode(Wire.tile(Wire.layer(features: [Wire.feature(type: nil)])), source: "t.mvt")
        #expect(raw.tile.layers[0].features.map(\.type) == [.unknown] && raw.warnings.isEmpty)
    }

    @Test func anUnknownFeatureWithoutAGeometryIsKept() throws {
        let decoded = try decoder.decode(Wire.tile(Wire.layer(features: [Wire.feature(type: 0, geometry: [])])), source: "t.mvt")
        #expect(decoded.tile.layers[0].features.map(\.type) == [.unknown])
        #expect(decoded.warnings.isEmpty)
    }

    @Test func fixture004FeatureWithoutGeometryIsSkipped() throws {
        #expect(try skipped(Wire.tile(Wire.layer(features: [Wire.feature(geometry: nil)])), .invalidGeometry))
    }

    @Test func fixture005OddNumberOfTagsIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(tags: [0])], keys: ["a"], values: [Wire.string("b")]))
        #expect(try skipped(tile, .invalidTags))
    }

    @Test func fixture006UnknownGeometryTypeEnumIsSkipped() throws {
        #expect(try skipped(Wire.tile(Wire.layer(features: [Wire.feature(type: 8)])), .unknownGeometryType))
    }

    @Test func fixture030TwoGeometryFieldsAreSkipped() throws {
        let feature = Wire.feature(extra: Wire.packed(4, [9, 0, 0]))
        #expect(try skipped(Wire.tile(Wire.layer(features: [feature])), .invalidField))
    }

    @Test func fixture040TagPointingPastTheKeysIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(tags: [1, 0])], keys: ["a"], values: [Wire.string("b")]))
        #expect(try skipped(tile, .invalidTags))
    }

    @Test func fixture041TagsEncodedAsFloatsAreSkipped() throws {
        // Packed floats read as varints: indexes far past the tables.
        let floats = [Float(2.2391), Float(4.5654)].flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian, Array.init) }
        let feature = Wire.field(1, varint: 1) + Wire.field(2, bytes: floats) + Wire.field(3, varint: 1) + Wire.packed(4, [9, 50, 34])
        let tile = Wire.tile(Wire.layer(features: [feature], keys: ["type"], values: [Wire.string("park"), Wire.string("lake")]))
        #expect(try skipped(tile, .invalidTags))
    }

    @Test func fixture042TagPointingPastTheValuesIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(tags: [0, 3])], keys: ["a"], values: [Wire.string("b")]))
        #expect(try skipped(tile, .invalidTags))
    }

    @Test func fixture044GeometryStartingWithClosePathIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [15, 9, 2, 2])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture045PointWithHalfACoordinateIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [9, 50])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture046LineRepeatingAPointIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 18, 0, 16, 0, 0])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture047ClosePathCount2IsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 6, 12, 18, 10, 12, 24, 44, 23])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture048ClosePathCount0IsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 6, 12, 18, 10, 12, 24, 44, 7])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture051MultiPointWithAHugeCountIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [4_294_967_289, 10, 10])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture052MultiPointWithTooFewPointsIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(geometry: [17, 10, 14])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture058LineToWithAGiganticCountIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 4_294_967_290, 0, 16])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func fixture061LineWithClosePathIsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 18, 0, 16, 16, 0, 15])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func lineToCountOf2To29IsSkippedWithoutAllocating() throws {
        // The largest count a command integer holds, 2^29 - 1, on a 3-integer geometry.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, UInt32((1 << 29) - 1) << 3 | 2, 2, 2])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func unknownCommandId5IsSkipped() throws {
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 2, geometry: [9, 4, 4, 13, 2, 2])]))
        #expect(try skipped(tile, .invalidGeometry))
    }

    @Test func aPolygonOfOnlyAZeroAreaRingIsSkipped() throws {
        // A "triangle" whose three points lie on one line.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 0, 0, 18, 4, 4, 4, 4, 15])]))
        #expect(try skipped(tile, .degeneratePolygon))
    }

    @Test func aZeroAreaRingIsDroppedAndTheOtherRingsKept() throws {
        // A square, clockwise on screen, then a degenerate "triangle" on one line, as real
        // Esri basemaps have them: the feature keeps its square, without a warning.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 0, 0, 18, 4, 4, 4, 4, 15])]))
        let decoded = try decoder.decode(tile, source: "t.mvt")
        #expect(decoded.warnings.isEmpty, "\(decoded.warnings)")
        let geometry = try decoded.tile.layers[0].features[0].decodeGeometry()
        guard case .polygons(let polygons) = geometry else { Issue.record("\(geometry)"); return }
        #expect(polygons.count == 1 && polygons[0].count == 1 && polygons[0][0].count == 4, "\(polygons)")
    }

    @Test func holeBeforeAnyExteriorRingIsSkipped() throws {
        // Fixture 019's triangle wound the other way.
        let tile = Wire.tile(Wire.layer(features: [Wire.feature(type: 3, geometry: [9, 6, 12, 18, 34, 56, 23, 43, 15])]))
        #expect(try skipped(tile, .invalidGeometry))
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
        #expect(checked.warnings.map(\.kind) == [.invalidGeometry])
        #expect(checked.warnings.first?.description.hasPrefix("t.mvt: layer 'hello' feature 0 (id 1): ") == true)
    }

    @Test func invalidUTF8IsRepairedWithAWarning() throws {
        let layer = Wire.layer(keys: [], values: []) + Wire.field(3, bytes: [0x66, 0xFF, 0x6F])
        let decoded = try decoder.decode(Wire.tile(layer), source: "t.mvt")
        #expect(decoded.tile.layers[0].keys == ["f\u{FFFD}o"])
        #expect(decoded.warnings.map(\.kind) == [.invalidUTF8])
        #expect(decoded.warnings.first?.description.hasPrefix("t.mvt: layer 'hello': ") == true)
    }

    // MARK: tiles refused (fatal)

    @Test func fixture007VersionAsAStringIsRefused() {
        let layer = Wire.layer(version: nil) + Wire.field(15, string: "2")
        #expect(refused(Wire.tile(layer), .invalidField, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture008ExtentAsAStringIsRefused() {
        let layer = Wire.layer(extent: nil) + Wire.field(5, string: "4096")
        #expect(refused(Wire.tile(layer), .invalidField, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture010StringValueEncodedAsAnIntegerIsRefused() {
        let layer = Wire.layer(keys: ["key1"], values: [Wire.field(1, varint: 1_234_567_890_123_456)])
        #expect(refused(Wire.tile(layer), .invalidField, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture011ValueOfAnUnknownTypeIsRefused() {
        let layer = Wire.layer(keys: ["hello"], values: [Wire.field(8, bytes: Wire.string("hello"))])
        #expect(refused(Wire.tile(layer), .invalidField, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture012UnknownLayerVersionIsRefused() {
        #expect(refused(Wire.tile(Wire.layer(version: 50)), .unsupportedVersion, at: "bad.mvt: layer 'hello': "))
    }

    @Test func version3IsRefused() {
        #expect(refused(Wire.tile(Wire.layer(version: 3)), .unsupportedVersion, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture013KeyEncodedAsAnIntegerIsRefused() {
        let layer = Wire.layer() + Wire.field(3, varint: 7)
        #expect(refused(Wire.tile(layer), .invalidField, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture014LayerWithoutANameIsRefused() {
        #expect(refused(Wire.tile(Wire.layer(name: nil)), .unnamedLayer, at: "bad.mvt: layer 0: "))
    }

    @Test func fixture015TwoLayersWithTheSameNameAreRefused() {
        let tile = Wire.tile(Wire.layer(), Wire.layer())
        #expect(refused(tile, .duplicateLayerName, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture023LayerWithAnEmptyNameIsRefused() {
        #expect(refused(Wire.tile(Wire.layer(name: "")), .unnamedLayer, at: "bad.mvt: layer 0: "))
    }

    @Test func fixture024LayerWithoutAVersionIsRefused() {
        #expect(refused(Wire.tile(Wire.layer(version: nil)), .unsupportedVersion, at: "bad.mvt: layer 'hello': "))
    }

    @Test func fixture026ValueWithAnExtraFieldIsRefused() {
        let layer = Wire.layer(values: [Wire.field(20, varint: 10)])
        #expect(refused(Wire.tile(layer), .invalidField, at: "bad.mvt: layer 'hello': "))
    }

    @Test func valueWithTwoFieldsOrNoneIsRefused() {
        #expect(refused(Wire.tile(Wire.layer(values: [Wire.string("a") + Wire.field(7, varint: 1)])), .invalidValue, at: "bad.mvt: layer 'hello': "))
        #expect(refused(Wire.tile(Wire.layer(values: [[]])), .invalidValue, at: "bad.mvt: layer 'hello': "))
    }

    @Test func extentZeroIsRefused() {
        #expect(refused(Wire.tile(Wire.layer(extent: 0)), .invalidExtent, at: "bad.mvt: layer 'hello': "))
    }

    @Test func missingExtentDefaultsTo4096() throws {
        let decoded = try decoder.decode(Wire.tile(Wire.layer(extent: nil)), source: "t.mvt")
        #expect(decoded.tile.layers[0].extent == 4096)
    }

    // MARK: broken protobuf

    @Test func elevenByteVarintIsRefused() {
        // A layer field whose length is a varint of eleven bytes.
        let tile: [UInt8] = [0x1A] + [UInt8](repeating: 0xFF, count: 10) + [0x01]
        #expect(refused(tile, .invalidProtobuf, at: "bad.mvt: "))
    }

    @Test func varintOverflowing64BitsIsRefused() {
        let tile: [UInt8] = [0x1A] + [UInt8](repeating: 0xFF, count: 9) + [0x02]
        #expect(refused(tile, .invalidProtobuf, at: "bad.mvt: "))
    }

    @Test func hugeClaimedLengthIsRefused() {
        let tile = Wire.key(3, 2) + Wire.varint(UInt64.max >> 1) + [1, 2, 3]
        #expect(refused(tile, .invalidProtobuf, at: "bad.mvt: "))
    }

    @Test func lengthPastTheEnclosingMessageIsRefused() {
        // A feature that claims more bytes than its layer holds.
        let layer = Wire.layer(features: []) + Wire.key(2, 2) + Wire.varint(200) + [8, 1]
        #expect(refused(Wire.tile(layer), .invalidProtobuf, at: "bad.mvt: "))
    }

    @Test(arguments: [UInt8(3), 4, 6, 7])
    func groupsAndUndefinedWireTypesAreRefused(wireType: UInt8) {
        #expect(refused(Wire.key(20, wireType) + [0, 0], .invalidProtobuf, at: "bad.mvt: "))
        // Inside a feature, too: the bytes are broken, so the whole tile goes.
        let feature = Wire.feature(extra: Wire.key(9, wireType))
        #expect(refused(Wire.tile(Wire.layer(features: [feature])), .invalidProtobuf, at: "bad.mvt: layer 'hello' feature 0: "))
    }

    @Test func fieldNumberZeroIsRefused() {
        #expect(refused([0x00, 0x01], .invalidProtobuf, at: "bad.mvt: "))
    }

    @Test func layersFieldWithTheWrongWireTypeIsRefused() {
        #expect(refused(Wire.field(3, varint: 1), .invalidField, at: "bad.mvt: "))
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
