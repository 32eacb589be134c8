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
            ("Esc", "back"),
        ]),
        ("The map", [
            ("← → ↑ ↓", "pan (also h j k, and H J K L)"),
            ("+ -", "zoom in and out (also the mouse wheel; drag to pan)"),
            ("t", "layers: ↑ ↓ choose, space shows or hides (kept on this device)"),
            ("l", "legend"),
            ("b", "bookmarks: Enter goes there"),
            ("/", "search: type, ↑ ↓ choose a suggestion, Enter goes there and shows its pop-up"),
            ("i  or a click", "identify at the centre or where clicked: n and p go through the pop-ups; e edits the feature's fields (coded values chosen from a list), x deletes it"),
            ("a", "add a feature at the centre to the editable point layer shown: set its fields, then Enter on Add"),
            ("d", "directions: type the start and the destination (Enter on nothing takes the map's centre), then the route is drawn and listed"),
            ("m", "another map of the package"),
            ("Esc", "close the panel; without one, back to the library"),
        ]),
        ("Everywhere", [
            ("?", "these keys"),
            ("q  Ctrl-C", "quit"),
        ]),
    ]

    func frame(_ size: TerminalSize) -> String {
        var lines = ["Mapbook: the keys", ""]
        for section in Self.sections {
            lines.append(section.title)
            for (key, what) in section.keys { lines.append("  " + TextPanel.fit(key, 14) + " " + what) }
            lines.append("")
        }
        var out = "\u{1B}[0m\u{1B}[2J"
        for (i, line) in lines.prefix(max(size.rows - 1, 0)).enumerated() {
            out += "\u{1B}[\(i + 1);1H" + (i == 0 || !line.hasPrefix(" ") ? "\u{1B}[1m" : "") + String(line.prefix(size.columns)) + "\u{1B}[0m"
        }
        out += "\u{1B}[\(size.rows);1H\u{1B}[7m" + TextPanel.fit(" q quits · any other key: back to \(returning)", size.columns) + "\u{1B}[0m"
        return out
    }

    func handle(_ key: TerminalKey, size: TerminalSize) -> ScreenAction {
        switch key {
        case .character("q"), .control("c"), .control("d"): return .quit
        case .mouse: return .none
        default: return .pop
        }
    }
}
