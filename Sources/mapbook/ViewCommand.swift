import ArgumentParser
import MapbookRender
import MapbookTerminal

struct ViewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "The interactive mapbook in a terminal: the library, a package's maps, and the map with its layers, legend, bookmarks, search and pop-ups.",
        discussion: """
            A full-screen program. Without a package it opens the device library: sideloaded \
            packages in device mode; in portal mode the downloaded ones with update badges (the \
            portal is asked in the background, never holding up the screen offline) and the \
            portal's packages to download. The map is drawn through libchafa (kitty, iTerm or \
            sixel images where the terminal shows them, else Unicode symbols in colour; NO_COLOR \
            respected) and redrawn when the terminal is resized. Keys: arrows pan, + and - zoom \
            (the mouse wheel too, dragging pans, a click identifies), t layers, l legend, b \
            bookmarks, / search, i identify, m maps, Esc the library, ? every key, q quits. \
            The terminal is given back on every way out.
            """)

    @Argument(help: "The package (.mmpk); without one, the device library.")
    var path: String?

    @Option(name: .long, help: ArgumentHelp("The map, by title, name or number from 1 (default: the first).", valueName: "MAP"))
    var map: String?

    @Option(name: .long, help: ArgumentHelp("How to draw on the terminal: \(TerminalPicture.Mode.allCases.map(\.rawValue).joined(separator: ", ")) (default: what the terminal says it shows).", valueName: "MODE"))
    var terminalMode: String?

    @OptionGroup var connection: PortalConnectionOptions

    func validate() throws {
        if let terminalMode, TerminalPicture.Mode(rawValue: terminalMode) == nil {
            throw ValidationError("--terminal-mode must be one of \(TerminalPicture.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if map != nil && path == nil { throw ValidationError("--map needs a package") }
    }

    func run() throws {
        let terminal = try ViewerCommand.attempt {
            do { return try TerminalSession() } catch { throw ViewerCommand.usage("\(error)") }
        }
        let library = LibraryCommand.library()
        let kept = try? library.portalCertificate()
        let context = ViewerContext(library: library, mode: TerminalPicture.mode(choosing: terminalMode), trust: connection.trust(kept: kept ?? nil))
        // A package named on the command line opens at once, to its map (the first unless
        // --map names another); what stops it is said before the screen is taken over.
        let loop = try ViewerCommand.attempt { try ViewerLoop(terminal: terminal, context: context, package: path, map: map) }
        terminal.enter()
        defer { terminal.leave() }
        loop.run()
    }
}
