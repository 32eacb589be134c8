import MapbookData
import MapbookPackage
import MapbookRender

extension Packager {
    /// Draws a map's thumbnail (200 x 133 PNG) from its visible layers in data.gpkg, with their
    /// renderers, over the map's initial extent. Layers kept in a mobile geodatabase are not
    /// drawn (their geometry encoding is Esri's own).
    static func drawThumbnail(_ map: MobileMap, dataFile: String, tables: [String: String], extent: BoundingBox, spatialReference: SpatialReference) throws -> [UInt8]? {
        let box = spatialReference.isWebMercator ? WebMercator.project(extent) : extent
        let envelope = Envelope2D(minX: box.xmin, minY: box.ymin, maxX: box.xmax, maxY: box.ymax)
        var layers: [MapLayer] = []
        for layer in map.map.operationalLayers ?? [] {
            guard layer.visibility ?? true, let text = layer.path, let path = LayerDataPath(text), let table = path.table,
                tables.values.contains(table), path.file == "data.gpkg"
            else { continue }
            let reader = try GeoPackageReader(path: dataFile, table: table)
            let names = reader.schema.fields.map { $0.name }
            var features: [MapFeature] = []
            while let f = try reader.next() {
                guard let g = f.geometry, let e = g.envelope, e.intersects(envelope) else { continue }
                var attributes: [String: FieldValue] = [:]
                for (i, name) in names.enumerated() { attributes[name] = f.values[i] }
                features.append(MapFeature(geometry: g, attributes: attributes))
            }
            layers.append(MapLayer(layer, features: features))
        }
        guard !layers.isEmpty else { return nil }
        let background = RGBAColor(red: 242, green: 239, blue: 233)
        return try MapDrawing.thumbnail(layers, extent: envelope, background: background)
    }
}
