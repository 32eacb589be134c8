import CCairo
import MapbookTiles

/// Signed-distance-field glyphs for a style's `glyphs` URL, made from the installed fonts:
/// what `mapbook create` writes into a backdrop's `resources/fonts/` so that MapLibre draws
/// its labels with nothing fetched from the internet.
///
/// Each character is drawn at 24 pixels by Cairo's FreeType backend (fontconfig finds the
/// family: Noto Sans from Debian's fonts-noto-core), antialiased, unhinted, into an alpha
/// bitmap with a 3-pixel border; the bitmap becomes distances to the outline by an exact
/// Euclidean distance transform (Felzenszwalb and Huttenlocher's, inside and outside), 8 pixels
/// of distance over the byte's range with the outline at 192, as MapLibre's shaders expect.
/// Metrics follow the format's convention: `left` the bearing, `top` the bitmap's top from the
/// baseline minus the font's ascender, `advance` in whole pixels, as FreeType gives them. A character the font
/// does not have (nor any fallback fontconfig offers) is left out, as MapLibre expects.
public final class GlyphRasterizer {
    public let family: String
    public let bold: Bool
    private let surface: OpaquePointer
    private let cairo: OpaquePointer
    private let ascender: Int32
    static let side = 128
    static let radius = 8.0
    static let cutoff = 0.25

    /// `family` as fontconfig names it ("Noto Sans"); bold or regular.
    public init(family: String, bold: Bool = false) {
        self.family = family
        self.bold = bold
        surface = cairo_image_surface_create(CAIRO_FORMAT_A8, Int32(Self.side), Int32(Self.side))
        cairo = cairo_create(surface)
        cairo_select_font_face(cairo, family, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cairo, Double(GlyphRange.size))
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_set_font_options(cairo, options)
        cairo_font_options_destroy(options)
        var extents = cairo_font_extents_t()
        cairo_font_extents(cairo, &extents)
        // FreeType's sized ascender is rounded up to a pixel.
        ascender = Int32(extents.ascent.rounded(.up))
    }

    deinit {
        cairo_destroy(cairo)
        cairo_surface_destroy(surface)
    }

    /// The 256 glyphs from `start` (a multiple of 256) that the font has.
    public func range(start: UInt32, fontStack: String) -> GlyphRange {
        GlyphRange(fontStack: fontStack, start: start, glyphs: (start..<start + 256).compactMap(glyph))
    }

    /// One character's glyph; nil for control characters and characters no font has.
    public func glyph(_ codepoint: UInt32) -> GlyphRange.Glyph? {
        guard codepoint >= 0x20, !(0x7F..<0xA0).contains(codepoint), let scalar = Unicode.Scalar(codepoint), hasGlyph(scalar) else { return nil }
        let text = String(Character(scalar))
        var ink = cairo_text_extents_t()
        cairo_text_extents(cairo, text, &ink)
        // As FreeType's 26.6 advance shifted to pixels: rounded down.
        let advance = UInt32(max(ink.x_advance.rounded(.down), 0))
        let border = GlyphRange.border
        guard ink.width > 0, ink.height > 0 else {
            return GlyphRange.Glyph(id: codepoint, bitmap: [], width: 0, height: 0, left: 0, top: -ascender, advance: advance)
        }
        // The ink box to the nearest pixel (a sliver past it still lands in the border).
        let left = Int(ink.x_bearing.rounded()), top = Int(ink.y_bearing.rounded())
        let width = max(min(Int((ink.x_bearing + ink.width).rounded()) - left, Self.side - 2 * border), 1)
        let height = max(min(Int((ink.y_bearing + ink.height).rounded()) - top, Self.side - 2 * border), 1)
        // Clear, then draw the character with its ink box's corner at the border.
        cairo_set_operator(cairo, CAIRO_OPERATOR_CLEAR)
        cairo_paint(cairo)
        cairo_set_operator(cairo, CAIRO_OPERATOR_OVER)
        cairo_set_source_rgba(cairo, 0, 0, 0, 1)
        cairo_move_to(cairo, Double(border - left), Double(border - top))
        cairo_show_text(cairo, text)
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        let w = width + 2 * border, h = height + 2 * border
        var alpha = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w { alpha[y * w + x] = data[y * stride + x] }
        }
        return GlyphRange.Glyph(
            id: codepoint, bitmap: Self.distanceField(alpha, width: w, height: h), width: UInt32(width), height: UInt32(height),
            left: Int32(left), top: Int32(-top) - ascender, advance: advance)
    }

    /// Whether the font (or a fallback) has the character: its glyph is not .notdef (0).
    private func hasGlyph(_ scalar: Unicode.Scalar) -> Bool {
        let font = cairo_get_scaled_font(cairo)
        var glyphs: UnsafeMutablePointer<cairo_glyph_t>?
        var count: Int32 = 0
        let status = cairo_scaled_font_text_to_glyphs(font, 0, 0, String(Character(scalar)), -1, &glyphs, &count, nil, nil, nil)
        defer { if let glyphs { cairo_glyph_free(glyphs) } }
        guard status == CAIRO_STATUS_SUCCESS, let glyphs, count > 0 else { return false }
        return glyphs[0].index != 0
    }

    /// An alpha bitmap as bytes of signed distance to its outline (where alpha crosses half).
    static func distanceField(_ alpha: [UInt8], width: Int, height: Int) -> [UInt8] {
        let far = Double.greatestFiniteMagnitude
        // Squared distances to the nearest inside pixel (for pixels outside) and to the nearest
        // outside pixel (for pixels inside); partial coverage starts part of a pixel away.
        var outside = alpha.map { a -> Double in a == 0 ? far : pow2(max(0, 0.5 - Double(a) / 255)) }
        var inside = alpha.map { a -> Double in a == 255 ? far : pow2(max(0, Double(a) / 255 - 0.5)) }
        transform(&outside, width: width, height: height)
        transform(&inside, width: width, height: height)
        return (0..<alpha.count).map { i in
            let distance = min(max((outside[i].squareRoot() - inside[i].squareRoot()) / radius, -1), 1)
            return UInt8(clamping: Int((255 - 255 * (distance + cutoff)).rounded(.down)))
        }
    }

    private static func pow2(_ x: Double) -> Double { x * x }

    /// The 2-D squared Euclidean distance transform: along every column, then every row.
    static func transform(_ grid: inout [Double], width: Int, height: Int) {
        var line = [Double](repeating: 0, count: max(width, height))
        for x in 0..<width {
            for y in 0..<height { line[y] = grid[y * width + x] }
            let out = transform1D(Array(line[0..<height]))
            for y in 0..<height { grid[y * width + x] = out[y] }
        }
        for y in 0..<height {
            let out = transform1D(Array(grid[(y * width)..<(y * width + width)]))
            for x in 0..<width { grid[y * width + x] = out[x] }
        }
    }

    /// One dimension: the lower envelope of the parabolas rooted at each sample.
    static func transform1D(_ f: [Double]) -> [Double] {
        let n = f.count
        guard n > 0 else { return [] }
        var roots = [Int](repeating: 0, count: n)
        var bounds = [Double](repeating: 0, count: n + 1)
        var k = 0
        bounds[0] = -.greatestFiniteMagnitude
        bounds[1] = .greatestFiniteMagnitude
        for q in 1..<n {
            var s: Double
            repeat {
                let r = roots[k]
                s = ((f[q] + Double(q * q)) - (f[r] + Double(r * r))) / Double(2 * q - 2 * r)
                if s <= bounds[k] { k -= 1 } else { break }
            } while k >= 0
            k += 1
            roots[k] = q
            bounds[k] = s
            bounds[k + 1] = .greatestFiniteMagnitude
        }
        var out = [Double](repeating: 0, count: n)
        k = 0
        for q in 0..<n {
            while bounds[k + 1] < Double(q) { k += 1 }
            let d = Double(q - roots[k])
            out[q] = d * d + f[roots[k]]
        }
        return out
    }
}
