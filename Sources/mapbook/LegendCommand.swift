import ArgumentParser
import MapbookPackage
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
        let layers = map.layers.reversed().filter { map.isShown($0) && !$0.legend.isEmpty }
        var out = Output()
        if json {
            let items: [JSONValue] = layers.map { layer in
                .object(["id": .string(layer.id), "title": .string(layer.title), "legend": Self.json(layer.legend)])
            }
            out.line(JSONWriter.string(.object(["map": .string(map.name), "layers": .array(items)])).trimmingTrailingNewline())
        } else {
            out.line(map.name)
            for layer in layers {
                out.line("  " + layer.title)
                ViewerCommand.legendLines(layer.legend, indent: "    ", into: &out)
            }
            if layers.isEmpty { out.line("  (no visible layer has a legend)") }
        }
        out.flush()
        if let png {
            try ViewerCommand.attempt { try LegendDrawing.draw(Array(layers), dpi: dpi, format: PictureFormat(path: png) ?? .png).write(to: png, dpi: dpi) }
        }
    }

    static func json(_ sections: [LegendSection]) -> JSONValue {
        .array(sections.map { section in
            var o = JSONObject()
            if let heading = section.heading { o["field"] = .string(heading) }
            o["entries"] = .array(section.entries.map { .object(["label": .string($0.label), "symbol": $0.symbol.jsonValue]) })
            return .object(o)
        })
    }
}
