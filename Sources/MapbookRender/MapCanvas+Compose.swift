import CCairo
extension MapCanvas {
    /// Paints another canvas's pixels with their top left corner at (`x`, `y`).
    public func draw(_ other: MapCanvas, x: Double, y: Double) {
        cairo_save(context)
        cairo_set_source_surface(context, other.image.surface, x, y)
        cairo_paint(context)
        cairo_restore(context)
    }
}
