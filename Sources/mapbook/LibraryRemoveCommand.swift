import ArgumentParser
import MapbookPortal

struct LibraryRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a package of the current mode's list from the library.",
        discussion: """
            Name the package by its file name (with or without .mmpk), its item id, or its \
            title when no other package has it. A download goes with its record. Packages the \
            current mode hides are not touched.
            """)

    @Argument(help: ArgumentHelp("The package's file name, item id or title.", valueName: "NAME|ITEMID"))
    var name: String

    func run() throws {
        let library = LibraryCommand.library()
        let entry = try LibraryCommand.attempt { try library.remove(name) }
        var out = Output()
        let id = entry.itemId.map { "item \($0)" } ?? entry.name
        out.line(entry.title == entry.name ? "Removed \(entry.name)" : "Removed '\(entry.title)' (\(id))")
        out.flush()
    }
}
