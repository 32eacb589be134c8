import ArgumentParser
import MapbookPortal
import MapbookSupport

struct PortalCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the downloaded packages for updates on the portal.",
        discussion: """
            For each downloaded package, asks the portal for its item: an update is available \
            when the item was modified after the version downloaded (not the file's date, \
            which copying changes). An item that was deleted or is no longer shared with you \
            is reported as unavailable. Exit status: 0 when the check ran (updates or not), \
            1 on errors, 3 when the portal cannot be reached (offline).
            """)

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print one object per package as JSON.")
    var json = false

    func run() async throws {
        let library = LibraryCommand.library()
        let records = try LibraryCommand.attempt { try library.downloads() }
        let statuses = records.isEmpty ? [] : try await PortalSession.run(library, connection) { client in
            try await client.checkForUpdates(records)
        }
        // Kept for the library's views (`mapbook view`, `mapbook serve`): their update badges.
        try? library.keepUpdateCheck(statuses)
        var out = Output()
        out.report(json: json, .array(statuses.map(\.jsonValue)), lines: PackageStatus.checkLines(statuses))
        out.flush()
    }
}
