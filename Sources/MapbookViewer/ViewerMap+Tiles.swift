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
        return TileLayerInfo(sourceLayer: layer.id, geometry: geometry, fields: fields)
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
        let cursor = try source.table.features(in: box, fields: info.fields)
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
