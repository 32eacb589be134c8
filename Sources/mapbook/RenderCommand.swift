import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport
import MapbookViewer

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a map view as a PNG, SVG or PDF: the vector tile backdrop with its style, then the map's layers.",
        discussion: """
            PATH is a mobile map package, or a vector tile package (a .vtpk file or the folder \
            it was unpacked into) drawn alone with its own style. The backdrop is drawn from \
            the package's vector tiles with their own MapLibre style \
            (fills, lines, circles, labels with halos, sprite icons), then the operational layers \
            shown on this device (see `mapbook toc`) that draw at the view's scale, with their \
            renderers and filters, then a scale bar and the package's credits. The view is a \
            bookmark, a box or a centre and a scale (default: the map's initial view). What \
            cannot be drawn is drawn around and reported once per kind on stderr; the picture \
            is still written. SVG and PDF keep paths and text as vectors (a PDF page is the \
            size in pixels at --dpi).
            """)

    @OptionGroup var options: MapOptions
    @OptionGroup(title: "View") var view: ViewOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("The picture to write: .png, .svg or .pdf.", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Print the picture on the terminal, sized to it (with libchafa).")
    var terminal = false

    @Option(name: .long, help: ArgumentHelp("How to print on the terminal: \(TerminalPicture.Mode.allCases.map(\.rawValue).joined(separator: ", ")) (default: what the terminal says it shows; none with NO_COLOR).", valueName: "MODE"))
    var terminalMode: String?

    @Flag(name: .long, help: "Add the legend of the layers drawn beside the map.")
    var legend = false

    func validate() throws {
        guard output != nil || terminal else { throw ValidationError("give -o FILE.png (or .svg, .pdf), --terminal, or both") }
        if let output, PictureFormat(path: output) == nil { throw ValidationError("-o must name a \(PictureFormat.extensions) file") }
        if let terminalMode, TerminalPicture.Mode(rawValue: terminalMode) == nil {
            throw ValidationError("--terminal-mode must be one of \(TerminalPicture.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() throws {
        if options.path.lowercased().hasSuffix(".vtpk") || FileSystem.kind(options.path) == .directory { return try renderTilePackage() }
        let map = try options.open()
        var mapView = try view.view(of: map)
        // On the terminal without -o, the picture is as large as the terminal (less a line for
        // the prompt), unless --size says otherwise.
        let cells = TerminalPicture.terminalSize() ?? (columns: 80, rows: 25, width: 0, height: 0)
        if terminal && output == nil && view.size == ViewOptions.defaultSize { mapView = try ViewerCommand.attempt { try mapView.fitted(to: cells) } }
        let rendered = try ViewerCommand.attempt { try map.render(mapView, format: format) }
        for warning in rendered.warnings { Output.error("warning: \(warning)") }
        for finding in rendered.findings { Output.error("error: \(finding)") }
        try ViewerCommand.attempt {
            var picture = rendered.canvas
            if legend { picture = try LegendDrawing.beside(picture, view: mapView, map: map, format: format) }
            if let output { Output.error(try picture.write(to: output, dpi: mapView.dpi, scale: mapView.scale)) }
            if terminal {
                Output.write(TerminalPicture.text(of: picture, columns: cells.columns, rows: max(cells.rows - 1, 1), mode: chosenTerminalMode()) + "\n", to: STDOUT_FILENO)
            }
        }
        // A damaged package is drawn as far as it can be, and said to be damaged.
        if !rendered.findings.isEmpty { throw ExitCode.failure }
    }

    /// A standalone vector tile package (a `.vtpk` file or the folder it was unpacked into):
    /// its tiles with its own style, nothing else.
    func renderTilePackage() throws {
        let picture = try ViewerCommand.attempt { try TilePackagePicture(path: options.path, request: try view.request(), format: format) }
        for problem in picture.warnings { Output.error("warning: \(problem)") }
        for damage in picture.damage { Output.error("error: \(damage)") }
        if let output { Output.error(try ViewerCommand.attempt { try picture.canvas.write(to: output, dpi: picture.view.dpi, scale: picture.view.scale) }) }
        if terminal {
            let cells = TerminalPicture.terminalSize() ?? (columns: 80, rows: 25, width: 0, height: 0)
            Output.write(TerminalPicture.text(of: picture.canvas, columns: cells.columns, rows: max(cells.rows - 1, 1), mode: chosenTerminalMode()) + "\n", to: STDOUT_FILENO)
        }
        if !picture.damage.isEmpty { throw ExitCode.failure }
    }

    /// What `-o` names; PNG when only printing on the terminal.
    var format: PictureFormat { output.flatMap(PictureFormat.init(path:)) ?? .png }

    /// `--terminal-mode`, else what the terminal's environment says it shows.
    func chosenTerminalMode() -> TerminalPicture.Mode {
        TerminalPicture.mode(choosing: terminalMode)
    }
}
