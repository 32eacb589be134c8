import ArgumentParser
import MapbookPackager
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#endif

/// `mapbook tiles build`: data files to vector tiles, as tippecanoe does, written as a .vtpk
/// (with a style) or as PMTiles, MBTiles or a folder of tiles.
struct TilesBuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Tile data files into Mapbox Vector Tiles: a .vtpk, .pmtiles, .mbtiles or a folder.",
        discussion: """
            Each input (GeoJSON, CSV, Shapefile, zipped Shapefile, GeoPackage; any coordinate \
            system PROJ knows) becomes a layer, named by the file or by NAME=PATH. Tiles are \
            512 px on the Web Mercator grid with extent 4096. Dense points are thinned at lower \
            zooms by a pixel grid, polygons under a pixel pooled into pixel squares, and a tile \
            past the size or feature limit is thinned and simplified further; the per-zoom table \
            says what was kept and dropped. The output is written to a temporary name and \
            renamed, so a failed run leaves nothing.
            """)

    @Argument(help: ArgumentHelp("Data files, each PATH or NAME=PATH.", valueName: "input"))
    var inputs: [String]

    @Option(name: .shortAndLong, help: "The tile set to write: .vtpk, .pmtiles, .mbtiles, or a folder (z/x/y.pbf).")
    var output: String

    @Option(name: .long, help: "The first zoom.")
    var minzoom = 0

    @Option(name: .long, help: "The last zoom (default: guessed from the spacing of the features).")
    var maxzoom: Int?

    @Option(name: .long, help: "The largest gzip-compressed tile in bytes.")
    var maxTileBytes = 500_000

    @Option(name: .long, help: "The most features in one tile.")
    var maxTileFeatures = 200_000

    @Option(name: .long, help: "The tile set's name (default: the output's file name).")
    var name: String?

    @Option(name: .long, help: "Fields to keep, for every layer (default: all).")
    var fields: [String] = []

    @Flag(name: .long, help: "Replace the output if it exists.")
    var force = false

    @Option(name: .long, help: ArgumentHelp("The memory the tiler may use (512M, 2G); beyond it, it sorts on disk.", valueName: "size"), transform: Output.byteCount)
    var memory = 1 << 30

    func validate() throws {
        guard (0...22).contains(minzoom) else { throw ValidationError("--minzoom must be from 0 to 22") }
        if let maxzoom, !(minzoom...22).contains(maxzoom) { throw ValidationError("--maxzoom must be from --minzoom (\(minzoom)) to 22") }
        guard maxTileBytes >= 1024 else { throw ValidationError("--max-tile-bytes must be at least 1024") }
        guard maxTileFeatures >= 1 else { throw ValidationError("--max-tile-features must be at least 1") }
    }

    func run() throws {
        try TileExporter.refuseExisting(output, replacing: force)
        let layers = try BackdropBuilder.layers(inputs: inputs, fields: fields)
        var options = TilerOptions()
        options.minZoom = minzoom
        options.maxZoom = maxzoom
        options.maxTileBytes = maxTileBytes
        options.maxTileFeatures = maxTileFeatures
        options.memory = memory
        let base = FileSystem.lastComponent(output)
        let setName = name ?? (base.split(separator: ".").first.map(String.init) ?? base)
        let tty = isatty(STDERR_FILENO) != 0
        let result = try BackdropBuilder.build(
            layers: layers, options: options, name: setName, timestamp: try Packager.sourceDateEpoch() ?? Packager.currentTime(), to: output, format: BackdropBuilder.Format(path: output),
            replacingExisting: force,
            progress: { message in if tty { Output.error(message) } })
        var out = Output()
        for line in result.lines(output: output) { out.line(line) }
        out.flush()
    }
}
