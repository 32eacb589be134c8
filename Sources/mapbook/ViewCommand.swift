import ArgumentParser
import MapbookRender
import MapbookViewer

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "The interactive mapbook in a terminal: the map filling the screen, panned and zoomed with keys and the mouse.",
        discussion: """
            A full-screen program: the map drawn through libchafa (kitty, iTerm or sixel \
            images where the terminal shows them, else Unicode symbols in colour; NO_COLOR \
            respected), redrawn when the terminal is resized, with a status line: the map, the \
            scale, the centre. Keys: arrows or hjkl pan, + and - zoom (the mouse wheel too, \
            and dragging pans), q or Ctrl-C quits. The terminal is given back on every way out.
            """)

    @OptionGroup var options: MapOptions

    @Option(name: .long, help: ArgumentHelp("How to draw on the terminal: \(TerminalPicture.Mode.allCases.map(\.rawValue).joined(separator: ", ")) (default: what the terminal says it shows).", valueName: "MODE"))
    var terminalMode: String?

    func validate() throws {
        if let terminalMode, TerminalPicture.Mode(rawValue: terminalMode) == nil {
            throw ValidationError("--terminal-mode must be one of \(TerminalPicture.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        let terminal = try ViewerCommand.attempt { try TerminalSession() }
        let map = try options.open()
        let mode = ViewerCommand.terminalMode(terminalMode)
        let screen = try ViewerCommand.attempt { try MapScreen(map: map, size: terminal.size()) }
        terminal.enter()
        defer { terminal.leave() }
        var size = terminal.size()
        func draw() {
            size = terminal.size()
            terminal.write(screen.statusLine(size, note: "drawing…"))
            terminal.write(screen.frame(size, mode: mode))
        }
        draw()
        // Where a drag started, to pan by how far the mouse has moved.
        var dragFrom: (column: Int, row: Int)?
        events: while true {
            let keys = TerminalKey.decode(terminal.read(waiting: 250))
            if terminal.isClosed { break events }
            var redraw = terminalResized != 0
            terminalResized = 0
            // A message on the status line lasts until the next key.
            if !keys.isEmpty { screen.message = nil }
            for key in keys {
                switch key {
                case .character("q"), .control("c"), .control("d"): break events
                case .left, .character("h"): screen.pan(-0.25, 0, size: size)
                case .right, .character("l"): screen.pan(0.25, 0, size: size)
                case .up, .character("k"): screen.pan(0, 0.25, size: size)
                case .down, .character("j"): screen.pan(0, -0.25, size: size)
                case .character("+"), .character("="): screen.zoom(2)
                case .character("-"), .character("_"): screen.zoom(0.5)
                case .mouse(let button, let column, let row, let motion, let released):
                    switch button {
                    case 64: screen.zoom(2)
                    case 65: screen.zoom(0.5)
                    case 0 where released:
                        if let from = dragFrom { screen.drag(columns: column - from.column, rows: row - from.row, size: size) }
                        dragFrom = nil
                    case 0 where motion:
                        if let from = dragFrom { screen.drag(columns: column - from.column, rows: row - from.row, size: size) }
                        dragFrom = (column, row)
                    case 0: dragFrom = (column, row)
                    default: continue
                    }
                default: continue
                }
                redraw = true
            }
            if redraw { draw() }
        }
    }
}
