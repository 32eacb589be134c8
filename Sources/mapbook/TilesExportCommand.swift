import ArgumentParser
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#endif

extension TileExportFormat: ExpressibleByArgument {}

/// `mapbook tiles export`: a backdrop's tiles as PMTiles, MBTiles or a folder of tiles.
struct TilesExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the vector tiles of a package's backdrop (or of a .vtpk) to PMTiles, MBTiles or a folder.",
        discussion: """
            Reads the tiles in place and copies them as they are stored (gzip-compressed \
            Mapbox Vector Tiles), with the tile set's name, bounds, zoom range and layers as \
            metadata (vector_layers). 'dir' writes z/x/y.pbf files and a metadata.json, the \
            layout GDAL's MVT driver and static tile servers read. The output is written under a \
            temporary name and renamed into place, so a failed export leaves nothing behind.
            """)

    @Argument(help: "A package (.mmpk) with a vector tile backdrop, or a vector tile package (.vtpk).")
    var path: String

    @Option(name: .long, help: "The format to write: pmtiles, mbtiles or dir.")
    var format: TileExportFormat

    @Option(name: .shortAndLong, help: "The file (or, for dir, the folder) to write.")
    var output: String

    @Option(name: .long, help: "The .vtpk inside the package to export, by name, when it holds several.")
    var backdrop: String?

    @Flag(name: .long, help: "Replace the output if it exists.")
    var force = false

    func validate() throws {
        guard !output.isEmpty else { throw ValidationError("--output must name a file or folder") }
    }

    func run() throws {
        try TileExporter.refuseExisting(output, replacing: force)
        let reader = try VectorTilePackageReader(path: path, entry: backdrop)
        let isTerminal = isatty(2) == 1
        var shown = 0
        let summary = try TileExporter.export(reader, to: output, format: format, replacingExisting: force) { done, total in
            // Progress on a terminal only, at most every 1% of the tiles.
            guard isTerminal, done == total || done - shown >= max(total / 100, 1) else { return }
            shown = done
            Output.write("\rExporting tiles: \(Format.count(done)) of \(Format.count(total))" + (done == total ? "\n" : ""), to: STDERR_FILENO)
        }
        var out = Output()
        for line in summary.lines(source: reader.path) { out.line(line) }
        out.flush()
    }
}
