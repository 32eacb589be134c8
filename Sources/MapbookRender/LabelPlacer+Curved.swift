import CCairo
import CMapbookLazy
import MapbookSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line of pixels a label may follow, with the distance along it at each vertex.
final class LabelPath {
    let points: [(Double, Double)]
    let distances: [Double]

    init(_ points: [(Double, Double)]) {
        self.points = points
        var distances: [Double] = [0]
        for (a, b) in zip(points, points.dropFirst()) { distances.append(distances.last! + hypot(b.0 - a.0, b.1 - a.1)) }
        self.distances = distances
    }

    var length: Double { distances.last ?? 0 }

    /// The line simplified to `tolerance` pixels (Douglas-Peucker), kept for the next label
    /// of the same size: text follows a line's course, not zigzags smaller than its letters.
    private var simplifiedCache: (tolerance: Double, path: LabelPath)?

    func simplified(_ tolerance: Double) -> LabelPath {
        if let simplifiedCache, simplifiedCache.tolerance == tolerance { return simplifiedCache.path }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack = [(0, points.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let a = points[first], b = points[last]
            let dx = b.0 - a.0, dy = b.1 - a.1, length = hypot(dx, dy)
            var farthest = first, distance = -1.0
            for i in (first + 1)..<last {
                let p = points[i]
                let d = length > 0 ? abs(dy * (p.0 - a.0) - dx * (p.1 - a.1)) / length : hypot(p.0 - a.0, p.1 - a.1)
                if d > distance { (farthest, distance) = (i, d) }
            }
            if distance > tolerance {
                keep[farthest] = true
                stack.append((first, farthest))
                stack.append((farthest, last))
            }
        }
        let path = LabelPath(zip(points, keep).filter(\.1).map(\.0))
        simplifiedCache = (tolerance, path)
        return path
    }

    /// The point `d` pixels along the line and the direction of the segment it lies on; nil
    /// off either end.
    func point(at d: Double) -> (x: Double, y: Double, angle: Double)? {
        guard d >= 0, d <= length, points.count >= 2 else { return nil }
        // The first vertex at or past `d` (binary search: long lines have many vertices).
        var low = 1, high = distances.count - 1
        while low < high {
            let mid = (low + high) / 2
            if distances[mid] < d { low = mid + 1 } else { high = mid }
        }
        let a = points[low - 1], b = points[low]
        let segment = distances[low] - distances[low - 1]
        let f = segment > 0 ? (d - distances[low - 1]) / segment : 0
        return (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, atan2(b.1 - a.1, b.0 - a.0))
    }
}

/// A character's logical box from its layout, and how many of its characters no font has.
struct GlyphMetrics {
    var x: Double, y: Double, width: Double, height: Double
    var unknown: Int
}

/// One character of a label that follows its line: its layout, where its centre stands and
/// how it turns, and its layout's top left corner from that centre.
struct PlacedGlyph {
    var layout: UnsafeMutableRawPointer?
    var x: Double, y: Double, angle: Double
    var offset: (Double, Double)
}

extension LabelPlacer {
    /// Whether `text` can be laid out a character at a time: scripts whose letters join or
    /// reorder (Hebrew, Arabic, the Indic scripts, Thai, Hangul jamo and others from U+0590
    /// to U+1DFF, and the presentation forms) need the whole word shaped at once, so their
    /// labels stay straight.
    static func canCurve(_ text: String) -> Bool {
        !text.unicodeScalars.contains { (0x0590...0x1DFF).contains($0.value) || (0xFB1D...0xFEFF).contains($0.value) }
    }

    /// A label's characters along its path, centred on its anchor's distance, each turned with
    /// the line, the whole read left to right (walking the line backwards when it runs
    /// leftwards, unless it need not stay upright); nil when the text runs off the line, turns
    /// more than `maxAngle` between two characters (MapLibre's `text-max-angle`), or a
    /// character's box is taken. Placed glyphs' boxes are taken.
    mutating func placeAlong(_ line: LabelPath, _ label: Label, context: OpaquePointer, missingGlyphs: inout Int) -> [PlacedGlyph]? {
        let path = line.simplified(label.size * 0.8)
        // Each character measured once per font and size a frame (a layout is made only for
        // the characters of labels placed: most candidates along lines are not).
        var glyphs: [(layout: UnsafeMutableRawPointer?, width: Double, height: Double, x: Double, y: Double)] = []
        var characters: [String] = []
        var units: [GlyphMetrics] = []
        for character in label.text {
            let text = String(character)
            let key = "\(label.font)|\(label.size)|\(text)"
            let m: GlyphMetrics
            if let known = glyphMetrics[key] {
                m = known
            } else {
                let layout = mapbook_text_layout_new(context, text, label.font, label.size, 0, 0, 1)
                var x = 0.0, y = 0.0, w = 0.0, h = 0.0, baseline = 0.0
                mapbook_text_layout_extents(layout, &x, &y, &w, &h, &baseline)
                m = GlyphMetrics(x: x, y: y, width: w, height: h, unknown: Int(mapbook_text_layout_unknown_glyphs(layout)))
                mapbook_text_layout_free(layout)
                glyphMetrics[key] = m
            }
            glyphs.append((nil, m.width, m.height, m.x, m.y))
            characters.append(text)
            units.append(m)
        }
        // The first of the label's places along the line where it fits.
        for distance in [label.pathDistance] + label.pathAlternatives {
            // A distance is the same share of the simplified line.
            let anchorDistance = line.length > 0 ? distance / line.length * path.length : 0
            guard var placed = place(glyphs, along: path, at: anchorDistance, label) else { continue }
            for i in placed.indices {
                placed[i].layout = mapbook_text_layout_new(context, characters[i], label.font, label.size, 0, 0, 1)
                missingGlyphs += units[i].unknown
            }
            return placed
        }
        return nil
    }

    /// The characters along `path` centred at `anchorDistance`, or nil (see `placeAlong`);
    /// their boxes are taken when they fit.
    private mutating func place(
        _ glyphs: [(layout: UnsafeMutableRawPointer?, width: Double, height: Double, x: Double, y: Double)],
        along path: LabelPath, at anchorDistance: Double, _ label: Label
    ) -> [PlacedGlyph]? {
        func fail() -> [PlacedGlyph]? { nil }
        let spacing = label.letterSpacing
        let total = glyphs.reduce(0) { $0 + $1.width } + spacing * Double(max(glyphs.count - 1, 0))
        guard let middle = path.point(at: anchorDistance) else { return fail() }
        let backwards = label.keepUpright && cos(middle.angle) < 0
        // Above or below the line as the anchor says ("bottom": the text's bottom on the line),
        // then `text-offset`'s second value in ems.
        let tallest = glyphs.map(\.height).max() ?? 0
        let shift = (label.anchor.hasPrefix("bottom") ? -tallest / 2 : label.anchor.hasPrefix("top") ? tallest / 2 : 0) + label.offset.1 * label.size
        var placed: [PlacedGlyph] = []
        var boxes: [BoundingBox] = []
        var along = -total / 2 + label.offset.0 * label.size
        var previous: Double?
        var lastGlyphWidth: Double?
        for g in glyphs {
            let centre = along + g.width / 2
            along += g.width + spacing
            // The character turns with the chord of the (simplified) line under it, so one
            // standing on a bend turns halfway.
            let reach = g.width / 2
            let start = min(max(anchorDistance + (backwards ? -(centre - reach) : centre - reach), 0), path.length)
            let end = min(max(anchorDistance + (backwards ? -(centre + reach) : centre + reach), 0), path.length)
            // Its middle stays on the line (a chord's middle would cut a bend's corner and
            // crowd the characters there).
            guard let a = path.point(at: start), let b = path.point(at: end),
                let p = path.point(at: anchorDistance + (backwards ? -centre : centre))
            else { return fail() }
            let angle = hypot(b.x - a.x, b.y - a.y) > 0 ? atan2(b.y - a.y, b.x - a.x) : (backwards ? a.angle + Double.pi : a.angle)
            if let previous {
                var turn = abs(angle - previous).truncatingRemainder(dividingBy: 2 * Double.pi)
                if turn > Double.pi { turn = 2 * Double.pi - turn }
                if turn > label.maxAngle { return fail() }
            }
            previous = angle
            // A line that doubles back within a word would pile its letters up: the text
            // must advance at least two thirds of the way a straight line would.
            if let last = placed.last, let lastWidth = lastGlyphWidth,
                hypot(p.x - sin(angle) * shift + label.translate.0 - last.x, p.y + cos(angle) * shift + label.translate.1 - last.y) < (lastWidth + g.width) / 3 + spacing / 2
            {
                return fail()
            }
            lastGlyphWidth = g.width
            // The glyph's centre, moved across the line by `shift`.
            let cx = p.x - sin(angle) * shift + label.translate.0, cy = p.y + cos(angle) * shift + label.translate.1
            let (w, h) = (g.width, g.height)
            let box = Self.turnedBox(x: cx, y: cy, angle: angle, left: -w / 2, top: -h / 2, width: w, height: h)
            if label.avoidEdges && (box.minX < 0 || box.minY < 0 || box.maxX > width || box.maxY > height) { return fail() }
            if !label.allowOverlap && !isFree(box.padded(by: label.padding)) { return fail() }
            boxes.append(box)
            placed.append(PlacedGlyph(layout: g.layout, x: cx, y: cy, angle: angle, offset: (-w / 2 - g.x, -h / 2 - g.y)))
        }
        if !label.ignorePlacement {
            for box in boxes { insert(box.padded(by: label.padding)) }
        }
        return placed
    }

    /// Draws a label that follows its line: every character's halo, then every character,
    /// so no halo covers a neighbour's letter; frees the layouts.
    static func drawAlong(_ glyphs: [PlacedGlyph], _ label: Label, context: OpaquePointer) {
        let color = [label.color.0, label.color.1, label.color.2, label.color.3]
        let halo = [label.halo.0, label.halo.1, label.halo.2, label.halo.3]
        let clear = [0.0, 0.0, 0.0, 0.0]
        for pass in label.haloWidth > 0 ? [true, false] : [false] {
            for glyph in glyphs {
                cairo_save(context)
                cairo_translate(context, glyph.x, glyph.y)
                cairo_rotate(context, quantized(glyph.angle))
                if pass {
                    mapbook_text_layout_draw(context, glyph.layout, glyph.offset.0, glyph.offset.1, clear, label.haloWidth, halo, label.haloBlur)
                } else {
                    mapbook_text_layout_draw(context, glyph.layout, glyph.offset.0, glyph.offset.1, color, 0, clear, 0)
                }
                cairo_restore(context)
            }
        }
        for glyph in glyphs { mapbook_text_layout_free(glyph.layout) }
    }
}
