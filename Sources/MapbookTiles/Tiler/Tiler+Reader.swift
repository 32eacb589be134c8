import MapbookData

extension Tiler {
    /// What adding a source to the tiler did.
    public struct SourceSummary: Sendable {
        public var layer: Int
        public var added = 0
        /// Features without geometry, with an empty one or one PROJ could not transform.
        public var skipped = 0
    }

    /// Adds a layer holding every feature `reader` gives, in any coordinate system PROJ knows:
    /// transformed to WGS84, with geometries that cross the antimeridian split there (the
    /// tiler then draws each part on its side, and copies into the neighbouring buffers).
    /// `spec.fields` empty means every field but blobs.
    public func addLayer(_ spec: TilerLayer, from reader: FeatureReader) throws -> SourceSummary {
        var spec = spec
        let schema = reader.schema
        if spec.fields.isEmpty { spec.fields = schema.fields.filter { $0.type != .blob }.map(\.name) }
        var positions: [Int] = []
        for name in spec.fields {
            guard let index = schema.fieldIndex(name) else {
                throw DataError(kind: .noSuchColumn, path: reader.path, message: "no field named '\(name)' (fields: \(schema.fields.map(\.name).joined(separator: ", ")))")
            }
            positions.append(index)
        }
        let transform: CoordinateTransform
        do {
            transform = try CoordinateTransform(from: schema.crs ?? .wgs84, to: .wgs84)
        } catch {
            throw DataError(kind: .crs(error.kind), path: reader.path, message: "\(error.description); the tiler needs coordinates it can turn into longitude and latitude")
        }
        let identity = (schema.crs ?? .wgs84).isWGS84
        var summary = SourceSummary(layer: addLayer(spec))
        var values: [FieldValue] = []
        while let feature = try reader.next() {
            guard let source = feature.geometry, var geometry = identity ? source : transform.apply(source) else {
                summary.skipped += 1
                continue
            }
            geometry = Antimeridian.normalize(geometry).0
            values.removeAll(keepingCapacity: true)
            for p in positions { values.append(p < feature.values.count ? feature.values[p] : .null) }
            if try add(layer: summary.layer, geometry: geometry, values: values, id: feature.row > 0 ? UInt64(feature.row) : nil) {
                summary.added += 1
            } else {
                summary.skipped += 1
            }
        }
        return summary
    }
}
