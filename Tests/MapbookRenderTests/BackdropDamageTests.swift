import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTiles
import Testing

@testable import MapbookRender

/// A tile that breaks the MVT specification in some features: the others are drawn, and the
/// renderer says so once, naming the tile, layer and feature, however many frames show it.
@Suite struct BackdropDamageTests {
    /// One tile answered for every address, made here.
    final class OneTileArchive: ReadableTileArchive {
        let path = "memory.vtpk"
        let metadata = TileArchiveMetadata(name: "memory", tileCompression: .none, minZoom: 0, maxZoom: 0)
        let bytes: [UInt8]
        init(_ tile: VectorTile) { bytes = tile.encoded() }
        func tile(at coordinate: TileCoordinate) throws(TileArchiveError) -> [UInt8]? { bytes }
        func tileCoordinates() throws(TileArchiveError) -> [TileCoordinate] { [TileCoordinate(z: 0, x: 0, y: 0)] }
    }

    @Test func featuresThatBreakTheSpecificationAreLeftOutWithOneWarning() throws {
        // MoveTo(100,1024) LineTo(3900,1024): a line across; ClosePath first: not a geometry.
        let line: [UInt32] = [9, 200, 2048, 10, 7600, 0]
        let features = [
            VectorTile.Feature(id: 1, type: .lineString, geometry: line),
            VectorTile.Feature(id: 2, type: .lineString, geometry: [15]),
            VectorTile.Feature(id: 3, type: .polygon, geometry: [15, 9, 0, 0]),
            VectorTile.Feature(id: 4, type: .lineString, geometry: [9, 200, 6144, 10, 7600, 0]),
        ]
        let archive = OneTileArchive(VectorTile(layers: [VectorTile.Layer(name: "roads", features: features)]))
        let style = try JSONParser.parseObject(Array("""
            {"version": 8, "layers": [
              {"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
              {"id": "roads", "type": "line", "source": "esri", "source-layer": "roads", "paint": {"line-color": "#ff0000", "line-width": 4}}]}
            """.utf8), path: "style.json")
        let renderer = BackdropRenderer(archive: archive, style: style)
        // Just inside the world, so the zoom is not a rounding below 0 (the style's minimum).
        let half = BackdropRenderer.halfWorld * 0.99
        for _ in 0..<3 {
            let canvas = try MapCanvas(width: 512, height: 512, extent: BoundingBox(minX: -half, minY: -half, maxX: half, maxY: half))
            renderer.draw(on: canvas)
            // Both good lines are drawn: red across, a quarter and three quarters down the world.
            for worldY in [BackdropRenderer.halfWorld / 2, -BackdropRenderer.halfWorld / 2] {
                let y = Int(canvas.pixelPosition(x: 0, y: worldY).y)
                #expect(canvas.pixel(x: 256, y: y) == RGBAColor(red: 255, green: 0, blue: 0), "row \(y)")
            }
        }
        #expect(renderer.damage.count == 1, "\(renderer.damage)")
        // The whole world on 512 pixels is zoom 0 exactly, not a rounding below it.
        #expect(BackdropRenderer.styleZoom(metresPerPixel: 2 * BackdropRenderer.halfWorld / 512) == 0)
        let said = renderer.damage.first ?? ""
        #expect(said.contains("tile 0/0/0") && said.contains("layer 'roads' feature 1 (id 2)") && said.contains("(and 1 more)"), "\(said)")
    }
}
