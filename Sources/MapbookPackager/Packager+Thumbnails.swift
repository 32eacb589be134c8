#if canImport(Glibc)
import Glibc
#endif
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
        // The thumbnail's scale at 96 dpi, to leave out layers the map hides at that scale.
        let unitsPerPixel: Double = max(envelope.width / 200, envelope.height / 133)
        let latitude: Double = (extent.ymin + extent.ymax) / 2 * Double.pi / 180
        let metresPerUnit: Double = spatialReference.isWebMercator ? Glibc.cos(latitude) : 111_319.49
        let scale: Double = unitsPerPixel * metresPerUnit * 96 / 0.0254
        var readError: Error?
        let database = try SQLiteDatabase(readOnlyPath: dataFile)
        for layer in map.map.operationalLayers ?? [] {
            if let minScale = layer.minScale, minScale > 0, scale > minScale { continue }
            if let maxScale = layer.maxScale, maxScale > 0, scale < maxScale { continue }
            guard layer.visibility ?? true, let text = layer.path, let path = LayerDataPath(text), let table = path.table,
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
            let features = AnySequence<MapFeature> {
                AnyIterator<MapFeature> {
                    while true {
                        let feature: TableFeature
                        do {
                            guard let next = try cursor.next() else { return nil }
                            feature = next
                        } catch {
                            readError = error
                            return nil
                        }
                        guard let g = feature.geometry else { continue }
                        var attributes: [String: FieldValue] = [:]
                        for (name, value) in zip(wanted, feature.values) { attributes[name] = value }
                        if case .point(let p) = g.shape, width > 0, height > 0 {
                            var hasher = Hasher()
                            hasher.combine(Int((p.x - envelope.minX) / width * 400))
                            hasher.combine(Int((p.y - envelope.minY) / height * 266))
                            for v in feature.values { hasher.combine(v) }
                            guard drawn.insert(Int64(hasher.finalize())).inserted else { continue }
                        }
                        return MapFeature(geometry: g, attributes: attributes)
                    }
                }
            }
            var small = MapLayer(layer, features: features)
            small.style = LayerStyle(renderer: small.style.renderer.scaledForThumbnail())
            layers.append(small)
        }
        guard !layers.isEmpty else { return nil }
        let background = RGBAColor(red: 242, green: 239, blue: 233)
        let png = try MapDrawing.thumbnail(layers, extent: envelope, background: background)
        if let readError { throw readError }
        return png
    }
}

extension Renderer {
    /// The renderer with its symbols drawn smaller, for a 200 x 133 overview where full-size
    /// markers would cover the map: markers at a third of their size, lines at half width.
    func scaledForThumbnail() -> Renderer {
        func scale(_ symbol: Symbol?) -> Symbol? {
            switch symbol {
            case .simpleMarker(var m)?:
                m.size = max(2, (m.size ?? 8) / 3)
                if var outline = m.outline {
                    outline.width = (outline.width ?? 0.75) / 3
                    m.outline = outline
                }
                return .simpleMarker(m)
            case .simpleLine(var l)?:
                l.width = max(0.5, (l.width ?? 1) / 2)
                return .simpleLine(l)
            case .pictureMarker(var p)?:
                p.width = p.width.map { max(3, $0 / 3) }
                p.height = p.height.map { max(3, $0 / 3) }
                return .pictureMarker(p)
            default:
                return symbol
            }
        }
        switch self {
        case .simple(var r):
            r.symbol = scale(r.symbol)
            return .simple(r)
        case .uniqueValue(var r):
            r.defaultSymbol = scale(r.defaultSymbol)
            r.uniqueValueInfos = r.uniqueValueInfos?.map { var i = $0; i.symbol = scale(i.symbol); return i }
            return .uniqueValue(r)
        case .classBreaks(var r):
            r.defaultSymbol = scale(r.defaultSymbol)
            r.classBreakInfos = r.classBreakInfos?.map { var i = $0; i.symbol = scale(i.symbol); return i }
            return .classBreaks(r)
        case .other:
            return self
        }
    }
}
