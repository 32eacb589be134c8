import MapbookPackage
import MapbookSupport

extension TileCoordinate {
    /// Where a point in this tile's layer coordinates lies on Earth, on the spherical Web
    /// Mercator grid (DESIGN.md 3.4): (0, 0) is the tile's north-west corner and
    /// (`extent`, `extent`) its south-east one.
    public func location(of point: TilePoint, extent: UInt32) -> (longitude: Double, latitude: Double) {
        let n = Double(tilesPerSide), e = Double(extent)
        // Fractions of the world from its north-west corner, then metres, then degrees.
        let fx = (Double(x) + Double(point.x) / e) / n
        let fy = (Double(y) + Double(point.y) / e) / n
        return WebMercator.unproject(x: (2 * fx - 1) * WebMercator.halfWorld, y: (1 - 2 * fy) * WebMercator.halfWorld)
    }
}
