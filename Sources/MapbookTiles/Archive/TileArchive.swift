import MapbookPackage
import MapbookSupport

/// A tile archive read by tile coordinate: a `.vtpk`, a PMTiles file.
///
/// Modelled on planetiler's `ReadableTileArchive`: metadata, one tile by coordinate, every
/// coordinate. Tiles come back as stored, compressed as `metadata.tileCompression` says.
/// Implementations are classes holding open files; use one from one task at a time.
public protocol ReadableTileArchive: AnyObject {
    /// The archive's name in messages.
    var path: String { get }
    var metadata: TileArchiveMetadata { get }
    /// The stored bytes of the tile at `coordinate`, or nil when the archive has none there.
    func tile(at coordinate: TileCoordinate) throws(TileArchiveError) -> [UInt8]?
    /// Every tile the archive holds, sorted by zoom, then row, then column.
    func tileCoordinates() throws(TileArchiveError) -> [TileCoordinate]
}

extension ReadableTileArchive {
    /// Calls `body` with every tile in `tileCoordinates()` order, reading one tile at a time.
    public func forEachTile(_ body: (TileCoordinate, [UInt8]) throws(TileArchiveError) -> Void) throws(TileArchiveError) {
        for coordinate in try tileCoordinates() {
            guard let bytes = try tile(at: coordinate) else {
                throw TileArchiveError(kind: .missingTile, operation: "read", path: path, message: "tile \(coordinate) is listed but cannot be found")
            }
            try body(coordinate, bytes)
        }
    }
}

/// A tile archive being written: tiles in any order, then `finish()` or `abort()`.
///
/// Modelled on planetiler's `WriteableTileArchive`. The archive appears under its final path
/// only when `finish()` succeeds (built beside it and renamed); `abort()`, an error or dropping
/// the writer leaves nothing behind. Tiles are given as they are to be stored (gzip-compressed
/// MVT unless the metadata says otherwise). Adding the same coordinate twice is an error.
public protocol WritableTileArchive: AnyObject {
    /// The destination, for messages.
    var path: String { get }
    func addTile(_ bytes: [UInt8], at coordinate: TileCoordinate) throws(TileArchiveError)
    /// Writes everything that is left and renames the archive into place.
    func finish() throws(TileArchiveError)
    /// Removes whatever was written; the destination is untouched.
    func abort()
}

/// How every tile of an archive is compressed.
public enum TileCompression: String, Sendable, CaseIterable {
    case none
    case gzip
    case brotli
    case zstd
    case unknown
}

/// What the tiles of an archive are.
public enum TileFormat: String, Sendable, CaseIterable {
    /// Mapbox Vector Tiles, `pbf` in MBTiles and TileJSON.
    case mvt = "pbf"
    case png
    case jpeg = "jpg"
    case webp
    case unknown
}

/// One layer of a vector tile set as TileJSON 3.0's `vector_layers` describes it, with the
/// geometry kind styles need.
public struct VectorLayerInfo: Sendable, Hashable {
    /// The kind of geometry a layer holds, as tippecanoe's tilestats name it.
    public enum Geometry: String, Sendable, CaseIterable {
        case point = "Point"
        case line = "LineString"
        case polygon = "Polygon"
    }

    /// An attribute and its TileJSON type: "String", "Number" or "Boolean".
    public struct Field: Sendable, Hashable {
        public var name: String
        public var type: String

        public init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    /// The layer name inside the tiles (MVT `Layer.name`), TileJSON's `id`.
    public var id: String
    public var description: String
    public var fields: [Field]
    public var minZoom: Int?
    public var maxZoom: Int?
    public var geometry: Geometry?

    public init(id: String, description: String = "", fields: [Field] = [], minZoom: Int? = nil, maxZoom: Int? = nil, geometry: Geometry? = nil) {
        self.id = id
        self.description = description
        self.fields = fields
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.geometry = geometry
    }
}

/// What every tile archive knows about its tile set, whatever the format.
public struct TileArchiveMetadata: Sendable {
    public var name: String
    public var description: String
    public var attribution: String
    public var format: TileFormat
    public var tileCompression: TileCompression
    /// West, south, east, north in WGS84 degrees.
    public var bounds: BoundingBox?
    /// The zoom a viewer should open at; the middle of the zoom range when nil.
    public var centerZoom: Int?
    public var minZoom: Int
    public var maxZoom: Int
    public var layers: [VectorLayerInfo]

    public init(
        name: String, description: String = "", attribution: String = "", format: TileFormat = .mvt,
        tileCompression: TileCompression = .gzip, bounds: BoundingBox? = nil, centerZoom: Int? = nil,
        minZoom: Int, maxZoom: Int, layers: [VectorLayerInfo] = []
    ) {
        self.name = name
        self.description = description
        self.attribution = attribution
        self.format = format
        self.tileCompression = tileCompression
        self.bounds = bounds
        self.centerZoom = centerZoom
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.layers = layers
    }

    /// The centre of the bounds and the centre zoom.
    public var center: (longitude: Double, latitude: Double, zoom: Int)? {
        guard let bounds else { return nil }
        let zoom = centerZoom ?? (minZoom + maxZoom) / 2
        return ((bounds.minX + bounds.maxX) / 2, (bounds.minY + bounds.maxY) / 2, min(max(zoom, minZoom), maxZoom))
    }
}
