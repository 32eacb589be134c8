import ArgumentParser
import MapbookPackage
import MapbookPackager
import MapbookSupport
import MapbookTerminal
import MapbookTiles


struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Build a mobile map package from a project file (YAML or JSON).",
        discussion: """
            The project file names the package's metadata, its data sources (GeoJSON, CSV, \
            Shapefiles and GeoPackage tables, imported into the package's data.gpkg in its \
            coordinate system; Esri mobile geodatabases, packaged as they are), the maps with \
            their layers, renderers and bookmarks, a .vtpk backdrop, a thumbnail and an \
            expiration. See docs/PROJECT.md. Features the importers drop or change are \
            reported per source. The package is written to a temporary file and renamed, so a \
            failed build leaves nothing behind.
            """)

    @Argument(help: "The project file (.yaml, .yml or .json).")
    var project: String

    @Option(name: .shortAndLong, help: "The package to write (default: <name>.mmpk beside the project file).")
    var output: String?

    @Option(name: .long, help: ArgumentHelp(
        "Use this time for every date in the package (ISO 8601 or Unix seconds), so rebuilds are byte-identical. Defaults to $SOURCE_DATE_EPOCH, else now.",
        valueName: "time"))
    var fixedTime: String?

    @Flag(name: .long, help: "Import and check everything, print per layer what would be kept, dropped and clipped and the estimated package size, and write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Fail when an importer drops or changes any feature.")
    var strict = false

    @Option(name: .long, help: ArgumentHelp("Sign the package with this private key (mapbook keys create); repeat for several.", valueName: "key"))
    var sign: [String] = []

    @Option(name: .long, help: ArgumentHelp("The memory the backdrop's tiler may use (512M, 2G); beyond it, it sorts on disk.", valueName: "size"), transform: Output.byteCount)
    var memory = 1 << 30

    func validate() throws {
        if let output, !output.lowercased().hasSuffix(".mmpk") {
            throw ValidationError("-o '\(output)': a mobile map package's file name ends in .mmpk")
        }
        if let fixedTime, Packager.timestamp(fixedTime) == nil {
            throw ValidationError("--fixed-time '\(fixedTime)' is neither an ISO 8601 date nor Unix seconds between 1970 and 9999")
        }
    }

    func run() throws {
        // Ctrl-C or a SIGTERM removes the hidden files the build has made so far.
        WorkFiles.removeOnInterrupt()
        let spec = try Project.load(path: project)
        let target = output ?? spec.directory + "/" + spec.name + ".mmpk"
        let timestamp = try fixedTime.flatMap(Packager.timestamp) ?? Packager.sourceDateEpoch()
        var spec2 = spec
        spec2.strict = strict
        spec2.tilerMemory = memory
        let progress = ProgressReporter()
        var out = Output()
        if dryRun {
            let plan = try Packager.dryRun(spec2, output: target, timestamp: timestamp, progress: progress.update)
            progress.finish()
            for line in plan.lines(title: spec.title, target: target) { out.line(line) }
            out.flush()
            return
        }
        let keys = try LibraryCommand.attempt { try sign.map { try SigningKey(file: $0) } }
        let summary = try Packager.build(spec2, output: target, timestamp: timestamp, signingKeys: keys, progress: progress.update)
        progress.finish()
        for line in summary.lines { out.line(line) }
        out.flush()
    }
}
