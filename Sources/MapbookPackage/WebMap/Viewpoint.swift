import MapbookSupport

/// Where a map view looks: a target geometry (an envelope or a point), a scale and a rotation.
public struct Viewpoint: JSONModel {
    /// The target when it is an envelope.
    public var targetExtent: Envelope?
    /// The target when it is a point: `{"x", "y", "spatialReference"}`.
    public var targetPoint: MapPoint?
    public var scale: Double?
    public var rotation: Double?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        if let target = json.object("targetGeometry") {
            if target.contains("xmin") {
                targetExtent = Envelope(json: target)
            } else if target.contains("x") {
                targetPoint = MapPoint(json: target)
            }
        }
        scale = json.double("scale")
        rotation = json.double("rotation")
    }

    public init(extent: Envelope, scale: Double? = nil, rotation: Double? = nil) {
        self.init(json: JSONObject())
        self.targetExtent = extent
        self.scale = scale
        self.rotation = rotation
    }

    public init(center: MapPoint, scale: Double, rotation: Double? = nil) {
        self.init(json: JSONObject())
        self.targetPoint = center
        self.scale = scale
        self.rotation = rotation
    }

    public var json: JSONObject {
        var o = original
        if let targetExtent { o.set("targetGeometry", targetExtent) }
        if let targetPoint { o.set("targetGeometry", targetPoint) }
        o.set("scale", scale)
        o.set("rotation", rotation)
        return o
    }
}

/// A point in a spatial reference: `{"x", "y", "spatialReference"}`.
public struct MapPoint: JSONModel {
    public var x: Double?
    public var y: Double?
    public var spatialReference: SpatialReference?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        x = json.double("x")
        y = json.double("y")
        spatialReference = json.model("spatialReference")
    }

    public init(x: Double, y: Double, spatialReference: SpatialReference?) {
        self.init(json: JSONObject())
        self.x = x
        self.y = y
        self.spatialReference = spatialReference
    }

    public var json: JSONObject {
        var o = original
        o.set("x", x)
        o.set("y", y)
        o.set("spatialReference", spatialReference)
        return o
    }
}
