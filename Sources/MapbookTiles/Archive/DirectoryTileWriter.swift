import MapbookPackage
import MapbookSupport

/// Writes tiles as a folder of files, `z/x/y.pbf`, with a `metadata.json` as tippecanoe writes
/// it (the MBTiles metadata rows as a JSON object of strings): the layout GDAL's MVT driver
/// and static web servers read.
///
/// Tiles are written as given (gzip-compressed MVT, the `.pbf` a server sends with
/// `Content-Encoding: gzip`). The folder is built under a temporary name beside the destination
/// and renamed into place by `finish()`; an existing destination is replaced only when
/// `replacingExisting` is set.
public final class DirectoryTileWriter: WritableTileArchive {
    public let path: String
    public let metadata: TileArchiveMetadata
    public let replacingExisting: Bool
    /// The tile files' extension.
    public let fileExtension: String
    private var staging: String?
    private var written = Set<UInt64>()
    private var folders = Set<String>()
    private var zooms: ClosedRange<Int>?

    public init(path: String, metadata: TileArchiveMetadata, fileExtension: String = "pbf", replacingExisting: Bool = false) throws(TileArchiveError) {
        self.path = path
        self.metadata = metadata
        self.fileExtension = fileExtension
        self.replacingExisting = replacingExisting
        if !replacingExisting, FileSystem.kind(path) != nil {
            throw TileArchiveError(kind: .alreadyExists, operation: "write", path: path, message: "it already exists")
        }
        let staging = try FileSystem.temporaryDirectory(besides: path)
        FileSystem.setDefaultDirectoryMode(staging)
        self.staging = staging
    }

    deinit { abort() }

    public func addTile(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError) {
        guard let staging else { throw TileArchiveError(kind: .closed, operation: "add a tile to", path: path, message: "the folder is already finished or aborted") }
        guard coordinate.isValid, coordinate.z <= TileCoordinate.maximumPackedZoom else {
            throw TileArchiveError(kind: .invalidTile, operation: "add a tile to", path: path, message: "\(coordinate) is not a tile of the Web Mercator grid")
        }
        guard written.insert(coordinate.packed).inserted else {
            throw TileArchiveError(kind: .duplicateTile, operation: "add a tile to", path: path, message: "tile \(coordinate) was added twice")
        }
        let zFolder = "\(staging)/\(coordinate.z)"
        let xFolder = "\(zFolder)/\(coordinate.x)"
        if !folders.contains(xFolder) {
            if folders.insert(zFolder).inserted { try FileSystem.makeDirectory(zFolder) }
            try FileSystem.makeDirectory(xFolder)
            folders.insert(xFolder)
        }
        try FileSystem.writeFile("\(xFolder)/\(coordinate.y).\(fileExtension)", bytes)
        zooms = zooms.map { min($0.lowerBound, coordinate.z)...max($0.upperBound, coordinate.z) } ?? coordinate.z...coordinate.z
    }

    public func finish() throws(TileArchiveError) {
        guard let staging else { throw TileArchiveError(kind: .closed, operation: "finish", path: path, message: "the folder is already finished or aborted") }
        var meta = metadata
        if let zooms {
            meta.minZoom = zooms.lowerBound
            meta.maxZoom = zooms.upperBound
        }
        var document = JSONObject()
        for (name, value) in meta.mbtilesRows { document[name] = .string(value) }
        try FileSystem.writeFile(staging + "/metadata.json", Array(JSONWriter.string(.object(document)).utf8))
        // A folder cannot be renamed over a non-empty one: move the old one aside first.
        var previous: String?
        if FileSystem.kind(path) != nil {
            guard replacingExisting else {
                throw TileArchiveError(kind: .alreadyExists, operation: "write", path: path, message: "it already exists")
            }
            let aside = try FileSystem.temporaryDirectory(besides: path)
            try FileSystem.rename(path, to: aside + "/previous")
            previous = aside
        }
        do {
            try FileSystem.rename(staging, to: path)
        } catch {
            if let previous { try? FileSystem.rename(previous + "/previous", to: path) }
            throw error
        }
        self.staging = nil
        if let previous { FileSystem.removeTree(previous) }
    }

    public func abort() {
        if let staging { FileSystem.removeTree(staging) }
        staging = nil
    }
}
