import ArgumentParser
import MapbookInspection
import MapbookSupport

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a package holds: item info, maps, layers, bookmarks, backdrop, locators, entries.",
        discussion: """
            Reads .mmpk packages (ours and Esri's), and standalone .vtpk, .tpkx, .geodatabase, \
            .gpkg and Compact Cache .bundle files or folders, in place. Exits 1 when part of \
            the file could not be read; the rest is still shown.
            """)

    @Argument(help: "The package or file to inspect.")
    var path: String

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    @Flag(name: .long, help: "Leave out the list of entries.")
    var noEntries = false

    func run() throws {
        let report = try PackageInspector.inspect(path: path)
        var out = Output()
        out.report(json: json, report.jsonValue, lines: [report.text(entries: !noEntries)])
        out.flush()
        if !report.notes.isEmpty {
            for note in report.notes { Output.error("warning: \(note)") }
            throw ExitCode.failure
        }
    }
}
