import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookSupport

struct PortalUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Download the new version of downloaded packages that have an update.",
        discussion: """
            Checks the named package (or, with --all, every downloaded one) as `mapbook portal \
            check` does and downloads again where the portal item is newer: resumable and \
            verified like `download`, and the old version is replaced in one step only once \
            the new one is complete. Exit status 3 when the portal cannot be reached.
            """)

    @Argument(help: "The item id of a downloaded package.")
    var itemId: String?

    @Flag(name: .long, help: "Update every downloaded package that has an update.")
    var all = false

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print what was updated as JSON.")
    var json = false

    func validate() throws {
        guard (itemId != nil) != all else { throw ValidationError("give an item id or --all") }
        if let itemId, !ItemID.isValid(itemId) { throw ValidationError("'\(itemId)' is not an item id") }
    }

    func run() async throws {
        let library = LibraryCommand.library()
        var records = try LibraryCommand.attempt { try library.downloads() }
        if let itemId {
            records = records.filter { $0.itemId == itemId }
            guard !records.isEmpty else {
                Output.error("error: item \(itemId) is not among the downloaded packages (`mapbook library list` shows them); download it with `mapbook portal download \(itemId)`")
                throw ExitCode.failure
            }
        }
        let selected = records
        let report = selected.isEmpty ? UpdateReport() : try await PortalSession.run(library, connection) { client in
            try await client.update(selected) { try await PortalDownloadCommand.download($0, client: client, library: library) }
        }
        var out = Output()
        out.report(json: json, report.jsonValue, lines: report.lines)
        out.flush()
    }
}
