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

    /// The `q` sent: the text, the type and the owner, joined with AND.
    var query: String {
        var terms: [String] = []
        if let text, text.contains(where: { !$0.isWhitespace }) { terms.append("(\(text))") }
        if type.lowercased() != "any" { terms.append("type:\"\(type)\"") }
        if let owner { terms.append("owner:\"\(owner)\"") }
        return terms.isEmpty ? "*" : terms.joined(separator: " AND ")
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
        let q = query
        let results = try await PortalSession.run(library, connection) { client in
            try await client.search(q, sortField: sortField, sortOrder: sortOrder, maximum: max)
        }
        var out = Output()
        if json {
            out.line(JSONWriter.string(.array(results.items.map(\.jsonValue))).trimmingTrailingNewline())
            out.flush()
            return
        }
        guard !results.items.isEmpty else {
            out.line("No items found.")
            out.flush()
            return
        }
        let rows = results.items.map { item in
            [String(item.title.prefix(48)), item.owner, ISODate.formatMinutes(milliseconds: item.modified), Format.bytes(item.size), item.id]
        }
        let header = ["TITLE", "OWNER", "MODIFIED (UTC)", "SIZE", "ID"]
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = Swift.max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in i == 3 ? Format.padLeft(cell, widths[i]) : Format.pad(cell, widths[i]) }.joined(separator: "  ")
                .trimmingTrailingSpaces
        }
        out.line(line(header))
        for row in rows { out.line(line(row)) }
        let shown = results.items.count
        out.line(results.total > Int64(shown) ? "\(shown) of \(results.total) items (--max shows more)" : LibraryCommand.count(shown, "item"))
        out.flush()
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
