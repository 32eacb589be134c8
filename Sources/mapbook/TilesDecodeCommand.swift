import ArgumentParser
import MapbookPackage
import MapbookSupport
import MapbookTiles

struct TilesDecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Show what a vector tile holds: layers, features, attributes, geometry.",
        discussion: """
            Reads one Mapbox Vector Tile (.mvt, .pbf), gzipped or not. A tile that breaks the \
            MVT 2.1 specification exits 1 naming the tile, layer and feature: bad geometry \
            commands (a ClosePath first, a ring without its one ClosePath, a count past the \
            end), an UNKNOWN type with a geometry, tags past the key or value tables, a layer \
            without a name or version, two layers of one name, strings that are not UTF-8. \
            With --lenient the features that can be read are printed, the others left out \
            with a warning on stderr (a tile whose bytes cannot be read at all still exits 1). \
            --json prints the tile as tippecanoe-decode does, a FeatureCollection per layer, \
            in tile units or, with --tile, in longitude and latitude.
            """)

    @Argument(help: "The tile file (.mvt or .pbf, gzipped or not).")
    var path: String

    @Flag(name: .long, help: "Print GeoJSON: a FeatureCollection of one FeatureCollection per layer.")
    var json = false

    @Flag(name: .long, help: "Print what can be read of a tile that breaks the specification, leaving out the features that do.")
    var lenient = false

    @Option(name: .long, help: ArgumentHelp("The tile's address on the Web Mercator grid, for coordinates in longitude and latitude.", valueName: "z/x/y"))
    var tile: String?

    func validate() throws {
        if let tile, TileCoordinate(description: tile) == nil {
            throw ValidationError("--tile must be Z/X/Y with Z from 0 to 30 and X and Y below 2^Z, e.g. 14/8800/5370; got '\(tile)'")
        }
    }

    func run() throws {
        let bytes = try VectorTileDecoder.readTile(path: path)
        let decoded = try VectorTileDecoder().decode(bytes, source: path)
        if !lenient, !decoded.warnings.isEmpty {
            for problem in decoded.warnings { Output.error("error: \(problem)") }
            Output.error("'\(path)' breaks the MVT 2.1 specification in \(decoded.warnings.count) place\(decoded.warnings.count == 1 ? "" : "s"); --lenient prints what can be read")
            throw ExitCode.failure
        }
        let coordinate = tile.flatMap(TileCoordinate.init(description:))
        var out = Output()
        if json {
            out.json(decoded.tile.geoJSON(tile: coordinate, compressed: decoded.wasCompressed))
        } else {
            out.line(decoded.text(bytes: bytes.count, tile: coordinate))
        }
        out.flush()
        for warning in decoded.warnings { Output.error("warning: \(warning)") }
    }
}
