#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// The archive formats tiles can be exported to.
public enum TileExportFormat: String, Sendable, CaseIterable {
    case pmtiles
    case mbtiles
    /// A folder of `z/x/y.pbf` files with `metadata.json`.
    case directory = "dir"
}

/// What an export wrote.
public struct TileExportSummary: Sendable {
    public var path: String
    public var format: TileExportFormat
    public var tiles: Int
    /// Tile bytes copied.
    public var bytes: Int64
    public var zooms: ClosedRange<Int>?
    public var layers: [String]

    /// What `mapbook tiles export` prints: the tiles, zooms and layers exported from
    /// `source`, then the file written.
    public func lines(source: String) -> [String] {
        let zoomText = zooms.map { $0.lowerBound == $0.upperBound ? "zoom \($0.lowerBound)" : "zooms \($0.lowerBound)-\($0.upperBound)" } ?? "no zooms"
        let layerText = layers.isEmpty ? "" : ", \(layers.count) layer\(layers.count == 1 ? "" : "s"): \(layers.joined(separator: ", "))"
        return [
            "Exported \(Format.count(tiles)) tiles (\(zoomText)\(layerText)) from \(source)",
            "Wrote \(path) (\(format.rawValue), \(Format.bytes(bytes)) of tiles)",
        ]
    }
}

/// Copies every tile of one archive into another: a `.vtpk` to PMTiles, MBTiles or a folder.
///
/// Tiles pass through as stored, except that uncompressed MVT tiles are gzip-compressed, since
/// every format written here declares gzip. The written metadata is the reader's, with the
/// zoom range and (when the reader has none) the bounds taken from the tiles themselves.
public enum TileExporter {
    /// A writer for `format` at `path`.
    public static func writer(_ format: TileExportFormat, path: String, metadata: TileArchiveMetadata, replacingExisting: Bool = false) throws(TileArchiveError) -> any WritableTileArchive {
        switch format {
        case .pmtiles: return try PMTilesWriter(path: path, metadata: metadata)
        case .mbtiles: return try MBTilesWriter(path: path, metadata: metadata)
        case .directory: return try DirectoryTileWriter(path: path, metadata: metadata, replacingExisting: replacingExisting)
        }
    }

    /// Refuses to write over whatever is at `path` unless `replacing` (`--force`):
    /// `.alreadyExists`.
    ///
    /// The corresponding C function is `lstat`.
    public static func refuseExisting(_ path: String, replacing: Bool) throws(TileArchiveError) {
        var info = stat()
        if !replacing, lstat(path, &info) == 0 {
            throw TileArchiveError(kind: .alreadyExists, operation: "write", path: path, message: "it already exists; add --force to replace it")
        }
    }

    /// Exports every tile of `reader` to a new archive at `path`.
    ///
    /// `progress` is called after each tile with the tiles done and the total.
    public static func export(
        _ reader: any ReadableTileArchive, to path: String, format: TileExportFormat, replacingExisting: Bool = false,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(TileArchiveError) -> TileExportSummary {
        let coordinates = try reader.tileCoordinates()
        guard !coordinates.isEmpty else {
            throw TileArchiveError(kind: .noTiles, operation: "export tiles from", path: reader.path, message: "it holds no tiles")
        }
        var metadata = reader.metadata
        metadata.tileCompression = .gzip
        let zooms = coordinates.map(\.z).min()!...coordinates.map(\.z).max()!
        metadata.minZoom = zooms.lowerBound
        metadata.maxZoom = zooms.upperBound
        if metadata.bounds == nil { metadata.bounds = bounds(of: coordinates) }

        let writer = try self.writer(format, path: path, metadata: metadata, replacingExisting: replacingExisting)
        var bytes: Int64 = 0
        do throws(TileArchiveError) {
            for (i, coordinate) in coordinates.enumerated() {
                guard var tile = try reader.tile(at: coordinate) else {
                    throw TileArchiveError(kind: .missingTile, operation: "read", path: reader.path, message: "tile \(coordinate) is listed but cannot be found")
                }
                if metadata.format == .mvt, !Gzip.hasMagic(tile) { tile = Gzip.compress(tile) }
                try writer.addTile(tile, at: coordinate)
                bytes += Int64(tile.count)
                progress?(i + 1, coordinates.count)
            }
            try writer.finish()
        } catch {
            writer.abort()
            throw error
        }
        return TileExportSummary(path: path, format: format, tiles: coordinates.count, bytes: bytes, zooms: zooms, layers: metadata.layers.map(\.id))
    }

    /// The WGS84 bounds of a set of tiles.
    static func bounds(of coordinates: [TileCoordinate]) -> BoundingBox? {
        var box: BoundingBox?
        for c in coordinates {
            let n = Double(c.tilesPerSide)
            let span = 2 * WebMercator.halfWorld
            let tile = BoundingBox(
                minX: -WebMercator.halfWorld + Double(c.x) / n * span, minY: WebMercator.halfWorld - Double(c.y + 1) / n * span,
                maxX: -WebMercator.halfWorld + Double(c.x + 1) / n * span, maxY: WebMercator.halfWorld - Double(c.y) / n * span)
            box = box.map { $0.union(tile) } ?? tile
        }
        return box.map(WebMercator.unproject)
    }
}
