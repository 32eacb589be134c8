import ArgumentParser
import MapbookSupport
import MapbookViewer

struct TocCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "toc",
        abstract: "A map's table of contents: its layers, what they show, and which are on.",
        discussion: """
            Layers are listed top first, as a map's table of contents shows them, each with a \
            checkbox and its legend entries, then the base map's layers. --show and --hide \
            turn layers on and off (by id or title) and keep the choice on this device, in the \
            device library, for this package and map: it survives an update of the package \
            while the layer is still in it. --reset returns every layer to the map's own \
            visibility. With --scale, layers that do not draw at that scale are marked.
            """)

    @OptionGroup var options: MapOptions

    @Option(name: .long, help: ArgumentHelp("Turn a layer on (by id or title), kept on this device.", valueName: "LAYER"))
    var show: [String] = []

    @Option(name: .long, help: ArgumentHelp("Turn a layer off (by id or title), kept on this device.", valueName: "LAYER"))
    var hide: [String] = []

    @Flag(name: .long, help: "Forget the layers turned on and off on this device for this map.")
    var reset = false

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Mark the layers that do not draw at this scale (24000 for 1:24,000).", valueName: "S"), transform: ViewOptions.parseScale)
    var scale: Double?

    @Flag(name: .long, help: "Print the table of contents as JSON.")
    var json = false

    func validate() throws {
        if let scale, !(scale.isFinite && scale > 0) { throw ValidationError("--scale must be a positive number, such as 24000 for 1:24,000") }
    }

    func run() throws {
        let map = try options.open()
        try ViewerCommand.attempt {
            if reset { try map.resetVisibility() }
            let changes = show.map { ($0, Optional(true)) } + hide.map { ($0, Optional(false)) }
            if !changes.isEmpty { _ = try map.setVisibility(changes.map { (layer: $0.0, visible: $0.1) }) }
        }
        var out = Output()
        if json {
            var o: JSONObject = ["package": .string(map.session.package.path), "map": .string(map.name)]
            if let scale { o["scale"] = .double(scale) }
            o["layers"] = .array(map.layers.reversed().map { ViewerReport.layer($0, scale: scale) })
            o["baseMapLayers"] = .array(map.baseMapLayers.reversed().map { ViewerReport.layer($0, scale: scale) })
            out.json(.object(o))
        } else {
            out.line("\(map.name)" + (scale.map { " at 1:\(Format.scale($0))" } ?? ""))
            for line in map.layers.reversed().flatMap({ ViewerReport.tocLines($0, scale: scale) }) { out.line(line) }
            if !map.baseMapLayers.isEmpty {
                out.line("Base map" + (map.mobileMap.map.baseMap?.title.map { ": \($0)" } ?? ""))
                for line in map.baseMapLayers.reversed().flatMap({ ViewerReport.tocLines($0, scale: scale) }) { out.line(line) }
            }
        }
        out.flush()
    }
}
