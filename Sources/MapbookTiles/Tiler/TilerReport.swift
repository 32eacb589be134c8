import MapbookSupport
import MapbookPackage

/// What a tiling run produced, per zoom: for the build output, `inspect` and benchmarks.
public struct TilerReport: Sendable, Equatable {
    public struct Zoom: Sendable, Equatable {
        public var zoom: Int
        public var tiles = 0
        public var bytes = 0
        public var largestTile = 0
        public var largestTileAddress: TileCoordinate?
        /// Features written, counted once per tile they are in (as a tile decoder counts them).
        public var featuresKept = 0
        /// Features that fell in a tile but were left out: thinned points, tiny lines and
        /// polygons, and what the size limits removed.
        public var featuresDropped = 0
        /// Tiny polygons written as one-pixel squares standing for the area of several.
        public var tinyPolygonsMerged = 0
        /// Tiles that hit the byte or feature limit, and what was done about it.
        public var tilesOverLimit = 0
        public var strategies: [String: Int] = [:]
        /// Polygons whose simplification had to be relaxed to stay free of self-crossings.
        public var polygonsResimplified = 0

        public init(zoom: Int) { self.zoom = zoom }
    }

    public var minZoom: Int
    public var maxZoom: Int
    /// Whether `maxZoom` was guessed from feature spacing.
    public var maxZoomGuessed: Bool
    public var zooms: [Zoom]

    public var tiles: Int { zooms.reduce(0) { $0 + $1.tiles } }
    public var bytes: Int { zooms.reduce(0) { $0 + $1.bytes } }

    /// Lines for the build output: a row per zoom and what the limits did.
    public var lines: [String] {
        // Columns as wide as their widest figure: a national build has millions of tiles a zoom.
        var lines = Format.table(
            [["zoom", "tiles", "bytes", "largest", "kept", "dropped"]]
                + zooms.map { z in [z.zoom, z.tiles, z.bytes, z.largestTile, z.featuresKept, z.featuresDropped].map { String($0) } },
            rightAligned: Set(0..<6))
        for z in zooms where z.tilesOverLimit > 0 {
            let how = z.strategies.keys.sorted().map { "\($0) in \(z.strategies[$0]!)" }.joined(separator: ", ")
            lines.append("z\(z.zoom): \(z.tilesOverLimit) tiles hit the size or feature limit: \(how)")
        }
        return lines
    }
}

extension TilerReport {
    /// One object per zoom, as `metadata.json` stores it under `tiling`.
    public var jsonValue: JSONValue {
        .array(zooms.map { z in
            var o: JSONObject = [
                "zoom": .int(z.zoom), "tiles": .int(z.tiles), "bytes": .int(z.bytes), "largestTile": .int(z.largestTile),
                "featuresKept": .int(z.featuresKept), "featuresDropped": .int(z.featuresDropped),
            ]
            if z.tinyPolygonsMerged > 0 { o["tinyPolygonsMerged"] = .int(z.tinyPolygonsMerged) }
            if z.tilesOverLimit > 0 {
                o["tilesOverLimit"] = .int(z.tilesOverLimit)
                o["strategies"] = .object(JSONObject(z.strategies.keys.sorted().map { ($0, JSONValue.int(z.strategies[$0]!)) }))
            }
            return .object(o)
        })
    }
}
