
/// Writes one Esri Compact Cache V2 bundle: the tiles of a 128 x 128 block of one level.
///
/// Layout (fixtures/vtpk-basemapde/CompactCacheV2.md, "Bundle Header", "Tile Index", "Tile
/// Record"): a 64-byte header, 16,384 index records of 8 bytes in row-major order (offset in the
/// low 40 bits, size in the high 24; 0 for no tile), then each tile preceded by its size in 4
/// bytes. Tiles are laid out in index order, so the same tiles always give the same bytes; the
/// header carries the values Esri's own bundles carry, including the legacy fields readers
/// ignore. Rows and columns are within the bundle (0-127).
public struct CompactCacheBundleWriter: Sendable {
    public static let packetSize = CompactCacheBundle.packetSize
    /// The largest tile a record's 24-bit size can describe.
    public static let maximumTileSize = (1 << 24) - 1

    /// Tiles by index slot, `row * 128 + column`.
    private var tiles: [Int: [UInt8]] = [:]

    public init() {}

    public var tileCount: Int { tiles.count }

    /// Sets the tile at `row`, `column` of the bundle, replacing any tile there.
    public mutating func setTile(_ bytes: [UInt8], row: Int, column: Int) throws(ArchiveError) {
        let slot = try Self.slot(row: row, column: column, size: bytes.count)
        tiles[slot] = bytes
    }

    /// The index slot of a tile, checking the position and size.
    static func slot(row: Int, column: Int, size: Int) throws(ArchiveError) -> Int {
        guard (0..<packetSize).contains(row), (0..<packetSize).contains(column) else {
            throw ArchiveError(kind: .invalidTile, operation: "add a tile to", path: "bundle", message: "row \(row), column \(column) is outside the 128 x 128 tiles of a bundle")
        }
        guard size > 0, size <= maximumTileSize else {
            throw ArchiveError(kind: .invalidTile, operation: "add a tile to", path: "bundle", message: "the tile at row \(row), column \(column) is \(size) bytes; a bundle holds tiles of 1 byte to 16 MiB")
        }
        return row * packetSize + column
    }

    /// The whole bundle.
    public var bytes: [UInt8] {
        var sizes = [Int](repeating: 0, count: Self.packetSize * Self.packetSize)
        for (slot, tile) in tiles { sizes[slot] = tile.count }
        var out = Self.headerAndIndex(sizes: sizes)
        for slot in tiles.keys.sorted() {
            let tile = tiles[slot]!
            out.appendLittleEndian(UInt32(tile.count))
            out.append(contentsOf: tile)
        }
        return out
    }

    /// Writes the bundle to `path` atomically.
    public func write(to path: String) throws(ArchiveError) {
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw ArchiveError(kind: error.kind, operation: "write", path: path, message: error.message)
        }
    }

    /// The file size of a bundle holding tiles of these sizes (16,384 of them, 0 for no tile).
    public static func fileSize(sizes: [Int]) -> Int64 {
        sizes.reduce(Int64(CompactCacheBundle.fixedSize)) { $0 + ($1 > 0 ? 4 + Int64($1) : 0) }
    }

    /// The header and index of a bundle whose tiles, of these sizes in slot order (16,384 of
    /// them, 0 for no tile), follow the index in slot order, each after its 4-byte size.
    ///
    /// Lets a writer stream tiles after the index without holding them all.
    public static func headerAndIndex(sizes: [Int]) -> [UInt8] {
        precondition(sizes.count == packetSize * packetSize, "a bundle index has 16,384 records")
        // Tiles packed in slot order: a tile's offset is that of its first byte, after its size prefix.
        var records: [(offset: Int64, size: Int)] = []
        records.reserveCapacity(sizes.count)
        var offset = Int64(CompactCacheBundle.fixedSize)
        for size in sizes {
            if size > 0 {
                records.append((offset + 4, size))
                offset += 4 + Int64(size)
            } else {
                records.append((0, 0))
            }
        }
        return headerAndIndex(records: records, fileSize: offset)
    }

    /// The header and index for records given as they are: several slots may point at the
    /// same bytes (identical tiles stored once; readers follow the index, as Esri's do).
    public static func headerAndIndex(records: [(offset: Int64, size: Int)], fileSize: Int64) -> [UInt8] {
        precondition(records.count == packetSize * packetSize, "a bundle index has 16,384 records")
        let indexSize = CompactCacheBundle.indexSize
        var out: [UInt8] = []
        out.reserveCapacity(CompactCacheBundle.fixedSize)
        // The header (CompactCacheV2.md, "Bundle Header").
        out.appendLittleEndian(UInt32(3))  // version
        out.appendLittleEndian(UInt32(packetSize * packetSize))  // record count
        out.appendLittleEndian(UInt32(records.map(\.size).max() ?? 0))  // largest tile
        out.appendLittleEndian(UInt32(5))  // offset byte count
        out.appendLittleEndian(UInt64(0))  // slack space: none, the tiles are packed
        out.appendLittleEndian(UInt64(fileSize))
        out.appendLittleEndian(UInt64(40))  // user header offset
        out.appendLittleEndian(UInt32(20 + indexSize))  // user header size
        out.appendLittleEndian(UInt32(3))  // legacy fields, "always the listed values"
        out.appendLittleEndian(UInt32(16))
        out.appendLittleEndian(UInt32(packetSize * packetSize))
        out.appendLittleEndian(UInt32(5))
        out.appendLittleEndian(UInt32(indexSize))
        for record in records {
            out.appendLittleEndian(record.size > 0 ? UInt64(record.size) << 40 | UInt64(record.offset) : UInt64(0))
        }
        return out
    }
}
