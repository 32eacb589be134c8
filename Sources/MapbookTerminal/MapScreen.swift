import MapbookData
import MapbookRender
import MapbookRouting
import MapbookSearch
import MapbookSupport
import MapbookViewer

/// The map filling the terminal: the rendered view (through libchafa), a panel beside it
/// when one is open (table of contents, legend, bookmarks, search, pop-ups), a banner when
/// the package has expired, and a status line with the map's name, the scale, the centre's
/// longitude and latitude and the keys. Panning moves a quarter of the view, zooming halves
/// or doubles the scale.
final class MapScreen: TerminalScreen {
    let map: ViewerMap
    let context: ViewerContext
    /// The view's centre in the map's spatial reference, and its scale (1:scale).
    var center: Position
    var scale: Double
    /// A message for the status line in place of the keys, until the next key.
    var message: String?
    /// A line above the map: the expiration message of a package used past its date.
    let banner: String?
    var panel: MapPanel?
    /// The cell identify looked at or search went to, marked on the map while its pop-ups show.
    var mark: (column: Int, row: Int)?
    /// Where a drag started, and whether the mouse moved before it was let go (else a click).
    var dragFrom: (column: Int, row: Int)?
    var dragMoved = false
    /// The package's locator, opened on the first search; nil when it has none.
    lazy var locator: Result<CompositeLocator?, any Error> = Result { try EditedLocator.open(map.session.package, library: context.library) }
    /// The last picture of the map and what it showed, so a frame that changes only a panel
    /// or the status line does not draw the map again.
    var picture: (key: PictureKey, text: String)?
    /// Counts changes of layer visibility, which the picture depends on.
    var visibilityChanges = 0
    /// The route of the directions panel, drawn over the map, and a count of its changes.
    var route: RouteOverlay?
    var routeChanges = 0
    /// Whether each layer (by id) can be edited, once asked.
    var editableLayers: [String: Bool] = [:]
    /// Taking the view offline (o), in the background.
    let offline = OfflineTask()
    /// The package's street network, opened on the first directions; nil when it has none.
    lazy var network: Result<RoutingNetwork?, any Error> = Result {
        RoutingNetwork.names(in: map.session.package).isEmpty ? nil : try RoutingNetwork.open(map.session.package)
    }

    struct PictureKey: Equatable {
        var center: Position
        var scale: Double
        var columns: Int
        var rows: Int
        var width: Int
        var height: Int
        var visibilityChanges: Int
        var routeChanges: Int
    }

    init(map: ViewerMap, context: ViewerContext, banner: String? = nil, size: TerminalSize) throws {
        self.map = map
        self.context = context
        self.banner = banner
        let layout = Self.layout(size, banner: banner != nil, panel: false)
        let view = try map.initialView(width: layout.width, height: layout.height)
        center = view.center
        scale = view.scale
    }

    /// The smallest terminal a map is drawn in.
    static let minimumSize = (columns: 20, rows: 6)

    /// Where the map goes: from row `top` (1 or 2 under a banner), `columns` x `rows` cells,
    /// `width` x `height` pixels: what the terminal says its cells measure, else 8 x 16 pixels
    /// a cell. The last row is the status line; a panel takes the right of the screen.
    struct Layout {
        var top: Int
        var columns: Int
        var rows: Int
        var width: Int
        var height: Int
        var panelColumns: Int
        var cellWidth: Double { Double(width) / Double(columns) }
        var cellHeight: Double { Double(height) / Double(rows) }
    }

    static func layout(_ size: TerminalSize, banner: Bool, panel: Bool) -> Layout {
        let top = banner ? 2 : 1
        let rows = max(size.rows - top, 1)
        let panelColumns = panel ? min(max(size.columns * 2 / 5, 24), 48, max(size.columns - 10, 0)) : 0
        let columns = max(size.columns - panelColumns, 1)
        let cellWidth = size.width > 0 && size.columns > 0 ? Double(size.width) / Double(size.columns) : 8
        let cellHeight = size.height > 0 && size.rows > 0 ? Double(size.height) / Double(size.rows) : 16
        return Layout(
            top: top, columns: columns, rows: rows, width: max(Int(Double(columns) * cellWidth), 1),
            height: max(Int(Double(rows) * cellHeight), 1), panelColumns: panelColumns)
    }

    var layoutHasPanel: Bool { panel != nil }

    func layout(_ size: TerminalSize) -> Layout { Self.layout(size, banner: banner != nil, panel: layoutHasPanel) }

    func view(_ size: TerminalSize) throws -> MapView {
        let layout = layout(size)
        return try MapView(center: center, scale: scale, width: layout.width, height: layout.height, metresPerUnit: map.metresPerUnit)
    }

    /// Moves the view by fractions of its width and height (right and up positive).
    func pan(_ dx: Double, _ dy: Double, size: TerminalSize) {
        guard let view = try? view(size) else { return }
        center = Position(x: center.x + dx * Double(view.width) * view.resolution, y: center.y + dy * Double(view.height) * view.resolution)
    }

    /// Moves the view by a number of cells (a mouse drag).
    func drag(columns: Int, rows: Int, size: TerminalSize) {
        let layout = layout(size)
        pan(-Double(columns) / Double(layout.columns), Double(rows) / Double(layout.rows), size: size)
    }

    func zoom(_ factor: Double) {
        scale = min(max(scale / factor, 50), 600_000_000)
    }

    func pendingNote(_ size: TerminalSize) -> String? {
        isTooSmall(size) || picture?.key == pictureKey(size) ? nil : statusLine(size, note: "drawing…")
    }

    func isTooSmall(_ size: TerminalSize) -> Bool {
        size.columns < Self.minimumSize.columns || size.rows < Self.minimumSize.rows
    }

    func pictureKey(_ size: TerminalSize) -> PictureKey {
        let layout = layout(size)
        return PictureKey(
            center: center, scale: scale, columns: layout.columns, rows: layout.rows, width: layout.width, height: layout.height,
            visibilityChanges: visibilityChanges, routeChanges: routeChanges)
    }

    /// The whole screen: the banner, the picture, the panel, the status line.
    func frame(_ size: TerminalSize) -> String {
        guard !isTooSmall(size) else {
            picture = nil
            return "\u{1B}[0m\u{1B}[2J\u{1B}[H"
                + "Too small to draw a map (\(size.columns) x \(size.rows)); make the terminal at least \(Self.minimumSize.columns) x \(Self.minimumSize.rows).".prefix(size.columns * size.rows)
        }
        let layout = layout(size)
        let key = pictureKey(size)
        var out = ""
        if picture?.key != key {
            // A new layout leaves nothing of the old one behind (images stay on kitty's screen).
            if picture.map({ $0.key.columns != key.columns || $0.key.rows != key.rows }) ?? true {
                out += "\u{1B}[0m\u{1B}[2J" + (context.mode == .kitty ? "\u{1B}_Ga=d\u{1B}\\" : "")
            }
            picture = (key, drawMap(size, layout: layout))
        }
        if let banner {
            out += "\u{1B}[1;1H\u{1B}[0m\u{1B}[1;41;97m" + TextPanel.fit(" ⚠ " + banner, size.columns) + "\u{1B}[0m"
        }
        out += "\u{1B}[\(layout.top);1H" + (picture?.text ?? "")
        if let mark, mark.column <= layout.columns, mark.row >= layout.top, mark.row < layout.top + layout.rows {
            out += "\u{1B}[\(mark.row);\(mark.column)H\u{1B}[0m\u{1B}[1;97;41m✛\u{1B}[0m"
        }
        if let panel {
            out += panel.panel(map, width: layout.panelColumns - 2, editable: { self.editableTable(layerID: $0) != nil }).text(
                column: layout.columns + 1, row: layout.top, width: layout.panelColumns, height: layout.rows, mode: context.mode)
        }
        return out + statusLine(size)
    }

    func drawMap(_ size: TerminalSize, layout: Layout) -> String {
        do {
            // Symbols show a cell as one of a few shapes in two colours (a sextant is 2 x 3
            // parts): a picture of half the pixels, at half the DPI so the view and the
            // symbols' sizes stay, shows the same, drawn in half the time. Images (kitty,
            // iTerm, sixels) show every pixel and get them all.
            let detail = context.mode.showsPixels ? 1.0 : 0.5
            let view = try MapView(
                center: center, scale: scale, width: max(Int(Double(layout.width) * detail), 1), height: max(Int(Double(layout.height) * detail), 1),
                dpi: 96 * detail, metresPerUnit: map.metresPerUnit)
            // Symbols smudge letters: labels are then written as text over the picture.
            let rendered = try map.render(view, labelCells: context.mode.showsPixels ? nil : (layout.columns, layout.rows))
            if let route { try route.draw(on: rendered.canvas, map: map) }
            if let problem = rendered.findings.first { message = problem }
            var text = TerminalPicture.text(of: rendered.canvas, columns: layout.columns, rows: layout.rows, mode: context.mode)
            // Symbols come a row a line; under a banner each line starts again at the first column.
            if layout.top > 1 { text = text.replacingAll("\n", with: "\n\u{1B}[1G") }
            return text + (rendered.cellLabels?.text(row: layout.top, column: 1) ?? "")
        } catch {
            message = "cannot draw: \(error)"
            return ""
        }
    }

    /// The status line alone, with `note` (such as "drawing…") in place of the keys.
    func statusLine(_ size: TerminalSize, note: String? = nil) -> String {
        var place = ""
        if let lonLat = try? map.toLongitudeLatitude(center) {
            place = "\(Format.number((lonLat.x * 1e5).rounded() / 1e5)), \(Format.number((lonLat.y * 1e5).rounded() / 1e5))"
        }
        let keys = note ?? message ?? "arrows pan  +/- zoom  t layers  l legend  b bookmarks  / search  i identify  d directions  m maps  ? keys  q quit"
        let text = " \(map.name) │ 1:\(Format.scale(scale.rounded())) │ \(place) │ \(keys)"
        return "\u{1B}[\(size.rows);1H\u{1B}[0m\u{1B}[7m" + TextPanel.fit(text, size.columns) + "\u{1B}[0m"
    }
}
