#if canImport(Glibc)
import Glibc
#endif
import MapbookPackage
import MapbookSupport

/// A vector tile package (or a compact raster tile package, `.tpkx`) cut to an area and a
/// largest zoom: what a map area taken offline carries of its package's base maps (issue 33).
///
/// The tiles that meet the area (with a margin of one tile, so the edge of the map is not
/// blank while panning) at levels up to `maxZoom` are copied as they are stored; every other
/// entry (item info, style, sprites, fonts) is copied as it is, except the tile map, made
/// again for the tiles kept, and `root.json` and `metadata.json`, whose largest level becomes
/// the last one kept so clients overzoom from there. Levels below the area's smallest are all
/// kept: they are few tiles and the whole world at a glance. Written to a temporary file
/// beside `path`, renamed when complete; entries stored, so tiles are read in place.
public enum VectorTilePackageCut {
    public struct Summary: Sendable, Equatable {
        public var tilesKept: Int
        public var tilesDropped: Int
        public var levels: ClosedRange<Int>?
        public var fileSize: Int64
    }

    /// ArcGIS's scale at level 0 of the Web Mercator tiling scheme at 96 dpi; each level halves it.
    public static let levelZeroScale = 591_657_527.591555

    /// The first level whose scale is `scale` or larger (1:`scale`): the level a map drawn at
    /// that scale reads its tiles from.
    public static func level(forScale scale: Double) -> Int {
        let exact = log2(levelZeroScale / scale) - 1e-9
        guard scale > 0, exact.isFinite else { return scale > 0 ? TileCoordinate.maximumPackedZoom : 0 }
        let level = Int(min(max(exact, 0), Double(TileCoordinate.maximumPackedZoom)).rounded(.up))
        return min(max(level, 0), TileCoordinate.maximumPackedZoom)
    }

    /// Levels below this keep their every tile.
    static let wholeWorldLevels = 5

    /// Cuts `source` to the tiles meeting `area` (WGS84 longitude and latitude) up to level
    /// `maxZoom` (nil: every level), writing the new package at `path` with entries dated
    /// `timestamp` (seconds since 1970).
    public static func cut(_ source: TilePackage, area: BoundingBox, maxZoom: Int?, timestamp: Int64, to path: String) throws(TileArchiveError) -> Summary {
        let reader = try VectorTilePackageReader(package: source, raster: source.kind == .compactTilePackage)
        let archive = source.archive
        let mercator = WebMercator.project(area)
        // Which tiles stay, by bundle: coordinates only, so memory holds one bundle's tiles
        // at a time however large the package.
        var kept: [TileCoordinate] = [], dropped = 0
        var bundles: [UInt64: (entry: String, tiles: [TileCoordinate])] = [:]
        let packet = CompactCacheBundle.packetSize
        for bundle in source.bundles {
            let key = TileCoordinate(z: bundle.level, x: bundle.column, y: bundle.row).packed
            bundles[key] = (bundle.entry.name, [])
        }
        for tile in try reader.tileCoordinates() {
            let box = FeatureTileEncoder.box(of: tile)
            let margin = box.width
            let wanted = tile.z < wholeWorldLevels
                || BoundingBox(minX: box.minX - margin, minY: box.minY - margin, maxX: box.maxX + margin, maxY: box.maxY + margin).intersects(mercator)
            let key = TileCoordinate(z: tile.z, x: tile.x / packet * packet, y: tile.y / packet * packet).packed
            guard wanted, maxZoom.map({ tile.z <= $0 }) ?? true, bundles[key] != nil else {
                dropped += 1
                continue
            }
            bundles[key]?.tiles.append(tile)
            kept.append(tile)
        }
        let levels = kept.map(\.z).min().flatMap { low in kept.map(\.z).max().map { low...$0 } }
        let folder = source.rootEntryName.contains("/") ? String(source.rootEntryName.split(separator: "/")[0]) + "/" : ""
        let tileMap = source.tileMapEntry?.name
        let bundleNames = Set(source.bundles.map(\.entry.name))
        do {
            let output = try AtomicFile(destination: path)
            let zip = try ZipWriter(descriptor: output.descriptor, path: path)
            for entry in archive.entries where !entry.name.hasSuffix("/") && !bundleNames.contains(entry.name) {
                var bytes: [UInt8]?
                if entry.name == tileMap {
                    bytes = JSONWriter.bytes(TileMap.document(tiles: kept), style: .compact)
                } else if let last = levels?.upperBound, entry.name == folder + "root.json" || entry.name == folder + "metadata.json" {
                    bytes = try lastLevel(last, in: archive.read(entry, limit: 64 << 20), path: "\(archive.displayPath)[\(entry.name)]")
                }
                if let bytes {
                    try zip.beginEntry(name: entry.name, size: Int64(bytes.count), modificationTime: timestamp)
                    try zip.write(bytes)
                } else {
                    try zip.beginEntry(name: entry.name, size: entry.uncompressedSize, modificationTime: timestamp)
                    try archive.stream(entry, limit: .max) { try zip.write($0) }
                }
            }
            for (_, bundle) in bundles.sorted(by: { $0.value.entry < $1.value.entry }) where !bundle.tiles.isEmpty {
                var writer = CompactCacheBundleWriter()
                for tile in bundle.tiles {
                    guard let bytes = try reader.tile(at: tile) else { continue }
                    try writer.setTile(bytes, row: tile.y % packet, column: tile.x % packet)
                }
                let bytes = writer.bytes
                try zip.beginEntry(name: bundle.entry, size: Int64(bytes.count), modificationTime: timestamp)
                try zip.write(bytes)
            }
            try zip.close()
            try output.commit()
        } catch let error as TileArchiveError {
            throw error
        } catch {
            throw TileArchiveError(kind: .damaged, operation: "cut", path: path, message: "\(error)")
        }
        return Summary(tilesKept: kept.count, tilesDropped: dropped, levels: levels, fileSize: FileSystem.size(path) ?? 0)
    }

    /// `root.json` or `metadata.json` with its largest level (`maxzoom`, `maxLOD`) lowered to
    /// `last`.
    static func lastLevel(_ last: Int, in bytes: [UInt8], path: String) throws -> [UInt8] {
        guard var o = try JSONParser.parse(bytes, path: path).objectValue else { return bytes }
        for key in ["maxzoom", "maxLOD"] {
            if let value = o.int(key), value > last { o[key] = .int(last) }
        }
        return JSONWriter.bytes(.object(o))
    }
}
