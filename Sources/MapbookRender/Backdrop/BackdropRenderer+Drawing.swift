import CCairo
import MapbookPackage
import MapbookTiles

/// Fills, lines and circles of a backdrop's style, in tile coordinates mapped to pixels.
extension BackdropRenderer {
    /// Adds one line or ring (closed) of tile points to the current path.
    func append(_ points: [TilePoint], closed: Bool, _ t: TileTransform, _ context: OpaquePointer) {
        guard let first = points.first else { return }
        let (x, y) = t.pixel(first)
        cairo_move_to(context, x, y)
        for p in points.dropFirst() {
            let (x, y) = t.pixel(p)
            cairo_line_to(context, x, y)
        }
        if closed { cairo_close_path(context) }
    }

    func appendPolygons(_ geometry: TileGeometry, _ t: TileTransform, _ context: OpaquePointer) -> Bool {
        guard case .polygons(let polygons) = geometry else { return false }
        for polygon in polygons {
            for ring in polygon where ring.count >= 3 { append(ring, closed: true, t, context) }
        }
        return true
    }

    func appendLines(_ geometry: TileGeometry, _ t: TileTransform, _ context: OpaquePointer) -> Bool {
        switch geometry {
        case .lines(let lines):
            for line in lines where line.count >= 2 { append(line, closed: false, t, context) }
            return true
        case .polygons(let polygons):
            // A line layer over polygons strokes their rings.
            for polygon in polygons {
                for ring in polygon where ring.count >= 2 { append(ring, closed: true, t, context) }
            }
            return true
        case .points:
            return false
        }
    }

    func setSource(_ color: StyleColor, opacity: Double, _ context: OpaquePointer) {
        cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha * min(max(opacity, 0), 1))
    }

    func drawFill(_ feature: DecodedTile.Feature, _ layer: StyleLayer, _ evaluator: inout StyleExpression, _ t: TileTransform, _ context: OpaquePointer, _ pixelRatio: Double) {
        let extrusion = layer.type == "fill-extrusion"
        let color = layer.color(extrusion ? "fill-extrusion-color" : "fill-color", &evaluator) ?? .black
        let opacity = layer.number(extrusion ? "fill-extrusion-opacity" : "fill-opacity", &evaluator) ?? 1
        guard color.alpha * opacity > 0 else { return }
        cairo_new_path(context)
        guard appendPolygons(feature.geometry, t, context) else { return }
        cairo_set_fill_rule(context, CAIRO_FILL_RULE_WINDING)
        setSource(color, opacity: opacity, context)
        if !extrusion, let outline = layer.color("fill-outline-color", &evaluator) {
            cairo_fill_preserve(context)
            setSource(outline, opacity: opacity, context)
            cairo_set_line_width(context, 1 * pixelRatio)
            cairo_stroke(context)
        } else {
            cairo_fill(context)
        }
    }

    func drawLine(_ feature: DecodedTile.Feature, _ layer: StyleLayer, _ evaluator: inout StyleExpression, _ t: TileTransform, _ context: OpaquePointer, _ pixelRatio: Double) {
        let width = (layer.number("line-width", &evaluator) ?? 1) * pixelRatio
        let opacity = layer.number("line-opacity", &evaluator) ?? 1
        let color = layer.color("line-color", &evaluator) ?? .black
        guard width > 0, color.alpha * opacity > 0 else { return }
        cairo_new_path(context)
        guard appendLines(feature.geometry, t, context) else { return }
        switch layer.string("line-cap", &evaluator) {
        case "round": cairo_set_line_cap(context, CAIRO_LINE_CAP_ROUND)
        case "square": cairo_set_line_cap(context, CAIRO_LINE_CAP_SQUARE)
        default: cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
        }
        switch layer.string("line-join", &evaluator) {
        case "round": cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        case "bevel": cairo_set_line_join(context, CAIRO_LINE_JOIN_BEVEL)
        default:
            cairo_set_line_join(context, CAIRO_LINE_JOIN_MITER)
            cairo_set_miter_limit(context, layer.number("line-miter-limit", &evaluator) ?? 2)
        }
        if let dashes = layer.numbers("line-dasharray", &evaluator), !dashes.isEmpty, dashes.allSatisfy({ $0 >= 0 }), dashes.contains(where: { $0 > 0 }) {
            // Dashes are in line widths.
            let lengths = dashes.map { $0 * width }
            cairo_set_dash(context, lengths, Int32(lengths.count), 0)
        } else {
            cairo_set_dash(context, nil, 0, 0)
        }
        let gap = (layer.number("line-gap-width", &evaluator) ?? 0) * pixelRatio
        if gap > 0 {
            // Two lines `width` wide either side of a `gap`: stroke the whole, clear the gap.
            cairo_push_group(context)
            setSource(color, opacity: 1, context)
            cairo_set_line_width(context, gap + 2 * width)
            cairo_stroke_preserve(context)
            cairo_set_operator(context, CAIRO_OPERATOR_CLEAR)
            cairo_set_line_width(context, gap)
            cairo_stroke(context)
            cairo_pop_group_to_source(context)
            cairo_paint_with_alpha(context, min(max(opacity, 0), 1))
        } else {
            setSource(color, opacity: opacity, context)
            cairo_set_line_width(context, width)
            cairo_stroke(context)
        }
        cairo_set_dash(context, nil, 0, 0)
    }

    func drawCircle(_ feature: DecodedTile.Feature, _ layer: StyleLayer, _ evaluator: inout StyleExpression, _ t: TileTransform, _ context: OpaquePointer, _ pixelRatio: Double) {
        guard case .points(let points) = feature.geometry else { return }
        let radius = (layer.number("circle-radius", &evaluator) ?? 5) * pixelRatio
        let color = layer.color("circle-color", &evaluator) ?? .black
        let opacity = layer.number("circle-opacity", &evaluator) ?? 1
        let strokeWidth = (layer.number("circle-stroke-width", &evaluator) ?? 0) * pixelRatio
        let strokeColor = layer.color("circle-stroke-color", &evaluator) ?? .black
        let strokeOpacity = layer.number("circle-stroke-opacity", &evaluator) ?? 1
        for p in points {
            let (x, y) = t.pixel(p)
            cairo_new_path(context)
            cairo_arc(context, x, y, radius, 0, 2 * Double.pi)
            setSource(color, opacity: opacity, context)
            if strokeWidth > 0 {
                cairo_fill_preserve(context)
                setSource(strokeColor, opacity: strokeOpacity, context)
                cairo_set_line_width(context, strokeWidth)
                cairo_stroke(context)
            } else {
                cairo_fill(context)
            }
        }
    }
}
