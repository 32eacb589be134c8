import MapbookData
import MapbookPackage
import MapbookSupport
import MapbookTiles

/// A feature layer as vector tiles made on request, for a map drawn by MapLibre in a browser
/// (`mapbook serve`, the portal's map pages): the features in the tile read through the R-tree
/// with the layer's filter, reprojected to Web Mercator when stored otherwise, clipped and
/// snapped by `FeatureTileEncoder`, with the fields the layer's renderer reads (and the object
/// id, for identify) as attributes. Nothing is made ahead and nothing is kept.
extension ViewerMap {
    /// What a browser's style needs to know of a feature layer's tiles.
    public struct TileLayerInfo: Sendable {
        /// The layer inside the tiles: its id.
        public var sourceLayer: String
        /// nil for a table of mixed geometries, which no one style layer draws.
        public var geometry: VectorLayerInfo.Geometry?
        /// The attributes the tiles carry.
        public var fields: [String]
        /// The layer's label classes whose text the tiles carry, each in an attribute of its
        /// own (`_label` and the class's index in `labelingInfo`): made by the same code as
        /// `mapbook render`'s labels (fields, coded-value names, Arcade's simple expressions),
        /// so the browser only places them. Empty when the layer does not show labels.
        public var labels: [(attribute: String, labelClass: LabelClass)]
    }

    public func tileLayerInfo(_ layer: ViewerLayer) throws -> TileLayerInfo {
        let source = try featureSource(for: layer)
        let geometry: VectorLayerInfo.Geometry?
        switch source.table.geometryType?.family {
        case .point?: geometry = .point
        case .line?: geometry = .line
        case .polygon?: geometry = .polygon
        case nil: geometry = nil
        }
        let available = Set(source.table.fields.map(\.name))
        let fields = (layer.classes?.renderer.fields ?? []).filter { available.contains($0) }
        var labels: [(attribute: String, labelClass: LabelClass)] = []
        if layer.definition.showLabels == true {
            for (i, labelClass) in (layer.definition.layerDefinition?.drawingInfo?.labelClasses ?? []).enumerated()
            where labelClass.problem == nil && labelClass.fields.allSatisfy({ source.formatter.column($0) != nil }) {
                labels.append(("_label\(i)", labelClass))
            }
        }
        return TileLayerInfo(sourceLayer: layer.id, geometry: geometry, fields: fields, labels: labels)
    }

    /// The layer's features in `tile` as an uncompressed MVT tile with one layer named by the
    /// layer's id; an empty tile (no layer) when nothing lies there.
    public func featureTile(_ layer: ViewerLayer, tile: TileCoordinate) throws -> [UInt8] {
        let source = try featureSource(for: layer)
        let info = try tileLayerInfo(layer)
        var encoder = FeatureTileEncoder(tile: tile)
        encoder.startLayer(named: info.sourceLayer)
        let toLayer = try webMercatorTransforms(source)
        var box = encoder.clipBox
        if let forward = toLayer.toLayer {
            guard let layerBox = Self.sampledBox(box, forward) else { return encoder.encoded() }
            box = layerBox
        }
        // The renderer's fields, then those the labels read (by their column names).
        let formatter = source.formatter
        var read = info.fields
        for column in info.labels.flatMap({ $0.labelClass.fields.compactMap(formatter.column) }) where !read.contains(column) { read.append(column) }
        let position = Dictionary(read.enumerated().map { ($1.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        // A label class with a `where` labels the features it selects, found in the same box.
        var selected: [Int: Set<Int64>] = [:]
        for (i, label) in info.labels.enumerated() {
            guard let clause = label.labelClass.whereClause else { continue }
            let ids = try Self.labelTable(source.table, layer: layer, where: clause).features(in: box, fields: [])
            defer { ids.finish() }
            var set = Set<Int64>()
            while let feature = try ids.next() { set.insert(feature.id) }
            selected[i] = set
        }
        let cursor = try source.table.features(in: box, fields: read)
        defer { cursor.finish() }
        while let feature = try cursor.next() {
            guard var geometry = feature.geometry else { continue }
            if let back = toLayer.toWebMercator {
                guard let projected = back.apply(geometry) else { continue }
                geometry = projected
            }
            var attributes: [(key: String, value: VectorTile.Value)] = []
            for (name, value) in zip(info.fields, feature.values) {
                if let v = FeatureTileEncoder.value(value) { attributes.append((name, v)) }
            }
            for (i, label) in info.labels.enumerated() where selected[i]?.contains(feature.id) ?? true {
                let text = formatter.labelText(label.labelClass) { column in position[column.lowercased()].map { feature.values[$0] } ?? .null }
                if text.contains(where: { !$0.isWhitespace }) { attributes.append((label.attribute, .string(text))) }
            }
            encoder.add(id: feature.id >= 0 ? UInt64(feature.id) : nil, attributes: attributes, geometry: geometry)
        }
        return encoder.encoded()
    }

    /// Web Mercator to the layer's CRS and back; nil both when the layer is stored in it.
    private func webMercatorTransforms(_ source: FeatureSource) throws -> (toLayer: CoordinateTransform?, toWebMercator: CoordinateTransform?) {
        guard let crs = source.table.crs, !Self.sameCRS(crs, .webMercator) else { return (nil, nil) }
        return (try CoordinateTransform(from: .webMercator, to: crs), try CoordinateTransform(from: crs, to: .webMercator))
    }

    /// A box's bounds after a transform: 25 points sampled across it, as projections bend
    /// its sides; nil when none of them has a place.
    static func sampledBox(_ box: BoundingBox, _ transform: CoordinateTransform) -> BoundingBox? {
        var bounds: BoundingBox?
        for fx in stride(from: 0.0, through: 1.0, by: 0.25) {
            for fy in stride(from: 0.0, through: 1.0, by: 0.25) {
                guard let p = transform.apply(Position(x: box.minX + fx * box.width, y: box.minY + fy * box.height)) else { continue }
                let b = bounds ?? BoundingBox(minX: p.x, minY: p.y, maxX: p.x, maxY: p.y)
                bounds = BoundingBox(minX: min(b.minX, p.x), minY: min(b.minY, p.y), maxX: max(b.maxX, p.x), maxY: max(b.maxY, p.y))
            }
        }
        return bounds
    }
}
