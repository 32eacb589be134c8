import MapbookRender
import MapbookSupport
import MapbookViewer

/// The maps of a package, as the Offline Mapbook app lists them: each map's thumbnail drawn
/// as a picture beside its title and summary. Enter opens the chosen map.
final class MapsScreen: TerminalScreen {
    let session: MapSession
    let context: ViewerContext
    /// The expiration banner the package's maps open under.
    let banner: String?
    var selection: Int
    var message: String?
    /// Each map's thumbnail, decoded once (nil: none, or not a PNG), and its text per size.
    var thumbnails: [RasterImage?]
    var pictures: [Int: (cells: Int, text: String)] = [:]

    /// `current` is the key of the map shown before, chosen first.
    init(session: MapSession, context: ViewerContext, banner: String?, current: String?) {
        self.session = session
        self.context = context
        self.banner = banner
        selection = session.maps.firstIndex { $0.key == current } ?? 0
        thumbnails = session.maps.map { summary in
            guard let uri = summary.map.item.thumbnail, let bytes = DataURI.decode(uri) else { return nil }
            return try? RasterImage(png: bytes)
        }
    }

    /// A thumbnail's cells: 200 x 133 pixels in cells twice as tall as wide.
    static let thumbnail = (columns: 24, rows: 8)

    func frame(_ size: TerminalSize) -> String {
        let title = session.package.manifest.title ?? session.package.path
        var out = "\u{1B}[0m\u{1B}[2J" + (context.mode == .kitty ? "\u{1B}_Ga=d\u{1B}\\" : "")
        out += "\u{1B}[1;1H\u{1B}[1;7m" + TextPanel.fit(" \(title): \(session.maps.count) maps", size.columns) + "\u{1B}[0m"
        var row = 2
        if let banner {
            out += "\u{1B}[2;1H\u{1B}[1;41;97m" + TextPanel.fit(" ⚠ " + banner, size.columns) + "\u{1B}[0m"
            row = 3
        }
        let entryRows = Self.thumbnail.rows + 1
        let fit = max((size.rows - row) / entryRows, 1)
        let first = min(max(selection - fit + 1, 0), max(session.maps.count - fit, 0))
        let textColumn = Self.thumbnail.columns + 3
        let textWidth = max(size.columns - textColumn, 1)
        for i in first..<min(first + fit, session.maps.count) {
            let top = row + 1 + (i - first) * entryRows
            guard top + Self.thumbnail.rows <= size.rows else { break }
            let map = session.maps[i].map
            let chosen = i == selection
            out += "\u{1B}[\(top);1H" + (chosen ? "\u{1B}[1;7m▌\u{1B}[0m" : " ")
            out += "\u{1B}[\(top);2H" + picture(i)
            out += "\u{1B}[\(top);\(textColumn)H\u{1B}[0m" + (chosen ? "\u{1B}[1;7m" : "\u{1B}[1m") + TextPanel.fit("\(i + 1). \(map.displayName)", textWidth) + "\u{1B}[0m"
            let about = map.item.summary ?? map.item.snippet ?? ""
            let layers = map.map.operationalLayers?.count ?? 0
            let bookmarks = map.map.bookmarks?.count ?? 0
            var lines = TextPanel.wrap(about, width: textWidth).prefix(Self.thumbnail.rows - 3).map { $0 }
            lines.append("")
            lines.append("\(layers) layer\(layers == 1 ? "" : "s"), \(bookmarks) bookmark\(bookmarks == 1 ? "" : "s")")
            for (j, line) in lines.enumerated() {
                out += "\u{1B}[\(top + 1 + j);\(textColumn)H" + (j == lines.count - 1 ? "\u{1B}[2m" : "") + TextPanel.fit(line, textWidth) + "\u{1B}[0m"
            }
        }
        let keys = message ?? "↑↓ choose · Enter open · Esc back · ? keys · q quit"
        return out + "\u{1B}[\(size.rows);1H\u{1B}[7m" + TextPanel.fit(" " + keys, size.columns) + "\u{1B}[0m"
    }

    /// The thumbnail of map `i` as terminal text, each row starting under the first.
    func picture(_ i: Int) -> String {
        if let kept = pictures[i] { return kept.text }
        let cells = Self.thumbnail
        var text: String
        if let image = thumbnails[i] {
            text = TerminalPicture.text(of: image, columns: cells.columns, rows: cells.rows, mode: context.mode)
            text = text.replacingAll("\n", with: "\n\u{1B}[2G")
        } else {
            text = "\u{1B}[2m" + TextPanel.fit("(no thumbnail)", cells.columns) + "\u{1B}[0m"
        }
        pictures[i] = (cells.columns, text)
        return text
    }

    func handle(_ key: TerminalKey, size: TerminalSize) -> ScreenAction {
        message = nil
        switch key {
        case .character("q"), .control("c"), .control("d"): return .quit
        case .escape: return .pop
        case .up, .character("k"): selection = max(selection - 1, 0)
        case .down, .character("j"): selection = min(selection + 1, session.maps.count - 1)
        case .character("?"): return .push(HelpScreen(returning: "the maps"))
        case .enter:
            do {
                let map = try session.map(named: "\(selection + 1)")
                return .home(then: try MapScreen(map: map, context: context, banner: banner, size: size))
            } catch {
                message = "cannot open the map: \(error)"
            }
        default: return .none
        }
        return .redraw
    }
}
