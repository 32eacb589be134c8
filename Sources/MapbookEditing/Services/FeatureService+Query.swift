import MapbookData
import MapbookSupport

/// A layer's `query`: features as ArcGIS JSON (`f=json`) or GeoJSON (`f=geojson`); or their
/// count, ids or extent.
extension FeatureService {
    public enum Answer: Sendable {
        case json(JSONValue)
        /// Compact JSON, already written (`FeatureStream`).
        case encoded([UInt8])
    }

    /// Answers `query` on `layer` with `parameters` as sent (`FeatureQuery` reads them).
    public func query(_ parameters: [String: String], layer: Layer) throws -> Answer {
        let query = try FeatureQuery(parameters, layer: layer, maxRecordCount: maxRecordCount)
        let features = layer.features
        do {
            try features.setFilter(query.filter)
        } catch {
            throw FeatureServiceError(.badWhere, parameter: "where", error.message)
        }
        defer { try? features.setFilter(nil) }
        let idField = features.idColumn
        if query.countOnly || query.idsOnly || query.extentOnly {
            var o = JSONObject()
            let needsGeometry = query.extentOnly || query.selection.isSpatial
            var ids: [Int64] = []
            var extent: BoundingBox?
            var count: Int64 = 0
            if query.countOnly, !query.idsOnly, !query.extentOnly, !query.selection.isSpatial, query.selection.ids == nil, let counted = try features.count() {
                // Counted by SQL (or GDAL's cached count): no row is read. A view is walked.
                count = counted
            } else {
                var selection = query.selection
                selection.offset = 0
                let cursor = try features.features(selection, fields: [], geometry: needsGeometry)
                while let feature = try cursor.next() {
                    count += 1
                    if query.idsOnly { ids.append(feature.id) }
                    if query.extentOnly, let box = feature.geometry?.envelope { extent = extent.map { $0.union(box) } ?? box }
                }
            }
            if query.idsOnly {
                o["objectIdFieldName"] = .string(idField)
                o["objectIds"] = .array(ids.map { .integer($0) })
            }
            if query.extentOnly {
                let out = query.outCRS ?? features.crs
                o["extent"] = try extent.map { try Self.envelopeJSON(project($0, from: features.crs, to: out), out) } ?? .null
            }
            if query.countOnly { o["count"] = .integer(count) }
            return .json(.object(o))
        }
        var selection = query.selection
        selection.limit = query.recordCount + 1
        let cursor = try features.features(selection, fields: query.outFields, geometry: query.returnGeometry && !layer.isTable)
        var rows: [TableFeature] = []
        while let feature = try cursor.next() { rows.append(feature) }
        let exceeded = rows.count > query.recordCount
        if exceeded { rows.removeLast() }
        let fields = query.outFields.map { names in names.compactMap { features.field(named: $0) } } ?? features.fields
        let outCRS = query.outCRS ?? (query.format == .geojson ? .wgs84 : features.crs)
        let transform = try Self.transform(from: features.crs, to: outCRS)
        func placed(_ feature: TableFeature) -> Geometry? {
            guard query.returnGeometry, var geometry = feature.geometry else { return nil }
            geometry = geometry.withDimensions(z: query.returnZ && geometry.hasZ, m: query.returnM && geometry.hasM)
            guard let transform else { return geometry }
            return transform.apply(geometry)
        }
        // Compact answers are written as the features are read; `pjson` is built, then indented.
        let idSet = query.outFields.map { Set($0.map { $0.lowercased() }) }
        switch query.format {
        case .geojson:
            var stream = FeatureStream(head: ["type": "FeatureCollection"], idField: idField, fields: fields, capacity: rows.count * 200 + 256)
            for row in rows { stream.geoJSON(row, geometry: placed(row)) }
            return .encoded(stream.finish(tail: exceeded ? ["properties": .object(["exceededTransferLimit": true])] : [:]))
        case .json, .pjson:
            var o = JSONObject()
            o["objectIdFieldName"] = .string(idField)
            o["uniqueIdField"] = .object(["name": .string(idField), "isSystemMaintained": true])
            if let schema = layer.schema { o["globalIdFieldName"] = .string(schema.globalIdField) }
            if !layer.isTable {
                o["geometryType"] = .string(Self.geometryType(features))
                o["spatialReference"] = Self.spatialReferenceJSON(outCRS)
                if query.returnZ && features.hasZ { o["hasZ"] = true }
                if query.returnM && features.hasM { o["hasM"] = true }
            }
            o["fields"] = .array(Self.fieldsJSON(layer, names: idSet))
            let tail: JSONObject = exceeded ? ["exceededTransferLimit": true] : [:]
            guard query.format == .json else {
                o["features"] = .array(rows.map { Self.featureJSON($0, idField: idField, fields: fields, geometry: placed($0)) })
                for (key, value) in tail { o[key] = value }
                return .json(.object(o))
            }
            var stream = FeatureStream(head: o, idField: idField, fields: fields, capacity: rows.count * 200 + 4096)
            for row in rows { stream.esri(row, geometry: placed(row)) }
            return .encoded(stream.finish(tail: tail))
        }
    }

    /// A feature as the API writes one: `attributes` (the object id first), `geometry` when given.
    static func featureJSON(_ row: TableFeature, idField: String, fields: [Field], geometry: Geometry?) -> JSONValue {
        var attributes = JSONObject()
        attributes[idField] = .integer(row.id)
        for (field, value) in zip(fields, row.values) { attributes[field.name] = Self.attribute(value, field.type) }
        var feature: JSONObject = ["attributes": .object(attributes)]
        if let geometry { feature["geometry"] = geometry.esriJSON() }
        return .object(feature)
    }

    /// A value as the API writes an attribute: dates as Unix milliseconds, blobs left out.
    static func attribute(_ value: FieldValue, _ type: FieldType) -> JSONValue {
        switch value {
        case .null, .blob: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s):
            if type == .date || type == .dateTime, let seconds = ISODate.parse(s) { return .integer(seconds * 1000) }
            return .string(s)
        }
    }

    /// The transform from the layer's coordinates to `target`; nil when none is needed.
    static func transform(from source: CoordinateReferenceSystem?, to target: CoordinateReferenceSystem?) throws(FeatureServiceError) -> CoordinateTransform? {
        guard let source, let target, source != target else { return nil }
        do {
            let transform = try CoordinateTransform(from: source, to: target)
            return transform.isIdentity ? nil : transform
        } catch {
            throw FeatureServiceError(.badSpatialReference, parameter: "outSR", error.description)
        }
    }

    func project(_ box: BoundingBox, from source: CoordinateReferenceSystem?, to target: CoordinateReferenceSystem?) throws(FeatureServiceError) -> BoundingBox {
        guard let transform = try Self.transform(from: source, to: target) else { return box }
        let outline = FeatureQuery.densified(FeatureQuery.rectangle(box.minX, box.minY, box.maxX, box.maxY))
        return transform.apply(outline)?.envelope ?? box
    }
}
