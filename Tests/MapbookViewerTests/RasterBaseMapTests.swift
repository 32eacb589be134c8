import Foundation
import MapbookData
import MapbookPackage
import MapbookPackager
import MapbookRender
import MapbookSupport
import MapbookTestSupport
import MapbookTiles
import Testing

@testable import MapbookViewer

/// A map whose base map is a raster tile package (`.tpkx`): `mapbook render` (and `view`, and
/// the thumbnails `create` draws) lay its tiles under the layers, each where it belongs.
@Suite struct RasterBaseMapTests {
    @Test func aRasterBaseMapIsDrawnUnderTheLayersWhereItsTilesBelong() throws {
        let dir = try NapervilleSample.project()
        defer { dir.remove() }
        func build(_ name: String, basemaps: String) throws -> ViewerMap {
            try """
                title: \(name)
                crs: EPSG:3857
                sources:
                  valves: { path: data/valves.shp, title: Valves }
                \(basemaps)
                maps:
                  - name: Valves
                    layers: [valves]
                """.write(toFile: dir.path + "/\(name).yaml", atomically: true, encoding: .utf8)
            _ = try Packager.build(try Project.load(path: dir.path + "/\(name).yaml"), output: dir.path + "/\(name).mmpk", timestamp: 1_767_225_600)
            return try MapSession(path: dir.path + "/\(name).mmpk").map(named: nil)
        }
        let relief = try build("Relief", basemaps: "basemaps: [data/relief.tpkx]")
        let plain = try build("Plain", basemaps: "")
        let center = Position(x: -88.1535, y: 41.7507)
        let background = RGBAColor(red: 242, green: 239, blue: 233)
        func backgroundShare(_ map: ViewerMap) throws -> Double {
            let canvas = try map.render(try map.view(centeredOn: center, scale: 3000, width: 400, height: 300)).canvas
            return Double(countPixels(width: 400, height: 300) { canvas.pixel(x: $0, y: $1) == background }) / 120_000
        }
        #expect(try backgroundShare(plain) > 0.9, "without a base map the view is mostly background")
        #expect(try backgroundShare(relief) < 0.01, "the relief covers the view")

        // The view's pixels are the tile's at the same place (level 14, the package's last,
        // enlarged), away from any valve.
        let view = try relief.view(centeredOn: center, scale: 3000, width: 400, height: 300)
        let canvas = try relief.render(view).canvas
        let tiles = try VectorTilePackageReader(package: try relief.session.package.tilePackage(try #require(relief.session.package.archive.entries.first { $0.name.hasSuffix(".tpkx") })), raster: true)
        let world = WebMercator.halfWorld, size = 2 * world / Double(1 << 14)
        var compared = 0
        // Away from the scale bar in the bottom left corner.
        for (px, py) in [(20, 20), (380, 20), (20, 200), (380, 280), (200, 40)] {
            let x: Double = view.extent.minX + (Double(px) + 0.5) * view.extent.width / 400
            let y: Double = view.extent.maxY - (Double(py) + 0.5) * view.extent.height / 300
            let fx: Double = (x + world) / size, fy: Double = (world - y) / size
            let column = Int(fx), row = Int(fy)
            let tile = try RasterImage(png: try #require(try tiles.tile(at: TileCoordinate(z: 14, x: column, y: row))))
            // Enlarged tiles are filtered: the drawn colour lies between those of the tile's
            // pixel there and its neighbours.
            let tx = Int((fx - Double(column)) * 256), ty = Int((fy - Double(row)) * 256)
            let around = (max(tx - 1, 0)...min(tx + 1, 255)).flatMap { ax in (max(ty - 1, 0)...min(ty + 1, 255)).compactMap { tile.pixel(x: ax, y: $0) } }
            let drawn = try #require(canvas.pixel(x: px, y: py))
            guard drawn != RGBAColor(red: 0, green: 114, blue: 178) else { continue }
            compared += 1
            let channels: [(RGBAColor) -> Int] = [{ Int($0.red) }, { Int($0.green) }, { Int($0.blue) }]
            let within = channels.allSatisfy { channel in
                let values = around.map(channel)
                return ((values.min() ?? 0) - 4)...((values.max() ?? 255) + 4) ~= channel(drawn)
            }
            #expect(within, "pixel \(px),\(py): drawn \(drawn), the tile has \(around) there")
        }
        #expect(compared >= 3)
        #expect(try relief.render(view).warnings.isEmpty)

        // The package's thumbnail shows it too.
        let thumbnail = try RasterImage(png: try #require(relief.session.package.manifest.thumbnail.flatMap(DataURI.decode)))
        let plainShare = Double(countPixels(width: thumbnail.width, height: thumbnail.height) { thumbnail.pixel(x: $0, y: $1) == background })
        #expect(plainShare / Double(thumbnail.width * thumbnail.height) < 0.5, "the thumbnail is drawn over the relief")
    }
}
