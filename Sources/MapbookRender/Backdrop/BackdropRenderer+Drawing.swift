import CCairo
import MapbookTiles

/// Fills, lines and circles of a backdrop's style, in tile coordinates mapped to pixels.
extension BackdropRenderer {
    /// Adds one line or ring (closed) of tile points to the current path, moved `offset`
    /// pixels to the right of its direction (`line-offset`; negative: to the left).
    func append(_ points: [TilePoint], closed: Bool, _ t: TileTransform, _ context: OpaquePointer, offset: Double = 0) {
        var pixels = points.map { t.pixel($0) }
        if offset != 0 { pixels = Self.offsetLine(pixels, by: offset, closed: closed) }
        guard let first = pixels.first else { return }
        cairo_move_to(context, first.0, first.1)
        // Points within a quarter pixel of the last one drawn change no pixel: a tile drawn
        // small (over-zoomed out, or a dense parcel layer) has many, and Cairo's time goes
        // with the points it is given. The last point is always drawn.
        var last = first
        let end = pixels.count - 1
        for (i, p) in pixels.enumerated().dropFirst() {
            let dx = p.0 - last.0, dy = p.1 - last.1
            guard i == end || dx * dx + dy * dy >= 0.0625 else { continue }
            cairo_line_to(context, p.0, p.1)
            last = p
        }
        if closed { cairo_close_path(context) }
    }

    /// A line moved `distance` pixels to the right of its direction (y down): each vertex
    /// along the bisector of its two segments' normals, by the distance over the cosine of
    /// half the turn, at most twice the distance (a sharp turn's miter is cut, as MapLibre's).
    static func offsetLine(_ line: [(Double, Double)], by distance: Double, closed: Bool) -> [(Double, Double)] {
        let n = line.count
        guard n >= 2 else { return line }
        // The right-hand unit normal of each segment; a zero-length one takes its neighbour's.
        var normals: [(Double, Double)] = []
        for i in 0..<(closed ? n : n - 1) {
            let a = line[i], b = line[(i + 1) % n]
            let length = ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()
            normals.append(length > 0 ? (-(b.1 - a.1) / length, (b.0 - a.0) / length) : (normals.last ?? (0, 0)))
        }
        return (0..<n).map { i in
            let before = i > 0 ? normals[i - 1] : (closed ? normals[normals.count - 1] : normals[0])
            let after = i < normals.count ? normals[i] : normals[normals.count - 1]
            var bx = before.0 + after.0, by = before.1 + after.1
            let length = (bx * bx + by * by).squareRoot()
            guard length > 1e-9 else { return (line[i].0 + after.0 * distance, line[i].1 + after.1 * distance) }
            bx /= length
            by /= length
            // The bisector's projection on a normal is the cosine of half the turn.
            let cosine = max(bx * after.0 + by * after.1, 0.5)
            return (line[i].0 + bx * distance / cosine, line[i].1 + by * distance / cosine)
        }
    }

    func appendPolygons(_ geometry: TileGeometry, _ t: TileTransform, _ context: OpaquePointer) -> Bool {
        guard case .polygons(let polygons) = geometry else { return false }
        for polygon in polygons {
            for ring in polygon where ring.count >= 3 { append(ring, closed: true, t, context) }
        }
        return true
    }

    func appendLines(_ geometry: TileGeometry, _ t: TileTransform, _ context: OpaquePointer, offset: Double = 0) -> Bool {
        switch geometry {
        case .lines(let lines):
            for line in lines where line.count >= 2 { append(line, closed: false, t, context, offset: offset) }
            return true
        case .polygons(let polygons):
            // A line layer over polygons strokes their rings.
            for polygon in polygons {
                for ring in polygon where ring.count >= 2 { append(ring, closed: true, t, context, offset: offset) }
            }
            return true
        case .points:
            return false
        }
    }

    func setSource(_ color: StyleColor, opacity: Double, _ context: OpaquePointer) {
        cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha * min(max(opacity, 0), 1))
    }

    func drawFill(
        _ feature: DecodedTile.Feature, _ layer: StyleLayer, _ evaluator: inout StyleExpression, _ t: TileTransform, _ context: OpaquePointer, _ pixelRatio: Double,
        _ batch: inout PaintBatch
    ) -> PaintBatch.FeatureLook {
        let extrusion = layer.type == "fill-extrusion"
        if !extrusion, let name = layer.string("fill-pattern", &evaluator), !name.isEmpty {
            // A pattern from the sprite replaces the colour (MapLibre draws nothing when the
            // sprite lacks it).
            guard let sprite, let icon = sprite.icons[name] else {
                if sprite != nil { note("sprite has no icon '\(name)'") }
                return .alone
            }
            batch.paint(context)
            cairo_new_path(context)
            guard appendPolygons(feature.geometry, t, context) else { return .alone }
            Self.fillWithPattern(icon, of: sprite, opacity: layer.number("fill-opacity", &evaluator) ?? 1, pixelRatio, context)
            return .alone
        }
        let color = layer.color(extrusion ? "fill-extrusion-color" : "fill-color", &evaluator) ?? .black
        let opacity = layer.number(extrusion ? "fill-extrusion-opacity" : "fill-opacity", &evaluator) ?? 1
        guard color.alpha * opacity > 0 else { return .hidden }
        let outline = extrusion ? nil : layer.color("fill-outline-color", &evaluator)
        if color.alpha * min(opacity, 1) >= 1, outline.map({ $0.alpha * min(opacity, 1) >= 1 }) ?? true {
            let look = PaintBatch.Look.fill(color, outline: outline, width: 1 * pixelRatio)
            batch.begin(look, context)
            _ = appendPolygons(feature.geometry, t, context)
            return .batched(look)
        }
        batch.paint(context)
        cairo_new_path(context)
        guard appendPolygons(feature.geometry, t, context) else { return .alone }
        cairo_set_fill_rule(context, CAIRO_FILL_RULE_WINDING)
        setSource(color, opacity: opacity, context)
        if let outline {
            cairo_fill_preserve(context)
            setSource(outline, opacity: opacity, context)
            cairo_set_line_width(context, 1 * pixelRatio)
            cairo_stroke(context)
        } else {
            cairo_fill(context)
        }
        return .alone
    }

    /// Fills the current path with a sprite icon repeated from the canvas's corner, at the
    /// icon's own size (its pixels over its pixel ratio, times the canvas's).
    ///
    /// The corresponding C functions are `cairo_surface_create_for_rectangle`,
    /// `cairo_pattern_create_for_surface`, `cairo_pattern_set_matrix` and `cairo_fill`.
    static func fillWithPattern(_ icon: SpriteIcon, of sprite: Sprite, opacity: Double, _ pixelRatio: Double, _ context: OpaquePointer) {
        guard let tile = cairo_surface_create_for_rectangle(sprite.image.surface, Double(icon.x), Double(icon.y), Double(icon.width), Double(icon.height)) else { return }
        defer { cairo_surface_destroy(tile) }
        guard let pattern = cairo_pattern_create_for_surface(tile) else { return }
        defer { cairo_pattern_destroy(pattern) }
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_REPEAT)
        var matrix = cairo_matrix_t()
        cairo_matrix_init_scale(&matrix, icon.pixelRatio / pixelRatio, icon.pixelRatio / pixelRatio)
        cairo_pattern_set_matrix(pattern, &matrix)
        cairo_save(context)
        cairo_set_fill_rule(context, CAIRO_FILL_RULE_WINDING)
        cairo_clip(context)
        cairo_set_source(context, pattern)
        cairo_paint_with_alpha(context, min(max(opacity, 0), 1))
        cairo_restore(context)
    }

    func drawLine(
        _ feature: DecodedTile.Feature, _ layer: StyleLayer, _ evaluator: inout StyleExpression, _ t: TileTransform, _ context: OpaquePointer, _ pixelRatio: Double,
        _ batch: inout PaintBatch
    ) -> PaintBatch.FeatureLook {
        let width = (layer.number("line-width", &evaluator) ?? 1) * pixelRatio
        let opacity = layer.number("line-opacity", &evaluator) ?? 1
        let color = layer.color("line-color", &evaluator) ?? .black
        guard width > 0, color.alpha * opacity > 0 else { return .hidden }
        let offset = (layer.number("line-offset", &evaluator) ?? 0) * pixelRatio
        let cap: cairo_line_cap_t
        switch layer.string("line-cap", &evaluator) {
        case "round": cap = CAIRO_LINE_CAP_ROUND
        case "square": cap = CAIRO_LINE_CAP_SQUARE
        default: cap = CAIRO_LINE_CAP_BUTT
        }
        let join: cairo_line_join_t
        var miterLimit = 2.0
        switch layer.string("line-join", &evaluator) {
        case "round": join = CAIRO_LINE_JOIN_ROUND
        case "bevel": join = CAIRO_LINE_JOIN_BEVEL
        default:
            join = CAIRO_LINE_JOIN_MITER
            miterLimit = layer.number("line-miter-limit", &evaluator) ?? 2
        }
        var lengths: [Double] = []
        if let dashes = layer.numbers("line-dasharray", &evaluator), !dashes.isEmpty, dashes.allSatisfy({ $0 >= 0 }), dashes.contains(where: { $0 > 0 }) {
            // Dashes are in line widths.
            lengths = dashes.map { $0 * width }
        }
        let gap = (layer.number("line-gap-width", &evaluator) ?? 0) * pixelRatio
        if gap <= 0, color.alpha * min(opacity, 1) >= 1 {
            let look = PaintBatch.Look.line(color, width: width, cap: cap, join: join, miterLimit: miterLimit, dashes: lengths, offset: offset)
            batch.begin(look, context)
            _ = appendLines(feature.geometry, t, context, offset: offset)
            return .batched(look)
        }
        batch.paint(context)
        cairo_new_path(context)
        guard appendLines(feature.geometry, t, context, offset: offset) else { return .alone }
        cairo_set_line_cap(context, cap)
        cairo_set_line_join(context, join)
        cairo_set_miter_limit(context, miterLimit)
        cairo_set_dash(context, lengths.isEmpty ? nil : lengths, Int32(lengths.count), 0)
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
        return .alone
    }

    /// Adds a feature drawn before in a batch of `look` to the batch.
    func redraw(_ feature: DecodedTile.Feature, _ look: PaintBatch.Look, _ t: TileTransform, _ context: OpaquePointer, _ batch: inout PaintBatch) {
        batch.begin(look, context)
        switch look {
        case .fill: _ = appendPolygons(feature.geometry, t, context)
        case .line(_, _, _, _, _, _, let offset): _ = appendLines(feature.geometry, t, context, offset: offset)
        }
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
