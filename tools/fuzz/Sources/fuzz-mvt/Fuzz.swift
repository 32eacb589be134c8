import FuzzSupport
import MapbookPackage
import MapbookTiles

/// A vector tile as `tiles decode` reads it: gzipped or not, every feature's geometry and
/// attributes decoded and written as GeoJSON.
@main enum Driver {
    static func main() { FuzzInput.run(fuzz) }
}

func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let decoded = try? VectorTileDecoder().decode(bytes, source: "fuzz.mvt") else { return 0 }
    for layer in decoded.tile.layers {
        for feature in layer.features { _ = try? feature.decodeGeometry() }
    }
    _ = decoded.tile.geoJSON(tile: TileCoordinate(z: 3, x: 2, y: 5), compressed: decoded.wasCompressed)
    _ = decoded.tile.validated(source: "fuzz.mvt")
    return 0
}
