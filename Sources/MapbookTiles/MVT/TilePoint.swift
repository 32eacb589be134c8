/// A point in a tile layer's integer coordinates: x to the right, y down, from 0 to the
/// layer's `extent` inside the tile (beyond it in the buffer around the tile).
public struct TilePoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Int32
    public var y: Int32

    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }

    public init(_ x: Int32, _ y: Int32) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}
