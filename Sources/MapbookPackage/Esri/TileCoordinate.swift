/// The one tile address of the house, on the Web Mercator grid: zoom `z`, column `x` from the west, row `y` from
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

    /// The address `description` writes ("14/8800/5370"); nil for anything else or an address
    /// off the grid.
    public init?(description text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let z = parts[0], let x = parts[1], let y = parts[2] else { return nil }
        self.init(z: z, x: x, y: y)
        guard isValid else { return nil }
    }

    /// The same address as Esri counts it: level, row from the north, column from the west.
    public init(level: Int, row: Int, column: Int) {
        self.init(z: level, x: column, y: row)
    }

    public var level: Int { z }
    public var row: Int { y }
    public var column: Int { x }

    /// "level 3, row 2, column 1", for messages about Esri packages.
    public var esriDescription: String { "level \(z), row \(y), column \(x)" }

    /// The four children in Esri's tile map order: NW, NE, SW, SE.
    public var children: [TileCoordinate] {
        [
            TileCoordinate(z: z + 1, x: 2 * x, y: 2 * y),
            TileCoordinate(z: z + 1, x: 2 * x + 1, y: 2 * y),
            TileCoordinate(z: z + 1, x: 2 * x, y: 2 * y + 1),
            TileCoordinate(z: z + 1, x: 2 * x + 1, y: 2 * y + 1),
        ]
    }
}
