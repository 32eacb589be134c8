import CCairo
import MapbookPackage

extension MapCanvas {
    /// Draws `symbol` as a legend swatch in the pixel rectangle at (`x`, `y`) (top left) of
    /// `width` x `height`.
    ///
    /// A fill symbol fills and outlines the rectangle less a one-pixel margin; a line symbol is
    /// a horizontal line across its middle; a marker is centred, shrunk to fit when larger.
    /// Drawing is clipped to the rectangle.
    /// The corresponding C functions are `cairo_rectangle` and `cairo_clip`.
    public func drawSwatch(_ symbol: Symbol, x: Double, y: Double, width: Double, height: Double) {
        guard width > 0, height > 0 else { return }
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_new_path(context)
        cairo_rectangle(context, x, y, width, height)
        cairo_clip(context)
        let centre = PixelPoint(x: x + width / 2, y: y + height / 2)
        // The largest marker that fits, in points.
        let room = (min(width, height) - 2) / Self.pixelsPerPoint
        switch symbol {
        case .simpleFill(let fill):
            let inset = 1 + (fill.outline.flatMap(Self.strokeWidth) ?? 0) / 2
            let ring = [
                PixelPoint(x: x + inset, y: y + inset), PixelPoint(x: x + width - inset, y: y + inset),
                PixelPoint(x: x + width - inset, y: y + height - inset), PixelPoint(x: x + inset, y: y + height - inset),
            ]
            self.fill(fill) { appendRing(ring) }
        case .simpleLine(let line):
            appendLine([PixelPoint(x: x + 1, y: centre.y), PixelPoint(x: x + width - 1, y: centre.y)])
            stroke(line)
        case .simpleMarker(var marker):
            marker.size = min(marker.size ?? Self.defaultMarkerSize, room)
            marker.xoffset = nil
            marker.yoffset = nil
            drawMarker(marker, at: centre)
        case .pictureMarker(var picture):
            let w = picture.width ?? room
            let h = picture.height ?? room
            let shrink = min(1, room / max(w, h))
            picture.width = w * shrink
            picture.height = h * shrink
            picture.xoffset = nil
            picture.yoffset = nil
            drawPicture(picture, at: centre)
        case .other:
            warn("symbols of type '\(symbol.typeName ?? "unknown")' are not drawn")
        }
    }
}
