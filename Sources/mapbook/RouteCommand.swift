import ArgumentParser
import MapbookPackage
import MapbookData
import MapbookLibrary
import MapbookRender
import MapbookRouting
import MapbookSupport
import MapbookViewer

/// `mapbook route`: directions over the package's street network, offline.
struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Offline directions between places over the package's street network.",
        discussion: """
            A place is LON,LAT or text, which the package's locator finds (its first hit). Each \
            place is snapped to the nearest point of the nearest street, so a route starts and \
            ends part-way along streets, and one-way streets are driven only their way. The \
            network is read in place: nothing is extracted. --json follows the ArcGIS REST \
            'solve' response (lengths in metres, times in minutes); -o draws the route over \
            the package's map (its first, or --map). Exit status: 0 with a \
            route; 1 when a place is not found, is too far from every street, no way leads \
            there, or two places in a row are the same.
            """)

    enum Metric: String, ExpressibleByArgument, CaseIterable {
        case time, distance
        var value: StreetNetwork.Metric { self == .time ? .time : .distance }
    }

    @Argument(help: "The package (.mmpk).")
    var path: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Where the route starts: LON,LAT or text to search.", valueName: "PLACE"))
    var from: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Where it ends.", valueName: "PLACE"))
    var to: String

    @Option(name: .long, parsing: .unconditionalSingleValue, help: ArgumentHelp("A stop on the way (repeat for more, in order).", valueName: "PLACE"))
    var via: [String] = []

    @Option(name: .long, help: "What to minimise: time (default) or distance.")
    var by: Metric = .time

    @Option(name: .long, help: "The network to use, when the package has several.")
    var network: String?

    @Option(name: .long, help: "Metres a place may lie from the nearest street (1-5000).")
    var maxDistance: Double = 500

    @Flag(name: .long, help: "Print the route and directions as JSON (ArcGIS REST 'solve').")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Also write the route as GPX 1.1 (a track and the directions as route points).", valueName: "FILE"))
    var gpx: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Also draw the route over the map: .png, .svg or .pdf.", valueName: "FILE"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("The map to draw the route on, by title, name or number from 1 (default: the first).", valueName: "MAP"))
    var map: String?

    @Option(name: .long, help: ArgumentHelp("The picture's size in pixels.", valueName: "WxH"))
    var size = ViewOptions.defaultSize

    func validate() throws {
        guard (1...5000).contains(maxDistance) else { throw ValidationError("--max-distance must be between 1 and 5000 metres") }
        if let output, PictureFormat(path: output) == nil { throw ValidationError("-o must name a \(PictureFormat.extensions) file") }
    }

    func run() throws {
        let solved = try LibraryCommand.attempt {
            let package = try LibraryCommand.library().verifiedFiles.open(path)
            try PackageAccess.check(package)
            return try SolvedRoute([from] + via + [to], package: package, library: LibraryCommand.library(), network: network, by: by.value, snapDistance: maxDistance)
        }
        if let gpx { try LibraryCommand.attempt { try AtomicFile.write(RouteOutput.gpx(solved.route, solved.directions, labels: solved.labels), to: gpx) } }
        if let output { try draw(solved.route, geometry: solved.path, to: output) }
        var out = Output()
        out.report(json: json, solved.solveResponse, lines: solved.lines)
        out.flush()
    }
}

extension RouteCommand {
    /// The map with the route over it, sized to show the whole route.
    func draw(_ route: Route, geometry: [StreetNetwork.Node], to output: String) throws {
        let sizing = try ViewerCommand.attempt { try ViewRequest.parse(bookmark: nil, bbox: nil, center: nil, scale: nil, size: size, dpi: 96) }
        let overlay = RouteOverlay(path: geometry.map { Position(x: $0.lon, y: $0.lat) }, stops: route.places.map { Position(x: $0.lon, y: $0.lat) })
        let said = try ViewerCommand.attempt {
            try overlay.write(on: try MapSession(path: path, library: LibraryCommand.library()).map(named: map), width: sizing.width, height: sizing.height, to: output)
        }
        for line in said { Output.error(line) }
    }
}
