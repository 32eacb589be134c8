import ArgumentParser
import MapbookPackage
import MapbookSupport

struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Unpack a package safely into a new or empty folder.",
        discussion: """
            Refuses absolute names, '..' components, links, duplicate names, archives past the \
            size or compression-ratio limits, and damaged entries. Writes into a temporary \
            folder and renames it into place at the end: it writes nothing outside FOLDER, and \
            nothing at all when it refuses. A signed package is unpacked only when its \
            signature and every entry's digest check out.
            """)

    @Argument(help: "The package (or any ZIP archive) to unpack.")
    var path: String

    @Argument(help: "The folder to create (or an empty folder).")
    var folder: String

    @Option(name: .long, help: "The most bytes all entries may expand to, in MiB.")
    var maxSize: Int64 = 64 * 1024

    @Option(name: .long, help: "The most a deflated entry may expand (uncompressed / compressed).")
    var maxRatio: Double = 200

    func validate() throws {
        guard maxSize > 0, maxSize <= Int64.max >> 20 else { throw ValidationError("--max-size must be between 1 and \(Int64.max >> 20) MiB") }
        guard maxRatio >= 1 else { throw ValidationError("--max-ratio must be at least 1") }
    }

    func run() throws {
        var limits = ExtractionLimits()
        limits.maximumTotalSize = maxSize * 1024 * 1024
        limits.maximumCompressionRatio = maxRatio
        let summary = try SafeExtractor.extract(archivePath: path, to: folder, limits: limits)
        var out = Output()
        out.line("Extracted \(Format.count(summary.files, "file")) (\(Format.count(summary.bytes)) bytes) into \(folder)")
        out.flush()
    }
}
