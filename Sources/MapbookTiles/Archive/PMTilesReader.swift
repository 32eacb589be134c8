import MapbookPackage
import MapbookSupport

/// Reads a PMTiles version 3 archive by positioned reads: the header, the root directory and
/// metadata on opening, leaf directories when first needed.
///
/// Directories and metadata may be uncompressed or gzip-compressed (brotli and zstd are
/// refused); tiles are returned as stored, compressed as the header says. Not Sendable: use
/// from one task at a time.
public final class PMTilesReader: ReadableTileArchive {
    public let path: String
    public let header: PMTiles.Header
    public let metadata: TileArchiveMetadata
    /// The metadata object as stored.
    public let metadataDocument: JSONObject
    private let file: RandomAccessFile
    private let root: [PMTiles.Entry]
    private var leaves: [UInt64: [PMTiles.Entry]] = [:]

    public init(path: String) throws(TileArchiveError) {
        self.path = path
        do {
            file = try RandomAccessFile(path: path)
        } catch {
            throw TileArchiveError(kind: error.kind, operation: "open", path: path, message: error.message)
        }
        guard file.size >= Int64(PMTiles.Header.size) else {
            throw TileArchiveError(kind: .truncated, operation: "read", path: path, message: "the file is \(file.size) bytes, shorter than a PMTiles header (127 bytes)")
        }
        let header = try PMTiles.Header(try Self.read(file, 0, UInt64(PMTiles.Header.size), path: path), path: path)
        self.header = header
        for (what, offset, length) in [
            ("root directory", header.rootOffset, header.rootLength), ("metadata", header.metadataOffset, header.metadataLength),
            ("leaf directories", header.leafDirectoriesOffset, header.leafDirectoriesLength), ("tile data", header.tileDataOffset, header.tileDataLength),
        ] {
            let (end, overflow) = offset.addingReportingOverflow(length)
            guard !overflow, end <= UInt64(file.size) else {
                throw TileArchiveError(kind: .truncated, operation: "read", path: path, message: "the \(what) (\(length) bytes at \(offset)) lies past the end of the \(file.size)-byte file (truncated?)")
            }
        }
        root = try PMTiles.decode(try Self.expand(try Self.read(file, header.rootOffset, header.rootLength, path: path), header, path: path), path: path)
        let metadataBytes = try Self.expand(try Self.read(file, header.metadataOffset, header.metadataLength, path: path), header, path: path)
        var document = JSONObject()
        if !metadataBytes.isEmpty {
            guard let object = (try? JSONParser.parse(metadataBytes))?.objectValue else {
                throw TileArchiveError(kind: .invalidMetadata, operation: "read", path: path, message: "the metadata is not a JSON object")
            }
            document = object
        }
        metadataDocument = document
        var layers = TileArchiveMetadata.layers(fromVectorLayers: document["vector_layers"])
        TileArchiveMetadata.applyTileStats(document.object("tilestats"), to: &layers)
        let format: TileFormat
        switch header.tileType {
        case .mvt: format = .mvt
        case .png: format = .png
        case .jpeg: format = .jpeg
        case .webp: format = .webp
        default: format = .unknown
        }
        metadata = TileArchiveMetadata(
            name: document.string("name") ?? FileSystem.lastComponent(path), description: document.string("description") ?? "",
            attribution: document.string("attribution") ?? "", format: format, tileCompression: header.tileCompression.tileCompression,
            bounds: BoundingBox(
                minX: Double(header.minLongitudeE7) / 1e7, minY: Double(header.minLatitudeE7) / 1e7,
                maxX: Double(header.maxLongitudeE7) / 1e7, maxY: Double(header.maxLatitudeE7) / 1e7),
            centerZoom: Int(header.centerZoom), minZoom: Int(header.minZoom), maxZoom: Int(header.maxZoom), layers: layers)
    }

    private static func read(_ file: RandomAccessFile, _ offset: UInt64, _ length: UInt64, path: String) throws(TileArchiveError) -> [UInt8] {
        guard length <= 1 << 30 else {
            throw TileArchiveError(kind: .tooLarge, operation: "read", path: path, message: "a section of \(length) bytes is larger than this reader accepts")
        }
        do {
            return try file.read(at: Int64(offset), count: Int(length))
        } catch {
            throw TileArchiveError(kind: error.kind, operation: "read", path: path, message: error.message)
        }
    }

    /// Undoes the internal compression of a directory or the metadata.
    private static func expand(_ bytes: [UInt8], _ header: PMTiles.Header, path: String) throws(TileArchiveError) -> [UInt8] {
        switch header.internalCompression {
        case .none: return bytes
        case .gzip:
            do {
                return try Gzip.decompress(bytes, limit: 256 << 20, source: path)
            } catch {
                let kind: TileArchiveError.Kind = switch error.kind {
                case .decompressionBomb: .zipBomb
                case .truncatedGzip: .truncated
                default: .damaged
                }
                throw TileArchiveError(kind: kind, operation: "read", path: path, message: "a directory or the metadata cannot be decompressed: \(error.message)")
            }
        default:
            throw TileArchiveError(kind: .unsupportedCompression, operation: "read", path: path, message: "its directories are compressed with \(header.internalCompression), which this reader does not support (only gzip or none)")
        }
    }

    private func leaf(at offset: UInt64, length: UInt32) throws(TileArchiveError) -> [PMTiles.Entry] {
        if let cached = leaves[offset] { return cached }
        guard offset <= header.leafDirectoriesLength, UInt64(length) <= header.leafDirectoriesLength - offset else {
            throw TileArchiveError(kind: .damaged, operation: "read", path: path, message: "a leaf directory (\(length) bytes at \(offset)) lies outside the leaf directory section")
        }
        let bytes = try Self.read(file, header.leafDirectoriesOffset + offset, UInt64(length), path: path)
        let entries = try PMTiles.decode(try Self.expand(bytes, header, path: path), path: path)
        leaves[offset] = entries
        return entries
    }

    public func tile(at coordinate: TileCoordinate) throws(TileArchiveError) -> [UInt8]? {
        guard coordinate.isValid, coordinate.z <= 29 else { return nil }
        let id = PMTiles.tileID(coordinate)
        var directory = root
        // The spec discourages more than one level of leaves; three is plenty.
        for _ in 0..<4 {
            // The last entry starting at or before the ID.
            var low = 0, high = directory.count
            while low < high {
                let mid = (low + high) / 2
                if directory[mid].tileID <= id { low = mid + 1 } else { high = mid }
            }
            guard low > 0 else { return nil }
            let entry = directory[low - 1]
            if entry.runLength == 0 {
                directory = try leaf(at: entry.offset, length: entry.length)
                continue
            }
            guard id - entry.tileID < UInt64(entry.runLength) else { return nil }
            guard entry.offset <= header.tileDataLength, UInt64(entry.length) <= header.tileDataLength - entry.offset else {
                throw TileArchiveError(kind: .damaged, operation: "read", path: path, message: "tile \(coordinate) (\(entry.length) bytes at \(entry.offset)) lies outside the tile data")
            }
            return try Self.read(file, header.tileDataOffset + entry.offset, UInt64(entry.length), path: path)
        }
        throw TileArchiveError(kind: .damaged, operation: "read", path: path, message: "leaf directories nest more than three deep")
    }

    /// The most tiles `tileCoordinates()` lists: runs can claim billions of tiles in a few bytes.
    public static let maximumListedTiles = 100_000_000

    public func tileCoordinates() throws(TileArchiveError) -> [TileCoordinate] {
        var coordinates: [TileCoordinate] = []
        func walk(_ directory: [PMTiles.Entry], depth: Int) throws(TileArchiveError) {
            guard depth < 4 else { throw TileArchiveError(kind: .damaged, operation: "read", path: path, message: "leaf directories nest more than three deep") }
            for entry in directory {
                if entry.runLength == 0 {
                    try walk(try leaf(at: entry.offset, length: entry.length), depth: depth + 1)
                } else {
                    let (end, overflow) = entry.tileID.addingReportingOverflow(UInt64(entry.runLength))
                    guard !overflow, coordinates.count + Int(entry.runLength) <= Self.maximumListedTiles else {
                        throw TileArchiveError(kind: .tooLarge, operation: "read", path: path, message: "its directories address more than \(Self.maximumListedTiles) tiles or tile IDs past the last zoom")
                    }
                    for id in entry.tileID..<end {
                        coordinates.append(PMTiles.coordinate(ofTileID: id))
                    }
                }
            }
        }
        try walk(root, depth: 0)
        return coordinates.sorted()
    }
}
