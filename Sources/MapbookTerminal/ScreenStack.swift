import MapbookViewer

/// The screens of one viewer run, the top one shown, and how a key's action moves among them.
/// The bottom is the library, which lists the package opened by path (`mapbook view PKG`) when
/// the library does not hold it, so that Esc never leaves the user with no way back to it.
final class ScreenStack {
    let context: ViewerContext
    /// The package opened by path, for the library to list.
    let opened: [String]
    private(set) var screens: [any TerminalScreen]

    /// The library with `first` on top of it, when given.
    init(context: ViewerContext, first: (any TerminalScreen)?) {
        self.context = context
        opened = Self.packagePath(of: first).map { [$0] } ?? []
        screens = [LibraryScreen(context: context, opened: opened)] + (first.map { [$0] } ?? [])
    }

    /// The screen shown.
    var top: any TerminalScreen { screens[screens.count - 1] }

    /// The path of the package a screen shows, when it shows one.
    static func packagePath(of screen: (any TerminalScreen)?) -> String? {
        switch screen {
        case let map as MapScreen: return map.map.session.package.path
        case let maps as MapsScreen: return maps.session.package.path
        default: return nil
        }
    }

    /// The screen a package opens to from the library: its maps, or its map when it has one
    /// (or `map` is named), under the banner of a package past its date that may still be used.
    static func screen(opening path: String, map name: String? = nil, context: ViewerContext, size: TerminalSize) throws -> any TerminalScreen {
        let session = try MapSession(path: path, library: context.library)
        let banner = try session.package.expirationNotice()
        if session.maps.count == 1 || name != nil {
            return try MapScreen(map: try session.map(named: name), context: context, banner: banner, size: size)
        }
        return MapsScreen(session: session, context: context, banner: banner, current: nil)
    }

    /// Does what a key asked; false when it asked to quit.
    func apply(_ action: ScreenAction) -> Bool {
        switch action {
        case .none, .redraw: break
        case .quit: return false
        case .push(let screen): screens.append(screen)
        case .pop:
            screens.removeLast().close()
            if screens.isEmpty { screens = [LibraryScreen(context: context, opened: opened)] }
        case .replace(let screen):
            screens.removeLast().close()
            screens.append(screen)
        case .home(let then):
            while screens.count > 1 { screens.removeLast().close() }
            if let then { screens.append(then) }
        }
        return true
    }

    /// Closes every screen, the top first.
    func close() {
        for screen in screens.reversed() { screen.close() }
    }
}
