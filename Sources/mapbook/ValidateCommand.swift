import ArgumentParser
import MapbookSearch
import MapbookInspection
import MapbookLibrary
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

    /// Every finding on the package at `path`: the format's checks and the locators', its
    /// signature judged against the device library's trusted keys.
    static func report(_ path: String) -> ValidationReport {
        let trusted = ((try? LibraryCommand.library().trustedKeys()) ?? []).map(\.key)
        return PackageCheck.validate(path: path, options: ValidationOptions(trustedKeys: trusted))
    }

    func run() throws {
        let report = Self.report(path)
        var out = Output()
        out.report(json: json, report.jsonValue, lines: report.lines(strict: strict))
        out.flush()
        if !report.passes(strict: strict) { throw ExitCode.failure }
    }
}
