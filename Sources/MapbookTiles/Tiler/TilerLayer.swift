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

/// What the tiler keeps of a feature: its kind, its world coordinates in flat pools, and its
/// attributes as indexes into the layer's key and value tables.
struct TilerFeature {
    enum Kind: UInt8 { case point, line, polygon }
    var kind: Kind
    /// The first zoom the feature appears at (point thinning raises it).
    var minZoom: Int8 = 0
    var id: UInt64?
    var tagStart: UInt32
    var tagCount: UInt32
    var partStart: UInt32
    var partCount: UInt32
    var vertexStart: UInt32
    var minX: Double, minY: Double, maxX: Double, maxY: Double
    /// Area (polygons) or length (lines) in world units, for dropping the smallest first.
    var size: Double
}

/// A layer's features in world coordinates: x from 0 at 180°W to 1 at 180°E (beyond when a
/// feature crosses the antimeridian), y from 0 at 85.05°N to 1 at 85.05°S.
final class TilerLayerStore {
    let spec: TilerLayer
    let index: Int
    var values: [VectorTile.Value] = []
    var valueIndex: [VectorTile.Value: UInt32] = [:]
    /// Key index, value index pairs.
    var tags: [UInt32] = []
    var vertices: [SIMD2<Double>] = []
    /// Vertex count of each part (a line or a ring); the high bit marks a ring that starts a polygon.
    var parts: [UInt32] = []
    var features: [TilerFeature] = []
    var minZoom: Int
    var maxZoom: Int

    static let polygonStart: UInt32 = 1 << 31

    init(spec: TilerLayer, index: Int, minZoom: Int, maxZoom: Int) {
        self.spec = spec
        self.index = index
        self.minZoom = minZoom
        self.maxZoom = maxZoom
    }

    func valueID(_ value: VectorTile.Value) -> UInt32 {
        if let id = valueIndex[value] { return id }
        let id = UInt32(values.count)
        values.append(value)
        valueIndex[value] = id
        return id
    }
}
