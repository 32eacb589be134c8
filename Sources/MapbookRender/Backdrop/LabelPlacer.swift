/// Where labels stand on a frame: each placed label's box, so that a later label that would
/// overlap one is dropped, as MapLibre's collision index does (boxes, not glyph outlines).
struct LabelPlacer {
    struct Box {
        var minX: Double, minY: Double, maxX: Double, maxY: Double

        func overlaps(_ o: Box) -> Bool {
            minX < o.maxX && o.minX < maxX && minY < o.maxY && o.minY < maxY
        }

        func padded(_ p: Double) -> Box {
            Box(minX: minX - p, minY: minY - p, maxX: maxX + p, maxY: maxY + p)
        }
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
        var offset: (Double, Double)
        var padding: Double
        var allowOverlap: Bool
        var ignorePlacement: Bool
        var icon: SpriteIcon?
        var iconScale: Double
        var iconOpacity: Double
        /// The text's Pango layout once the label is placed (`mapbook_text_layout_new`).
        var layout: UnsafeMutableRawPointer? = nil
    }

    let width: Double
    let height: Double
    private(set) var boxes: [Box] = []
    /// The grid of placed boxes, 64-pixel cells, for frames with thousands of labels.
    private var grid: [Int: [Int]] = [:]
    static let cell = 64.0

    init(width: Int = 0, height: Int = 0) {
        self.width = Double(width)
        self.height = Double(height)
    }

    private func cells(_ b: Box) -> [Int] {
        let x0 = Int((b.minX / Self.cell).rounded(.down)), x1 = Int((b.maxX / Self.cell).rounded(.down))
        let y0 = Int((b.minY / Self.cell).rounded(.down)), y1 = Int((b.maxY / Self.cell).rounded(.down))
        guard x1 - x0 < 64, y1 - y0 < 64 else { return [] }
        var out: [Int] = []
        for y in y0...y1 { for x in x0...x1 { out.append(y &* 100_003 &+ x) } }
        return out
    }

    /// Whether `box` is free: inside the frame and over no placed box.
    func isFree(_ box: Box) -> Bool {
        guard box.maxX > 0, box.maxY > 0, box.minX < width, box.minY < height else { return false }
        for cell in cells(box) {
            for i in grid[cell] ?? [] where boxes[i].overlaps(box) { return false }
        }
        return true
    }

    mutating func insert(_ box: Box) {
        boxes.append(box)
        for cell in cells(box) { grid[cell, default: []].append(boxes.count - 1) }
    }
}

/// An icon of a style's sprite: its rectangle in the sprite image, and its pixel ratio.
struct SpriteIcon {
    var x: Int, y: Int, width: Int, height: Int
    var pixelRatio: Double
}
