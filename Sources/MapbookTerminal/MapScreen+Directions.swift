import MapbookData
import MapbookRouting
import MapbookSearch
import MapbookSupport
import MapbookViewer

/// Directions in the viewer (`d`): the start and the destination typed as in search (Enter
/// on nothing takes the map's centre), then the route drawn over the map and its directions
/// listed in the panel.
struct DirectionsState {
    /// What is being typed: the start, then the destination.
    var search = MapPanel.SearchState()
    var from: (label: String, place: Position)?
    /// The route found: a summary and one line per instruction.
    var result: (summary: String, lines: [String])?
    var top = 0
}

extension MapScreen {
    func startDirections() {
        mark = nil
        route = nil
        routeChanges += 1
        var state = DirectionsState()
        if case .failure(let error) = network { state.search.note = "The street network cannot be read: \(error)" }
        if case .success(nil) = network { state.search.note = "This package has no street network." }
        panel = .directions(state)
    }

    /// A key while the directions panel is open.
    func handleDirections(_ state: DirectionsState, _ key: TerminalKey, size: TerminalSize) -> ScreenAction? {
        var state = state
        if state.result != nil {
            switch key {
            case .escape, .character("d"): panel = nil
            case .up, .character("k"): state.top = max(state.top - 1, 0)
            case .down, .character("j"): state.top += 1
            case .pageDown: state.top += max(size.rows - 4, 1)
            case .pageUp: state.top = max(state.top - max(size.rows - 4, 1), 0)
            default: return nil
            }
            if panel != nil { panel = .directions(state) }
            return .redraw
        }
        switch key {
        case .escape:
            panel = nil
            return .redraw
        case .up: state.search.selection = max(state.search.selection - 1, 0)
        case .down: state.search.selection = min(state.search.selection + 1, max(state.search.suggestions.count - 1, 0))
        case .backspace:
            guard !state.search.text.isEmpty else { return ScreenAction.none }
            state.search.text.removeLast()
            suggest(&state.search, size: size)
        case .control("u"):
            state.search.text = ""
            suggest(&state.search, size: size)
        case .character(let c):
            state.search.text.append(c)
            suggest(&state.search, size: size)
        case .enter:
            guard case .success(let network?) = network else { return ScreenAction.none }
            guard let place = place(for: state.search) else {
                state.search.note = "nothing found for '\(state.search.text)'"
                break
            }
            if let from = state.from {
                state = directions(from: from, to: place, network: network, size: size, state: state)
            } else {
                state.from = place
                state.search = MapPanel.SearchState()
            }
        case .mouse: return nil
        default: return ScreenAction.none
        }
        panel = .directions(state)
        return .redraw
    }

    /// The typed place: `LON,LAT` as `mapbook route` takes it, the chosen suggestion's first
    /// feature, the text's best match, or the map's centre when nothing is typed.
    func place(for search: MapPanel.SearchState) -> (label: String, place: Position)? {
        if search.text.trimming(" ").isEmpty {
            return (try? map.toLongitudeLatitude(center)).map { ("the map's centre", $0) }
        }
        if let lonLat = LonLat(argument: search.text.trimming(" ")) {
            return (search.text.trimming(" "), Position(x: lonLat.longitude, y: lonLat.latitude))
        }
        guard case .success(let found?) = locator else { return nil }
        let candidates: [GeocodeCandidate]?
        if search.suggestions.indices.contains(search.selection) {
            candidates = try? found.geocode(suggestion: search.suggestions[search.selection], near: nearCenter, max: 1)
        } else {
            candidates = try? found.geocode(search.text, near: nearCenter, max: 1)
        }
        guard let best = candidates?.first, let lon = best.longitude, let lat = best.latitude else { return nil }
        return (best.label, Position(x: lon, y: lat))
    }

    /// Routes from one place to the other, by time; on success the route is drawn and the
    /// view fitted to it.
    func directions(from: (label: String, place: Position), to: (label: String, place: Position), network: RoutingNetwork, size: TerminalSize, state: DirectionsState) -> DirectionsState {
        var state = state
        do {
            let places = [from.place, to.place].map { StreetNetwork.Node(lon: $0.x, lat: $0.y) }
            let found = try Router(network: network).route(places, by: network.metrics.first ?? .time)
            let steps = try Directions.make(found, network: network)
            let path = Directions.path(steps).map { Position(x: $0.lon, y: $0.lat) }
            let overlay = RouteOverlay(path: path, stops: [from.place, to.place])
            route = overlay
            routeChanges += 1
            let layout = Self.layout(size, banner: banner != nil, panel: true)
            let view = try overlay.view(on: map, width: layout.width, height: layout.height)
            center = view.center
            scale = view.scale
            state.result = (
                "\(from.label) to \(to.label): \(RouteOutput.length(found.metres)), \(RouteOutput.duration(found.seconds))",
                steps.enumerated().map { i, d in
                    "\(i + 1). \(d.text)" + (d.maneuver == .stop ? "" : " (\(RouteOutput.length(d.metres)))")
                })
        } catch {
            state.search = MapPanel.SearchState(note: "\(error)")
        }
        return state
    }
}
