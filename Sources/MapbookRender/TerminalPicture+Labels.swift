import MapbookData
import MapbookPackage

/// What collects a view's labels as its layers are drawn: `FeatureLabels` draws them into the
/// picture's pixels, `TerminalLabels` sets them as terminal text over a picture of symbols.
public protocol MapLabelCollector {
    /// Adds `labelClass`'s labels for `features` (geometries in the canvas's spatial
    /// reference), each saying `text(feature)`; `markerSize` is the layer's point symbol's
    /// size in points, so a point's label stands clear of it.
    mutating func add(
        _ labelClass: LabelClass, features: some Sequence<MapFeature>, canvas: MapCanvas, markerSize: Double, text: (MapFeature) -> String)
}

extension FeatureLabels: MapLabelCollector {}

/// A view's labels as terminal text, for a picture printed as symbols: a cell shows one of a
/// few shapes in two colours, which smudges letters into blots, so each label is written as
/// text in the cells over its place instead of being drawn into the pixels.
///
/// Labels stand where `FeatureLabels` puts them (beside a point as its placement says, at a
/// line's middle, at a polygon's inner point), set straight on one row of cells. Layers added
/// first (the top layer first) place first; a label that would touch one already placed
/// (a cell all round each is kept free), or not fit in the picture, is dropped.
public struct TerminalLabels: MapLabelCollector, Sendable {
    /// A label placed: its text from the cell at `row`, `column` (from 0, the picture's top left).
    public struct Placed: Sendable, Equatable {
        public var row: Int
        public var column: Int
        public var text: String
    }

    public private(set) var placed: [Placed] = []
    let columns: Int
    let rows: Int
    /// A cell's size in the canvas's pixels.
    let cellWidth: Double
    let cellHeight: Double
    /// Pixels per point: 4/3 at 96 dpi.
    let pixelsPerPoint: Double
    /// The cells a label covers, row by row.
    private var taken: [Bool]

    /// Labels over `canvas` printed in `columns` x `rows` cells, drawn at `dpi`.
    public init(canvas: MapCanvas, columns: Int, rows: Int, dpi: Double = 96) {
        self.columns = max(columns, 1)
        self.rows = max(rows, 1)
        cellWidth = Double(canvas.width) / Double(self.columns)
        cellHeight = Double(canvas.height) / Double(self.rows)
        pixelsPerPoint = dpi / 72
        taken = Array(repeating: false, count: self.columns * self.rows)
    }

    /// Places `labelClass`'s labels for `features` at once, each where `FeatureLabels` would
    /// anchor it, else (a point's) above, below, right or left of its point.
    public mutating func add(
        _ labelClass: LabelClass, features: some Sequence<MapFeature>, canvas: MapCanvas, markerSize: Double = 0, text: (MapFeature) -> String
    ) {
        let anchoring = FeatureLabels(canvas: canvas, dpi: pixelsPerPoint * 72)
        let placement = labelClass.placement ?? ""
        // Half the marker, in cells: a point's label stands clear of it.
        let half = markerSize * pixelsPerPoint / 2
        let clear = (columns: Int((half / cellWidth).rounded(.up)) + 1, rows: max(Int((half / cellHeight).rounded(.up)), 1))
        for feature in features {
            guard let geometry = feature.geometry else { continue }
            let words = Self.oneLine(text(feature))
            guard !words.isEmpty else { continue }
            for anchor in anchoring.anchors(geometry.shape, placement: placement, canvas: canvas) {
                let (textAnchor, _) = FeatureLabels.pointAnchor(placement, isPoint: anchor.isPoint)
                let cell = (column: Int((anchor.x / cellWidth).rounded(.down)), row: Int((anchor.y / cellHeight).rounded(.down)))
                var places = [Self.place(textAnchor, cell: cell, length: words.count, clear: anchor.isPoint ? clear : (1, 1))]
                // A point's label goes round it where its own place is taken, as ArcGIS tries
                // the other positions about a point.
                if anchor.isPoint {
                    places += ["bottom", "top", "left", "right"].map { Self.place($0, cell: cell, length: words.count, clear: clear) }
                }
                // Kept inside the picture, as a view's own labels are.
                let inside = places.map { (row: $0.row, column: min(max($0.column, 0), columns - words.count)) }
                if let free = inside.first(where: { isFree($0, length: words.count) }) {
                    take(free, words)
                }
            }
        }
    }

    /// Writes `text` with its `anchor` ("bottom-left", "bottom-right", ...) at the pixel `x`,
    /// `y`, over any label placed there (the scale bar's distance, the credits).
    public mutating func put(_ text: String, x: Double, y: Double, anchor: String) {
        let words = Self.oneLine(text)
        guard !words.isEmpty else { return }
        // The pixel row above a bottom anchor is the text's row.
        let cell = (column: Int((x / cellWidth).rounded(.down)), row: Int(((y - 1) / cellHeight).rounded(.down)))
        let start = anchor.hasSuffix("right") ? cell.column - words.count + 1 : cell.column
        let place = (row: min(max(cell.row, 0), rows - 1), column: min(max(start, 0), max(columns - words.count, 0)))
        placed.removeAll { $0.row == place.row && $0.column <= place.column + words.count && place.column <= $0.column + $0.text.count }
        take(place, words)
    }

    /// The escape sequences that write the labels over a picture printed from the cell at
    /// `row`, `column` (from 1), in the terminal's own colours, bold.
    public func text(row: Int, column: Int) -> String {
        var out = ""
        for label in placed {
            out += "\u{1B}[\(row + label.row);\(column + label.column)H\u{1B}[0;1m" + label.text + "\u{1B}[0m"
        }
        return out
    }

    /// A label's text on one line: line breaks and runs of spaces as one space.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Where a label of `length` cells starts with its text anchor `anchor` at `cell`, kept
    /// `clear` cells from a point.
    static func place(_ anchor: String, cell: (column: Int, row: Int), length: Int, clear: (columns: Int, rows: Int)) -> (row: Int, column: Int) {
        let row = anchor.hasPrefix("bottom") ? cell.row - clear.rows : anchor.hasPrefix("top") ? cell.row + clear.rows : cell.row
        let column: Int
        if anchor.hasSuffix("left") {
            column = cell.column + clear.columns
        } else if anchor.hasSuffix("right") {
            column = cell.column - clear.columns - length + 1
        } else {
            column = cell.column - length / 2
        }
        return (row, column)
    }

    /// Whether a label of `length` cells fits at `place` with a free cell all round it, so
    /// that no two labels read as one and the map shows between them.
    func isFree(_ place: (row: Int, column: Int), length: Int) -> Bool {
        guard place.row >= 0, place.row < rows, place.column >= 0, place.column + length <= columns else { return false }
        let from = max(place.column - 1, 0), to = min(place.column + length + 1, columns)
        for row in max(place.row - 1, 0)...min(place.row + 1, rows - 1) where taken[row * columns + from..<row * columns + to].contains(true) {
            return false
        }
        return true
    }

    private mutating func take(_ place: (row: Int, column: Int), _ words: String) {
        var text = words
        if text.count > columns { text = String(text.prefix(max(columns - 1, 0))) + "…" }
        let column = min(max(place.column, 0), max(columns - text.count, 0))
        for c in column..<min(column + text.count, columns) { taken[place.row * columns + c] = true }
        placed.append(Placed(row: place.row, column: column, text: text))
    }
}
