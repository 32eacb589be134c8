import MapbookPackage
import MapbookSupport

/// Writes a PMTiles version 3 archive (fixtures/pmtiles/spec/v3/spec.md).
///
/// Layout as go-pmtiles writes it: header, root directory, metadata, leaf directories, tile
/// data. Tile data is clustered (in tile ID order); identical tiles are stored once (found by
/// hash, confirmed byte for byte) and consecutive IDs with the same bytes share one run-length
/// entry, as empty ocean tiles do. Directories and metadata are gzip-compressed; when the root
/// directory would pass the 16,257 bytes the spec allows, entries move to leaf directories.
/// Tiles are spooled to a temporary file beside the destination until `finish()`.
public final class PMTilesWriter: WritableTileArchive {
    public let path: String
    public let metadata: TileArchiveMetadata
    private var spool: TileSpool?
    /// The header written by `finish()`.
    public private(set) var header: PMTiles.Header?

    /// The root directory, compressed, must fit in the first 16 KiB with the header (spec 4).
    static let maximumRootLength = 16_384 - PMTiles.Header.size

    public init(path: String, metadata: TileArchiveMetadata) throws(TileArchiveError) {
        self.path = path
        self.metadata = metadata
        spool = try TileSpool(besides: path, deduplicating: true)
    }

    public func addTile(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError) {
        guard let spool else { throw TileArchiveError(kind: .closed, operation: "add a tile to", path: path, message: "the archive is already finished or aborted") }
        try spool.add(bytes, at: coordinate)
    }

    public func abort() {
        spool = nil
    }

    public func finish() throws(TileArchiveError) {
        guard let spool else { throw TileArchiveError(kind: .closed, operation: "finish", path: path, message: "the archive is already finished or aborted") }
        self.spool = nil
        guard spool.tileCount > 0 else {
            throw TileArchiveError(kind: .noTiles, operation: "write", path: path, message: "no tiles were added; a PMTiles archive needs at least one")
        }
        let tiles = spool.entries.map { (id: PMTiles.tileID($0.coordinate), zoom: $0.coordinate.z, content: $0.content) }
            .sorted { $0.id < $1.id }

        // Offsets in first-seen order (clustered); a repeated content points back at its copy.
        var offsets = [UInt64?](repeating: nil, count: spool.contents.count)
        var order: [Int32] = []
        var dataLength: UInt64 = 0
        var entries: [PMTiles.Entry] = []
        for tile in tiles {
            let length = UInt32(spool.contents[Int(tile.content)].length)
            let offset: UInt64
            if let known = offsets[Int(tile.content)] {
                offset = known
            } else {
                offset = dataLength
                offsets[Int(tile.content)] = offset
                order.append(tile.content)
                dataLength += UInt64(length)
            }
            if var last = entries.last, last.offset == offset, last.tileID + UInt64(last.runLength) == tile.id, last.runLength < UInt32.max {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTiles.Entry(tileID: tile.id, offset: offset, length: length, runLength: 1))
            }
        }
        let (root, leaves) = Self.directories(entries)

        var document = JSONObject()
        document["name"] = .string(metadata.name)
        document["description"] = .string(metadata.description)
        document["attribution"] = .string(metadata.attribution)
        document["type"] = "baselayer"
        document["version"] = "1"
        if metadata.format == .mvt {
            for (key, value) in metadata.layersDocument { document[key] = value }
        }
        let metadataBytes = Gzip.compress(JSONWriter.bytes(.object(document), style: .compact))

        var header = PMTiles.Header()
        header.rootOffset = UInt64(PMTiles.Header.size)
        header.rootLength = UInt64(root.count)
        header.metadataOffset = header.rootOffset + header.rootLength
        header.metadataLength = UInt64(metadataBytes.count)
        header.leafDirectoriesOffset = header.metadataOffset + header.metadataLength
        header.leafDirectoriesLength = UInt64(leaves.count)
        header.tileDataOffset = header.leafDirectoriesOffset + header.leafDirectoriesLength
        header.tileDataLength = dataLength
        header.addressedTiles = UInt64(tiles.count)
        header.tileEntries = UInt64(entries.count)
        header.tileContents = UInt64(order.count)
        header.clustered = true
        header.internalCompression = .gzip
        header.tileCompression = PMTiles.Compression(metadata.tileCompression)
        header.tileType = Self.tileType(metadata.format)
        let zooms = tiles.map(\.zoom)
        header.minZoom = UInt8(zooms.min()!)
        header.maxZoom = UInt8(zooms.max()!)
        if let bounds = metadata.bounds {
            header.minLongitudeE7 = PMTiles.e7(bounds.minX)
            header.minLatitudeE7 = PMTiles.e7(bounds.minY)
            header.maxLongitudeE7 = PMTiles.e7(bounds.maxX)
            header.maxLatitudeE7 = PMTiles.e7(bounds.maxY)
        }
        var center = metadata
        center.minZoom = Int(header.minZoom)
        center.maxZoom = Int(header.maxZoom)
        if let c = center.center {
            header.centerZoom = UInt8(c.zoom)
            header.centerLongitudeE7 = PMTiles.e7(c.longitude)
            header.centerLatitudeE7 = PMTiles.e7(c.latitude)
        } else {
            header.centerZoom = header.minZoom
        }

        do {
            let output = try AtomicFile(destination: path)
            try output.write(header.bytes + root + metadataBytes + leaves)
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            for content in order {
                buffer += try spool.read(content)
                if buffer.count >= 1 << 20 {
                    try output.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try output.write(buffer)
            try output.commit()
        } catch {
            throw TileArchiveError(error, operation: "write", path: path)
        }
        self.header = header
    }

    static func tileType(_ format: TileFormat) -> PMTiles.TileType {
        switch format {
        case .mvt: return .mvt
        case .png: return .png
        case .jpeg: return .jpeg
        case .webp: return .webp
        case .unknown: return .unknown
        }
    }

    /// The compressed root directory and leaf directories for `entries`.
    ///
    /// As go-pmtiles does it: everything in the root when it fits, else leaves of at least 4,096
    /// entries, growing by a fifth until the root of leaf pointers fits.
    static func directories(_ entries: [PMTiles.Entry]) -> (root: [UInt8], leaves: [UInt8]) {
        if entries.count < 16_384 {
            let root = Gzip.compress(PMTiles.encode(entries))
            if root.count <= maximumRootLength { return (root, []) }
        }
        var leafSize = max(Double(entries.count) / 3500, 4096)
        while true {
            var pointers: [PMTiles.Entry] = []
            var leaves: [UInt8] = []
            var start = 0
            let size = Int(leafSize)
            while start < entries.count {
                let end = min(start + size, entries.count)
                let leaf = Gzip.compress(PMTiles.encode(entries[start..<end]))
                pointers.append(PMTiles.Entry(tileID: entries[start].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count), runLength: 0))
                leaves += leaf
                start = end
            }
            let root = Gzip.compress(PMTiles.encode(pointers))
            if root.count <= maximumRootLength { return (root, leaves) }
            leafSize *= 1.2
        }
    }
}
