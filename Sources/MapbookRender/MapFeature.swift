import MapbookData

/// A feature as the map drawing sees it: a geometry in the canvas's CRS and attributes by
/// field name, which the layer's renderer reads.
public struct MapFeature: Sendable {
    public var geometry: Geometry?
    public var attributes: [String: FieldValue]

    public init(geometry: Geometry?, attributes: [String: FieldValue] = [:]) {
        self.geometry = geometry
        self.attributes = attributes
    }
}
