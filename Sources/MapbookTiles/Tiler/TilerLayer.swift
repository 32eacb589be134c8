import MapbookData

/// One layer of tiles: its name in the tiles, the zooms it appears at and the fields it carries.
public struct TilerLayer: Sendable {
    public var name: String
    public var minZoom: Int?
    public var maxZoom: Int?
    /// The attribute names written to the tiles, in this order; each feature's values follow it.
    public var fields: [String]

    public init(name: String, minZoom: Int? = nil, maxZoom: Int? = nil, fields: [String] = []) {
        self.name = name
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.fields = fields
    }
}

/// What the tiler keeps in memory of a layer: its zooms and what was learned while its
/// features were added (they themselves are in the tiler's feature file).
final class TilerLayerStore {
    let spec: TilerLayer
    let index: Int
    var minZoom: Int
    var maxZoom: Int
    /// Features of each kind (point, line, polygon).
    var kindCounts = [0, 0, 0]
    /// The extent of the features in world units.
    var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
    /// The logarithms of the lines' and rings' segment lengths, summed, and their count.
    var segmentLogSum = 0.0
    var segmentCount = 0.0

    init(spec: TilerLayer, index: Int, minZoom: Int, maxZoom: Int) {
        self.spec = spec
        self.index = index
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }
}
