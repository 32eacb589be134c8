import ArgumentParser
import MapbookData
import MapbookSearch
import MapbookSupport
import MapbookViewer

struct IdentifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "The features under a point, each with its pop-up.",
        discussion: """
            Searches the visible layers that draw at the view's scale (all feature layers with \
            --all-layers), top layer first: points and lines within --tolerance pixels of the \
            point at that scale, polygons that contain it (not a point in a hole). Each result \
            is the layer's pop-up: its title, its visible fields in order with their labels, \
            numbers and dates formatted as it asks, coded values by name. --search opens the \
            pop-up of the first feature the package's locator finds instead. Exit status: 0 \
            with results, 1 with none or on an error, 64 on a usage error.
            """)

    @OptionGroup var options: MapOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The point, in WGS84 longitude and latitude.", valueName: "LON,LAT"))
    var at: String?

    @Option(name: .long, help: ArgumentHelp("Open the pop-up of the first feature the locator finds for this text.", valueName: "TEXT"))
    var search: String?

    @OptionGroup(title: "View (the scale identify works at)") var view: ViewOptions

    @Option(name: .long, help: ArgumentHelp("How near a point or line must be, in pixels at the view's scale.", valueName: "PX"))
    var tolerance: Double = 5

    @Option(name: .long, help: "The most features to list.")
    var max = 50

    @Flag(name: .long, help: "Search every feature layer, hidden and out-of-scale ones too.")
    var allLayers = false

    @Flag(name: .long, help: "Print the pop-ups as JSON.")
    var json = false

    func validate() throws {
        guard at == nil || search == nil else { throw ValidationError("--at and --search exclude each other: identify what is at a place, or what a search finds, not both") }
        guard at != nil || search != nil else { throw ValidationError("give --at LON,LAT or --search TEXT") }
        guard tolerance.isFinite, tolerance >= 0, tolerance <= 1000 else { throw ValidationError("--tolerance must be 0 to 1000 pixels") }
        guard (1...10_000).contains(max) else { throw ValidationError("--max must be 1 to 10000") }
    }

    func run() throws {
        let map = try options.open()
        let results: [IdentifyResult]
        var skipped: [(layer: String, reason: String)] = []
        if let search {
            results = try ViewerCommand.attempt { try map.popup(searching: search, library: LibraryCommand.library()).map { [$0] } ?? [] }
        } else {
            guard let lonLat = at.flatMap(LonLat.init(argument:)) else {
                Output.error("error: --at '\(at ?? "")' is not LON,LAT")
                throw ExitCode(64)
            }
            let mapView = try view.view(of: map)
            let point = try ViewerCommand.attempt { try map.fromLongitudeLatitude(Position(x: lonLat.longitude, y: lonLat.latitude)) }
            let report = map.identify(at: point, view: mapView, tolerance: tolerance, limit: max, allLayers: allLayers)
            results = report.results
            skipped = report.skipped
        }
        for s in skipped { Output.error("warning: layer '\(s.layer)' not searched: \(s.reason)") }
        var out = Output()
        out.report(json: json, .array(results.map { ViewerReport.identify($0) }), lines: results.enumerated().flatMap { ViewerReport.popupLines($1.popup, number: $0 + 1) })
        if results.isEmpty && !json { Output.error("nothing found" + (search.map { " for '\($0)'" } ?? " there")) }
        out.flush()
        if results.isEmpty { throw ExitCode.failure }
    }

}
