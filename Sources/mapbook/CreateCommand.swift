import ArgumentParser
import MapbookPackage
import MapbookPackager

#if canImport(Glibc)
import Glibc
#endif

struct CreateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Build a mobile map package from a project file (YAML or JSON).",
        discussion: """
            The project file names the package's metadata, its data sources (tables of \
            GeoPackages or mobile geodatabases, packaged as they are), the maps with their \
            layers, renderers and bookmarks, a .vtpk backdrop, a thumbnail and an expiration. \
            See docs/PROJECT.md. The package is written to a temporary file and renamed, so a \
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

    @Flag(name: .long, help: "Check the project and print what would be written, without writing.")
    var dryRun = false

    func validate() throws {
        if let fixedTime, Self.parseTime(fixedTime) == nil {
            throw ValidationError("--fixed-time '\(fixedTime)' is neither an ISO 8601 date nor Unix seconds between 1970 and 9999")
        }
    }

    /// Unix seconds or an ISO 8601 date, from 1970 to 9999.
    static func parseTime(_ text: String) -> Int64? {
        guard let seconds = Int64(text) ?? ISODate.parse(text), (0...Packager.latestTimestamp).contains(seconds) else { return nil }
        return seconds
    }

    func run() throws {
        let spec = try Project.load(path: project)
        let target = output ?? spec.directory + "/" + spec.name + ".mmpk"
        var timestamp = fixedTime.flatMap(Self.parseTime)
        if timestamp == nil, let epoch = getenv("SOURCE_DATE_EPOCH").map({ String(cString: $0) }) {
            guard let seconds = Int64(epoch), (0...Packager.latestTimestamp).contains(seconds) else {
                throw ValidationError("SOURCE_DATE_EPOCH '\(epoch)' is not Unix seconds between 1970 and 9999")
            }
            timestamp = seconds
        }
        var out = Output()
        if dryRun {
            let plan = try Packager.plan(spec, output: target, timestamp: timestamp)
            out.line("\(spec.title): would write \(target)")
            out.line("  extent \(plan.extent) (WGS84)")
            for (name, layers, bookmarks) in plan.mapCounts {
                out.line("  map \(name): \(layers) layer\(layers == 1 ? "" : "s"), \(bookmarks) bookmark\(bookmarks == 1 ? "" : "s")")
            }
            for file in plan.contents.files {
                out.line("  \(plan.contents.folder)/\(file.path)")
            }
            out.flush()
            return
        }
        let summary = try Packager.build(spec, output: target, timestamp: timestamp)
        out.line("Wrote \(summary.path): \(summary.maps.count) map\(summary.maps.count == 1 ? "" : "s"), \(summary.entries.count) entries, \(Format.count(summary.fileSize)) bytes")
        for (name, layers, bookmarks) in summary.maps {
            out.line("  \(name): \(layers) layer\(layers == 1 ? "" : "s"), \(bookmarks) bookmark\(bookmarks == 1 ? "" : "s")")
        }
        out.line("  extent \(summary.extent) (WGS84)")
        out.flush()
    }
}
