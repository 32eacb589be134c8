import MapbookPackage
import MapbookSupport
import Synchronization

/// A tile package's tiles and resources (style, sprites, glyphs), read in place: a vector
/// tile package, or a compact tile package of image tiles (`isRaster`). What `mapbook serve`
/// and the portal's vector tile services send.
public final class BackdropFiles: Sendable {
    private let reader: Mutex<VectorTilePackageReader>
    public let package: TilePackageFiles
    public let isRaster: Bool
    public let minZoom: Int
    public let maxZoom: Int
    /// The package's MapLibre style (`resources/styles/root.json`), read once; nil for none.
    public let style: JSONObject?

    public init(package: TilePackage) throws {
        isRaster = package.kind == .compactTilePackage
        let reader = try VectorTilePackageReader(package: package, raster: isRaster)
        minZoom = reader.metadata.minZoom
        maxZoom = reader.metadata.maxZoom
        self.reader = Mutex(reader)
        let files = TilePackageFiles(package)
        self.package = files
        style = try files.resource("styles/root.json").map {
            try JSONParser.parseObject($0, path: "\(package.archive.displayPath)[\(files.prefix)resources/styles/root.json]", expecting: "a MapLibre style")
        }
    }

    public func tile(_ coordinate: TileCoordinate) throws -> [UInt8]? {
        try reader.withLock { try $0.tile(at: coordinate) }
    }
}
