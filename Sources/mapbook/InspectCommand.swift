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

    func run() throws { try Self.inspect(path, json: json, noEntries: noEntries) }

    /// Runs `inspect [--json] [--no-entries] PATH` read by hand, without the parser's reflection
    /// (2 ms of a 14 ms inspect; issue 36). False, having done nothing, for anything else: help,
    /// `--`, an unknown flag or a second path go to the parser, which explains.
    static func runQuickly(_ arguments: ArraySlice<String>) throws -> Bool {
        let flags = arguments.dropFirst().filter { $0.hasPrefix("-") }, paths = arguments.dropFirst().filter { !$0.hasPrefix("-") }
        guard arguments.first == "inspect", paths.count == 1, Set(flags).isSubset(of: ["--json", "--no-entries"]) else { return false }
        try inspect(paths[0], json: flags.contains("--json"), noEntries: flags.contains("--no-entries"))
        return true
    }

    private static func inspect(_ path: String, json: Bool, noEntries: Bool) throws {
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
