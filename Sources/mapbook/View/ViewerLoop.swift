/// The viewer's event loop: draws the top screen, reads keys (a quarter second at most, so
/// background work and resizes show), and moves between screens as keys ask (`ScreenStack`).
final class ViewerLoop {
    let terminal: TerminalSession
    let stack: ScreenStack

    init(terminal: TerminalSession, context: ViewerContext, first: (any TerminalScreen)?) {
        self.terminal = terminal
        stack = ScreenStack(context: context, first: first)
    }

    func run() {
        var size = terminal.size()
        func draw() {
            size = terminal.size()
            let screen = stack.top
            if let note = screen.pendingNote(size) { terminal.write(note) }
            // One synchronized update (terminals without it ignore the marks): no half frames.
            terminal.write("\u{1B}[?2026h" + screen.frame(size) + "\u{1B}[?2026l")
        }
        draw()
        events: while true {
            let keys = TerminalKey.decode(terminal.read(waiting: 250))
            if terminal.isClosed { break events }
            var redraw = terminalResized != 0
            terminalResized = 0
            if stack.top.poll() { redraw = true }
            for key in keys {
                let action = stack.top.handle(key, size: size)
                if case .none = action { continue }
                guard stack.apply(action) else { break events }
                redraw = true
            }
            if redraw { draw() }
        }
        stack.close()
    }
}
