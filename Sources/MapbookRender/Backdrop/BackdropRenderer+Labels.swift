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
/// their middle with `line-center`), following the line character by character; a label that would overlap one
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
                // Where the text stands about its anchor: `text-anchor` and `text-offset`, or
                // each of `text-variable-anchor` in turn, moved by `text-radial-offset` (or
                // `text-offset`'s sizes) away from the point, as MapLibre places them.
                let variable = layer.value("text-variable-anchor", &evaluator)?.arrayValue?.compactMap(\.stringValue) ?? []
                let radial = layer.number("text-radial-offset", &evaluator)
                var places: [(anchor: String, offset: (Double, Double))]
                if variable.isEmpty {
                    places = [(layer.string("text-anchor", &evaluator) ?? "center", (offset.first ?? 0, offset.count > 1 ? offset[1] : 0))]
                } else {
                    places = variable.map { ($0, Self.variableOffset($0, radial: radial, offset: offset)) }
                }
                let translate = layer.numbers("text-translate", &evaluator) ?? [0, 0]
                let iconTranslate = layer.numbers("icon-translate", &evaluator) ?? [0, 0]
                let iconScale = (layer.number("icon-size", &evaluator) ?? 1) * pixelRatio
                let iconOffset = layer.numbers("icon-offset", &evaluator) ?? [0, 0]
                var template = LabelPlacer.Label(
                    text: text, font: fonts.first ?? "Noto Sans Regular", size: size,
                    maxWidth: (layer.number("text-max-width", &evaluator) ?? 10) * size,
                    letterSpacing: (layer.number("text-letter-spacing", &evaluator) ?? 0) * size,
                    align: Self.alignment(layer.string("text-justify", &evaluator) ?? "center"),
                    x: 0, y: 0, angle: 0,
                    color: (color.red, color.green, color.blue, color.alpha * opacity),
                    haloWidth: (layer.number("text-halo-width", &evaluator) ?? 0) * pixelRatio,
                    halo: (halo.red, halo.green, halo.blue, halo.alpha * opacity),
                    anchor: places[0].anchor, offset: places[0].offset,
                    padding: (layer.number("text-padding", &evaluator) ?? 2) * pixelRatio,
                    allowOverlap: layer.bool("text-allow-overlap", &evaluator) ?? false,
                    ignorePlacement: layer.bool("text-ignore-placement", &evaluator) ?? false,
                    icon: icon, iconScale: iconScale,
                    iconOpacity: layer.number("icon-opacity", &evaluator) ?? 1)
                template.variants = Array(places.dropFirst())
                template.translate = ((translate.first ?? 0) * pixelRatio, (translate.count > 1 ? translate[1] : 0) * pixelRatio)
                // `icon-offset` is in the icon's own pixels, scaled with it.
                template.iconShift = (
                    (iconTranslate.first ?? 0) * pixelRatio + (iconOffset.first ?? 0) * iconScale,
                    (iconTranslate.count > 1 ? iconTranslate[1] : 0) * pixelRatio + (iconOffset.count > 1 ? iconOffset[1] : 0) * iconScale)
                template.iconPadding = (layer.number("icon-padding", &evaluator) ?? 2) * pixelRatio
                template.iconAllowOverlap = layer.bool("icon-allow-overlap", &evaluator) ?? false
                template.iconIgnorePlacement = layer.bool("icon-ignore-placement", &evaluator) ?? false
                template.textOptional = layer.bool("text-optional", &evaluator) ?? false
                template.iconOptional = layer.bool("icon-optional", &evaluator) ?? false
                template.avoidEdges = layer.bool("symbol-avoid-edges", &evaluator) ?? false
                template.haloBlur = (layer.number("text-halo-blur", &evaluator) ?? 0) * pixelRatio
                template.lineHeight = (layer.number("text-line-height", &evaluator) ?? 1.2) * size
                template.iconTextFit = layer.string("icon-text-fit", &evaluator) ?? "none"
                if let p = layer.numbers("icon-text-fit-padding", &evaluator), p.count == 4 {
                    template.iconTextFitPadding = (p[0] * pixelRatio, p[1] * pixelRatio, p[2] * pixelRatio, p[3] * pixelRatio)
                }
                // Drawn lowest last where overlapping symbols may overlap (MapLibre's rule
                // for `symbol-z-order` "viewport-y", and "auto" without a sort key).
                let zOrder = layer.string("symbol-z-order", &evaluator) ?? "auto"
                template.drawByY = zOrder != "source" && (template.allowOverlap || template.iconAllowOverlap || template.ignorePlacement || template.iconIgnorePlacement)
                let rotate = (layer.number("text-rotate", &evaluator) ?? 0) * Double.pi / 180
                // Icons along a line turn with it when aligned to the map ("auto" is the map
                // for line placement); in a north-up view a point's icon never turns.
                let iconAlignment = layer.string("icon-rotation-alignment", &evaluator) ?? "auto"
                let iconAlongLine = placement != "point" && iconAlignment != "viewport"
                // Along a line, text turns with it unless aligned to the viewport; in a
                // north-up view "map" and "viewport" are the same for point labels.
                let alongLine = placement != "point" && layer.string("text-rotation-alignment", &evaluator) != "viewport"
                let keepUpright = layer.bool("text-keep-upright", &evaluator) ?? true
                let spacing = (layer.number("symbol-spacing", &evaluator) ?? 250) * pixelRatio
                template.maxAngle = (layer.number("text-max-angle", &evaluator) ?? 45) * Double.pi / 180
                template.keepUpright = keepUpright
                for anchor in Self.anchors(feature.geometry, placement: placement, spacing: spacing, t, squares: squares, keepUpright: keepUpright) {
                    var label = template
                    label.x = anchor.x
                    label.y = anchor.y
                    label.angle = (alongLine ? anchor.angle : 0) + rotate
                    label.iconAngle = iconAlongLine ? anchor.angle : 0
                    // Text along a line follows it, character by character, unless it is
                    // turned by hand or held to the viewport.
                    if alongLine && rotate == 0 {
                        label.path = anchor.path
                        label.pathDistance = anchor.distance
                    }
                    placed.append(label)
                }
            }
        }
        pendingLabels.append(placed)
        for problem in evaluator.unsupported.sorted() { note("expression '\(problem)' is not evaluated (style layer '\(layer.id)')") }
    }

    /// The offset (ems, y down) of text anchored at `anchor` among variable anchors: away from
    /// the point by `radial` ems (a corner by radial / √2 on each axis), else by the sizes of
    /// `offset` with the signs the anchor gives (MapLibre's `evaluateVariableOffset`).
    static func variableOffset(_ anchor: String, radial: Double?, offset: [Double]) -> (Double, Double) {
        let top = anchor.hasPrefix("top"), bottom = anchor.hasPrefix("bottom")
        let left = anchor.hasSuffix("left"), right = anchor.hasSuffix("right")
        var dx = 0.0, dy = 0.0
        if let radial {
            let corner = (top || bottom) && (left || right)
            let d = corner ? radial / 2.0.squareRoot() : radial
            dy = top ? d : (bottom ? -d : 0)
            dx = left ? d : (right ? -d : 0)
        } else {
            let ax = abs(offset.first ?? 0), ay = abs(offset.count > 1 ? offset[1] : 0)
            dy = top ? ay : (bottom ? -ay : 0)
            dx = left ? ax : (right ? -ax : 0)
        }
        return (dx, dy)
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
    static func anchors(_ geometry: TileGeometry, placement: String, spacing: Double, _ t: TileTransform, squares: [TileTransform], keepUpright: Bool = true) -> [LabelAnchor] {
        func inside(_ x: Double, _ y: Double) -> Bool {
            squares.contains { x >= $0.originX && x < $0.originX + $0.size && y >= $0.originY && y < $0.originY + $0.size }
        }
        func along(_ pixels: [(Double, Double)]) -> [LabelAnchor] {
            let path = LabelPath(pixels)
            let found = LabelPlacer.lineAnchors(pixels, spacing: spacing, center: placement == "line-center", keepUpright: keepUpright)
            return found.filter { inside($0.0, $0.1) }.map { LabelAnchor(x: $0.0, y: $0.1, angle: $0.2, path: path, distance: $0.3) }
        }
        var out: [LabelAnchor] = []
        switch geometry {
        case .points(let points):
            for p in points {
                let (x, y) = t.pixel(p)
                if inside(x, y) { out.append(LabelAnchor(x: x, y: y, angle: 0)) }
            }
        case .polygons(let polygons):
            for polygon in polygons {
                guard let ring = polygon.first, ring.count >= 3 else { continue }
                let pixels = ring.map { t.pixel($0) }
                if placement != "point" {
                    out += along(pixels + [pixels[0]])
                } else if let c = LabelPlacer.innerPoint(pixels), inside(c.0, c.1) {
                    out.append(LabelAnchor(x: c.0, y: c.1, angle: 0))
                }
            }
        case .lines(let lines):
            for line in lines where line.count >= 2 {
                let pixels = line.map { t.pixel($0) }
                if placement == "point" {
                    let mid = pixels[pixels.count / 2]
                    if inside(mid.0, mid.1) { out.append(LabelAnchor(x: mid.0, y: mid.1, angle: 0)) }
                } else {
                    out += along(pixels)
                }
            }
        }
        return out
    }

    /// Where a label stands: a point and the direction there, and for a label along a line,
    /// the line and the distance along it.
    struct LabelAnchor {
        var x: Double, y: Double, angle: Double
        var path: LabelPath? = nil
        var distance = 0.0
    }

    /// Places the labels `drawWithoutLabels(on:dpi:)` collected in `placer` and draws them on
    /// `canvas`: each label only where its box (padded) is free of every label placed before,
    /// unless it may overlap. Style layers are placed from the top of the style down, so a
    /// later layer's labels win, as MapLibre places them (`PauseablePlacement` walks the
    /// layer order from its end); labels already in `placer` (the map's own, drawn above the
    /// backdrop) win over all of them.
    public func drawLabels(on canvas: MapCanvas, placingIn placer: inout LabelPlacer) {
        let (placed, missingGlyphs) = placer.place(pendingLabels.reversed(), context: canvas.context)
        if missingGlyphs > 0 { note("\(missingGlyphs) characters of labels have no glyph in the installed fonts (install fonts-noto-core)") }
        LabelPlacer.draw(placed.reversed(), context: canvas.context, sprite: sprite?.image)
        pendingLabels = []
    }
}

/// A style's sprite: the icons' rectangles and the image they are cut from.
public struct Sprite {
    var icons: [String: SpriteIcon]
    let image: RasterImage

    init(icons: [String: SpriteIcon], image: RasterImage) {
        self.icons = icons
        self.image = image
    }

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
