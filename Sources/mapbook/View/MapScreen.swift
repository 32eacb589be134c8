import MapbookData
import MapbookRender
import MapbookViewer

/// The map filling the terminal: the rendered view (through libchafa) above a status line
/// with the map's name, the scale, the centre's longitude and latitude and the main keys.
/// Panning moves a quarter of the view, zooming halves or doubles the scale.
final class MapScreen {
    let map: ViewerMap
    /// The view's centre in the map's spatial reference, and its scale (1:scale).
    var center: Position
    var scale: Double
    /// A message for the status line in place of the keys, until the next key.
    var message: String?

    init(map: ViewerMap, size: (columns: Int, rows: Int, width: Int, height: Int)) throws {
        self.map = map
        let (width, height) = Self.pixels(size)
        let view = try map.initialView(width: width, height: height)
        center = view.center
        scale = view.scale
    }

    /// The smallest terminal a map is drawn in.
    static let minimumSize = (columns: 20, rows: 6)

    /// The picture's size in pixels: what the terminal says its cells measure, else 8 x 16
    /// pixels a cell; the last row is the status line.
    static func pixels(_ size: (columns: Int, rows: Int, width: Int, height: Int)) -> (Int, Int) {
        let rows = max(size.rows - 1, 1)
        let width = size.width > 0 ? size.width : size.columns * 8
        let height = size.height > 0 ? size.height * rows / size.rows : rows * 16
        return (max(width, 1), max(height, 1))
    }

    func view(_ size: (columns: Int, rows: Int, width: Int, height: Int)) throws -> MapView {
        let (width, height) = Self.pixels(size)
        return try MapView(center: center, scale: scale, width: width, height: height, metresPerUnit: map.metresPerUnit)
    }

    /// Moves the view by fractions of its width and height (right and up positive).
    func pan(_ dx: Double, _ dy: Double, size: (columns: Int, rows: Int, width: Int, height: Int)) {
        guard let view = try? view(size) else { return }
        center = Position(x: center.x + dx * Double(view.width) * view.resolution, y: center.y + dy * Double(view.height) * view.resolution)
    }

    /// Moves the view by a number of cells (a mouse drag).
    func drag(columns: Int, rows: Int, size: (columns: Int, rows: Int, width: Int, height: Int)) {
        pan(-Double(columns) / Double(size.columns), Double(rows) / Double(max(size.rows - 1, 1)), size: size)
    }

    func zoom(_ factor: Double) {
        scale = min(max(scale / factor, 50), 600_000_000)
    }

    /// The whole screen: the picture from the top left, then the status line.
    func frame(_ size: (columns: Int, rows: Int, width: Int, height: Int), mode: TerminalPicture.Mode) -> String {
        guard size.columns >= Self.minimumSize.columns, size.rows >= Self.minimumSize.rows else {
            return "\u{1B}[2J\u{1B}[H" + "Too small to draw a map (\(size.columns) x \(size.rows)); make the terminal at least \(Self.minimumSize.columns) x \(Self.minimumSize.rows).".prefix(size.columns * size.rows)
        }
        var out = "\u{1B}[H"
        do {
            let view = try view(size)
            let rendered = try map.render(view)
            out += TerminalPicture.text(of: rendered.canvas, columns: size.columns, rows: size.rows - 1, mode: mode)
            if let problem = rendered.findings.first { message = problem }
        } catch {
            out += "\u{1B}[2J"
            message = "cannot draw: \(error)"
        }
        return out + statusLine(size)
    }

    /// The status line alone, with `note` (such as "drawing…") in place of the keys.
    func statusLine(_ size: (columns: Int, rows: Int, width: Int, height: Int), note: String? = nil) -> String {
        var place = ""
        if let lonLat = try? map.toLongitudeLatitude(center) {
            place = "\(Format.number((lonLat.x * 1e5).rounded() / 1e5)), \(Format.number((lonLat.y * 1e5).rounded() / 1e5))"
        }
        let keys = note ?? message ?? "arrows/hjkl pan  +/- zoom  q quit"
        let text = " \(map.name) │ 1:\(Format.scale(scale.rounded())) │ \(place) │ \(keys)"
        let fitted = String(text.prefix(size.columns))
        let padding = String(repeating: " ", count: max(0, size.columns - fitted.count))
        return "\u{1B}[\(size.rows);1H\u{1B}[0m\u{1B}[7m" + fitted + padding + "\u{1B}[0m"
    }
}
