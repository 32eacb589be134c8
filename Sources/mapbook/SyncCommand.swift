import ArgumentParser
import MapbookData
import MapbookEditing
import MapbookLibrary
import MapbookPackage
import MapbookPortal
import MapbookSupport

/// `mapbook sync`: a downloaded package's edits to the portal and everyone else's back
/// (issue 19; docs/PORTAL.md "Synchronising edits").
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send this device's edits of downloaded packages to the portal and receive everyone else's.",
        discussion: """
            Sends the pending edits (`mapbook edit edits`) of the named downloaded package, or of \
            every downloaded package with editable layers, as one changeset, and receives every \
            feature changed on the portal since this device last synchronised. Conflicts are \
            resolved per field against the values both sides started from: the same new value \
            is no conflict; different values go to the last to synchronise, or, where the \
            project says `conflicts: manual`, keep the portal's value for a person to choose; \
            an update against a delete loses to the delete. Every conflict is reported, and kept \
            in the working copy (`--conflicts` lists them). A sync cut short (offline, killed) \
            is completed by the next: the same changeset is sent again and applied once. \
            Exit status 3 when the portal cannot be reached.
            """)

    @Argument(help: "A downloaded package: its item id, file name or title (default: every one with editable layers).")
    var package: String?

    @Flag(name: .long, help: "List the conflicts earlier syncs reported for the package, without synchronising.")
    var conflicts = false

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print what happened as JSON.")
    var json = false

    func run() async throws {
        let library = LibraryCommand.library()
        let entries = try LibraryCommand.attempt { try PackageSync.entries(named: package, in: library) }
        if conflicts {
            try listConflicts(entries)
            return
        }
        var outcomes: [PackageSync.Outcome] = []
        if !entries.isEmpty {
            outcomes = try await PortalSession.run(library, connection, requireSignIn: true) { client in
                var outcomes: [PackageSync.Outcome] = []
                for entry in entries {
                    let (_, copy) = try EditCommand.open(entry.path, forSync: true)
                    outcomes.append(try await PackageSync.run(entry, copy: copy, client: client) { Output.error($0) })
                }
                return outcomes
            }
        }
        var out = Output()
        if json {
            out.json(.object(["packages": .array(outcomes.map(\.jsonValue))]))
        } else if outcomes.isEmpty {
            out.line("No downloaded packages with editable layers to synchronise.")
        } else {
            for line in outcomes.flatMap(\.lines) { out.line(line) }
        }
        out.flush()
    }

    func listConflicts(_ entries: [LibraryEntry]) throws {
        let listings = try entries.map { entry in
            let (_, copy) = try EditCommand.open(entry.path)
            return ConflictListing(itemId: entry.itemId ?? "", title: entry.title, found: try LibraryCommand.attempt { try copy.conflicts() })
        }
        var out = Output()
        out.report(json: json, ConflictListing.json(listings), lines: listings.flatMap(\.lines))
        out.flush()
    }
}
