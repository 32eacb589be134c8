import CCairo
import MapbookTiles

/// Opaque fills and lines of one look, gathered into one Cairo path and painted at once.
///
/// A backdrop tile has thousands of parcels and streets that look alike: painting each alone
/// spent most of a frame in Cairo's set-up per fill and stroke. Painting a run of features
/// that look the same as one path gives the same pixels when they are opaque (a pixel covered
/// twice is covered once either way); translucent ones, whose overlaps blend twice, are still
/// painted one by one. A run's outlines are drawn over all its fills, as MapLibre draws a
/// layer's outlines after its fills.
struct PaintBatch {
    enum Look: Equatable {
        /// A fill, and the colour and width of its outline when it has one.
        case fill(StyleColor, outline: StyleColor?, width: Double)
        /// `offset` moves the lines, not their look: it is kept for drawing them again.
        case line(StyleColor, width: Double, cap: cairo_line_cap_t, join: cairo_line_join_t, miterLimit: Double, dashes: [Double], offset: Double)
    }

    /// How a feature of a style layer was drawn at a zoom, kept to draw it again without
    /// evaluating its style (a pan draws the same tiles at the same zoom).
    enum FeatureLook {
        /// Filtered out, or invisible.
        case hidden
        /// In a batch of this look.
        case batched(Look)
        /// On its own: evaluated again each time.
        case alone
    }

    /// The look of the path being gathered; nil when there is none.
    private(set) var look: Look?

    /// Starts gathering features of `look` into the current path, painting what was gathered
    /// before if it looked different. Returns false when the features are already of `look`.
    ///
    /// The corresponding C functions are `cairo_new_path`, `cairo_set_line_width`,
    /// `cairo_set_line_cap`, `cairo_set_line_join`, `cairo_set_miter_limit` and `cairo_set_dash`.
    mutating func begin(_ new: Look, _ context: OpaquePointer) {
        guard new != look else { return }
        paint(context)
        look = new
        cairo_new_path(context)
        switch new {
        case .fill(let color, _, _):
            cairo_set_fill_rule(context, CAIRO_FILL_RULE_WINDING)
            cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
        case .line(let color, let width, let cap, let join, let miterLimit, let dashes, _):
            cairo_set_source_rgba(context, color.red, color.green, color.blue, color.alpha)
            cairo_set_line_width(context, width)
            cairo_set_line_cap(context, cap)
            cairo_set_line_join(context, join)
            cairo_set_miter_limit(context, miterLimit)
            cairo_set_dash(context, dashes, Int32(dashes.count), 0)
        }
    }

    /// Paints what was gathered and ends the run.
    ///
    /// The corresponding C functions are `cairo_fill` and `cairo_stroke`.
    mutating func paint(_ context: OpaquePointer) {
        switch look {
        case .fill(_, let outline?, let width)?:
            // Outlines over all the fills of the run, as MapLibre draws a layer's outlines
            // after its fills.
            cairo_fill_preserve(context)
            cairo_set_source_rgba(context, outline.red, outline.green, outline.blue, outline.alpha)
            cairo_set_line_width(context, width)
            cairo_stroke(context)
        case .fill?: cairo_fill(context)
        case .line?:
            cairo_stroke(context)
            cairo_set_dash(context, nil, 0, 0)
        case nil: break
        }
        look = nil
    }
}
