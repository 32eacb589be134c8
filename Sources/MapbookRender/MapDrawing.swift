import MapbookData
import MapbookPackage
import MapbookSupport

/// Draws layers of features into map views, thumbnails and legend swatches.
public enum MapDrawing {
    /// The size of the thumbnails ArcGIS gives items, in pixels.
    public static let thumbnailSize = (width: 200, height: 133)
    /// How far around the canvas, in pixels, a feature's envelope may lie and still be drawn,
    /// so markers and wide lines just outside the view still show their edges.
    static let cullingMargin = 256.0

    /// Draws `layers` onto `canvas`, the first at the bottom (web map `operationalLayers` are
    /// listed bottom first).
    ///
    /// Hidden layers and layers of opacity 0 are skipped; a layer of opacity below 1 is
    /// composited as a whole. A layer whose renderer is of a type `LayerStyle` does not
    /// evaluate (or that has none) is skipped with a warning on the canvas. Features outside the canvas are skipped without being symbolised.
    public static func draw(_ layers: [MapLayer], on canvas: MapCanvas) {
        let margin = cullingMargin * canvas.resolution
        let view = canvas.visibleExtent
        let reach = BoundingBox(minX: view.minX - margin, minY: view.minY - margin, maxX: view.maxX + margin, maxY: view.maxY + margin)
        for layer in layers where layer.isVisible && !(layer.opacity <= 0) {
            if case .other = layer.style.renderer {
                canvas.warn("layer '\(layer.title)' is not drawn: its renderer type '\(layer.style.renderer.typeName)' is not supported")
                continue
            }
            // A renderer that reads at most one field gives each value one symbol: remembered
            // per value (up to a few thousand) with its marker's number on the canvas, the
            // classes are not searched again per feature.
            let fields = layer.style.renderer.fields
            var memo: [FieldValue: (symbol: Symbol, marker: Int?)?] = [:]
            func symbol(_ feature: MapFeature) -> (symbol: Symbol, marker: Int?)? {
                func look(_ symbol: Symbol?) -> (symbol: Symbol, marker: Int?)? {
                    guard let symbol else { return nil }
                    if case .simpleMarker(let marker) = symbol, canvas.image != nil { return (symbol, canvas.markerIndex(marker)) }
                    return (symbol, nil)
                }
                guard fields.count <= 1 else { return look(layer.style.symbol(for: feature)) }
                let value = fields.first.map { feature.value(of: $0) } ?? .null
                if let known = memo[value] { return known }
                let symbol = look(layer.style.symbol(for: feature))
                if memo.count < 4096 { memo[value] = .some(symbol) }
                return symbol
            }
            canvas.withOpacity(layer.opacity) {
                canvas.batching = true
                defer { canvas.batching = false }
                for feature in layer.features {
                    guard let geometry = feature.geometry, let envelope = geometry.envelope, reach.intersects(envelope),
                        let (symbol, marker) = symbol(feature)
                    else { continue }
                    canvas.draw(geometry, symbol: symbol, markerIndex: marker)
                }
                canvas.endDirectDrawing()
            }
        }
    }

    /// A new canvas of `width` x `height` pixels showing `extent` with `layers` drawn on it.
    public static func render(
        _ layers: [MapLayer], extent: BoundingBox, width: Int, height: Int,
        background: RGBAColor = RGBAColor(red: 255, green: 255, blue: 255)
    ) throws(RenderError) -> MapCanvas {
        let canvas = try MapCanvas(width: width, height: height, extent: extent, background: background)
        draw(layers, on: canvas)
        return canvas
    }

    /// A 200 x 133 PNG thumbnail of `layers` over `extent`, as ArcGIS sizes item thumbnails.
    public static func thumbnail(
        _ layers: [MapLayer], extent: BoundingBox, background: RGBAColor = RGBAColor(red: 255, green: 255, blue: 255)
    ) throws(RenderError) -> [UInt8] {
        try render(
            layers, extent: extent, width: thumbnailSize.width, height: thumbnailSize.height, background: background
        ).pngData()
    }

    /// A legend swatch: `symbol` drawn as a legend shows it, on a canvas of `width` x `height`
    /// pixels (transparent unless `background` says otherwise).
    ///
    /// See `MapCanvas.drawSwatch(_:x:y:width:height:)` for how each kind of symbol is shown.
    public static func swatch(
        for symbol: Symbol, width: Int = 20, height: Int = 20,
        background: RGBAColor = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
    ) throws(RenderError) -> MapCanvas {
        let canvas = try MapCanvas(
            width: width, height: height,
            extent: BoundingBox(minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)), background: background)
        canvas.drawSwatch(symbol, x: 0, y: 0, width: Double(width), height: Double(height))
        return canvas
    }
}
