import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookPortalAPI
import MapbookSupport
import MapbookTerminal

struct PortalDownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download",
        abstract: "Download a package from the portal into the device library.",
        discussion: """
            Streams the item's file to the library (downloads/<id>.partial), resuming an \
            interrupted download with a Range request, checks its size and SHA-256 (the \
            portal's ETag), then stores it with its record, replacing an earlier download of \
            the item in one step. A progress bar shows on a terminal. A damaged download is \
            deleted, so the next run starts over. Exit status 3 when the portal cannot be reached.
            """)

    @Argument(help: "The item's id (from `mapbook portal search`).")
    var itemId: String

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print the download record as JSON.")
    var json = false

    func validate() throws {
        guard ItemID.isValid(itemId) else { throw ValidationError("'\(itemId)' is not an item id (letters and digits, as `mapbook portal search` shows)") }
    }

    func run() async throws {
        let library = LibraryCommand.library()
        let id = itemId
        let outcome = try await PortalSession.run(library, connection) { client in
            let item = try await client.item(id)
            return try await Self.download(item, client: client, library: library)
        }
        var out = Output()
        out.report(json: json, outcome.jsonValue, lines: outcome.lines())
        out.flush()
    }

    static func download(_ item: PortalItem, client: PortalClient, library: DeviceLibrary) async throws -> PackageDownloader.Outcome {
        try await TransferProgress.download(item, client: client, library: library)
    }
}
