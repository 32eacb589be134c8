import ArgumentParser
import MapbookPortalServer

struct PortalGCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc",
        abstract: "Remove what a portal's stopped processes left behind.",
        discussion: """
            Removes uploads begun and never committed, files and objects no item names (old \
            versions, what a killed process was writing), abandoned S3 multipart uploads, sync \
            copies of removed items and expired tokens, and the entry patches (updates by \
            delta) that lead to versions every device reporting on the item already holds. \
            Every portal process does the rest at start; run it from cron on a portal whose processes run for months. With \
            PostgreSQL and S3 shared by several processes, only what has not moved for \
            --older-than hours goes, since another process may be writing it now.
            """)

    @OptionGroup var storage: PortalStorageOptions

    @Option(name: .customLong("older-than"), help: "With a shared store: leave what was written in the last HOURS hours (default 24).")
    var olderThan: Int64 = 24

    func validate() throws {
        guard olderThan >= 0 else { throw ValidationError("--older-than must be 0 or more hours") }
    }

    func run() async throws {
        var configuration = storage.configuration
        configuration.abandonedUploadSeconds = olderThan * 3600
        try await LibraryCommand.attempt {
            let portal = try await Portal.open(configuration, sweeping: false)
            let removed = try await portal.sweep()
            print("removed \(removed) abandoned upload\(removed == 1 ? "" : "s"), file\(removed == 1 ? "" : "s") or cop\(removed == 1 ? "y" : "ies")")
            print(try await portal.prunePatches().line)
        }
    }
}
