import CCairo
import CMapbookLazy
import MapbookPackage
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Symbol layers: text labels (shaped by Pango and HarfBuzz, with halos) and sprite icons,
/// at points, at polygons' inner points, and along lines every `symbol-spacing` pixels (or at
/// their middle with `line-center`), rotated to the line; a label that would overlap one
/// already placed is dropped, unless it may overlap. Labels are collected while the layers are
/// drawn and drawn last, so no fill or line covers them; later style layers place first, as
/// MapLibre gives them priority.
extension BackdropRenderer {
    func collectLabels(_ layer: StyleLayer, _ tiles: [DrawnTile], zoom: Double, canvas: MapCanvas, pixelRatio: Double) {
        var evaluator = StyleExpression(zoom: zoom)
        var placed: [LabelPlacer.Label] = []
        for drawn in tiles {
            guard let features = drawn.tile.layers[layer.sourceLayer] else { continue }
            let t = TileTransform(tile: drawn.coordinate, extent: features.extent, canvas: canvas)
            let squares = drawn.squares.map { TileTransform(tile: $0, extent: 1, canvas: canvas) }
            for feature in features.features {
                evaluator.feature = feature.styleFeature
                guard evaluator.filter(layer.filter) else { continue }
                var text = layer.value("text-field", &evaluator).map(Self.labelText) ?? ""
                text = Self.substituteTokens(text, feature.styleFeature.properties)
                switch layer.string("text-transform", &evaluator) {
                case "uppercase": text = text.uppercased()
                case "lowercase": text = text.lowercased()
                default: break
                }
                let iconName = layer.value("icon-image", &evaluator).map(Self.labelText).map { Self.substituteTokens($0, feature.styleFeature.properties) } ?? ""
                let icon = iconName.isEmpty ? nil : sprite?.icons[iconName]
                if !iconName.isEmpty && icon == nil && sprite != nil { note("sprite has no icon '\(iconName)'") }
                guard !text.isEmpty || icon != nil else { continue }
                let size = (layer.number("text-size", &evaluator) ?? 16) * pixelRatio
                let fonts = layer.value("text-font", &evaluator)?.arrayValue?.compactMap(\.stringValue) ?? []
                let offset = layer.numbers("text-offset", &evaluator) ?? [0, 0]
                let color = layer.color("text-color", &evaluator) ?? .black
                let opacity = layer.number("text-opacity", &evaluator) ?? 1
                let halo = layer.color("text-halo-color", &evaluator) ?? .transparent
                let placement = layer.string("symbol-placement", &evaluator) ?? "point"
                let template = LabelPlacer.Label(
                    text: text, font: fonts.first ?? "Noto Sans Regular", size: size,
                    maxWidth: (layer.number("text-max-width", &evaluator) ?? 10) * size,
                    letterSpacing: (layer.number("text-letter-spacing", &evaluator) ?? 0) * size,
                    align: Self.alignment(layer.string("text-justify", &evaluator) ?? "center"),
                    x: 0, y: 0, angle: 0,
                    color: (color.red, color.green, color.blue, color.alpha * opacity),
                    haloWidth: (layer.number("text-halo-width", &evaluator) ?? 0) * pixelRatio,
                    halo: (halo.red, halo.green, halo.blue, halo.alpha * opacity),
                    // Of `text-variable-anchor`, the first is used (reported as not drawn).
                    anchor: layer.string("text-anchor", &evaluator) ?? (layer.value("text-variable-anchor", &evaluator)?.arrayValue?.first?.stringValue ?? "center"),
                    offset: (offset.first ?? 0, offset.count > 1 ? offset[1] : 0),
                    padding: (layer.number("text-padding", &evaluator) ?? 2) * pixelRatio,
                    allowOverlap: layer.bool("text-allow-overlap", &evaluator) ?? false,
                    ignorePlacement: layer.bool("text-ignore-placement", &evaluator) ?? false,
                    icon: icon, iconScale: (layer.number("icon-size", &evaluator) ?? 1) * pixelRatio,
                    iconOpacity: layer.number("icon-opacity", &evaluator) ?? 1)
                let spacing = (layer.number("symbol-spacing", &evaluator) ?? 250) * pixelRatio
                for (x, y, angle) in Self.anchors(feature.geometry, placement: placement, spacing: spacing, t, squares: squares) {
                    var label = template
                    label.x = x
                    label.y = y
                    label.angle = angle
                    placed.append(label)
                }
            }
        }
        pendingLabels.append(placed)
        for problem in evaluator.unsupported.sorted() { note("expression '\(problem)' is not evaluated (style layer '\(layer.id)')") }
    }

    /// A label's text from a `text-field` value: text, a number, or `format` sections.
    static func labelText(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .number(let d): return JSONWriter.formatNumber(d)
        default: return ""
        }
    }

    /// Legacy `{field}` tokens in a text replaced by the feature's values.
    static func substituteTokens(_ text: String, _ properties: [String: JSONValue]) -> String {
        text.fillingPlaceholders { properties[$0].map(labelText) ?? "" }
    }

    static func alignment(_ justify: String) -> Int32 {
        switch justify {
        case "left": return 0
        case "right": return 2
        default: return 1
        }
    }

    /// Where a feature's labels stand: its points; a polygon's inner point; along a line,
    /// every `spacing` pixels starting half a spacing in (or its middle for `line-center`),
    /// with the line's direction there. Only anchors inside the squares the tile is drawn in
    /// count, so a feature cut by tile edges is labelled once per piece, never twice at one place.
    static func anchors(_ geometry: TileGeometry, placement: String, spacing: Double, _ t: TileTransform, squares: [TileTransform]) -> [(Double, Double, Double)] {
        func inside(_ x: Double, _ y: Double) -> Bool {
            squares.contains { x >= $0.originX && x < $0.originX + $0.size && y >= $0.originY && y < $0.originY + $0.size }
        }
        var out: [(Double, Double, Double)] = []
        switch geometry {
        case .points(let points):
            for p in points {
                let (x, y) = t.pixel(p)
                if inside(x, y) { out.append((x, y, 0)) }
            }
        case .polygons(let polygons):
            for polygon in polygons {
                guard let ring = polygon.first, ring.count >= 3 else { continue }
                let pixels = ring.map { t.pixel($0) }
                if placement != "point" {
                    out += lineAnchors(pixels + [pixels[0]], spacing: spacing, center: placement == "line-center").filter { inside($0.0, $0.1) }
                } else if let c = innerPoint(pixels), inside(c.0, c.1) {
                    out.append((c.0, c.1, 0))
                }
            }
        case .lines(let lines):
            for line in lines where line.count >= 2 {
                let pixels = line.map { t.pixel($0) }
                if placement == "point" {
                    let mid = pixels[pixels.count / 2]
                    if inside(mid.0, mid.1) { out.append((mid.0, mid.1, 0)) }
                } else {
                    out += lineAnchors(pixels, spacing: spacing, center: placement == "line-center").filter { inside($0.0, $0.1) }
                }
            }
        }
        return out
    }

    static func lineAnchors(_ pixels: [(Double, Double)], spacing: Double, center: Bool) -> [(Double, Double, Double)] {
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
            if angle > Double.pi / 2 { angle -= Double.pi } else if angle < -Double.pi / 2 { angle += Double.pi }
            return (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, angle)
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

    /// Places and draws the frame's labels: later style layers first, each label only where
    /// its box (padded) is free, unless it may overlap.
    func drawLabels(on canvas: MapCanvas) {
        let context = canvas.context
        var drawn: [[LabelPlacer.Label]] = []
        var missingGlyphs = 0
        for group in pendingLabels.reversed() {
            var kept: [LabelPlacer.Label] = []
            for label in group {
                var label = label
                var box: LabelPlacer.Box?
                // The layout shaped to measure the label is the one drawn: kept with a label
                // that is placed, freed with one that is dropped.
                var layout: UnsafeMutableRawPointer?
                if !label.text.isEmpty {
                    layout = mapbook_text_layout_new(context, label.text, label.font, label.size, label.maxWidth, label.letterSpacing, label.align)
                    var x = 0.0, y = 0.0, w = 0.0, h = 0.0, baseline = 0.0
                    mapbook_text_layout_extents(layout, &x, &y, &w, &h, &baseline)
                    missingGlyphs += Int(mapbook_text_layout_unknown_glyphs(layout))
                    let (dx, dy) = Self.anchorOffset(label.anchor, width: w, height: h)
                    let ox = label.offset.0 * label.size, oy = label.offset.1 * label.size
                    // The box of the (possibly rotated) text around its anchor.
                    let corners = [(dx + ox, dy + oy), (dx + ox + w, dy + oy), (dx + ox, dy + oy + h), (dx + ox + w, dy + oy + h)].map { p in
                        (label.x + p.0 * cos(label.angle) - p.1 * sin(label.angle), label.y + p.0 * sin(label.angle) + p.1 * cos(label.angle))
                    }
                    box = LabelPlacer.Box(minX: corners.map(\.0).min()!, minY: corners.map(\.1).min()!, maxX: corners.map(\.0).max()!, maxY: corners.map(\.1).max()!)
                    label.offset = (dx + ox, dy + oy)
                }
                if let icon = label.icon {
                    let w = Double(icon.width) / icon.pixelRatio * label.iconScale, h = Double(icon.height) / icon.pixelRatio * label.iconScale
                    let iconBox = LabelPlacer.Box(minX: label.x - w / 2, minY: label.y - h / 2, maxX: label.x + w / 2, maxY: label.y + h / 2)
                    box = box.map { LabelPlacer.Box(minX: min($0.minX, iconBox.minX), minY: min($0.minY, iconBox.minY), maxX: max($0.maxX, iconBox.maxX), maxY: max($0.maxY, iconBox.maxY)) } ?? iconBox
                }
                guard let box else { continue }
                let padded = box.padded(label.padding)
                if !label.allowOverlap && !labels.isFree(padded) {
                    mapbook_text_layout_free(layout)
                    continue
                }
                if !label.ignorePlacement { labels.insert(padded) }
                label.layout = layout
                kept.append(label)
            }
            drawn.append(kept)
        }
        if missingGlyphs > 0 { note("\(missingGlyphs) characters of labels have no glyph in the installed fonts (install fonts-noto-core)") }
        for group in drawn.reversed() {
            for label in group {
                if let icon = label.icon, let image = sprite?.image {
                    let w = Double(icon.width) / icon.pixelRatio * label.iconScale, h = Double(icon.height) / icon.pixelRatio * label.iconScale
                    cairo_save(context)
                    cairo_translate(context, label.x - w / 2, label.y - h / 2)
                    cairo_scale(context, label.iconScale / icon.pixelRatio, label.iconScale / icon.pixelRatio)
                    cairo_rectangle(context, 0, 0, Double(icon.width), Double(icon.height))
                    cairo_clip(context)
                    cairo_set_source_surface(context, image.surface, -Double(icon.x), -Double(icon.y))
                    cairo_paint_with_alpha(context, min(max(label.iconOpacity, 0), 1))
                    cairo_restore(context)
                }
                guard let layout = label.layout else { continue }
                defer { mapbook_text_layout_free(layout) }
                cairo_save(context)
                cairo_translate(context, label.x, label.y)
                cairo_rotate(context, label.angle)
                let color = [label.color.0, label.color.1, label.color.2, label.color.3]
                let halo = [label.halo.0, label.halo.1, label.halo.2, label.halo.3]
                mapbook_text_layout_draw(context, layout, label.offset.0, label.offset.1, color, label.haloWidth, halo)
                cairo_restore(context)
            }
        }
        pendingLabels = []
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
}

/// A style's sprite: the icons' rectangles and the image they are cut from.
public struct Sprite {
    var icons: [String: SpriteIcon]
    let image: RasterImage

    /// Reads a sprite's index (`sprite.json`) and image (`sprite.png`); throws when either
    /// cannot be read.
    public init(index: [UInt8], png: [UInt8], path: String) throws {
        let json = try JSONParser.parseObject(index, path: path + ".json", expecting: "a sprite index: an object of icons")
        image = try RasterImage(png: png)
        var icons: [String: SpriteIcon] = [:]
        for (name, value) in json {
            guard let o = value.objectValue, let x = o.int("x"), let y = o.int("y"), let w = o.int("width"), let h = o.int("height"),
                x >= 0, y >= 0, w > 0, h > 0, x + w <= image.width, y + h <= image.height
            else { continue }
            icons[name] = SpriteIcon(x: x, y: y, width: w, height: h, pixelRatio: o.double("pixelRatio") ?? 1)
        }
        self.icons = icons
    }
}
