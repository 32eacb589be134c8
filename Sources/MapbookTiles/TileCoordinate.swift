/// A tile address on the Web Mercator grid: zoom `z`, column `x` from the west, row `y` from
/// the north (the XYZ scheme of DESIGN 3.4, which is also Esri's level/row/column).
public struct TileCoordinate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var z: Int
    public var x: Int
    public var y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// Tiles per side at this zoom.
    public var tilesPerSide: Int { 1 << z }

    public var isValid: Bool { z >= 0 && z <= 30 && x >= 0 && y >= 0 && x < tilesPerSide && y < tilesPerSide }

    public var parent: TileCoordinate? { z == 0 ? nil : TileCoordinate(z: z - 1, x: x >> 1, y: y >> 1) }

    public static func < (a: TileCoordinate, b: TileCoordinate) -> Bool { (a.z, a.y, a.x) < (b.z, b.y, b.x) }

    public var description: String { "\(z)/\(x)/\(y)" }
}
