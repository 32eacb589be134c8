import ArgumentParser
import MapbookPortal
import MapbookSupport

struct PortalSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search the portal for packages (Mobile Map Packages unless --type says otherwise).",
        discussion: """
            TEXT is a search query as the portal reads it (words, "phrases", field:value, \
            AND/OR/NOT). It is combined with type:"Mobile Map Package" and, with --owner, \
            owner:NAME. Uses the library's portal and sign-in (anonymous when nobody is signed \
            in: public items only). Exit status 3 when the portal cannot be reached.
            """)

    @Argument(help: "What to look for; all packages when left out.")
    var text: String?

    @Option(name: .long, help: "Only items of this owner.")
    var owner: String?

    @Option(name: .long, help: ArgumentHelp("Sort by a field (title, modified, created, size, owner, ...), ascending unless ',desc' follows.", valueName: "FIELD[,asc|desc]"))
    var sort: String?

    @Option(name: .long, help: "The most items to list.")
    var max = 100

    @Option(name: .long, help: "The item type; 'any' for every type.")
    var type = "Mobile Map Package"

    @OptionGroup var connection: PortalConnectionOptions

    @Flag(name: .long, help: "Print the items as JSON.")
    var json = false

    func validate() throws {
        guard max >= 1 else { throw ValidationError("--max must be at least 1") }
        if let sort {
            let parts = sort.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count <= 2, !parts[0].isEmpty, parts.count == 1 || ["asc", "desc"].contains(parts[1].lowercased()) else {
                throw ValidationError("--sort takes FIELD, FIELD,asc or FIELD,desc")
            }
        }
    }

    func run() async throws {
        let library = LibraryCommand.library()
        var sortField: String?
        var sortOrder: String?
        if let sort {
            let parts = sort.split(separator: ",").map(String.init)
            sortField = parts[0]
            sortOrder = parts.count > 1 ? parts[1].lowercased() : "asc"
        }
        let q = SearchResults.query(text: text, type: type, owner: owner)
        let results = try await PortalSession.run(library, connection) { client in
            try await client.search(q, sortField: sortField, sortOrder: sortOrder, maximum: max)
        }
        var out = Output()
        out.report(json: json, .array(results.items.map(\.jsonValue)), lines: results.lines)
        out.flush()
    }
}
