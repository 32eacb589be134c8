/// One record read from a source: its geometry and its attribute values, in the order of the
/// layer schema's fields.
public struct Feature: Sendable, Equatable {
    /// The record's number in its source (1-based: the line, the record or the array index),
    /// so warnings can point at it.
    public var row: Int
    public var geometry: Geometry?
    public var values: [FieldValue]
}

/// What a layer holds: its fields, the geometry type every feature is written as, and the
/// coordinate system of its coordinates.
public struct LayerSchema: Sendable, Equatable {
    public var name: String
    public var fields: [Field]
    /// The declared geometry type; nil for a table without geometry.
    public var geometryType: GeometryType?
    public var hasZ: Bool
    public var hasM: Bool
    public var crs: CoordinateReferenceSystem?

    public init(
        name: String, fields: [Field], geometryType: GeometryType?, hasZ: Bool = false, hasM: Bool = false,
        crs: CoordinateReferenceSystem?
    ) {
        self.name = name
        self.fields = fields
        self.geometryType = geometryType
        self.hasZ = hasZ
        self.hasM = hasM
        self.crs = crs
    }

    public func fieldIndex(_ name: String) -> Int? {
        fields.firstIndex { $0.name == name } ?? fields.firstIndex { $0.name.lowercased() == name.lowercased() }
    }
}
