import ArgumentParser
import MapbookPortal

/// `mapbook portal conflicts ITEM`: what the item's syncs and republishes met, for its owner.
struct PortalConflictsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts", abstract: "List the conflicts an editable item's syncs and new versions met, newest first (its owner or an admin).")

    @Argument(help: "The item's id.") var item: String
    @Flag(name: .long, help: "Print them as JSON.") var json = false
    @OptionGroup var connection: PortalConnectionOptions

    func run() async throws {
        let found = try await PortalSession.run(LibraryCommand.library(), connection, requireSignIn: true) { try await $0.conflicts(of: item) }
        var out = Output()
        out.report(json: json, found.json, lines: found.lines)
        out.flush()
    }
}
