import CCairo
import MapbookData
import MapbookPackage
import MapbookSupport

// Drawing geometries with web map symbols (ArcGIS web map specification, "symbol" objects:
// esriSFS, esriSLS, esriSMS, esriPMS). Sizes are points at 96 dpi.

extension MapCanvas {
    /// Pixels per point at 96 dpi.
    static let pixelsPerPoint = 96.0 / 72.0
    /// Beyond this many pixels from the origin, paths are clipped before they reach Cairo.
    static let coordinateLimit = 1_000_000.0
    /// How far outside the canvas clipped paths run, so that outlines along the cut stay unseen.
    static let clipMargin = 1_000.0

    /// Draws `geometry` with `symbol`.
    ///
    /// Fill symbols fill polygons (holes by the even-odd rule) and outline them, and draw lines
    /// with their outline; line symbols draw lines and polygon rings; marker symbols draw points.
    /// A geometry a symbol does not apply to draws nothing, and so do positions that are NaN.
    /// Collections draw each member. A symbol type this module does not draw is skipped with a
    /// warning.
    public func draw(_ geometry: Geometry, symbol: Symbol) {
        draw(geometry, symbol: symbol, markerIndex: nil)
    }

    /// `draw(_:symbol:)` with the simple marker's `markerIndex` when the caller knows it.
    func draw(_ geometry: Geometry, symbol: Symbol, markerIndex: Int?) {
        if case .simpleMarker = symbol {} else { endDirectDrawing() }
        defer { if !batching { endDirectDrawing() } }
        switch geometry.shape {
        case .point(let p): drawPoint(p, symbol, markerIndex: markerIndex)
        case .multiPoint(let points):
            for p in points { drawPoint(p, symbol, markerIndex: markerIndex) }
        case .lineString(let line): drawLines([line], symbol)
        case .multiLineString(let lines): drawLines(lines, symbol)
        case .polygon(let rings): drawPolygons([rings], symbol)
        case .multiPolygon(let polygons): drawPolygons(polygons, symbol)
        case .geometryCollection(let members):
            for member in members { draw(member, symbol: symbol) }
        }
    }

    private func drawPoint(_ p: Position, _ symbol: Symbol, markerIndex: Int?) {
        guard p.x.isFinite && p.y.isFinite else { return }
        let at = pixelPosition(x: p.x, y: p.y)
        let point = PixelPoint(x: at.x, y: at.y)
        switch symbol {
        case .simpleMarker(let marker):
            if image != nil, let index = markerIndex ?? self.markerIndex(marker), stampMarker(index, at: point) { return }
            endDirectDrawing()
            drawMarker(marker, at: point)
        case .pictureMarker(let picture): drawPicture(picture, at: point)
        case .simpleLine, .simpleFill: break
        case .other: warnUnsupported(symbol)
        }
    }

    private func drawLines(_ lines: [[Position]], _ symbol: Symbol) {
        let stroke: SimpleLineSymbol?
        switch symbol {
        case .simpleLine(let line): stroke = line
        case .simpleFill(let fill): stroke = fill.outline
        case .simpleMarker, .pictureMarker: return
        case .other:
            warnUnsupported(symbol)
            return
        }
        guard let stroke else { return }
        for line in lines {
            appendLine(pixelPoints(line))
        }
        self.stroke(stroke)
    }

    private func drawPolygons(_ polygons: [[[Position]]], _ symbol: Symbol) {
        switch symbol {
        case .simpleFill(let fill):
            for rings in polygons {
                let pixelRings = rings.map(pixelPoints)
                self.fill(fill) { for ring in pixelRings { appendRing(ring) } }
            }
        case .simpleLine(let line):
            for rings in polygons {
                for ring in rings { appendRing(pixelPoints(ring)) }
            }
            stroke(line)
        case .simpleMarker, .pictureMarker: return
        case .other: warnUnsupported(symbol)
        }
    }

    private func warnUnsupported(_ symbol: Symbol) {
        warn("symbols of type '\(symbol.typeName ?? "unknown")' are not drawn")
    }

    // MARK: Paths

    /// The pixel positions of world positions, skipping NaN and infinite ones.
    func pixelPoints(_ positions: [Position]) -> [PixelPoint] {
        var out: [PixelPoint] = []
        out.reserveCapacity(positions.count)
        for p in positions where p.x.isFinite && p.y.isFinite {
            let at = pixelPosition(x: p.x, y: p.y)
            out.append(PixelPoint(x: at.x, y: at.y))
        }
        return out
    }

    private var clipRectangle: BoundingBox {
        BoundingBox(
            minX: -Self.clipMargin, minY: -Self.clipMargin,
            maxX: Double(width) + Self.clipMargin, maxY: Double(height) + Self.clipMargin)
    }

    /// Adds an open line to the current path.
    ///
    /// The corresponding C functions are `cairo_move_to` and `cairo_line_to`.
    func appendLine(_ points: [PixelPoint]) {
        guard points.count > 1 else { return }
        let parts = PixelPoint.exceeds(points, limit: Self.coordinateLimit) ? clipRectangle.clipLine(points) : [points]
        for part in parts {
            cairo_move_to(context, part[0].x, part[0].y)
            for p in part.dropFirst() { cairo_line_to(context, p.x, p.y) }
        }
    }

    /// Adds a closed ring to the current path.
    ///
    /// The corresponding C functions are `cairo_move_to`, `cairo_line_to` and `cairo_close_path`.
    func appendRing(_ points: [PixelPoint]) {
        let ring = PixelPoint.exceeds(points, limit: Self.coordinateLimit) ? PixelPoint.ring(points, clippedTo: clipRectangle) : points
        guard ring.count > 2 else { return }
        cairo_move_to(context, ring[0].x, ring[0].y)
        for p in ring.dropFirst() { cairo_line_to(context, p.x, p.y) }
        cairo_close_path(context)
    }

    // MARK: Fills and strokes

    /// Fills the path `appendPath` adds with `symbol`'s fill (even-odd rule), then outlines it.
    ///
    /// The corresponding C functions are `cairo_set_fill_rule`, `cairo_fill`, `cairo_clip` and `cairo_stroke`.
    func fill(_ symbol: SimpleFillSymbol, appendPath: () -> Void) {
        cairo_new_path(context)
        cairo_set_fill_rule(context, CAIRO_FILL_RULE_EVEN_ODD)
        let style = symbol.style ?? "esriSFSSolid"
        if let color = symbol.color, color.alpha > 0, style != "esriSFSNull" {
            appendPath()
            setSource(color)
            if let hatch = Hatch(style: style) {
                cairo_save(context)
                cairo_clip(context)
                drawHatch(hatch)
                cairo_restore(context)
            } else {
                // esriSFSSolid, and any style this module does not know, fill solid.
                cairo_fill(context)
            }
        }
        if let outline = symbol.outline {
            appendPath()
            stroke(outline)
        }
        cairo_new_path(context)
    }

    /// Strokes the current path with `symbol`, or clears it when the symbol draws nothing
    /// (style null, width 0, no colour).
    ///
    /// The corresponding C functions are `cairo_set_line_width`, `cairo_set_dash` and `cairo_stroke`.
    func stroke(_ symbol: SimpleLineSymbol) {
        guard let width = Self.strokeWidth(symbol), let color = symbol.color, color.alpha > 0 else {
            cairo_new_path(context)
            return
        }
        setSource(color)
        cairo_set_line_width(context, width)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        let dashes = Self.dashPattern(symbol.style).map { $0 * max(width, 1) }
        if dashes.isEmpty {
            cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
            cairo_set_dash(context, nil, 0, 0)
        } else {
            cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
            dashes.withUnsafeBufferPointer { cairo_set_dash(context, $0.baseAddress, Int32($0.count), 0) }
        }
        cairo_stroke(context)
        cairo_set_dash(context, nil, 0, 0)
    }

    /// The stroke width in pixels, or nil when the line is not drawn.
    static func strokeWidth(_ symbol: SimpleLineSymbol) -> Double? {
        guard symbol.style != "esriSLSNull" else { return nil }
        // Esri's default line width is 0.75 pt; width 0 means no line.
        let points = symbol.width ?? 0.75
        guard points.isFinite, points > 0 else { return nil }
        return points * pixelsPerPoint
    }

    /// Dash and gap lengths in multiples of the line width for an `esriSLS` style; empty for a
    /// solid line (and for styles this module does not know).
    static func dashPattern(_ style: String?) -> [Double] {
        switch style {
        case "esriSLSDash": return [4, 3]
        case "esriSLSDot": return [1, 3]
        case "esriSLSDashDot": return [4, 3, 1, 3]
        case "esriSLSDashDotDot": return [4, 3, 1, 3, 1, 3]
        case "esriSLSShortDash": return [2, 2]
        case "esriSLSShortDot": return [1, 1]
        case "esriSLSShortDashDot": return [2, 2, 1, 2]
        case "esriSLSShortDashDotDot": return [2, 2, 1, 2, 1, 2]
        case "esriSLSLongDash": return [8, 3]
        case "esriSLSLongDashDot": return [8, 3, 1, 3]
        default: return []
        }
    }
}
