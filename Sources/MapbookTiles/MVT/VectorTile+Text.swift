import MapbookPackage
import MapbookSupport

extension VectorTile.Decoded {
    /// What `mapbook tiles decode` prints: a headline (the tile, layers, bytes, warnings), then
    /// each layer with its features: id, geometry summary and attributes.
    public func text(bytes: Int, tile: TileCoordinate?) -> String {
        var out: [String] = []
        let decoded = self
        let layers = decoded.tile.layers
        var headline = [Format.count(layers.count, "layer"), "\(Format.count(bytes)) bytes" + (decoded.wasCompressed ? " gzipped" : "")]
        if let tile { headline.insert("tile \(tile)", at: 0) }
        if !decoded.warnings.isEmpty { headline.append(Format.count(decoded.warnings.count, "warning")) }
        out.append(headline.joined(separator: ", "))
        for layer in layers {
            out.append("")
            out.append("Layer \"\(layer.name)\"  version \(layer.version), extent \(layer.extent), \(Format.count(layer.features.count, "feature")), \(Format.count(layer.keys.count, "key")), \(Format.count(layer.values.count, "value"))")
            for (i, feature) in layer.features.enumerated() {
                var line = "  #\(i)"
                if let id = feature.id { line += "  id \(id)" }
                line += "  " + Self.summary(of: feature, extent: layer.extent, tile: tile)
                out.append(line)
                for (key, value) in layer.attributes(of: feature) {
                    out.append("      \(key) = \(Self.text(of: value))")
                }
            }
        }
        return out.joined(separator: "\n")
    }

    /// "polygon: 2 polygons, 3 rings, 40 points in (0, 0)-(4096, 4096)".
    private static func summary(of feature: VectorTile.Feature, extent: UInt32, tile: TileCoordinate?) -> String {
        guard feature.type != .unknown else {
            return "unknown geometry: \(Format.count(feature.geometry.count, "command integer"))"
        }
        guard let geometry = try? feature.decodeGeometry() else { return typeName(feature.type) + " (geometry not readable)" }
        var parts: [String] = []
        switch geometry {
        case .points(let points):
            parts.append(Format.count(points.count, "point"))
        case .lines(let lines):
            parts += [Format.count(lines.count, "line"), Format.count(geometry.pointCount, "point")]
        case .polygons(let polygons):
            parts += [Format.count(polygons.count, "polygon"), Format.count(polygons.reduce(0) { $0 + $1.count }, "ring"), Format.count(geometry.pointCount, "point")]
        }
        var text = typeName(feature.type) + ": " + parts.joined(separator: ", ")
        if let (low, high) = geometry.bounds {
            text += low == high ? " at " + position(low, extent: extent, tile: tile) : " in " + position(low, extent: extent, tile: tile) + "-" + position(high, extent: extent, tile: tile)
        }
        return text
    }

    private static func typeName(_ type: VectorTile.GeometryType) -> String {
        switch type {
        case .point: return "point"
        case .lineString: return "line"
        case .polygon: return "polygon"
        case .unknown: return "unknown"
        }
    }

    /// Tile units, or longitude and latitude to 6 decimals (about 10 cm) when the address is known.
    private static func position(_ p: TilePoint, extent: UInt32, tile: TileCoordinate?) -> String {
        guard let tile else { return "(\(p.x), \(p.y))" }
        let (lon, lat) = tile.location(of: p, extent: extent)
        return "(\(Format.number((lon * 1e6).rounded() / 1e6)), \(Format.number((lat * 1e6).rounded() / 1e6)))"
    }

    /// A value as its text and, for numbers, the MVT type it is stored as.
    private static func text(of value: VectorTile.Value) -> String {
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
