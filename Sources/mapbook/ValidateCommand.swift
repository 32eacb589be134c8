import ArgumentParser
import MapbookSearch
import MapbookInspection
import MapbookSupport

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a package and report every finding.",
        discussion: """
            Checks the ZIP structure and CRCs, that entries are stored with safe unique names, \
            the manifest and its hashes, the item files, maps, layer paths and tables, bookmark \
            extents, the thumbnail, the expiration, GeoPackages and tile packages (bundle \
            indexes, levels of detail, the tile map against the bundles) and locators (every \
            feature of a searchable layer in its index; the package's search-quality queries, \
            reported as hit@1 and hit@5). A standalone .vtpk or .tpkx is checked as a tile \
            package. Exit status: 0 clean (notes allowed), 1 with \
            errors (or warnings with --strict), 64 on usage errors.
            """)

    @Argument(help: "The package (.mmpk), or a .vtpk or .tpkx, to check.")
    var path: String

    @Flag(name: .long, help: "Print the findings as JSON.")
    var json = false

    @Flag(name: .long, help: "Fail on warnings too.")
    var strict = false

    /// Every finding on the package at `path`: the format's checks and the locators'.
    static func report(_ path: String) -> ValidationReport {
        PackageCheck.validate(path: path)
    }

    func run() throws {
        let report = Self.report(path)
        var out = Output()
        if json {
            out.json(report.jsonValue)
        } else {
            for d in report.diagnostics { out.line(d.description) }
            let summary = "\(report.count(.error)) error\(report.count(.error) == 1 ? "" : "s"), \(report.count(.warning)) warning\(report.count(.warning) == 1 ? "" : "s"), \(report.count(.note)) note\(report.count(.note) == 1 ? "" : "s")"
            let verdict = report.passes(strict: strict) ? "valid" : "NOT valid"
            out.line("\(path): \(verdict) (\(summary); \(Format.count(report.entriesChecked)) entries, \(Format.count(report.bytesChecked)) bytes checked)")
        }
        out.flush()
        if !report.passes(strict: strict) { throw ExitCode.failure }
    }
}
