/// Every key of `mapbook view` on one screen; any key goes back.
final class HelpScreen: TerminalScreen {
    /// What a key goes back to ("the map", "the library").
    let returning: String

    init(returning: String) { self.returning = returning }

    static let sections: [(title: String, keys: [(String, String)])] = [
        ("The library", [
            ("↑ ↓  k j", "choose a package"),
            ("Enter", "open it: its maps, or its map when it has one"),
            ("d", "download the chosen portal package (resumes an interrupted download)"),
            ("u", "update the chosen package when the portal has a newer version"),
            ("r", "check the portal for updates now"),
        ]),
        ("The maps of a package", [
            ("↑ ↓  k j", "choose a map"),
            ("Enter", "open it"),
            ("Esc", "back to the library (to the map, when m showed the maps)"),
        ]),
        ("The map", [
            ("← → ↑ ↓", "pan (also h j k, and H J K L)"),
            ("+ -", "zoom in and out (also the mouse wheel; drag to pan)"),
            ("t", "layers: ↑ ↓ choose, space shows or hides (kept on this device)"),
            ("l", "legend"),
            ("b", "bookmarks: Enter goes there"),
            ("/", "search: type, ↑ ↓ choose a suggestion, Enter goes there and shows its pop-up"),
            ("i  or a click", "identify at the centre or where clicked: n and p go through the pop-ups; on an editable layer, e edits the feature's fields (coded values chosen from a list), x deletes it"),
            ("a", "add a feature at the centre to the editable point layer shown: set its fields, then Enter on Add"),
            ("d", "directions: type the start and the destination (Enter on nothing takes the map's centre), then the route is drawn and listed"),
            ("m", "another map of the package"),
            ("o", "take the area on screen offline from the portal, into the library"),
            ("Esc", "close the panel; without one, back to the package's maps (to the library when it has one map)"),
        ]),
        ("Everywhere", [
            ("?", "these keys"),
            ("q  Ctrl-C", "quit"),
        ]),
    ]

    /// The first line shown, when the keys are taller than the terminal.
    var top = 0

    /// The keys laid out for a terminal `width` columns wide: each key's description wrapped
    /// beside it (under it when the terminal is too narrow for both), no line wider than
    /// `width`; titles are bold.
    static func lines(width: Int) -> [(text: String, bold: Bool)] {
        let keyColumn = 14
        let beside = width - (keyColumn + 3) >= 20
        var lines: [(text: String, bold: Bool)] = TextPanel.wrap("Mapbook: the keys", width: width).map { ($0, true) } + [("", false)]
        for section in sections {
            lines += TextPanel.wrap(section.title, width: width).map { ($0, true) }
            for (key, what) in section.keys {
                if beside {
                    let wrapped = TextPanel.wrap(what, width: width - (keyColumn + 3))
                    for (i, part) in wrapped.enumerated() {
                        let lead = i == 0 ? "  " + TextPanel.fit(key, keyColumn) + " " : String(repeating: " ", count: keyColumn + 3)
                        lines.append((lead + part, false))
                    }
                } else {
                    lines += TextPanel.wrap(key, width: max(width - 2, 1)).map { ("  " + $0, false) }
                    lines += TextPanel.wrap(what, width: max(width - 4, 1)).map { ("    " + $0, false) }
                }
            }
            lines.append(("", false))
        }
        return lines
    }

    func frame(_ size: TerminalSize) -> String {
        let lines = Self.lines(width: size.columns)
        let room = max(size.rows - 1, 0)
        top = min(max(top, 0), max(lines.count - room, 0))
        var out = "\u{1B}[0m\u{1B}[2J"
        for (i, line) in lines.dropFirst(top).prefix(room).enumerated() {
            out += "\u{1B}[\(i + 1);1H" + (line.bold ? "\u{1B}[1m" : "") + line.text + "\u{1B}[0m"
        }
        let scroll = lines.count > room ? (top + room < lines.count ? "↓ more: " : "") + "↑↓ scroll · " : ""
        out += "\u{1B}[\(size.rows);1H\u{1B}[7m" + TextPanel.fit(" " + scroll + "q quits · any other key: back to \(returning)", size.columns) + "\u{1B}[0m"
        return out
    }

    func handle(_ key: TerminalKey, size: TerminalSize) -> ScreenAction {
        switch key {
        case .character("q"), .control("c"), .control("d"): return .quit
        case .mouse: return .none
        case .up, .down, .pageUp, .pageDown:
            // Arrows scroll keys taller than the terminal; otherwise they go back, as any key.
            let room = max(size.rows - 1, 1)
            guard Self.lines(width: size.columns).count > room else { return .pop }
            switch key {
            case .up: top -= 1
            case .down: top += 1
            case .pageUp: top -= room
            default: top += room
            }
            return .redraw
        default: return .pop
        }
    }
}
