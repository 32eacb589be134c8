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
        return BoundingBox(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }
}

/// A plain rectangle with no spatial reference attached.
public struct BoundingBox: Sendable, Hashable, CustomStringConvertible {
    public var xmin: Double
    public var ymin: Double
    public var xmax: Double
    public var ymax: Double

    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
    }

    public var width: Double { xmax - xmin }
    public var height: Double { ymax - ymin }
    public var center: (x: Double, y: Double) { ((xmin + xmax) / 2, (ymin + ymax) / 2) }
    public var isEmpty: Bool { !(xmax > xmin && ymax > ymin) }

    public func union(_ other: BoundingBox) -> BoundingBox {
        BoundingBox(
            xmin: min(xmin, other.xmin), ymin: min(ymin, other.ymin),
            xmax: max(xmax, other.xmax), ymax: max(ymax, other.ymax))
    }

    public var description: String {
        "[\(JSONWriter.formatNumber(xmin)), \(JSONWriter.formatNumber(ymin)), \(JSONWriter.formatNumber(xmax)), \(JSONWriter.formatNumber(ymax))]"
    }
}
