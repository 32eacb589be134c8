import MapbookPackage
import MapbookSupport

/// Writes a vector tile package (`.vtpk`) as Esri lays one out (DESIGN.md 3.4), every entry
/// stored so tiles are read in place:
///
/// ```
/// esriinfo/iteminfo.xml, esriinfo/item.pkinfo, esriinfo/thumbnail/thumbnail.png
/// p12/root.json                   the VectorTileServer description
/// p12/metadata.json               TileJSON-style metadata with vector_layers
/// p12/resources/info/root.json    the resource list
/// p12/resources/styles/root.json  the MapLibre style, source "esri" at "../../"
/// p12/tilemap/root.json           the quadtree of existing tiles
/// p12/tile/Lzz/RrrrrCcccc.bundle  Compact Cache V2 bundles, by level, row, column
/// ```
///
/// Tiles (gzip-compressed MVT; others are compressed here) may come in any order; they are
/// spooled to a temporary file beside the destination, so memory holds only an index. The
/// package is built under a temporary name and renamed into place by `finish()`; the same
/// description and tiles give the same bytes.
public final class VectorTilePackageWriter: WritableTileArchive {
    public let path: String
    public var description: VectorTilePackageDescription
    private var spool: TileSpool?
    /// What `finish()` wrote.
    public private(set) var summary: Summary?

    /// What was written.
    public struct Summary: Sendable {
        public var tiles: Int
        public var bundles: Int
        /// Tile bytes, without bundle headers and indexes.
        public var tileBytes: Int64
        public var fileSize: Int64
        public var levels: ClosedRange<Int>?
    }

    /// The folder inside the package, as in Esri's packages.
    public static let folder = "p12"

    /// Starts a package at `path`, refusing a description that cannot make a valid package.
    public init(path: String, description: VectorTilePackageDescription) throws(TileArchiveError) {
        self.path = path
        self.description = description
        let problems = description.problems()
        guard problems.isEmpty else {
            throw TileArchiveError(kind: .invalidDescription, operation: "write", path: path, message: problems.joined(separator: "; "))
        }
        // Identical tiles (all-sea, all-land) are stored once per bundle, every slot pointing at them.
        spool = try TileSpool(besides: path, deduplicating: true)
    }

    public func addTile(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError) {
        guard let spool else { throw TileArchiveError(kind: .closed, operation: "add a tile to", path: path, message: "the package is already finished or aborted") }
        guard (description.minLOD...description.maxLOD).contains(coordinate.z) else {
            throw TileArchiveError(kind: .invalidTile, operation: "add a tile to", path: path, message: "tile \(coordinate) is outside levels \(description.minLOD) to \(description.maxLOD) (minLOD to maxLOD)")
        }
        // root.json promises gzip for every tile.
        try spool.add(Gzip.hasMagic(bytes) ? bytes : Gzip.compress(bytes), at: coordinate)
    }

    public func abort() {
        spool = nil
    }

    /// A bundle: its level and top-left tile, and its tiles' content indexes by slot.
    private struct BundlePlan {
        var level: Int
        var row: Int
        var column: Int
        var slots: [(slot: Int, content: Int32)]

        var entryName: String {
            "\(VectorTilePackageWriter.folder)/tile/L\(Self.pad(String(level), 2))/R\(Self.pad(String(row, radix: 16), 4))C\(Self.pad(String(column, radix: 16), 4)).bundle"
        }

        static func pad(_ s: String, _ width: Int) -> String {
            String(repeating: "0", count: max(0, width - s.count)) + s
        }
    }

    public func finish() throws(TileArchiveError) {
        guard let spool else { throw TileArchiveError(kind: .closed, operation: "finish", path: path, message: "the package is already finished or aborted") }
        self.spool = nil
        let packet = CompactCacheBundle.packetSize
        // Bundles by level, row and column; slots in row-major order within each.
        var plans: [UInt64: BundlePlan] = [:]
        var tiles: [TileCoordinate] = []
        tiles.reserveCapacity(spool.tileCount)
        for (coordinate, content) in spool.entries {
            let row = coordinate.y / packet * packet, column = coordinate.x / packet * packet
            let key = TileCoordinate(z: coordinate.z, x: column, y: row).packed
            plans[key, default: BundlePlan(level: coordinate.z, row: row, column: column, slots: [])]
                .slots.append(((coordinate.y - row) * packet + coordinate.x - column, content))
            tiles.append(coordinate)
        }
        let bundles = plans.values.sorted { ($0.level, $0.row, $0.column) < ($1.level, $1.row, $1.column) }
        // Levels above the first tile hold nothing. Their tile map nodes could only be array
        // nodes, which from minLOD on claim tiles no bundle holds (clients would request them,
        // and `validate` refuses it), so the package's levels start where its tiles do.
        if let lowest = tiles.lazy.map(\.z).min(), lowest > description.minLOD {
            description.minLOD = min(lowest, description.maxLOD)
        }

        let folder = Self.folder
        var documents: [(String, [UInt8])] = []
        let thumbnailName = description.thumbnail.map { ImageKind($0) == .jpeg ? "thumbnail.jpg" : "thumbnail.png" }
        documents.append(("esriinfo/iteminfo.xml", description.itemInfo(thumbnailName: thumbnailName).serialized()))
        documents.append(("esriinfo/item.pkinfo", description.packageInfo.serialized()))
        if let thumbnail = description.thumbnail, let thumbnailName {
            documents.append(("esriinfo/thumbnail/" + thumbnailName, thumbnail))
        }
        documents.append(("\(folder)/root.json", JSONWriter.bytes(description.rootJSON)))
        documents.append(("\(folder)/metadata.json", JSONWriter.bytes(description.metadataJSON)))
        documents.append(("\(folder)/resources/info/root.json", JSONWriter.bytes(description.resourceInfoJSON)))
        documents.append(("\(folder)/resources/styles/root.json", JSONWriter.bytes(description.styleJSON)))
        for range in description.glyphs {
            documents.append(("\(folder)/resources/fonts/\(range.fontStack)/\(range.name).pbf", range.encoded()))
        }
        documents.append(("\(folder)/tilemap/root.json", JSONWriter.bytes(TileMap.document(tiles: tiles), style: .compact)))

        do {
            let output = try AtomicFile(destination: path)
            let zip = try ZipWriter(descriptor: output.descriptor, path: path)
            for (name, bytes) in documents {
                try zip.beginEntry(name: name, size: Int64(bytes.count), modificationTime: description.timestamp)
                try zip.write(bytes)
            }
            var tileBytes: Int64 = 0
            for var plan in bundles {
                plan.slots.sort { $0.slot < $1.slot }
                var records = [(offset: Int64, size: Int)](repeating: (0, 0), count: packet * packet)
                var placed: [Int32: Int64] = [:]
                var unique: [Int32] = []
                var end = Int64(CompactCacheBundle.fixedSize)
                for (slot, content) in plan.slots {
                    let size = Int(spool.contents[Int(content)].length)
                    if let offset = placed[content] {
                        records[slot] = (offset, size)
                    } else {
                        placed[content] = end + 4
                        records[slot] = (end + 4, size)
                        unique.append(content)
                        end += 4 + Int64(size)
                    }
                }
                try zip.beginEntry(name: plan.entryName, size: end, modificationTime: description.timestamp)
                try zip.write(CompactCacheBundleWriter.headerAndIndex(records: records, fileSize: end))
                for content in unique {
                    let tile = try spool.read(content)
                    var record: [UInt8] = []
                    record.reserveCapacity(4 + tile.count)
                    record.appendLittleEndian(UInt32(tile.count))
                    record.append(contentsOf: tile)
                    try zip.write(record)
                    tileBytes += Int64(tile.count)
                }
            }
            try zip.close()
            let size = FileSystem.size(of: output.descriptor)
            try output.commit()
            let levels = tiles.isEmpty ? nil : tiles.map(\.level).min()!...tiles.map(\.level).max()!
            summary = Summary(tiles: tiles.count, bundles: bundles.count, tileBytes: tileBytes, fileSize: size, levels: levels)
        } catch {
            throw TileArchiveError(error, operation: "write", path: path)
        }
    }
}
