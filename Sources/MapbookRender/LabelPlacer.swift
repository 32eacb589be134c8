import CCairo
import CMapbookLazy
import MapbookSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where labels stand on a picture: each placed label's box, so that a later label that would
/// overlap one is dropped, as MapLibre's collision index does (boxes, not glyph outlines).
///
/// One placer serves a whole picture: the operational layers' labels (`FeatureLabels`) and
/// the backdrop's (`BackdropRenderer`) are placed into the same one, so no label of one is
/// drawn over a label of the other, and `reserve` keeps labels off what is drawn over the map
/// (the credits).
public struct LabelPlacer {
    /// The box around a `width` x `height` rectangle whose top left corner is (`left`, `top`)
    /// from the point (`x`, `y`), turned `angle` radians about that point.
    static func turnedBox(x: Double, y: Double, angle: Double, left: Double, top: Double, width: Double, height: Double) -> BoundingBox {
        let (c, s) = (cos(angle), sin(angle))
        let corners = [(left, top), (left + width, top), (left, top + height), (left + width, top + height)].map { p in
            (x + p.0 * c - p.1 * s, y + p.0 * s + p.1 * c)
        }
        return BoundingBox(minX: corners.map(\.0).min()!, minY: corners.map(\.1).min()!, maxX: corners.map(\.0).max()!, maxY: corners.map(\.1).max()!)
    }

    /// A label waiting to be drawn: a text layout or an icon, at a pixel position.
    struct Label {
        var text: String
        var font: String
        var size: Double
        var maxWidth: Double
        var letterSpacing: Double
        var align: Int32
        var x: Double
        var y: Double
        /// Radians, clockwise on screen, about (x, y).
        var angle: Double
        var color: (Double, Double, Double, Double)
        var haloWidth: Double
        var halo: (Double, Double, Double, Double)
        var anchor: String
        /// In ems (times `size`), x right and y down; once placed, the text's top left corner
        /// in pixels from (x, y) before turning.
        var offset: (Double, Double)
        var padding: Double
        var allowOverlap: Bool
        var ignorePlacement: Bool
        var icon: SpriteIcon?
        var iconScale: Double
        var iconOpacity: Double
        /// Other places for the text, tried in order after `anchor` and `offset` when those
        /// collide (`text-variable-anchor`): anchor and offset in ems.
        var variants: [(anchor: String, offset: (Double, Double))] = []
        /// Pixels the text and the icon are moved by (`text-translate`, `icon-translate`, and
        /// the icon's `icon-offset` already scaled).
        var translate: (Double, Double) = (0, 0)
        var iconShift: (Double, Double) = (0, 0)
        var iconPadding: Double = 2
        var iconAllowOverlap = false
        var iconIgnorePlacement = false
        /// Whether the text may be left out when only the icon fits, and the other way round.
        var textOptional = false
        var iconOptional = false
        /// Whether the label must lie wholly inside the frame (`symbol-avoid-edges`).
        var avoidEdges = false
        /// Pixels the halo fades out over (`text-halo-blur`).
        var haloBlur = 0.0
        /// Pixels between the baselines of wrapped lines (`text-line-height`); 0: the font's.
        var lineHeight = 0.0
        /// Radians the icon turns (along a line, with `icon-rotation-alignment: map`).
        var iconAngle = 0.0
        /// `icon-text-fit` ("none", "width", "height", "both") and its padding in pixels
        /// (top, right, bottom, left): the icon stretched around the text.
        var iconTextFit = "none"
        var iconTextFitPadding: (Double, Double, Double, Double) = (0, 0, 0, 0)
        /// The icon's scale on each axis once fitted to its text.
        var iconStretch: (Double, Double) = (1, 1)
        /// The line the text follows character by character, and the distance along it of the
        /// text's middle; nil for a label set straight.
        var path: LabelPath?
        var pathDistance = 0.0
        /// Other distances along the path to try, in order, when the text does not fit at
        /// `pathDistance`.
        var pathAlternatives: [Double] = []
        /// The most a line-following label turns between two characters (`text-max-angle`).
        var maxAngle = 45 * Double.pi / 180
        /// Whether a line-following label is turned to read left to right (`text-keep-upright`).
        var keepUpright = true
        /// A line-following label's characters once placed.
        var glyphs: [PlacedGlyph]?
        /// Labels of the group are drawn from the top of the frame down, so lower ones cover
        /// higher ones where they overlap (`symbol-z-order: viewport-y`).
        var drawByY = false
        /// The text's Pango layout once the label is placed (`mapbook_text_layout_new`).
        var layout: UnsafeMutableRawPointer? = nil
        /// Whether the icon was placed.
        var showsIcon = false
    }

    let width: Double
    let height: Double
    private(set) var boxes: [BoundingBox] = []
    /// Characters of labels along lines measured so far, by font, size and character.
    var glyphMetrics: [String: GlyphMetrics] = [:]
    /// The grid of placed boxes, 64-pixel cells, for frames with thousands of labels.
    private var grid: [Int: [Int]] = [:]
    static let cell = 64.0

    /// An empty placer for a picture of `width` x `height` pixels.
    public init(width: Int, height: Int) {
        self.width = Double(width)
        self.height = Double(height)
    }

    /// Keeps labels off the rectangle of `width` x `height` pixels whose top left corner is
    /// (`x`, `y`): no label placed after this is drawn over it.
    public mutating func reserve(x: Double, y: Double, width: Double, height: Double) {
        insert(BoundingBox(minX: x, minY: y, maxX: x + width, maxY: y + height))
    }

    private func cells(_ b: BoundingBox) -> [Int] {
        let x0 = Int((b.minX / Self.cell).rounded(.down)), x1 = Int((b.maxX / Self.cell).rounded(.down))
        let y0 = Int((b.minY / Self.cell).rounded(.down)), y1 = Int((b.maxY / Self.cell).rounded(.down))
        guard x1 - x0 < 64, y1 - y0 < 64 else { return [] }
        var out: [Int] = []
        for y in y0...y1 { for x in x0...x1 { out.append(y &* 100_003 &+ x) } }
        return out
    }

    /// Whether `box` is free: on the frame and over no placed box.
    func isFree(_ box: BoundingBox) -> Bool {
        guard box.maxX > 0, box.maxY > 0, box.minX < width, box.minY < height else { return false }
        for cell in cells(box) {
            for i in grid[cell] ?? [] where boxes[i].overlaps(box) { return false }
        }
        return true
    }

    mutating func insert(_ box: BoundingBox) {
        boxes.append(box)
        for cell in cells(box) { grid[cell, default: []].append(boxes.count - 1) }
    }
}

extension LabelPlacer {
    /// Places `groups` in order, the first with priority: each label (its text shaped by
    /// Pango in `context`) only where its padded box is free, unless it may overlap. Returns
    /// the labels placed, group by group, each holding the layout to draw, and how many
    /// characters had no glyph in the installed fonts.
    mutating func place(_ groups: [[Label]], context: OpaquePointer) -> (placed: [[Label]], missingGlyphs: Int) {
        var drawn: [[Label]] = []
        var missingGlyphs = 0
        for group in groups {
            var kept: [Label] = []
            for label in group {
                var label = label
                // Text that follows its line, character by character; straight when its
                // script must be shaped whole.
                if let path = label.path, !label.text.isEmpty, label.icon == nil, Self.canCurve(label.text) {
                    if let glyphs = placeAlong(path, label, context: context, missingGlyphs: &missingGlyphs) {
                        label.glyphs = glyphs
                        kept.append(label)
                    }
                    continue
                }
                func fits(_ box: BoundingBox, _ overlap: Bool) -> Bool {
                    if label.avoidEdges && (box.minX < 0 || box.minY < 0 || box.maxX > width || box.maxY > height) { return false }
                    return overlap || isFree(box)
                }
                var iconBox: BoundingBox?
                if let icon = label.icon {
                    let w = Double(icon.width) / icon.pixelRatio * label.iconScale, h = Double(icon.height) / icon.pixelRatio * label.iconScale
                    let cx = label.x + label.iconShift.0, cy = label.y + label.iconShift.1
                    iconBox = BoundingBox(minX: cx - w / 2, minY: cy - h / 2, maxX: cx + w / 2, maxY: cy + h / 2)
                }
                let iconFits = iconBox.map { fits($0.padded(by: label.iconPadding), label.iconAllowOverlap) } ?? false
                // The layout shaped to measure the label is the one drawn: kept with a label
                // whose text is placed, freed otherwise.
                var layout: UnsafeMutableRawPointer?
                var textBox: BoundingBox?
                if !label.text.isEmpty {
                    layout = mapbook_text_layout_new(context, label.text, label.font, label.size, label.maxWidth, label.letterSpacing, label.align)
                    if label.lineHeight > 0 { mapbook_text_layout_set_line_height(layout, label.lineHeight) }
                    var x = 0.0, y = 0.0, w = 0.0, h = 0.0, baseline = 0.0
                    mapbook_text_layout_extents(layout, &x, &y, &w, &h, &baseline)
                    missingGlyphs += Int(mapbook_text_layout_unknown_glyphs(layout))
                    // The first place where the (possibly turned) text's box is free.
                    for (anchor, offset) in [(label.anchor, label.offset)] + label.variants {
                        let (dx, dy) = Self.anchorOffset(anchor, width: w, height: h)
                        let ox = dx + offset.0 * label.size, oy = dy + offset.1 * label.size
                        let box = Self.turnedBox(
                            x: label.x + label.translate.0, y: label.y + label.translate.1, angle: label.angle, left: ox, top: oy, width: w, height: h)
                        if fits(box.padded(by: label.padding), label.allowOverlap) {
                            textBox = box
                            // A wrapped, centred layout's text starts `x` into its width: the
                            // layout is drawn that much further left so the text stands at `ox`.
                            label.offset = (ox - x, oy - y)
                            break
                        }
                    }
                }
                // An icon fitted to its text is stretched around the text's box (unturned, as
                // point labels are) with the padding, on the axes `icon-text-fit` names.
                var showIcon = iconFits
                if label.iconTextFit != "none", let icon = label.icon, let textBox {
                    let p = label.iconTextFitPadding
                    let natural = (Double(icon.width) / icon.pixelRatio * label.iconScale, Double(icon.height) / icon.pixelRatio * label.iconScale)
                    let fitted = (textBox.maxX - textBox.minX + p.1 + p.3, textBox.maxY - textBox.minY + p.0 + p.2)
                    let w = label.iconTextFit == "height" ? natural.0 : fitted.0
                    let h = label.iconTextFit == "width" ? natural.1 : fitted.1
                    let cx = label.iconTextFit == "height" ? label.x + label.iconShift.0 : (textBox.minX - p.3 + textBox.maxX + p.1) / 2
                    let cy = label.iconTextFit == "width" ? label.y + label.iconShift.1 : (textBox.minY - p.0 + textBox.maxY + p.2) / 2
                    label.iconStretch = (w / natural.0, h / natural.1)
                    label.iconShift = (cx - label.x, cy - label.y)
                    iconBox = BoundingBox(minX: cx - w / 2, minY: cy - h / 2, maxX: cx + w / 2, maxY: cy + h / 2)
                    showIcon = iconBox.map { fits($0.padded(by: label.iconPadding), label.iconAllowOverlap) } ?? false
                }
                // Text and icon go together unless one of them is optional (MapLibre's rule).
                var showText = textBox != nil
                if layout != nil && iconBox != nil && !(showText && showIcon) {
                    if showText && label.iconOptional {
                        showIcon = false
                    } else if showIcon && label.textOptional {
                        showText = false
                    } else {
                        showText = false
                        showIcon = false
                    }
                }
                if !showText { mapbook_text_layout_free(layout) }
                guard showText || showIcon else { continue }
                if showText, let textBox, !label.ignorePlacement { insert(textBox.padded(by: label.padding)) }
                if showIcon, let iconBox, !label.iconIgnorePlacement { insert(iconBox.padded(by: label.iconPadding)) }
                label.layout = showText ? layout : nil
                label.showsIcon = showIcon
                kept.append(label)
            }
            drawn.append(kept)
        }
        return (drawn, missingGlyphs)
    }

    /// Draws placed labels group by group (a later group over an earlier one) and frees
    /// their layouts; icons are cut from `sprite`.
    static func draw(_ groups: [[Label]], context: OpaquePointer, sprite: RasterImage?) {
        for group in groups {
            for label in group.first?.drawByY == true ? group.sorted(by: { $0.y < $1.y }) : group {
                if let glyphs = label.glyphs {
                    drawAlong(glyphs, label, context: context)
                    continue
                }
                if let icon = label.icon, label.showsIcon, let image = sprite {
                    let sx = label.iconScale * label.iconStretch.0 / icon.pixelRatio, sy = label.iconScale * label.iconStretch.1 / icon.pixelRatio
                    cairo_save(context)
                    cairo_translate(context, label.x + label.iconShift.0, label.y + label.iconShift.1)
                    if label.iconAngle != 0 { cairo_rotate(context, label.iconAngle) }
                    cairo_scale(context, sx, sy)
                    cairo_translate(context, -Double(icon.width) / 2, -Double(icon.height) / 2)
                    cairo_rectangle(context, 0, 0, Double(icon.width), Double(icon.height))
                    cairo_clip(context)
                    cairo_set_source_surface(context, image.surface, -Double(icon.x), -Double(icon.y))
                    cairo_paint_with_alpha(context, min(max(label.iconOpacity, 0), 1))
                    cairo_restore(context)
                }
                guard let layout = label.layout else { continue }
                defer { mapbook_text_layout_free(layout) }
                cairo_save(context)
                cairo_translate(context, label.x + label.translate.0, label.y + label.translate.1)
                cairo_rotate(context, Self.quantized(label.angle))
                let color = [label.color.0, label.color.1, label.color.2, label.color.3]
                let halo = [label.halo.0, label.halo.1, label.halo.2, label.halo.3]
                mapbook_text_layout_draw(context, layout, label.offset.0, label.offset.1, color, label.haloWidth, halo, label.haloBlur)
                cairo_restore(context)
            }
        }
    }

    /// An angle rounded to a quarter of a degree, which no eye sees: each angle text is drawn
    /// at makes Cairo load the font again (a scaled font per transformation, found through
    /// fontconfig), and labels on nearly parallel lines share a few.
    static func quantized(_ angle: Double) -> Double {
        let step = Double.pi / 720
        return (angle / step).rounded() * step
    }

    /// Where the text's top left corner goes relative to its anchor point.
    static func anchorOffset(_ anchor: String, width w: Double, height h: Double) -> (Double, Double) {
        switch anchor {
        case "left": return (0, -h / 2)
        case "right": return (-w, -h / 2)
        case "top": return (-w / 2, 0)
        case "bottom": return (-w / 2, -h)
        case "top-left": return (0, 0)
        case "top-right": return (-w, 0)
        case "bottom-left": return (0, -h)
        case "bottom-right": return (-w, -h)
        default: return (-w / 2, -h / 2)
        }
    }

    /// Where labels stand along a line of pixels: every `spacing` pixels starting half a
    /// spacing in (its middle when `center` or when shorter than `spacing`), with the line's
    /// direction there, turned so text is never upside down unless `keepUpright` is false, and
    /// the distance along the line.
    static func lineAnchors(_ pixels: [(Double, Double)], spacing: Double, center: Bool, keepUpright: Bool = true) -> [(Double, Double, Double, Double)] {
        var lengths: [Double] = [0]
        for (a, b) in zip(pixels, pixels.dropFirst()) { lengths.append(lengths.last! + hypot(b.0 - a.0, b.1 - a.1)) }
        let total = lengths.last!
        guard total > 0 else { return [] }
        var distances: [Double] = []
        if center || total < spacing {
            distances = [total / 2]
        } else {
            var d = spacing / 2
            while d < total {
                distances.append(d)
                d += spacing
            }
        }
        return distances.compactMap { d in
            guard let i = lengths.firstIndex(where: { $0 >= d }), i > 0 else { return nil }
            let a = pixels[i - 1], b = pixels[i]
            let segment = lengths[i] - lengths[i - 1]
            let f = segment > 0 ? (d - lengths[i - 1]) / segment : 0
            var angle = atan2(b.1 - a.1, b.0 - a.0)
            // Keep text upright: never upside down.
            if keepUpright {
                if angle > Double.pi / 2 { angle -= Double.pi } else if angle < -Double.pi / 2 { angle += Double.pi }
            }
            return (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, angle, d)
        }
    }

    /// A point inside a ring: the middle of the widest stretch of the horizontal line through
    /// the ring's vertical middle that lies inside it (close to the pole of inaccessibility for
    /// the shapes labels go in, and never outside the ring).
    static func innerPoint(_ ring: [(Double, Double)]) -> (Double, Double)? {
        let ys = ring.map(\.1)
        guard let minY = ys.min(), let maxY = ys.max() else { return nil }
        let y = (minY + maxY) / 2
        var crossings: [Double] = []
        for (a, b) in zip(ring, ring.dropFirst() + [ring[0]]) where (a.1 > y) != (b.1 > y) {
            crossings.append(a.0 + (y - a.1) / (b.1 - a.1) * (b.0 - a.0))
        }
        crossings.sort()
        var best: (Double, Double)?
        var widest = -1.0
        var i = 0
        while i + 1 < crossings.count {
            if crossings[i + 1] - crossings[i] > widest {
                widest = crossings[i + 1] - crossings[i]
                best = ((crossings[i] + crossings[i + 1]) / 2, y)
            }
            i += 2
        }
        return best
    }
}

/// An icon of a style's sprite: its rectangle in the sprite image, and its pixel ratio.
struct SpriteIcon {
    var x: Int, y: Int, width: Int, height: Int
    var pixelRatio: Double
}
