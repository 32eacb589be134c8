import MapbookPackage
import MapbookSupport
import Testing
@testable import MapbookTiles

@Suite struct VectorTileGeoJSONTests {
    @Test func tileCornersLieOnTheWebMercatorGrid() {
        let world = TileCoordinate(z: 0, x: 0, y: 0)
        let northWest = world.location(of: TilePoint(0, 0), extent: 4096)
        #expect(abs(northWest.longitude + 180) < 1e-9 && abs(northWest.latitude - WebMercator.maxLatitude) < 1e-9)
        let centre = world.location(of: TilePoint(2048, 2048), extent: 4096)
        #expect(abs(centre.longitude) < 1e-9 && abs(centre.latitude) < 1e-9)
        // The south-east corner of tile 1/0/0 is the centre of the world, whatever the extent.
        let quarter = TileCoordinate(z: 1, x: 0, y: 0).location(of: TilePoint(32768, 32768), extent: 32768)
        #expect(abs(quarter.longitude) < 1e-9 && abs(quarter.latitude) < 1e-9)
    }

    @Test func polygonsComeOutClosedAndMultiWhenThereAreSeveral() throws {
        var builder = VectorTileLayerBuilder(name: "land")
        let square = [TilePoint(0, 0), TilePoint(10, 0), TilePoint(10, 10), TilePoint(0, 10)]
        builder.add(id: 4, attributes: [("name", .string("A")), ("area", .float(2.5))], geometry: .polygons([[square], [square.map { TilePoint($0.x + 20, $0.y) }]]))
        builder.add(id: nil, attributes: [], geometry: .points([TilePoint(1, 2)]))
        let json = VectorTile(layers: [builder.build()]).geoJSON()
        let layer = try #require(json.objectValue?.array("features")?.first?.objectValue)
        #expect(layer.object("properties") == ["layer": "land", "version": 2, "extent": 4096])
        let features = (layer.array("features") ?? []).compactMap(\.objectValue)
        try #require(features.count == 2)
        #expect(features[0].int("id") == 4)
        #expect(features[0].object("properties") == ["name": "A", "area": 2.5])
        #expect(features[0].object("geometry")?.string("type") == "MultiPolygon")
        let ring = features[0].object("geometry")?.array("coordinates")?.first?.arrayValue?.first?.arrayValue
        #expect(ring == [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]])
        #expect(features[1]["id"] == nil)
        #expect(features[1].object("geometry") == ["type": "Point", "coordinates": [1, 2]])
    }

    @Test func exteriorRingsFollowTheRightHandRuleInLongitudeAndLatitude() throws {
        var builder = VectorTileLayerBuilder(name: "land")
        builder.add(id: nil, attributes: [], geometry: .polygons([[[TilePoint(0, 0), TilePoint(4096, 0), TilePoint(4096, 4096), TilePoint(0, 4096)]]]))
        let json = VectorTile(layers: [builder.build()]).geoJSON(tile: TileCoordinate(z: 2, x: 1, y: 1))
        let ring = try #require(json.objectValue?.array("features")?.first?.objectValue?.array("features")?.first?.objectValue?.object("geometry")?.array("coordinates")?.first?.arrayValue)
        let points = ring.compactMap { $0.arrayValue.flatMap { a in a.count == 2 ? (a[0].doubleValue!, a[1].doubleValue!) : nil } }
        var twiceArea = 0.0
        for (a, b) in zip(points, points.dropFirst()) { twiceArea += a.0 * b.1 - b.0 * a.1 }
        #expect(twiceArea > 0)
        #expect(points.first?.0 == -90 && points.first?.1 == 66.5132604)
    }
}
