import ArgumentParser
import MapbookRender
import MapbookSupport
import MapbookViewer

struct LegendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "legend",
        abstract: "A map's legend: each visible operational layer's symbols and their labels.",
        discussion: """
            Top layer first, the layers shown on this device (see `mapbook toc`), each with its \
            renderer's classes (unique values then the default; class breaks with their label \
            or range) and its visual variables' stops. Layers with `showLegend: false` and \
            layers without a renderer are left out.
            """)

    @OptionGroup var options: MapOptions

    @Flag(name: .long, help: "Print the legend as JSON.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Also draw the legend with real swatches as a picture: .png, .svg or .pdf.", valueName: "FILE"))
    var png: String?

    @Option(name: .long, help: "Dots per inch of the picture.")
    var dpi: Double = 96

    func validate() throws {
        if let png, PictureFormat(path: png) == nil { throw ValidationError("--png must name a \(PictureFormat.extensions) file") }
        guard dpi.isFinite, dpi > 0, dpi <= 600 else { throw ValidationError("--dpi must be 1 to 600") }
    }

    func run() throws {
        let map = try options.open()
        var out = Output()
        out.report(json: json, ViewerReport.legends(map), lines: ViewerReport.legendLines(map))
        out.flush()
        if let png {
            try ViewerCommand.attempt { try LegendDrawing.draw(map.legendLayers, dpi: dpi, format: PictureFormat(path: png) ?? .png).write(to: png, dpi: dpi) }
        }
    }
}
