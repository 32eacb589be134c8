import MapbookData
import MapbookPackage
import MapbookSupport
import Testing
@testable import MapbookTiles

/// Tiles made on request for `mapbook serve`: what a browser draws must be where the data is,
/// clipped to the tile and its buffer, wound as MVT wants, and small for dense points.
@Suite struct FeatureTileEncoderTests {
    let tile = TileCoordinate(z: 14, x: 4_205, y: 6_090)

    /// A point of the tile's grid in Web Mercator metres.
    func metres(_ x: Double, _ y: Double) -> Position {
        let box = FeatureTileEncoder.box(of: tile)
        return Position(x: box.minX + x / 4096 * box.width, y: box.maxY - y / 4096 * box.height)
    }

    func decode(_ encoder: FeatureTileEncoder) throws -> VectorTile {
        try VectorTileDecoder().decode(encoder.encoded(), source: "test").tile
    }

    @Test func pointsLandOnTheirPixelAndKeepTheirAttributes() throws {
        var encoder = FeatureTileEncoder(tile: tile)
        encoder.startLayer(named: "valves")
        let inside = encoder.add(id: 7, attributes: [("TYPE", .string("Gate"))], geometry: Geometry(.point(metres(100, 200))))
        // Outside the tile and its buffer: left out.
        let outside = encoder.add(id: 8, attributes: [], geometry: Geometry(.point(metres(-500, 200))))
        #expect(inside && !outside)
        let layer = try #require(try decode(encoder).layer(named: "valves"))
        #expect(layer.features.count == 1)
        #expect(layer.features[0].id == 7)
        #expect(try layer.features[0].decodeGeometry() == .points([TilePoint(100, 200)]))
        #expect(layer.keys == ["TYPE"])
        #expect(layer.values == [.string("Gate")])
    }

    @Test func densePointsAreThinnedToOnePerCell() throws {
        var encoder = FeatureTileEncoder(tile: tile, pointCell: 16)
        encoder.startLayer(named: "addresses")
        var kept = 0
        for i in 0..<10_000 {
            // 100 x 100 points 4 units apart from a cell corner: 396 units, 25 x 25 cells of 16.
            if encoder.add(id: UInt64(i), attributes: [], geometry: Geometry(.point(metres(Double(i % 100) * 4 + 1024, Double(i / 100) * 4 + 1024)))) { kept += 1 }
        }
        #expect(kept == 25 * 25)
        #expect(try decode(encoder).layers[0].features.count == 625)
    }

    @Test func linesAreClippedToTheBufferAndPolygonsWound() throws {
        var encoder = FeatureTileEncoder(tile: tile, buffer: 64)
        encoder.startLayer(named: "mains")
        encoder.add(id: 1, attributes: [], geometry: Geometry(.lineString([metres(-1000, 2048), metres(5000, 2048)])))
        encoder.startLayer(named: "parcels")
        // Counter-clockwise on screen (y down): the encoder must turn it clockwise.
        let ring = [metres(100, 100), metres(100, 300), metres(300, 300), metres(300, 100), metres(100, 100)]
        encoder.add(id: 2, attributes: [], geometry: Geometry(.polygon([ring])))
        let decoded = try decode(encoder)
        let line = try decoded.layer(named: "mains")!.features[0].decodeGeometry()
        #expect(line == .lines([[TilePoint(-64, 2048), TilePoint(4160, 2048)]]))
        guard case .polygons(let polygons) = try decoded.layer(named: "parcels")!.features[0].decodeGeometry() else {
            Issue.record("not a polygon")
            return
        }
        #expect(TileGeometry.ringArea(polygons[0][0]) > 0)
        #expect(Set(polygons[0][0]) == [TilePoint(100, 100), TilePoint(100, 300), TilePoint(300, 300), TilePoint(300, 100)])
    }

    @Test func aFeatureThatCollapsesIsLeftOut() throws {
        var encoder = FeatureTileEncoder(tile: TileCoordinate(z: 2, x: 1, y: 1))
        encoder.startLayer(named: "tiny")
        // A parcel a few metres across is less than a unit at zoom 2.
        let box = FeatureTileEncoder.box(of: TileCoordinate(z: 2, x: 1, y: 1))
        let c = Position(x: box.minX + box.width / 2, y: box.minY + box.height / 2)
        let ring = [c, Position(x: c.x + 3, y: c.y), Position(x: c.x + 3, y: c.y + 3), c]
        let added = encoder.add(id: 1, attributes: [], geometry: Geometry(.polygon([ring])))
        #expect(!added)
        #expect(try decode(encoder).layers.isEmpty)
    }
}
