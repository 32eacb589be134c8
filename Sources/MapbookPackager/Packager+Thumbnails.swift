#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport

extension Packager {
    /// Draws a map's thumbnail (200 x 133 PNG) from its visible layers in data.gpkg, with their
    /// renderers, over the backdrop drawn with its style (or a raster base map), at the map's initial extent. Layers kept in a mobile geodatabase are not
    /// drawn (their geometry encoding is Esri's own).
    static func drawThumbnail(_ map: MobileMap, dataFile: String, tables: [String: String], extent: BoundingBox, spatialReference: SpatialReference, backdrop: BackdropRenderer?, raster: RasterBaseMapRenderer? = nil) throws -> [UInt8]? {
        let envelope = spatialReference.isWebMercator ? WebMercator.project(extent) : extent
        var layers: [MapLayer] = []
        // The thumbnail's scale, to leave out layers the map hides at that scale.
        let latitude: Double = (extent.minY + extent.maxY) / 2 * Double.pi / 180
        let metresPerUnit: Double = spatialReference.isWebMercator ? Glibc.cos(latitude) : 111_319.49
        let scale = MapScale.scale(
            of: envelope, width: MapDrawing.thumbnailSize.width, height: MapDrawing.thumbnailSize.height,
            metresPerUnit: metresPerUnit)
        var streams: [MapFeatureStream] = []
        let database = try SQLiteDatabase(readOnlyPath: dataFile)
        for layer in map.map.operationalLayers ?? [] {
            guard layer.isVisible(atScale: scale), layer.visibility ?? true, let text = layer.path, let path = LayerDataPath(text), let table = path.table,
                tables.values.contains(table), path.file == "data.gpkg"
            else { continue }
            // Only the geometry and the renderer's fields are read, through the R-tree, under
            // the layer's filter; features are streamed, never held, so a layer of millions
            // draws in bounded memory.
            let featureTable = try FeatureTable(database: database, table: table, definitionExpression: layer.layerDefinition?.definitionExpression)
            let wanted = (layer.layerDefinition?.drawingInfo?.renderer?.fields ?? []).filter { !$0.isEmpty }
            let cursor = try featureTable.features(in: envelope, fields: wanted)
            // At 200 x 133 pixels a point drawn where another of the same class already
            // stands changes nothing: one per half-pixel and class is drawn, so a layer of a
            // million points costs what a few thousand do.
            let width = envelope.width, height = envelope.height
            var drawn = Set<Int64>()
            let features = MapFeatureStream(cursor, fields: wanted, keep: { feature in
                guard case .point(let p)? = feature.geometry?.shape, width > 0, height > 0 else { return true }
                var hasher = Hasher()
                hasher.combine(Int((p.x - envelope.minX) / width * 400))
                hasher.combine(Int((p.y - envelope.minY) / height * 266))
                for v in feature.values { hasher.combine(v) }
                return drawn.insert(Int64(hasher.finalize())).inserted
            })
            streams.append(features)
            var small = MapLayer(layer, features: features)
            small.style = LayerStyle(renderer: small.style.renderer.scaledForThumbnail())
            layers.append(small)
        }
        let drawsBackdrop = (backdrop != nil || raster != nil) && spatialReference.isWebMercator
        guard !layers.isEmpty || drawsBackdrop else { return nil }
        let background = RGBAColor(red: 242, green: 239, blue: 233)
        // The same drawing as `mapbook render`: the backdrop with its style, then the layers.
        let canvas = try MapCanvas(width: MapDrawing.thumbnailSize.width, height: MapDrawing.thumbnailSize.height, extent: envelope, background: background)
        if drawsBackdrop {
            raster?.draw(on: canvas)
            backdrop?.draw(on: canvas)
        }
        MapDrawing.draw(layers, on: canvas)
        // Row by row, so a new version's thumbnail costs its changed rows in an update by delta.
        let png = try canvas.pngData(patchable: true)
        if let error = streams.lazy.compactMap(\.error).first { throw error }
        return png
    }
}
