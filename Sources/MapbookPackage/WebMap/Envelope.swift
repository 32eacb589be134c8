import MapbookSupport

/// A rectangle in a spatial reference: `{"xmin", "ymin", "xmax", "ymax", "spatialReference"}`.
public struct Envelope: JSONRecord {
    public var xmin: Double?
    public var ymin: Double?
    public var xmax: Double?
    public var ymax: Double?
    public var spatialReference: SpatialReference?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .double("xmin", { $0.xmin }, { $0.xmin = $1 }),
            .double("ymin", { $0.ymin }, { $0.ymin = $1 }),
            .double("xmax", { $0.xmax }, { $0.xmax = $1 }),
            .double("ymax", { $0.ymax }, { $0.ymax = $1 }),
            .model("spatialReference", { $0.spatialReference }, { $0.spatialReference = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, spatialReference: SpatialReference? = nil) {
        self.init(original: JSONObject())
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
        self.spatialReference = spatialReference
    }

    /// The four corners when all are present and finite.
    public var bounds: BoundingBox? {
        guard let xmin, let ymin, let xmax, let ymax,
            xmin.isFinite, ymin.isFinite, xmax.isFinite, ymax.isFinite
        else { return nil }
        return BoundingBox(minX: xmin, minY: ymin, maxX: xmax, maxY: ymax)
    }
}
