import Testing
@testable import MapbookTiles

@Suite struct VectorTileLayerBuilderTests {
    @Test func sharesKeysAndValuesAcrossFeatures() throws {
        var builder = VectorTileLayerBuilder(name: "poi", extent: 8192)
        builder.add(id: 1, attributes: [("kind", .string("cafe")), ("rank", .int(3))], geometry: .points([TilePoint(1, 1)]))
        builder.add(id: 2, attributes: [("kind", .string("bar")), ("rank", .int(3))], geometry: .points([TilePoint(2, 2)]))
        builder.add(id: nil, attributes: [("rank", .uint(3)), ("kind", .string("cafe"))], geometry: .points([TilePoint(3, 3)]))
        let layer = builder.build()
        #expect(layer.name == "poi" && layer.extent == 8192 && layer.version == 2)
        #expect(layer.keys == ["kind", "rank"])
        // .int(3) and .uint(3) are different values on the wire, so both are kept.
        #expect(layer.values == [.string("cafe"), .int(3), .string("bar"), .uint(3)])
        #expect(layer.features.map(\.tags) == [[0, 0, 1, 1], [0, 2, 1, 1], [1, 3, 0, 0]])
        #expect(layer.features.map(\.id) == [1, 2, nil])
        #expect(layer.attributes(of: layer.features[1]).map(\.key) == ["kind", "rank"])

        let decoded = try VectorTileDecoder().decode(VectorTile(layers: [layer]).encoded(), source: "built")
        #expect(decoded.tile.layers == [layer])
        #expect(decoded.warnings.isEmpty)
    }

    @Test func aRepeatedKeyKeepsItsFirstValue() {
        var builder = VectorTileLayerBuilder(name: "a")
        builder.add(id: nil, attributes: [("k", .bool(true)), ("k", .bool(false))], geometry: .points([TilePoint(0, 0)]))
        let layer = builder.build()
        #expect(layer.features[0].tags == [0, 0])
        #expect(layer.values == [.bool(true)])
    }

    @Test func featuresWhoseGeometryCollapsesAreNotAdded() {
        var builder = VectorTileLayerBuilder(name: "a")
        let line = builder.add(id: 1, attributes: [("k", .string("unused"))], geometry: .lines([[TilePoint(4, 4), TilePoint(4, 4)]]))
        let polygon = builder.add(id: 2, attributes: [], geometry: .polygons([]))
        #expect(!line && !polygon)
        #expect(builder.isEmpty)
        // Nothing of a dropped feature reaches the tables.
        #expect(builder.build().keys.isEmpty && builder.build().values.isEmpty)
        let added = builder.add(id: 3, attributes: [], geometry: .lines([[TilePoint(0, 0), TilePoint(4, 4)]]))
        #expect(added)
        #expect(builder.featureCount == 1)
    }
}
