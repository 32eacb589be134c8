import ArgumentParser
import MapbookData
import MapbookPackage
import MapbookSearch
import MapbookSupport
import MapbookViewer

/// `LON,LAT` for every command of this module, also those that do not import MapbookViewer
/// (EditCommand's `--at`).
typealias LonLat = MapbookViewer.LonLat

extension LonLat: ExpressibleByArgument {
    /// `LON,LAT` read as `--near` and `--at` take it, refused with the reason.
    static func parse(_ argument: String) throws -> LonLat {
        if let lonLat = LonLat(argument: argument) { return lonLat }
        throw ValidationError(problem(argument) ?? "'\(argument)' is not LON,LAT (two numbers, longitude first, such as -122.6,45.5)")
    }

    public static var defaultCompletionKind: CompletionKind { .default }
}

struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search a package's locator: features by ID, address or name, or suggestions while typing.",
        discussion: """
            Matching ignores case, accents and punctuation, takes words in any order, lets the \
            last word be unfinished and forgives typos (one in words of 4 to 7 letters, two in \
            longer ones; numbers must match exactly). Results are ranked exact before prefix \
            before typo, then by the locator's rank field, then by distance to --near (default: \
            the centre of the package's extent). The locator is read in place; nothing is \
            extracted. Exit status: 0 with results, 1 with none or on an error.
            """)

    @Argument(help: "The package (.mmpk).")
    var path: String

    @Argument(help: "What to look for.")
    var text: String

    @Flag(name: .long, help: "Suggest distinct texts while typing instead of listing features.")
    var suggest = false

    // Unconditional: western longitudes start with a minus sign.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Prefer results near this place.", valueName: "LON,LAT"), transform: LonLat.parse)
    var near: LonLat?

    @Option(name: .long, help: "The most results to show (1-1000).")
    var max = 10

    @Flag(name: .long, help: "Print the results as JSON.")
    var json = false

    func validate() throws {
        guard (1...1000).contains(max) else { throw ValidationError("--max must be between 1 and 1000") }
    }

    func run() throws {
        let (package, locator) = try Self.openLocator(path)
        let preferred = near.map { ($0.longitude, $0.latitude) } ?? package.manifest.extent.map { ($0.center.x, $0.center.y) }
        let report = try LibraryCommand.attempt {
            suggest
                ? try SearchReport.suggestions(locator, text, near: preferred, max: max)
                : try SearchReport.features(locator, text, near: preferred, max: max, package: package)
        }
        var out = Output()
        out.report(json: json, report.json, lines: report.lines)
        if !json && report.count == 0 { Output.error("no results for '\(text)'") }
        out.flush()
        if report.count == 0 { throw ExitCode.failure }
    }
}

extension SearchCommand {
    /// The package, checked for expiry, and its locator with this device's edits; exit 1 with
    /// the reason when it has none or cannot be read.
    static func openLocator(_ path: String) throws -> (package: MobileMapPackage, locator: CompositeLocator) {
        try LibraryCommand.attempt {
            let package = try LibraryCommand.library().verifiedFiles.open(path)
            try PackageAccess.check(package)
            guard let locator = try EditedLocator.open(package, library: LibraryCommand.library()) else {
                Output.error("error: '\(path)' has no locator; give a source 'search: { field: NAME }' in the project file and build it again")
                throw ExitCode.failure
            }
            return (package, locator)
        }
    }
}

struct ReverseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "What is at a place: the nearest searchable features, and the areas it is in.",
        discussion: """
            Looks through every participant of the package's locator within --max-distance \
            metres (through each layer's spatial index, in place). The nearest point or line \
            features come first, by true distance on the ground (--max of them); the polygons \
            that contain the place follow as context ("in Arbor Lodge"), and answer alone when \
            no point or line is in range. --json prints them as an array, each with its \
            "relation": "near" or "within". Exit status: 0 when something is found, 1 when \
            nothing is or on an error.
            """)

    @Argument(help: "The package (.mmpk).")
    var path: String

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The place.", valueName: "LON,LAT"), transform: LonLat.parse)
    var at: LonLat

    @Option(name: .long, help: "How far to look, in metres.")
    var maxDistance: Double = 100

    @Option(name: .long, help: "How many point or line features near the place to give.")
    var max = 1

    @Flag(name: .long, help: "Print the results as a JSON array.")
    var json = false

    func validate() throws {
        guard maxDistance > 0, maxDistance <= 1_000_000 else { throw ValidationError("--max-distance must be between 0 and 1,000,000 metres") }
        guard (1...100).contains(max) else { throw ValidationError("--max must be between 1 and 100") }
    }

    func run() throws {
        let locator = try SearchCommand.openLocator(path).locator
        let results = try LibraryCommand.attempt {
            try locator.reverseGeocode(longitude: at.longitude, latitude: at.latitude, maxDistance: maxDistance, max: max)
        }
        if results.isEmpty && !json { Output.error("nothing searchable within \(Format.number(maxDistance)) m of \(at.longitude), \(at.latitude)") }
        var out = Output()
        out.report(json: json, .array(results.map(\.jsonValue)), lines: GeocodeCandidate.reverseLines(results))
        out.flush()
        if results.isEmpty { throw ExitCode.failure }
    }
}
