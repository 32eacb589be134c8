#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookSupport
import MapbookPackage

/// Tiles parked in a temporary file until an archive writer can put them in its order.
///
/// Writers that must see every tile before writing the first (bundles grouped by level and
/// block, PMTiles clustered by tile ID) spool tiles here, so memory holds only an index of
/// about 16 bytes a tile, not the tiles. The file is created beside the destination (same file
/// system, so free space is judged where the archive goes) and unlinked at once: nothing is left
/// behind, whatever happens. With `deduplicating`, identical tiles are stored once; equality is
/// checked byte for byte, the hash only finds candidates.
final class TileSpool {
    /// Where one distinct tile's bytes are in the spool file.
    struct Content {
        var offset: Int64
        var length: Int32
    }

    let destination: String
    private let descriptor: Int32
    private var end: Int64 = 0
    private let deduplicating: Bool
    /// Content index of each tile, keyed by `TileCoordinate.packed`.
    private(set) var tiles: [UInt64: Int32] = [:]
    private(set) var contents: [Content] = []
    /// Content indexes by hash, to find identical tiles.
    private var byHash: [Int: [Int32]] = [:]

    /// Creates the spool file beside `destination`.
    init(besides destination: String, deduplicating: Bool = false) throws(TileArchiveError) {
        self.destination = destination
        self.deduplicating = deduplicating
        let (fd, error) = FileSystem.makeUnlinkedFile("\(FileSystem.parent(of: destination))/.\(FileSystem.lastComponent(destination)).spool-XXXXXX")
        guard fd >= 0 else {
            throw TileArchiveError(kind: .io(errno: error), operation: "create a temporary tile file for", path: destination, message: FileSystem.errorMessage(error))
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    var tileCount: Int { tiles.count }
    /// Bytes of distinct tile data held.
    var byteCount: Int64 { end }

    /// Adds a tile; a coordinate given twice is refused.
    func add(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError) {
        guard coordinate.isValid, coordinate.z <= TileCoordinate.maximumPackedZoom else {
            throw TileArchiveError(kind: .invalidTile, operation: "add a tile to", path: destination, message: "\(coordinate) is not a tile of the Web Mercator grid at zoom 0 to \(TileCoordinate.maximumPackedZoom)")
        }
        guard !bytes.isEmpty else {
            throw TileArchiveError(kind: .invalidTile, operation: "add a tile to", path: destination, message: "tile \(coordinate) is empty (0 bytes); leave empty tiles out")
        }
        guard bytes.count < 1 << 24 else {
            throw TileArchiveError(kind: .invalidTile, operation: "add a tile to", path: destination, message: "tile \(coordinate) is \(bytes.count) bytes; a Compact Cache bundle holds tiles under 16 MiB")
        }
        let key = coordinate.packed
        guard tiles[key] == nil else {
            throw TileArchiveError(kind: .duplicateTile, operation: "add a tile to", path: destination, message: "tile \(coordinate) was added twice")
        }
        if deduplicating {
            var hasher = Hasher()
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
            let hash = hasher.finalize()
            for candidate in byHash[hash] ?? [] where contents[Int(candidate)].length == Int32(bytes.count) {
                if try read(candidate) == bytes {
                    tiles[key] = candidate
                    return
                }
            }
            byHash[hash, default: []].append(Int32(contents.count))
        }
        try append(bytes)
        tiles[key] = Int32(contents.count)
        contents.append(Content(offset: end, length: Int32(bytes.count)))
        end += Int64(bytes.count)
    }

    /// The bytes of one distinct tile.
    ///
    /// The corresponding C function is `pread`.
    func read(_ content: Int32) throws(TileArchiveError) -> [UInt8] {
        let slot = contents[Int(content)]
        var bytes = [UInt8](repeating: 0, count: Int(slot.length))
        let (done, error) = bytes.withUnsafeMutableBytes { FileSystem.readAll(into: $0, from: descriptor, at: slot.offset) }
        let failure = error != 0 ? error : (done < bytes.count ? EIO : 0)
        if failure != 0 {
            throw TileArchiveError(kind: .io(errno: failure), operation: "read back the temporary tile file of", path: destination, message: FileSystem.errorMessage(failure))
        }
        return bytes
    }

    /// The bytes of the tile at `coordinate`, if one was added.
    func tile(at coordinate: TileCoordinate) throws(TileArchiveError) -> [UInt8]? {
        guard let content = tiles[coordinate.packed] else { return nil }
        return try read(content)
    }

    /// Every tile coordinate added, with its content index, in no particular order.
    var entries: [(coordinate: TileCoordinate, content: Int32)] {
        tiles.map { (TileCoordinate(packed: $0.key), $0.value) }
    }

    /// The corresponding C function is `write`.
    private func append(_ bytes: [UInt8]) throws(TileArchiveError) {
        let failure = bytes.withUnsafeBytes { FileSystem.writeAll($0, to: descriptor) }
        if failure != 0 {
            throw TileArchiveError(kind: .io(errno: failure), operation: "write the temporary tile file of", path: destination, message: FileSystem.errorMessage(failure))
        }
    }
}

extension TileCoordinate {
    /// The deepest zoom `packed` can hold.
    static let maximumPackedZoom = 29

    /// z, x and y in one integer (5, 29 and 29 bits), for compact indexes.
    var packed: UInt64 { UInt64(z) << 58 | UInt64(x) << 29 | UInt64(y) }

    init(packed: UInt64) {
        self.init(z: Int(packed >> 58), x: Int(packed >> 29 & 0x1FFF_FFFF), y: Int(packed & 0x1FFF_FFFF))
    }
}
