import MapbookData
import MapbookPackage
import MapbookSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The labels of a view's operational layers (their `labelingInfo`), collected layer by layer
/// and drawn over every layer once all are drawn. Layers added first (the top layer first)
/// place first; a label whose box would overlap one already placed is dropped, unless its
/// class allows overlaps, as ArcGIS deconflicts labels. Each label lies wholly inside the view.
///
/// Points are labelled beside their marker as `labelPlacement` says (above the centre by
/// default); lines once per visible stretch at its middle, following it; polygons
/// horizontally at an inner point of the part inside the view.
public struct FeatureLabels {
    private var groups: [[LabelPlacer.Label]] = []
    /// The labels placed by `place(in:canvas:)`, each holding its layout, until drawn.
    private var placed: [[LabelPlacer.Label]] = []
    private let clip: BoundingBox
    /// Pixels per point: 4/3 at 96 dpi.
    private let pixelsPerPoint: Double

    public init(canvas: MapCanvas, dpi: Double = 96) {
        clip = BoundingBox(minX: 0, minY: 0, maxX: Double(canvas.width), maxY: Double(canvas.height))
        pixelsPerPoint = dpi / 72
    }

    /// Adds `labelClass`'s labels for `features` (geometries in the canvas's spatial
    /// reference), each saying `text(feature)` (an empty text is no label). `markerSize` is
    /// the layer's point symbol's size in points, so a point's label stands clear of it.
    public mutating func add(
        _ labelClass: LabelClass, features: some Sequence<MapFeature>, canvas: MapCanvas, markerSize: Double = 0,
        text: (MapFeature) -> String
    ) {
        let symbol = labelClass.symbol
        let size = (symbol.fontSize ?? 10) * pixelsPerPoint
        let color = symbol.color ?? RGBAColor(red: 0, green: 0, blue: 0)
        let halo = symbol.haloColor
        func unit(_ c: RGBAColor) -> (Double, Double, Double, Double) {
            (Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255, Double(c.alpha) / 255)
        }
        let placement = labelClass.placement ?? ""
        var template = LabelPlacer.Label(
            text: "", font: Self.font(symbol), size: size, maxWidth: 0, letterSpacing: 0, align: 1,
            x: 0, y: 0, angle: 0, color: unit(color),
            haloWidth: halo == nil ? 0 : (symbol.haloSize ?? 1) * pixelsPerPoint,
            halo: halo.map(unit) ?? (0, 0, 0, 0), anchor: "center",
            offset: (0, 0), padding: 2, allowOverlap: labelClass.allowOverlap, ignorePlacement: false,
            icon: nil, iconScale: 1, iconOpacity: 1)
        // A view's own labels stand wholly inside it (a tile's continue on the next tile).
        template.avoidEdges = true
        // The symbol's own offset, points right and up, in the label's ems.
        let shift = ((symbol.xoffset ?? 0) * pixelsPerPoint / size, -(symbol.yoffset ?? 0) * pixelsPerPoint / size)
        var group: [LabelPlacer.Label] = []
        for feature in features {
            guard let geometry = feature.geometry else { continue }
            let words = text(feature)
            guard words.contains(where: { !$0.isWhitespace }) else { continue }
            var label = template
            label.text = words
            for anchor in anchors(geometry.shape, placement: placement, canvas: canvas) {
                label.x = anchor.x
                label.y = anchor.y
                label.angle = anchor.angle
                let (textAnchor, away) = Self.pointAnchor(placement, isPoint: anchor.isPoint)
                // A point's label stands clear of its marker, by half the marker and a gap.
                let gap = anchor.isPoint ? (markerSize * pixelsPerPoint / 2 + 2) / size : (anchor.isLine ? 0.15 : 0)
                label.anchor = textAnchor
                label.offset = (shift.0 + away.0 * gap, shift.1 + away.1 * gap)
                // Along a line, the text follows it character by character (straight where
                // its script must be shaped whole), above or below it by the gap.
                label.path = anchor.path
                label.pathDistance = anchor.distance
                // One label per line, as ArcGIS places them: where the middle does not take
                // it, places further out along the line are tried.
                if let length = anchor.path?.length {
                    label.pathAlternatives = [0.4, 0.6, 0.3, 0.7, 0.2, 0.8].map { $0 * length }
                }
                group.append(label)
            }
        }
        groups.append(group)
    }

    /// Places the labels added in `placer`, the first layer added first, each where no label
    /// placed before it (in this call or earlier ones) stands; returns how many characters had
    /// no glyph in the installed fonts. `draw(on:)` then draws them.
    @discardableResult
    public mutating func place(in placer: inout LabelPlacer, canvas: MapCanvas) -> Int {
        let (placed, missingGlyphs) = placer.place(groups, context: canvas.context)
        self.placed += placed
        groups = []
        return missingGlyphs
    }

    /// Draws the labels on `canvas`, the first layer added on top, and lets go of them: those
    /// placed by `place(in:canvas:)`, then any added since, placed among themselves alone.
    /// Returns how many characters of the latter had no glyph in the installed fonts.
    @discardableResult
    public mutating func draw(on canvas: MapCanvas) -> Int {
        var missingGlyphs = 0
        if !groups.isEmpty {
            var own = LabelPlacer(width: canvas.width, height: canvas.height)
            missingGlyphs = place(in: &own, canvas: canvas)
        }
        LabelPlacer.draw(placed.reversed(), context: canvas.context, sprite: nil)
        placed = []
        return missingGlyphs
    }

    /// The Pango font for a text symbol: its family (fontconfig finds the nearest installed
    /// one), bold and italic as it says.
    public static func font(_ symbol: TextSymbol) -> String {
        var font = symbol.fontFamily.flatMap { $0.isEmpty ? nil : $0 } ?? "Noto Sans"
        if let weight = symbol.fontWeight, weight == "bold" || weight == "bolder" { font += " Bold" }
        if let style = symbol.fontStyle, style == "italic" || style == "oblique" { font += " Italic" }
        return font
    }

    /// The text anchor for an ArcGIS placement, and the direction (in ems, x right, y down)
    /// the label moves away from a point or a line.
    public static func pointAnchor(_ placement: String, isPoint: Bool) -> (String, (Double, Double)) {
        let name = placement.lowercased()
        if isPoint {
            if name.hasSuffix("abovecenter") || name.isEmpty { return ("bottom", (0, -1)) }
            if name.hasSuffix("aboveleft") { return ("bottom-right", (-0.7, -0.7)) }
            if name.hasSuffix("aboveright") { return ("bottom-left", (0.7, -0.7)) }
            if name.hasSuffix("belowcenter") { return ("top", (0, 1)) }
            if name.hasSuffix("belowleft") { return ("top-right", (-0.7, 0.7)) }
            if name.hasSuffix("belowright") { return ("top-left", (0.7, 0.7)) }
            if name.hasSuffix("centerleft") { return ("right", (-1, 0)) }
            if name.hasSuffix("centerright") { return ("left", (1, 0)) }
            if name.hasSuffix("centercenter") { return ("center", (0, 0)) }
            return ("bottom", (0, -1))
        }
        if name.contains("above") { return ("bottom", (0, -1)) }
        if name.contains("below") { return ("top", (0, 1)) }
        return ("center", (0, 0))
    }

    struct Anchor {
        var x: Double, y: Double, angle: Double
        var isPoint: Bool
        var isLine: Bool
        /// The line a label along it follows, and the distance of its middle along it.
        var path: LabelPath? = nil
        var distance = 0.0
    }

    /// Where a geometry's labels stand in pixels: each point; each line's longest stretch
    /// inside the view, at its middle; each polygon's inner point of its part inside the view
    /// (or, with a line placement, its outline's longest stretch).
    func anchors(_ shape: Geometry.Shape, placement: String, canvas: MapCanvas) -> [Anchor] {
        func pixels(_ line: [Position]) -> [PixelPoint] {
            line.map { p in
                let (x, y) = canvas.pixelPosition(x: p.x, y: p.y)
                return PixelPoint(x: x, y: y)
            }
        }
        func alongLine(_ line: [Position]) -> Anchor? {
            let pieces = clip.clipLine(pixels(line))
            guard let longest = pieces.max(by: { Self.length($0) < Self.length($1) }), longest.count >= 2 else { return nil }
            let along = !placement.lowercased().contains("horizontal")
            let pixels = longest.map { ($0.x, $0.y) }
            guard let (x, y, angle, distance) = LabelPlacer.lineAnchors(pixels, spacing: .infinity, center: true).first else { return nil }
            return Anchor(x: x, y: y, angle: along ? angle : 0, isPoint: false, isLine: along, path: along ? LabelPath(pixels) : nil, distance: distance)
        }
        func inPolygon(_ rings: [[Position]]) -> Anchor? {
            guard let outer = rings.first, outer.count >= 3 else { return nil }
            if placement.lowercased().contains("line") { return alongLine(outer) }
            let inside = PixelPoint.ring(pixels(outer), clippedTo: clip)
            guard inside.count >= 3, let (x, y) = LabelPlacer.innerPoint(inside.map { ($0.x, $0.y) }) else { return nil }
            return Anchor(x: x, y: y, angle: 0, isPoint: false, isLine: false)
        }
        func point(_ p: Position) -> Anchor {
            let (x, y) = canvas.pixelPosition(x: p.x, y: p.y)
            return Anchor(x: x, y: y, angle: 0, isPoint: true, isLine: false)
        }
        switch shape {
        case .point(let p): return [point(p)]
        case .multiPoint(let points): return points.map(point)
        case .lineString(let line): return alongLine(line).map { [$0] } ?? []
        case .multiLineString(let lines): return lines.compactMap(alongLine)
        case .polygon(let rings): return inPolygon(rings).map { [$0] } ?? []
        case .multiPolygon(let polygons):
            // One label for a multipolygon, in its largest part in the view, as ArcGIS
            // labels a feature once ("one label per feature").
            let largest = polygons.max { Self.area(pixels($0.first ?? [])) < Self.area(pixels($1.first ?? [])) }
            return largest.flatMap(inPolygon).map { [$0] } ?? []
        case .geometryCollection(let members): return members.flatMap { anchors($0.shape, placement: placement, canvas: canvas) }
        }
    }

    static func length(_ line: [PixelPoint]) -> Double {
        zip(line, line.dropFirst()).reduce(0) { $0 + hypot($1.1.x - $1.0.x, $1.1.y - $1.0.y) }
    }

    /// The area a ring of pixels encloses (shoelace), whatever its winding.
    static func area(_ ring: [PixelPoint]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        for (a, b) in zip(ring, ring.dropFirst() + [ring[0]]) { sum += a.x * b.y - b.x * a.y }
        return abs(sum) / 2
    }
}
