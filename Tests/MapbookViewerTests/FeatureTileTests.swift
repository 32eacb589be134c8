import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTiles
import Testing

@testable import MapbookViewer

/// Feature layers as tiles made on request (`mapbook serve`): a browser must get every
/// feature of the tile, where it is, with what its renderer reads.
@Suite struct FeatureTileTests {
    /// The tile at `zoom` holding a position of the layer's extent.
    func tile(holding p: Position, zoom: Int) -> TileCoordinate {
        let n = Double(1 << zoom), w = 2 * WebMercator.halfWorld
        return TileCoordinate(z: zoom, x: Int((p.x + WebMercator.halfWorld) / w * n), y: Int((WebMercator.halfWorld - p.y) / w * n))
    }

    @Test func aTileHoldsEveryFeatureOfItsBoxWithTheRendererFields() throws {
        let map = try MapSession(path: try MapSessionTests.naperville.get()).map(named: nil)
        let mains = try map.layer(named: "Water Mains")
        let info = try map.tileLayerInfo(mains)
        #expect(info.geometry == .line)
        #expect(info.fields == mains.classes?.renderer.fields, "the fields the renderer classes features by")
        let source = try map.featureSource(for: mains)
        let extent = try #require(try source.table.extent())
        let t = tile(holding: Position(x: extent.center.x, y: extent.center.y), zoom: 15)
        let decoded = try VectorTileDecoder().decode(try map.featureTile(mains, tile: t), source: "tile").tile
        let layer = try #require(decoded.layer(named: "mains"))
        let expected = Set(try source.table.features(in: FeatureTileEncoder(tile: t).clipBox, fields: []).collect().map { UInt64($0.id) })
        #expect(!expected.isEmpty)
        #expect(Set(layer.features.compactMap(\.id)) == expected)
        #expect(layer.keys.contains("MATERIAL"))
    }

    @Test func pointsDecodeWhereTheyAre() throws {
        let map = try MapSession(path: try MapSessionTests.naperville.get()).map(named: nil)
        let addresses = try map.layer(named: "Address Points")
        let source = try map.featureSource(for: addresses)
        let first = try #require(try source.table.allFeatures().collect().first { $0.geometry != nil })
        guard case .point(let p)? = first.geometry?.shape else {
            Issue.record("not a point")
            return
        }
        let t = tile(holding: p, zoom: 18)
        let decoded = try VectorTileDecoder().decode(try map.featureTile(addresses, tile: t), source: "tile").tile
        let feature = try #require(decoded.layers.first?.features.first { $0.id == UInt64(first.id) })
        guard case .points(let points) = try feature.decodeGeometry() else {
            Issue.record("not points")
            return
        }
        let place = t.location(of: points[0], extent: 4096)
        let original = WebMercator.unproject(x: p.x, y: p.y)
        // A unit of a zoom 18 tile is about 4 cm.
        #expect(abs(place.longitude - original.longitude) < 1e-6 && abs(place.latitude - original.latitude) < 1e-6)
    }
}
