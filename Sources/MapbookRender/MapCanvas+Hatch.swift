import CCairo

/// The line directions of a hatched `esriSFS` style.
struct Hatch {
    var horizontal = false
    var vertical = false
    /// "/" lines.
    var forward = false
    /// "\" lines.
    var backward = false

    /// The hatch of an `esriSFS` style, or nil for solid, null and unknown styles.
    init?(style: String) {
        switch style {
        case "esriSFSHorizontal": horizontal = true
        case "esriSFSVertical": vertical = true
        case "esriSFSCross": (horizontal, vertical) = (true, true)
        case "esriSFSForwardDiagonal": forward = true
        case "esriSFSBackwardDiagonal": backward = true
        case "esriSFSDiagonalCross": (forward, backward) = (true, true)
        default: return nil
        }
    }
}

extension MapCanvas {
    /// Pixels between hatch lines, measured across them.
    static let hatchSpacing = 8.0

    /// Strokes hatch lines, one pixel wide, over the current clip with the current source.
    /// Lines sit on a grid anchored at the canvas origin, so neighbouring polygons line up.
    ///
    /// The corresponding C functions are `cairo_clip_extents` and `cairo_stroke`.
    func drawHatch(_ hatch: Hatch) {
        var (x1, y1, x2, y2) = (0.0, 0.0, 0.0, 0.0)
        cairo_clip_extents(context, &x1, &y1, &x2, &y2)
        guard x2 > x1, y2 > y1 else { return }
        let step = Self.hatchSpacing
        cairo_set_line_width(context, 1)
        cairo_set_dash(context, nil, 0, 0)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
        // Lines on pixel centres stay crisp.
        func grid(from low: Double, to high: Double) -> StrideThrough<Double> {
            stride(from: (low / step).rounded(.down) * step + 0.5, through: high, by: step)
        }
        if hatch.horizontal {
            for y in grid(from: y1, to: y2) {
                cairo_move_to(context, x1, y)
                cairo_line_to(context, x2, y)
            }
        }
        if hatch.vertical {
            for x in grid(from: x1, to: x2) {
                cairo_move_to(context, x, y1)
                cairo_line_to(context, x, y2)
            }
        }
        let diagonalStep = step * 2.0.squareRoot()
        if hatch.forward {
            // x + y = c, going up to the right (pixel y grows down).
            var c = ((x1 + y1) / diagonalStep).rounded(.down) * diagonalStep
            while c <= x2 + y2 {
                cairo_move_to(context, c - y2, y2)
                cairo_line_to(context, c - y1, y1)
                c += diagonalStep
            }
        }
        if hatch.backward {
            // x - y = c, going down to the right.
            var c = ((x1 - y2) / diagonalStep).rounded(.down) * diagonalStep
            while c <= x2 - y1 {
                cairo_move_to(context, c + y1, y1)
                cairo_line_to(context, c + y2, y2)
                c += diagonalStep
            }
        }
        cairo_stroke(context)
    }
}
