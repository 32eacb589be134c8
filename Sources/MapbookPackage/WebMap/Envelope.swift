import MapbookSupport

/// A rectangle in a spatial reference: `{"xmin", "ymin", "xmax", "ymax", "spatialReference"}`.
public struct Envelope: JSONModel {
    public var xmin: Double?
    public var ymin: Double?
    public var xmax: Double?
    public var ymax: Double?
    public var spatialReference: SpatialReference?
    public var original: JSONObject

    public init(json: JSONObject) {
        original = json
        xmin = json.double("xmin")
        ymin = json.double("ymin")
        xmax = json.double("xmax")
        ymax = json.double("ymax")
        spatialReference = json.model("spatialReference")
    }

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double, spatialReference: SpatialReference? = nil) {
        self.init(json: JSONObject())
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
        self.spatialReference = spatialReference
    }

    public var json: JSONObject {
        var o = original
        o.set("xmin", xmin)
        o.set("ymin", ymin)
        o.set("xmax", xmax)
        o.set("ymax", ymax)
        o.set("spatialReference", spatialReference)
        return o
    }

    /// The four corners when all are present and finite.
    public var bounds: BoundingBox? {
        guard let xmin, let ymin, let xmax, let ymax,
            xmin.isFinite, ymin.isFinite, xmax.isFinite, ymax.isFinite
        else { return nil }
        return BoundingBox(minX: xmin, minY: ymin, maxX: xmax, maxY: ymax)
    }
}
