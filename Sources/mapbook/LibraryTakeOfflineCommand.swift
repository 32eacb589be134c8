import ArgumentParser
import MapbookLibrary
import MapbookPortal
import MapbookSupport

/// `mapbook library take-offline`: a map area made on the portal and put in the library.
struct LibraryTakeOfflineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "take-offline",
        abstract: "Take an area of a portal's web map offline: the portal makes a package for it, which is downloaded into the library.",
        discussion: """
            The portal cuts the web map's package to the area: the features inside it as the \
            feature service has them now, the backdrop's tiles for the area up to --max-scale, \
            and locators made again from what is kept; the street network is kept whole. The \
            package becomes your item on the portal, and edits synchronised from it reach the \
            web map's feature service (`mapbook sync`). The job's steps show on stderr; \
            then the package is downloaded like `mapbook portal download`. Exit status 3 when \
            the portal cannot be reached.
            """)

    @Argument(help: "The web map's item id (or its package's, or its feature service's).")
    var itemId: String

    @Option(help: ArgumentHelp("The area, in degrees.", valueName: "W,S,E,N"))
    var area: String

    @Option(name: .customLong("max-scale"), help: ArgumentHelp("Keep backdrop tiles down to this scale (5000 for 1:5,000); all levels when not given.", valueName: "S"))
    var maxScale: Double?

    @Option(help: "The new item's title (the package's title and \"(area)\" when not given).")
    var title: String?

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print the download record as JSON.")
    var json = false

    func validate() throws {
        guard ItemID.isValid(itemId) else { throw ValidationError("'\(itemId)' is not an item id (letters and digits, as `mapbook portal search` shows)") }
        guard BoundingBox.degrees(area) != nil else { throw ValidationError("--area '\(area)' is not W,S,E,N in degrees (west < east, south < north)") }
        if let maxScale, !(maxScale >= 1) || !maxScale.isFinite { throw ValidationError("--max-scale takes a scale's denominator, such as 5000") }
    }

    func run() async throws {
        let library = LibraryCommand.library()
        let id = itemId, box = BoundingBox.degrees(area)!, maxScale = maxScale, title = title
        let outcome = try await PortalSession.run(library, connection) { client in
            // Each step of the job as the portal reports it, with how far it has come.
            let item = try await client.takeOffline(itemId: id, area: [box.minX, box.minY, box.maxX, box.maxY], maxScale: maxScale, title: title) { $0.lines.forEach(Output.error) }
            return try await PortalDownloadCommand.download(item, client: client, library: library)
        }
        var out = Output()
        out.report(json: json, outcome.jsonValue, lines: outcome.lines("Took offline"))
        out.flush()
    }
}
