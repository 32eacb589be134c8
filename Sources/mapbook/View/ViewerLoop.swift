/// The viewer's event loop: draws the top screen, reads keys (a quarter second at most, so
/// background work and resizes show), and moves between screens as keys ask. The bottom of
/// the stack is the library.
final class ViewerLoop {
    let terminal: TerminalSession
    let context: ViewerContext
    var stack: [any TerminalScreen]

    init(terminal: TerminalSession, context: ViewerContext, first: (any TerminalScreen)?) {
        self.terminal = terminal
        self.context = context
        stack = [LibraryScreen(context: context)] + (first.map { [$0] } ?? [])
    }

    func run() {
        var size = terminal.size()
        func draw() {
            size = terminal.size()
            let screen = stack[stack.count - 1]
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
            if stack[stack.count - 1].poll() { redraw = true }
            for key in keys {
                switch stack[stack.count - 1].handle(key, size: size) {
                case .none: continue
                case .redraw: break
                case .quit: break events
                case .push(let screen): stack.append(screen)
                case .pop:
                    stack.removeLast().close()
                    if stack.isEmpty { stack = [LibraryScreen(context: context)] }
                case .replace(let screen):
                    stack.removeLast().close()
                    stack.append(screen)
                case .home(let then):
                    while stack.count > 1 { stack.removeLast().close() }
                    if let then { stack.append(then) }
                }
                redraw = true
            }
            if redraw { draw() }
        }
        for screen in stack.reversed() { screen.close() }
    }
}
