import MapbookViewer

/// The viewer's event loop: draws the top screen, reads keys (a quarter second at most, so
/// background work and resizes show), and moves between screens as keys ask (`ScreenStack`).
public final class ViewerLoop {
    let terminal: any Terminal
    let stack: ScreenStack
    /// The size the last frame was drawn for, which keys are handled at.
    private var size: TerminalSize

    /// The library, with the map of the package at `path` on top when given: its `map` (by
    /// title, name or number from 1), else its first. Throws what stops the package from
    /// opening (`ViewerError`, `PackageExpiredError`) before anything is drawn.
    public convenience init(terminal: any Terminal, context: ViewerContext, package path: String?, map name: String?) throws {
        var first: (any TerminalScreen)?
        if let path {
            let session = try MapSession(path: path, library: context.library)
            let banner = try session.package.expirationNotice()
            first = try MapScreen(map: try session.map(named: name), context: context, banner: banner, size: terminal.size())
        }
        self.init(terminal: terminal, context: context, first: first)
    }

    init(terminal: any Terminal, context: ViewerContext, first: (any TerminalScreen)?) {
        self.terminal = terminal
        stack = ScreenStack(context: context, first: first)
        size = terminal.size()
    }

    /// Runs until a key quits or the terminal goes away; every screen is closed then.
    public func run() {
        draw()
        while step(waiting: 250) {}
        stack.close()
    }

    /// Draws the top screen at the terminal's size now, as one synchronized update
    /// (terminals without it ignore the marks): no half frames.
    func draw() {
        size = terminal.size()
        let screen = stack.top
        if let note = screen.pendingNote(size) { terminal.write(note) }
        terminal.write("\u{1B}[?2026h" + screen.frame(size) + "\u{1B}[?2026l")
    }

    /// One turn: the keys typed (waiting up to `milliseconds` for the first) handed to the top
    /// screen, then a frame when a key, a resize or background work changed what it shows.
    /// False when a key quit or the terminal went away.
    func step(waiting milliseconds: Int32) -> Bool {
        let keys = TerminalKey.decode(terminal.read(waiting: milliseconds))
        if terminal.isClosed { return false }
        var redraw = terminal.takeResize()
        if stack.top.poll() { redraw = true }
        for key in keys {
            let action = stack.top.handle(key, size: size)
            if case .none = action { continue }
            guard stack.apply(action) else { return false }
            redraw = true
        }
        if redraw { draw() }
        return true
    }
}
