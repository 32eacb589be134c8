import MapbookData

/// A feature as the map drawing sees it: a geometry in the canvas's CRS and attributes by
/// field name, which the layer's renderer reads.
public struct MapFeature: Sendable {
    public var geometry: Geometry?
    /// Field names and their values, in the same order. Two arrays rather than a dictionary:
    /// a stream of a million features shares one array of names and allocates no table.
    public var names: [String]
    public var values: [FieldValue]

    public init(geometry: Geometry?, attributes: [String: FieldValue] = [:]) {
        self.geometry = geometry
        names = Array(attributes.keys)
        values = names.map { attributes[$0]! }
    }

    public init(geometry: Geometry?, names: [String], values: [FieldValue]) {
        self.geometry = geometry
        self.names = names
        self.values = values
    }

    /// The attributes by field name.
    public var attributes: [String: FieldValue] {
        var out: [String: FieldValue] = [:]
        for (name, value) in zip(names, values) { out[name] = value }
        return out
    }

    /// The value of `field`, matching the name exactly, else ignoring case (GeoPackage column
    /// names are case-insensitive); `.null` when absent.
    public func value(of field: String) -> FieldValue {
        if let i = names.firstIndex(of: field), i < values.count { return values[i] }
        let lowered = field.lowercased()
        if let i = names.firstIndex(where: { $0.lowercased() == lowered }), i < values.count { return values[i] }
        return .null
    }
}

/// A feature cursor read as map features, one at a time: features stream from the table to
/// the canvas, never held, so a layer of millions draws in bounded memory.
public final class MapFeatureStream: Sequence {
    let cursor: FeatureCursor
    let fields: [String]
    let transform: ((Geometry) -> Geometry?)?
    let keep: (TableFeature) -> Bool
    /// The error that ended the stream early, if one did; the caller throws it after drawing.
    public private(set) var error: FeatureTableError?

    /// `fields` are the cursor's, in its order; `transform` reprojects each geometry (a
    /// feature it cannot transform is skipped); `keep` may skip features before they are
    /// built.
    public init(_ cursor: FeatureCursor, fields: [String], transform: ((Geometry) -> Geometry?)? = nil, keep: @escaping (TableFeature) -> Bool = { _ in true }) {
        self.cursor = cursor
        self.fields = fields
        self.transform = transform
        self.keep = keep
    }

    public func makeIterator() -> AnyIterator<MapFeature> {
        AnyIterator { [self] in
            while true {
                let feature: TableFeature
                do throws(FeatureTableError) {
                    guard let next = try cursor.next() else { return nil }
                    feature = next
                } catch {
                    self.error = error
                    return nil
                }
                guard var geometry = feature.geometry, keep(feature) else { continue }
                if let transform {
                    guard let g = transform(geometry) else { continue }
                    geometry = g
                }
                return MapFeature(geometry: geometry, names: fields, values: feature.values)
            }
        }
    }
}
