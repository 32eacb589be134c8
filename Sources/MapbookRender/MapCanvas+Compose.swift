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
