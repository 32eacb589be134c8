import CCairo
extension MapCanvas {
    /// Paints another canvas with its top left corner at (`x`, `y`): its pixels, or its
    /// vectors when both are vector canvases.
    public func draw(_ other: MapCanvas, x: Double, y: Double) {
        other.endDirectDrawing()
        endDirectDrawing()
        cairo_save(context)
        cairo_set_source_surface(context, other.surface, x, y)
        cairo_paint(context)
        cairo_restore(context)
    }
}

extension MapCanvas {
    /// Paints `image` scaled into the box of `width` x `height` pixels at `x`, `y` (a raster
    /// base map's tile), smoothly resampled, with `opacity` (0 to 1). The image's edge pixels
    /// are extended outward, so neighbouring tiles meet without a seam.
    ///
    /// The corresponding C functions are `cairo_scale`, `cairo_set_source_surface`,
    /// `cairo_pattern_set_filter`, `cairo_pattern_set_extend` and `cairo_paint_with_alpha`.
    public func draw(_ image: RasterImage, x: Double, y: Double, width: Double, height: Double, opacity: Double = 1) {
        guard width > 0, height > 0 else { return }
        endDirectDrawing()
        cairo_save(context)
        cairo_rectangle(context, x, y, width, height)
        cairo_clip(context)
        cairo_translate(context, x, y)
        cairo_scale(context, width / Double(image.width), height / Double(image.height))
        cairo_set_source_surface(context, image.surface, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
        cairo_pattern_set_extend(cairo_get_source(context), CAIRO_EXTEND_PAD)
        cairo_paint_with_alpha(context, min(max(opacity, 0), 1))
        cairo_restore(context)
    }
}
