import ArgumentParser
import MapbookPackager
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#endif

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

    func validate() throws {
        if let output, !output.lowercased().hasSuffix(".mmpk") {
            throw ValidationError("-o '\(output)': a mobile map package's file name ends in .mmpk")
        }
        if let fixedTime, Self.parseTime(fixedTime) == nil {
            throw ValidationError("--fixed-time '\(fixedTime)' is neither an ISO 8601 date nor Unix seconds between 1970 and 9999")
        }
    }

    /// Unix seconds or an ISO 8601 date, from 1970 to 9999.
    static func parseTime(_ text: String) -> Int64? {
        guard let seconds = Int64(text) ?? ISODate.parse(text), (0...Packager.latestTimestamp).contains(seconds) else { return nil }
        return seconds
    }

    /// `$SOURCE_DATE_EPOCH` when set (reproducible builds), else nil: now.
    static func sourceDateEpoch() throws -> Int64? {
        guard let epoch = getenv("SOURCE_DATE_EPOCH").map({ String(cString: $0) }) else { return nil }
        guard let seconds = Int64(epoch), (0...Packager.latestTimestamp).contains(seconds) else {
            throw ValidationError("SOURCE_DATE_EPOCH '\(epoch)' is not Unix seconds between 1970 and 9999")
        }
        return seconds
    }

    func run() throws {
        // Ctrl-C or a SIGTERM removes the hidden files the build has made so far.
        WorkFiles.removeOnInterrupt()
        let spec = try Project.load(path: project)
        let target = output ?? spec.directory + "/" + spec.name + ".mmpk"
        let timestamp = try fixedTime.flatMap(Self.parseTime) ?? Self.sourceDateEpoch()
        var spec2 = spec
        spec2.strict = strict
        let progress = ProgressReporter()
        var out = Output()
        if dryRun {
            let plan = try Packager.dryRun(spec2, output: target, timestamp: timestamp, progress: progress.update)
            progress.finish()
            out.line("\(spec.title): would write \(target), about \(Format.count(plan.estimatedSize)) bytes")
            out.line("  extent \(plan.extent) (WGS84)")
            Self.printParts(
                layers: plan.layers, warnings: plan.warnings, classes: plan.classes, backdrop: plan.backdrop,
                locator: plan.locator, network: plan.network, to: &out)
            for (name, layers, bookmarks) in plan.mapCounts {
                out.line("  map \(name): \(layers) layer\(layers == 1 ? "" : "s"), \(bookmarks) bookmark\(bookmarks == 1 ? "" : "s")")
            }
            out.line("  data files:")
            for file in plan.contents.files {
                out.line("    \(plan.contents.folder)/\(file.path)")
            }
            out.flush()
            return
        }
        let summary = try Packager.build(spec2, output: target, timestamp: timestamp, progress: progress.update)
        progress.finish()
        out.line("Wrote \(summary.path): \(summary.maps.count) map\(summary.maps.count == 1 ? "" : "s"), \(summary.entries.count) entries, \(Format.count(summary.fileSize)) bytes")
        Self.printParts(
            layers: summary.layers, warnings: summary.warnings, classes: summary.classes, backdrop: summary.backdrop,
            locator: summary.locator, network: summary.network, to: &out)
        for (name, layers, bookmarks) in summary.maps {
            out.line("  \(name): \(layers) layer\(layers == 1 ? "" : "s"), \(bookmarks) bookmark\(bookmarks == 1 ? "" : "s")")
        }
        out.line("  extent \(summary.extent) (WGS84)")
        out.flush()
    }

    /// What a dry run's plan and a build's summary both report: the layers, the warnings, the
    /// classes of short-form renderers, the backdrop, the locator and the network.
    static func printParts(
        layers: [Packager.ImportedLayer], warnings: [String], classes: [Packager.RendererReport], backdrop: TilerReport?,
        locator: Packager.LocatorReport?, network: Packager.NetworkReport?, to out: inout Output
    ) {
        printLayers(layers, to: &out)
        for warning in warnings { out.line("  warning: \(warning)") }
        printClasses(classes, to: &out)
        if let backdrop { printBackdrop(backdrop, to: &out) }
        if let locator { printLocator(locator, to: &out) }
        if let network { printNetwork(network, to: &out) }
    }

    /// Features per class of each renderer made from a short form, "Other" last.
    static func printClasses(_ reports: [Packager.RendererReport], to out: inout Output) {
        for report in reports {
            let classes = report.classes.map { "\($0.label): \(Format.count($0.count))" }.joined(separator: ", ")
            out.line("  classes of \(report.layer) (\(report.source).\(report.field)): \(classes)")
        }
    }

    /// The backdrop's per-zoom table: tiles, bytes, largest tile, features kept and dropped.
    static func printBackdrop(_ report: TilerReport, to out: inout Output) {
        out.line("  backdrop: zooms \(report.minZoom)-\(report.maxZoom)\(report.maxZoomGuessed ? " (maximum guessed from feature spacing)" : ""), \(Format.count(report.tiles)) tiles, \(Format.count(report.bytes)) bytes")
        for line in report.lines { out.line("    " + line) }
    }

    /// The composite locator, then one line per participant: features indexed, distinct
    /// texts, index and text sizes, and a warning for features search cannot find.
    static func printLocator(_ report: Packager.LocatorReport, to out: inout Output) {
        let n = report.participants.count
        var line = "  locator \(report.name) (\(report.entry)): \(n) participant\(n == 1 ? "" : "s")"
        if let q = report.qualityQueries {
            line += ", search-quality file of \(q) quer\(q == 1 ? "y" : "ies")"
            if let h1 = report.qualityHitsAt1, let h5 = report.qualityHitsAt5 { line += ": hit@1 \(h1)/\(q), hit@5 \(h5)/\(q)" }
        }
        out.line(line)
        for p in report.participants {
            out.line("    \(p.name) (\(p.source).\(p.field)\(p.isAddress ? ", role address" : "")): \(Format.count(p.entries, "feature")) indexed, \(Format.count(p.groups, "distinct text")), index \(Format.bytes(p.indexBytes)), text \(Format.bytes(Int64(p.textBytes)))")
            if p.skipped > 0 {
                out.line("      warning: \(Format.count(p.skipped)) of \(Format.count(p.features)) features have no searchable text in \(p.field) (empty, or no letter or digit); search cannot find them")
            }
        }
    }

    /// The street network: its size, parts, preprocessing time and bytes.
    static func printNetwork(_ report: Packager.NetworkReport, to out: inout Output) {
        let parts = report.components == 1 ? "one connected part" : "\(Format.count(report.components)) parts not connected to each other"
        out.line("  network \(report.name) (\(report.entry), from \(report.source)): \(Format.count(report.lines)) lines -> \(Format.count(report.nodes)) nodes, \(Format.count(report.edges)) edges, \(parts)")
        if report.restrictions > 0 {
            out.line("    \(Format.count(report.restrictions)) turn restriction\(report.restrictions == 1 ? "" : "s") -> \(Format.count(report.forbiddenTurns)) forbidden turns")
        }
        let seconds = (report.seconds * 100).rounded() / 100
        let shortcuts = report.shortcuts.map { "\(Format.count($0.count)) shortcuts by \($0.metric == .time ? "time" : "distance")" }.joined(separator: ", ")
        out.line("    preprocessed in \(seconds) s (contraction hierarchies: \(shortcuts)), \(Format.bytes(Int64(report.bytes)))")
    }

    /// One line per imported source, then its warnings, indented.
    static func printLayers(_ layers: [Packager.ImportedLayer], to out: inout Output) {
        for layer in layers {
            let s = layer.summary
            let type = s.schema.geometryType?.gpkgName ?? "table"
            out.line("  layer \(layer.source) (\(layer.file) -> data.gpkg \(layer.table), \(type)): \(s.kept) kept, \(s.dropped) dropped, \(s.clipped) clipped")
            for line in s.warnings + s.report.lines {
                out.line("    warning: \(line)")
            }
        }
    }
}

/// Prints import progress on a terminal (stderr), rewriting one line; silent otherwise.
final class ProgressReporter: @unchecked Sendable {
    // Used from the importing thread only; the class exists to hold the last line's length.
    private let isTerminal = isatty(2) == 1
    private var shown = false

    /// `count` is the features read so far; a negative count makes `source` a status line
    /// (the backdrop's steps: features read into the tiler, the zoom guess, each zoom).
    func update(_ source: String, _ count: Int) {
        if count < 0 {
            let text = isTerminal ? "\r  \(source)\u{1B}[K" : "\(source)\n"
            _ = text.withCString { write(2, $0, strlen($0)) }
            shown = isTerminal
            return
        }
        guard isTerminal else {
            // Logs get a plain line now and then rather than carriage returns.
            if count % 100_000 == 0 {
                let text = "importing \(source): \(count) features\n"
                _ = text.withCString { write(2, $0, strlen($0)) }
            }
            return
        }
        let text = "\r  importing \(source): \(Format.count(Int64(count))) features\u{1B}[K"
        _ = text.withCString { write(2, $0, strlen($0)) }
        shown = true
    }

    func finish() {
        guard shown else { return }
        _ = "\r\u{1B}[K".withCString { write(2, $0, strlen($0)) }
        shown = false
    }
}
