import FuzzSupport
import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport
import MapbookTiles

/// A MapLibre style from a stranger's vector tile package: read, then drawn over a small tile
/// of streets, parcels and places at a low and a street zoom, so every filter, paint and
/// layout value and every expression in it is evaluated as the backdrop evaluates it.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let style = try? JSONParser.parseObject(bytes, path: "fuzz-style.json", expecting: "a MapLibre style") else { return 0 }
    let renderer = BackdropRenderer(archive: OneTile.archive, style: style)
    for zoom in [1.5, 12.5] {
        let resolution = BackdropRenderer.zoomZeroResolution / pow2(zoom)
        let half = 64 * resolution
        guard let canvas = try? MapCanvas(width: 128, height: 128, extent: BoundingBox(minX: -half, minY: -half, maxX: half, maxY: half)) else { continue }
        renderer.draw(on: canvas)
    }
    return 0
}

/// 2 to the power `x`, for the two zooms drawn (1.5 and 12.5): whole powers times the square root of two.
func pow2(_ x: Double) -> Double {
    Double(1 << Int(x)) * (x.rounded(.down) == x ? 1 : 2.0.squareRoot())
}

/// A tile archive that answers every coordinate with one tile: a street grid with names and
/// classes, parcels with holes, and places with numbers, booleans and text.
final class OneTile: ReadableTileArchive {
    /// libFuzzer runs inputs one at a time on one thread.
    nonisolated(unsafe) static let archive = OneTile()
    let path = "fuzz.vtpk"
    let metadata = TileArchiveMetadata(name: "fuzz", tileCompression: .none, minZoom: 0, maxZoom: 14)
    let bytes: [UInt8]

    init() {
        var roads = VectorTileLayerBuilder(name: "roads")
        for i in 0..<8 {
            let c = Int32(256 + i * 512)
            _ = roads.add(
                id: UInt64(i), attributes: [("class", .string(i % 3 == 0 ? "primary" : "street")), ("name", .string("Washington St \(i)")), ("oneway", .bool(i % 2 == 0))],
                geometry: .lines([[TilePoint(-64, c), TilePoint(2048, c + 64), TilePoint(4160, c)], [TilePoint(c, -64), TilePoint(c, 4160)]]))
        }
        var parcels = VectorTileLayerBuilder(name: "parcels")
        for i in 0..<6 {
            let x = Int32(300 + i * 600)
            let outer = [TilePoint(x, 300), TilePoint(x + 400, 300), TilePoint(x + 400, 700), TilePoint(x, 700), TilePoint(x, 300)]
            let hole = [TilePoint(x + 100, 400), TilePoint(x + 100, 600), TilePoint(x + 300, 600), TilePoint(x + 300, 400), TilePoint(x + 100, 400)]
            _ = parcels.add(id: nil, attributes: [("use", .string(i % 2 == 0 ? "residential" : "commercial")), ("area", .double(Double(i) * 12.5))], geometry: .polygons([[outer, hole]]))
        }
        var places = VectorTileLayerBuilder(name: "places")
        for i in 0..<10 {
            _ = places.add(
                id: UInt64(100 + i), attributes: [("name", .string(["Naperville", "Aurora", "Lisle", "北京", "Zürich"][i % 5])), ("rank", .int(Int64(i))), ("capital", .bool(i == 0)), ("pop", .uint(UInt64(i * 10_000)))],
                geometry: .points([TilePoint(Int32(200 + i * 370), Int32(2048 + (i % 3) * 300))]))
        }
        bytes = VectorTile(layers: [roads.build(), parcels.build(), places.build()]).encoded()
    }

    func tile(at coordinate: TileCoordinate) throws(TileArchiveError) -> [UInt8]? { bytes }
    func tileCoordinates() throws(TileArchiveError) -> [TileCoordinate] { [TileCoordinate(z: 0, x: 0, y: 0)] }
}
