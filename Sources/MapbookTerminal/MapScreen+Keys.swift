import MapbookData
import MapbookSearch
import MapbookSupport
import MapbookViewer

extension MapScreen {
    /// What a key does: an open panel takes it first, then the map's keys.
    func handle(_ key: TerminalKey, size: TerminalSize) -> ScreenAction {
        // A message on the status line lasts until the next key.
        let hadMessage = message != nil
        message = nil
        let action = dispatch(key, size: size)
        if hadMessage, case .none = action { return .redraw }
        return action
    }

    func dispatch(_ key: TerminalKey, size: TerminalSize) -> ScreenAction {
        if let action = handleInPanel(key, size: size) { return action }
        switch key {
        case .character("q"), .control("c"), .control("d"): return .quit
        case .escape:
            // Back to the package's maps, as the Offline Mapbook app goes back; a package of
            // one map has none to choose among, so the library.
            guard map.session.maps.count > 1 else { return .home(then: nil) }
            return .home(then: MapsScreen(session: map.session, context: context, banner: banner, current: map.key))
        case .left, .character("h"), .character("H"): pan(-0.25, 0, size: size)
        case .right, .character("L"): pan(0.25, 0, size: size)
        case .up, .character("k"), .character("K"): pan(0, 0.25, size: size)
        case .down, .character("j"), .character("J"): pan(0, -0.25, size: size)
        case .character("+"), .character("="): zoom(2)
        case .character("-"), .character("_"): zoom(0.5)
        case .character("t"): open(.contents(selection: 0))
        case .character("l"): open(.legend(top: 0))
        case .character("b"): open(.bookmarks(selection: 0))
        case .character("/"): startSearch()
        case .character("i"): identify(at: nil, size: size)
        case .character("d"): startDirections()
        case .character("a"): startAdding()
        case .character("o"): takeOffline(size: size)
        case .character("?"): return .push(HelpScreen(returning: "the map"))
        case .character("m"):
            guard map.session.maps.count > 1 else {
                message = "'\(map.session.package.manifest.title ?? map.name)' has one map"
                return .redraw
            }
            return .push(MapsScreen(session: map.session, context: context, banner: banner, current: map.key))
        case .mouse(let button, let column, let row, let motion, let released):
            return mouse(button: button, column: column, row: row, motion: motion, released: released, size: size)
        default: return .none
        }
        return .redraw
    }

    func open(_ new: MapPanel) {
        panel = new
        mark = nil
    }

    /// Wheel zooms; a drag pans; a click identifies where it was made.
    func mouse(button: Int, column: Int, row: Int, motion: Bool, released: Bool, size: TerminalSize) -> ScreenAction {
        switch button {
        case 64: zoom(2)
        case 65: zoom(0.5)
        case 0 where released:
            defer { dragFrom = nil }
            guard let from = dragFrom else { return .none }
            if dragMoved {
                drag(columns: column - from.column, rows: row - from.row, size: size)
            } else {
                identify(at: (column, row), size: size)
            }
        case 0 where motion:
            guard let from = dragFrom, (column, row) != from else { return .none }
            drag(columns: column - from.column, rows: row - from.row, size: size)
            dragFrom = (column, row)
            dragMoved = true
        case 0:
            dragFrom = (column, row)
            dragMoved = false
            return .none
        default: return .none
        }
        return .redraw
    }

    /// Identify at a cell (a click), or the centre: the pop-ups of every feature there, top
    /// layer first, one after another.
    func identify(at cell: (column: Int, row: Int)?, size: TerminalSize) {
        // The pop-ups' panel narrows the map: identify in the view the user will see.
        let wasOpen = panel != nil
        let layout = Self.layout(size, banner: banner != nil, panel: wasOpen)
        guard let view = try? MapView(center: center, scale: scale, width: layout.width, height: layout.height, metresPerUnit: map.metresPerUnit) else { return }
        let column = cell?.column ?? (layout.columns + 1) / 2
        let row = cell?.row ?? layout.top + layout.rows / 2
        guard column <= layout.columns, row >= layout.top, row < layout.top + layout.rows else { return }
        let x = (Double(column) - 0.5) * layout.cellWidth, y = (Double(row - layout.top) + 0.5) * layout.cellHeight
        let point = view.position(pixelX: x, pixelY: y)
        // A cell is the finest a terminal points at: features within one are found.
        let report = map.identify(at: point, view: view, tolerance: max(layout.cellWidth, layout.cellHeight), limit: 100)
        guard !report.results.isEmpty else {
            message = "nothing here" + (report.skipped.isEmpty ? "" : " (\(report.skipped.count) layer\(report.skipped.count == 1 ? "" : "s") not searched)")
            mark = nil
            return
        }
        // The pop-ups' panel narrows the map about its centre: the mark moves with it.
        panel = .popups(report.results.map(\.popup), index: 0, top: 0)
        let shown = column - (layout.columns - self.layout(size).columns) / 2
        mark = shown >= 1 ? (shown, row) : nil
    }

    func startSearch() {
        mark = nil
        switch locator {
        case .success(.some):
            panel = .search(MapPanel.SearchState())
        case .success(.none):
            panel = .search(MapPanel.SearchState(note: "This package has no locator to search."))
        case .failure(let error):
            panel = .search(MapPanel.SearchState(note: "The locator cannot be read: \(error)"))
        }
    }

    /// The centre in longitude and latitude, to rank search results near it.
    var nearCenter: (longitude: Double, latitude: Double)? {
        (try? map.toLongitudeLatitude(center)).map { ($0.x, $0.y) }
    }

    /// Suggestions for the text typed so far.
    func suggest(_ state: inout MapPanel.SearchState, size: TerminalSize) {
        state.selection = 0
        state.note = nil
        guard case .success(let found?) = locator else { return }
        guard !state.text.trimming(" ").isEmpty else { state.suggestions = []; return }
        do {
            state.suggestions = try found.suggest(state.text, near: nearCenter, max: max(min(size.rows - 6, 20), 3))
            if state.suggestions.isEmpty { state.note = "no matches" }
        } catch {
            state.suggestions = []
            state.note = "cannot search: \(error)"
        }
    }

    /// Goes to the chosen suggestion (or the text's best match) and opens its pop-up.
    func go(_ state: MapPanel.SearchState, size: TerminalSize) {
        guard case .success(let found?) = locator else { return }
        do {
            let candidates: [GeocodeCandidate]
            if state.suggestions.indices.contains(state.selection) {
                candidates = try found.geocode(suggestion: state.suggestions[state.selection], near: nearCenter, max: 10)
            } else {
                candidates = try found.geocode(state.text, near: nearCenter, max: 10)
            }
            guard let best = candidates.first, let lon = best.longitude, let lat = best.latitude else {
                message = "nothing found for '\(state.text)'"
                return
            }
            center = try map.fromLongitudeLatitude(Position(x: lon, y: lat))
            // Close enough to see the feature among its neighbours.
            scale = min(scale, 2500)
            let popups = try map.popups(for: candidates)
            panel = .popups(popups, index: 0, top: 0)
            // The place found is the centre of the map.
            let shown = layout(size)
            mark = ((shown.columns + 1) / 2, shown.top + shown.rows / 2)
        } catch {
            message = "cannot search: \(error)"
        }
    }

    /// A key for the open panel; nil when the panel leaves it to the map.
    func handleInPanel(_ key: TerminalKey, size: TerminalSize) -> ScreenAction? {
        guard let current = panel else { return nil }
        switch current {
        case .contents(let selection):
            let count = map.layers.count
            switch key {
            case .escape, .character("t"): panel = nil
            case .up, .character("k"): panel = .contents(selection: max(selection - 1, 0))
            case .down, .character("j"): panel = .contents(selection: min(selection + 1, max(count - 1, 0)))
            case .character(" "), .enter:
                guard count > 0 else { return ScreenAction.none }
                let layer = map.layers[count - 1 - selection]
                do {
                    _ = try map.setVisibility([(layer: layer.id, visible: !layer.isVisible)])
                    visibilityChanges += 1
                } catch {
                    message = "cannot keep the choice: \(error)"
                }
            default: return nil
            }
        case .legend(let top):
            switch key {
            case .escape, .character("l"): panel = nil
            case .up, .character("k"): panel = .legend(top: max(top - 1, 0))
            case .down, .character("j"): panel = .legend(top: top + 1)
            case .pageDown: panel = .legend(top: top + max(size.rows - 4, 1))
            case .pageUp: panel = .legend(top: max(top - max(size.rows - 4, 1), 0))
            default: return nil
            }
        case .bookmarks(let selection):
            switch key {
            case .escape, .character("b"): panel = nil
            case .up, .character("k"): panel = .bookmarks(selection: max(selection - 1, 0))
            case .down, .character("j"): panel = .bookmarks(selection: min(selection + 1, max(map.bookmarks.count - 1, 0)))
            case .enter:
                guard map.bookmarks.indices.contains(selection) else { return ScreenAction.none }
                panel = nil
                let layout = layout(size)
                do {
                    let view = try map.view(of: map.bookmarks[selection], width: layout.width, height: layout.height)
                    center = view.center
                    scale = view.scale
                    message = "at '\(map.bookmarks[selection].name ?? "bookmark")'"
                } catch {
                    message = "cannot go there: \(error)"
                }
            default: return nil
            }
        case .search(var state):
            switch key {
            case .escape:
                panel = nil
                return .redraw
            case .up: state.selection = max(state.selection - 1, 0)
            case .down: state.selection = min(state.selection + 1, max(state.suggestions.count - 1, 0))
            case .enter:
                guard !state.text.isEmpty else { return ScreenAction.none }
                go(state, size: size)
                return .redraw
            case .backspace:
                guard !state.text.isEmpty else { return ScreenAction.none }
                state.text.removeLast()
                suggest(&state, size: size)
            case .control("u"):
                state.text = ""
                suggest(&state, size: size)
            case .character(let c):
                state.text.append(c)
                suggest(&state, size: size)
            case .mouse: return nil
            default: return ScreenAction.none
            }
            panel = .search(state)
        case .directions(let state):
            return handleDirections(state, key, size: size)
        case .edit(let state):
            if case .mouse = key { return nil }
            return handleEdit(state, key)
        case .confirmDelete(let popups, let index):
            if case .character("y") = key {
                delete(popups[index])
            } else {
                panel = .popups(popups, index: index, top: 0)
            }
        case .popups(let popups, let index, let top):
            switch key {
            case .escape, .character("i"):
                panel = nil
                mark = nil
            case .character("n"), .character(" "), .enter, .tab:
                panel = .popups(popups, index: (index + 1) % popups.count, top: 0)
            case .character("p"):
                panel = .popups(popups, index: (index + popups.count - 1) % popups.count, top: 0)
            case .character("e"): startEditing(popups[index])
            case .character("x"):
                if editableTable(layerID: popups[index].layerID) == nil {
                    message = "'\(popups[index].layerTitle)' is not editable"
                } else {
                    panel = .confirmDelete(popups, index: index)
                }
            case .up, .character("k"): panel = .popups(popups, index: index, top: max(top - 1, 0))
            case .down, .character("j"): panel = .popups(popups, index: index, top: top + 1)
            default: return nil
            }
        }
        return .redraw
    }
}
