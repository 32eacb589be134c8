import ArgumentParser
import MapbookPortal
import MapbookLibrary
import MapbookSupport

struct LibraryListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the current mode's packages: sideloaded ones in device mode, downloaded ones in portal mode.",
        discussion: """
            Shows each package's title, file name or item id and size; for downloads, the \
            portal item's modification date when it was downloaded (what update checks compare \
            against). Damaged or foreign files in the library are listed too, with a warning \
            on stderr saying what to do, and the exit status is then 1.
            """)

    @Flag(name: .long, help: "Print the library as JSON.")
    var json = false

    func run() throws {
        let library = LibraryCommand.library()
        let (mode, portal, entries) = try LibraryCommand.attempt { (try library.mode(), try library.portalURL(), try library.list()) }
        var out = Output()
        if json {
            let value: JSONValue = .object([
                "root": .string(library.root),
                "mode": .string(mode.rawValue),
                "portalUrl": portal.map(JSONValue.string) ?? .null,
                "packages": .array(entries.map(\.jsonValue)),
            ])
            out.json(value)
        } else {
            for line in LibraryEntry.listLines(entries, mode: mode, portal: portal, root: library.root) { out.line(line) }
        }
        out.flush()
        let problems = entries.filter { $0.problem != nil }
        for entry in problems { Output.error("warning: '\(entry.path)' \(entry.problem ?? "")") }
        if !problems.isEmpty { throw ExitCode.failure }
    }
}
