import ArgumentParser
import MapbookRender
import MapbookViewer

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
        let terminal = try ViewerCommand.attempt { try TerminalSession() }
        let library = LibraryCommand.library()
        let kept = try? library.portalCertificate()
        let context = ViewerContext(library: library, mode: ViewerCommand.terminalMode(terminalMode), trust: connection.trust(kept: kept ?? nil))
        // A package named on the command line opens at once, to its map (the first unless
        // --map names another); what stops it is said before the screen is taken over.
        var first: (any TerminalScreen)?
        if let path {
            first = try ViewerCommand.attempt {
                let session = try MapSession(path: path, library: library)
                let banner = try PackageAccess.banner(session.package)
                return try MapScreen(map: try session.map(named: map), context: context, banner: banner, size: terminal.size())
            }
        }
        terminal.enter()
        defer { terminal.leave() }
        ViewerLoop(terminal: terminal, context: context, first: first).run()
    }
}
