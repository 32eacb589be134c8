import CCairo
import CMapbookLazy
import MapbookPackage

extension MapCanvas {
    /// Draws `text` (Pango: any script the installed fonts cover) in `font` at `size` pixels
    /// with its `anchor` corner at (`x`, `y`): "top-left", "top-right", "bottom-left",
    /// "bottom-right" or "center". A `halo` of `haloWidth` pixels keeps it readable over the map.
    /// Returns the text's box: x, y, width, height.
    @discardableResult
    public func drawText(
        _ text: String, x: Double, y: Double, size: Double, font: String = "Noto Sans", anchor: String = "top-left",
        color: RGBAColor = RGBAColor(red: 0, green: 0, blue: 0), halo: RGBAColor? = nil, haloWidth: Double = 0
    ) -> (x: Double, y: Double, width: Double, height: Double) {
        let layout = mapbook_text_layout_new(context, text, font, size, 0, 0, 0)
        defer { mapbook_text_layout_free(layout) }
        var lx = 0.0, ly = 0.0, w = 0.0, h = 0.0, baseline = 0.0
        mapbook_text_layout_extents(layout, &lx, &ly, &w, &h, &baseline)
        var left = x, top = y
        switch anchor {
        case "top-right": left = x - w
        case "bottom-left": top = y - h
        case "bottom-right": left = x - w; top = y - h
        case "center": left = x - w / 2; top = y - h / 2
        default: break
        }
        func unit(_ c: RGBAColor) -> [Double] { [c.red, c.green, c.blue, c.alpha].map { Double(max(0, min(255, $0))) / 255 } }
        let haloColor = halo.map(unit) ?? [0, 0, 0, 0]
        mapbook_text_layout_draw(context, layout, left, top, unit(color), halo == nil ? 0 : haloWidth, haloColor, 0)
        return (left, top, w, h)
    }

    /// Fills a rectangle of pixels with `color`.
    public func fillRectangle(x: Double, y: Double, width: Double, height: Double, color: RGBAColor) {
        cairo_save(context)
        setSource(color)
        cairo_rectangle(context, x, y, width, height)
        cairo_fill(context)
        cairo_restore(context)
    }
}

extension MapCanvas {
    /// The size `text` takes in `font` at `size` pixels, without drawing it.
    public func textSize(_ text: String, size: Double, font: String = "Noto Sans") -> (width: Double, height: Double) {
        let layout = mapbook_text_layout_new(context, text, font, size, 0, 0, 0)
        defer { mapbook_text_layout_free(layout) }
        var x = 0.0, y = 0.0, w = 0.0, h = 0.0, baseline = 0.0
        mapbook_text_layout_extents(layout, &x, &y, &w, &h, &baseline)
        return (w, h)
    }
}

extension MapCanvas {
    /// How many characters of `text` no installed font has a glyph for (drawn as boxes).
    public func unknownGlyphs(_ text: String, size: Double, font: String = "Noto Sans") -> Int {
        let layout = mapbook_text_layout_new(context, text, font, size, 0, 0, 0)
        defer { mapbook_text_layout_free(layout) }
        return Int(mapbook_text_layout_unknown_glyphs(layout))
    }
}
