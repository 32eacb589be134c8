import MapbookSupport

/// Where a map view looks: a target geometry (an envelope or a point), a scale and a rotation.
public struct Viewpoint: JSONRecord {
    /// The target when it is an envelope.
    public var targetExtent: Envelope?
    /// The target when it is a point: `{"x", "y", "spatialReference"}`.
    public var targetPoint: MapPoint?
    public var scale: Double?
    public var rotation: Double?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            // One key, two models: an envelope has `xmin`, a point `x`; a point wins on writing.
            JSONProperty(
                "targetGeometry", kind: .model(Envelope.self),
                read: { object, view in
                    guard let target = object.object("targetGeometry") else { return }
                    if target.contains("xmin") {
                        view.targetExtent = Envelope(json: target)
                    } else if target.contains("x") {
                        view.targetPoint = MapPoint(json: target)
                    }
                },
                write: { view, object in object.set("targetGeometry", view.targetPoint?.jsonValue ?? view.targetExtent?.jsonValue) }),
            .double("scale", { $0.scale }, { $0.scale = $1 }),
            .double("rotation", { $0.rotation }, { $0.rotation = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(extent: Envelope, scale: Double? = nil, rotation: Double? = nil) {
        self.init(original: JSONObject())
        self.targetExtent = extent
        self.scale = scale
        self.rotation = rotation
    }

    public init(center: MapPoint, scale: Double, rotation: Double? = nil) {
        self.init(original: JSONObject())
        self.targetPoint = center
        self.scale = scale
        self.rotation = rotation
    }
}

/// A point in a spatial reference: `{"x", "y", "spatialReference"}`.
public struct MapPoint: JSONRecord {
    public var x: Double?
    public var y: Double?
    public var spatialReference: SpatialReference?
    public var original: JSONObject

    public static var properties: [JSONProperty<Self>] {
        [
            .double("x", { $0.x }, { $0.x = $1 }),
            .double("y", { $0.y }, { $0.y = $1 }),
            .model("spatialReference", { $0.spatialReference }, { $0.spatialReference = $1 }),
        ]
    }

    public init(original: JSONObject) { self.original = original }

    public init(x: Double, y: Double, spatialReference: SpatialReference?) {
        self.init(original: JSONObject())
        self.x = x
        self.y = y
        self.spatialReference = spatialReference
    }
}
