import MapbookPackage
import MapbookSearch
import MapbookViewer

/// A panel beside the map: the table of contents, the legend, the bookmarks, search, or the
/// pop-ups of features found, each with where its choice or scroll stands.
enum MapPanel {
    case contents(selection: Int)
    case legend(top: Int)
    case bookmarks(selection: Int)
    case search(SearchState)
    case popups([Popup], index: Int, top: Int)
    case directions(DirectionsState)
    /// Editing a feature's fields, or a new feature's (issue 19).
    case edit(MapScreen.EditState)
    /// A pop-up's feature about to be deleted: y deletes, anything else goes back to the pop-ups.
    case confirmDelete([Popup], index: Int)

    /// Search as the user types: the text so far, the suggestions for it, the one chosen.
    struct SearchState {
        var text = ""
        var suggestions: [SearchSuggestion] = []
        var selection = 0
        /// Why there is nothing to choose ("no matches", "no locator").
        var note: String?
    }

    /// The panel's text lines for `map`, `width` characters wide inside its border; a pop-up
    /// offers to edit and delete its feature when `editable` says its layer (by id) can be.
    func panel(_ map: ViewerMap, width: Int, editable: (String) -> Bool) -> TextPanel {
        switch self {
        case .contents(let selection):
            var lines: [TextPanel.Line] = []
            for layer in map.layers.reversed() {
                let indent = String(repeating: "  ", count: layer.depth)
                lines.append(TextPanel.Line(indent + (layer.isVisible ? "[x] " : "[ ] ") + layer.title, dim: !map.isShown(layer) && layer.isVisible))
            }
            for layer in map.baseMapLayers.reversed() {
                lines.append(TextPanel.Line("    " + layer.title + " (base map)", dim: true))
            }
            return TextPanel(
                title: "Layers", lines: lines, selection: map.layers.isEmpty ? nil : selection,
                footer: "↑↓ choose · space show/hide · t close")
        case .legend(let top):
            var lines: [TextPanel.Line] = []
            for layer in map.layers.reversed() where layer.isVisible {
                let indent = String(repeating: "  ", count: layer.depth)
                let sections = layer.legend
                // One symbol for the whole layer: on the layer's own line.
                if sections.count == 1, sections[0].heading == nil, sections[0].entries.count == 1 {
                    lines.append(TextPanel.Line(indent + layer.title, symbol: Self.swatch(sections[0].entries[0].symbol), bold: true))
                    continue
                }
                lines.append(TextPanel.Line(indent + layer.title, bold: true))
                for section in sections {
                    if let heading = section.heading { lines.append(TextPanel.Line(indent + "  " + heading, dim: true)) }
                    for entry in section.entries {
                        lines.append(TextPanel.Line(indent + (entry.label.isEmpty ? layer.title : entry.label), symbol: Self.swatch(entry.symbol)))
                    }
                }
            }
            if lines.isEmpty { lines.append(TextPanel.Line("No layer is shown.", dim: true)) }
            return TextPanel(title: "Legend", lines: lines, top: top, footer: "↑↓ scroll · l close")
        case .bookmarks(let selection):
            let lines = map.bookmarks.map { TextPanel.Line($0.name ?? "(unnamed)") }
            return TextPanel(
                title: "Bookmarks", lines: lines.isEmpty ? [TextPanel.Line("This map has no bookmarks.", dim: true)] : lines,
                selection: lines.isEmpty ? nil : selection, footer: "↑↓ choose · Enter go · b close")
        case .search(let state):
            var lines = [TextPanel.Line("Find: " + state.text + "▏", bold: true)]
            for s in state.suggestions {
                lines.append(TextPanel.Line(s.text + (s.count > 1 ? "  (\(s.count))" : "")))
            }
            if let note = state.note { lines.append(TextPanel.Line(note, dim: true)) }
            return TextPanel(
                title: "Search", lines: lines, selection: state.suggestions.isEmpty ? nil : state.selection + 1,
                footer: "type · ↑↓ choose · Enter go · Esc close")
        case .directions(let state):
            if let result = state.result {
                var lines = TextPanel.wrap(result.summary, width: width - 1).map { TextPanel.Line($0, bold: true) }
                for line in result.lines { lines += TextPanel.wrap(line, width: width - 1).map { TextPanel.Line($0) } }
                return TextPanel(title: "Directions", lines: lines, top: state.top, footer: "↑↓ scroll · d or Esc close")
            }
            let typed = TextPanel.Line((state.from == nil ? "From: " : "To: ") + state.search.text + "▏", bold: true)
            var lines = state.from.map { [TextPanel.Line("From: " + $0.label, dim: true), typed] } ?? [typed]
            let heading = lines.count
            for s in state.search.suggestions {
                lines.append(TextPanel.Line(s.text + (s.count > 1 ? "  (\(s.count))" : "")))
            }
            if let note = state.search.note { lines += TextPanel.wrap(note, width: width - 1).map { TextPanel.Line($0, dim: true) } }
            return TextPanel(
                title: "Directions", lines: lines, selection: state.search.suggestions.isEmpty ? nil : heading + state.search.selection,
                footer: "a place or LON,LAT · Enter on nothing: the map's centre · Esc close")
        case .popups(let popups, let index, let top):
            let popup = popups[index]
            var lines = [TextPanel.Line(popup.title, bold: true), TextPanel.Line("\(popup.layerTitle) · feature \(popup.featureID)", dim: true)]
            if let text = popup.text {
                lines += TextPanel.wrap(text, width: width - 1).map { TextPanel.Line($0) }
            } else {
                for field in popup.fields {
                    lines += TextPanel.wrap(field.label + ": " + field.value, width: width - 1).map { TextPanel.Line($0) }
                }
            }
            for line in popup.relatedLines {
                lines += TextPanel.wrap(line, width: width - 1).map { TextPanel.Line($0, dim: !line.hasPrefix(" ")) }
            }
            let count = popups.count > 1 ? "\(index + 1) of \(popups.count) · n/p next, previous · " : ""
            return TextPanel(title: "Pop-up", lines: lines, top: top, footer: count + (editable(popup.layerID) ? "e edit · x delete · " : "") + "Esc close")
        case .edit(let state):
            return Self.editPanel(state, width: width)
        case .confirmDelete(let popups, let index):
            let popup = popups[index]
            let lines = TextPanel.wrap("Delete '\(popup.title)' (\(popup.layerTitle), feature \(popup.featureID))? Its attachments go with it; mapbook sync sends the deletion.", width: width - 1)
            return TextPanel(title: "Delete", lines: lines.map { TextPanel.Line($0) }, footer: "y delete · any other key keeps it")
        }
    }

    /// A legend entry's symbol as one coloured character.
    static func swatch(_ symbol: Symbol) -> (glyph: Character, color: RGBAColor?) {
        let glyph = symbol.legendDescription.first ?? "●"
        switch symbol {
        case .simpleMarker(let m): return (glyph, m.color ?? m.outline?.color)
        case .simpleLine(let l): return (glyph, l.color)
        case .simpleFill(let f): return (glyph, f.color.flatMap { $0.alpha > 0 ? $0 : nil } ?? f.outline?.color)
        default: return (glyph, nil)
        }
    }
}
