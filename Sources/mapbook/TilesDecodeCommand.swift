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
        if let tile, Self.coordinate(tile) == nil {
            throw ValidationError("--tile must be Z/X/Y with Z from 0 to 30 and X and Y below 2^Z, e.g. 14/8800/5370; got '\(tile)'")
        }
    }

    /// "14/8800/5370" as a tile address on the grid.
    static func coordinate(_ text: String) -> TileCoordinate? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let z = parts[0], let x = parts[1], let y = parts[2] else { return nil }
        let coordinate = TileCoordinate(z: z, x: x, y: y)
        return coordinate.isValid ? coordinate : nil
    }

    func run() throws {
        let file = try RandomAccessFile(path: path)
        // A tile is small; anything past the inflate limit is not one, whatever it holds.
        guard file.size <= Int64(Gzip.defaultInflateLimit) else {
            throw MVTError(kind: .tooLarge, source: path, message: "the file is \(Format.count(file.size)) bytes, more than a tile may be (\(Gzip.defaultInflateLimit >> 20) MiB)")
        }
        let bytes = try file.read(at: 0, count: Int(file.size))
        let decoded = try VectorTileDecoder().decode(bytes, source: path)
        if !lenient, !decoded.warnings.isEmpty {
            for problem in decoded.warnings { Output.error("error: \(problem)") }
            Output.error("'\(path)' breaks the MVT 2.1 specification in \(decoded.warnings.count) place\(decoded.warnings.count == 1 ? "" : "s"); --lenient prints what can be read")
            throw ExitCode.failure
        }
        let coordinate = tile.flatMap(Self.coordinate)
        var out = Output()
        if json {
            out.line(JSONWriter.string(decoded.tile.geoJSON(tile: coordinate, compressed: decoded.wasCompressed)).trimmingTrailingNewline())
        } else {
            Self.render(decoded, bytes: bytes.count, tile: coordinate, into: &out)
        }
        out.flush()
        for warning in decoded.warnings { Output.error("warning: \(warning)") }
    }

    static func render(_ decoded: VectorTile.Decoded, bytes: Int, tile: TileCoordinate?, into out: inout Output) {
        let layers = decoded.tile.layers
        var headline = [plural(layers.count, "layer"), "\(Format.count(bytes)) bytes" + (decoded.wasCompressed ? " gzipped" : "")]
        if let tile { headline.insert("tile \(tile)", at: 0) }
        if !decoded.warnings.isEmpty { headline.append(plural(decoded.warnings.count, "warning")) }
        out.line(headline.joined(separator: ", "))
        for layer in layers {
            out.line()
            out.line("Layer \"\(layer.name)\"  version \(layer.version), extent \(layer.extent), \(plural(layer.features.count, "feature")), \(plural(layer.keys.count, "key")), \(plural(layer.values.count, "value"))")
            for (i, feature) in layer.features.enumerated() {
                var line = "  #\(i)"
                if let id = feature.id { line += "  id \(id)" }
                line += "  " + summary(of: feature, extent: layer.extent, tile: tile)
                out.line(line)
                for (key, value) in layer.attributes(of: feature) {
                    out.line("      \(key) = \(text(of: value))")
                }
            }
        }
    }

    static func plural(_ n: Int, _ noun: String) -> String {
        "\(Format.count(n)) \(noun)\(n == 1 ? "" : "s")"
    }

    /// "polygon: 2 polygons, 3 rings, 40 points in (0, 0)-(4096, 4096)".
    static func summary(of feature: VectorTile.Feature, extent: UInt32, tile: TileCoordinate?) -> String {
        guard feature.type != .unknown else {
            return "unknown geometry: \(plural(feature.geometry.count, "command integer"))"
        }
        guard let geometry = try? feature.decodeGeometry() else { return typeName(feature.type) + " (geometry not readable)" }
        var parts: [String] = []
        switch geometry {
        case .points(let points):
            parts.append(plural(points.count, "point"))
        case .lines(let lines):
            parts += [plural(lines.count, "line"), plural(geometry.pointCount, "point")]
        case .polygons(let polygons):
            parts += [plural(polygons.count, "polygon"), plural(polygons.reduce(0) { $0 + $1.count }, "ring"), plural(geometry.pointCount, "point")]
        }
        var text = typeName(feature.type) + ": " + parts.joined(separator: ", ")
        if let (low, high) = geometry.bounds {
            text += low == high ? " at " + position(low, extent: extent, tile: tile) : " in " + position(low, extent: extent, tile: tile) + "-" + position(high, extent: extent, tile: tile)
        }
        return text
    }

    static func typeName(_ type: VectorTile.GeometryType) -> String {
        switch type {
        case .point: return "point"
        case .lineString: return "line"
        case .polygon: return "polygon"
        case .unknown: return "unknown"
        }
    }

    /// Tile units, or longitude and latitude to 6 decimals (about 10 cm) when the address is known.
    static func position(_ p: TilePoint, extent: UInt32, tile: TileCoordinate?) -> String {
        guard let tile else { return "(\(p.x), \(p.y))" }
        let (lon, lat) = tile.location(of: p, extent: extent)
        return "(\(Format.number((lon * 1e6).rounded() / 1e6)), \(Format.number((lat * 1e6).rounded() / 1e6)))"
    }

    /// A value as its text and, for numbers, the MVT type it is stored as.
    static func text(of value: VectorTile.Value) -> String {
        switch value {
        case .string(let s): return JSONWriter.string(.string(s), style: .compact)
        case .bool(let b): return b ? "true" : "false"
        case .float(let f): return "\(f) (float)"
        case .double(let d): return "\(d) (double)"
        case .int(let i): return "\(i) (int)"
        case .uint(let u): return "\(u) (uint)"
        case .sint(let i): return "\(i) (sint)"
        }
    }
}
