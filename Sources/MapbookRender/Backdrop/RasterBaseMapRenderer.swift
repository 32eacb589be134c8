import MapbookPackage
import MapbookSupport
import MapbookTiles

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raster base map drawn under a view: a compact tile package's (`.tpkx`) image tiles on
/// the Web Mercator tiling scheme, read in place. The level drawn is the finest the view's
/// resolution needs (past the package's last level, its last level enlarged; before its first,
/// its first reduced), and each tile is scaled onto its place in the view. PNG tiles are drawn;
/// a tile that is not a PNG (JPEG) or does not decode is left out and said in `problems`.
///
/// Not thread-safe: draw from one task at a time.
public final class RasterBaseMapRenderer {
    private let reader: VectorTilePackageReader
    private let minLevel: Int
    private let maxLevel: Int
    /// What could not be drawn (each said once).
    public private(set) var problems: [String] = []
    /// The most tiles one view draws: a view far wider than the package's levels is drawn at
    /// a coarser level rather than as thousands of tiles.
    static let maximumTiles = 256

    public init(package: TilePackage) throws(TileArchiveError) {
        reader = try VectorTilePackageReader(package: package, raster: true)
        minLevel = reader.metadata.minZoom
        maxLevel = reader.metadata.maxZoom
    }

    /// Draws the tiles under `canvas`'s view (its extent in Web Mercator metres), with `opacity`.
    public func draw(on canvas: MapCanvas, opacity: Double = 1) {
        let world = WebMercator.halfWorld
        let extent = canvas.extent
        guard extent.width > 0, extent.height > 0, canvas.width > 0 else { return }
        // The level whose pixels are no larger than the view's.
        let resolution = extent.width / Double(canvas.width)
        var level = min(max(Int(log2(2 * world / 256 / resolution).rounded(.up)), minLevel), maxLevel)
        while level > minLevel, Self.tiles(extent, level: level).count > Self.maximumTiles { level -= 1 }
        let range = Self.tiles(extent, level: level)
        guard range.count <= Self.maximumTiles else {
            note("the view covers more than \(Self.maximumTiles) of its tiles even at its first level (\(minLevel)); zoom in to see it")
            return
        }
        let size = 2 * world / Double(1 << level)
        let scale = Double(canvas.width) / extent.width
        for y in range.rows {
            for x in range.columns {
                // The tile's box in the view's pixels (rows down from the view's top).
                let left = (Double(x) * size - world - extent.minX) * scale
                let top = (extent.maxY - (world - Double(y) * size)) * scale
                guard let image = image(TileCoordinate(z: level, x: x, y: y)) else { continue }
                canvas.draw(image, x: left, y: top, width: size * scale, height: size * scale, opacity: opacity)
            }
        }
    }

    /// A tile decoded; nil where the package has none or it cannot be drawn (noted).
    private func image(_ tile: TileCoordinate) -> RasterImage? {
        let bytes: [UInt8]?
        do {
            bytes = try reader.tile(at: tile)
        } catch {
            note("tile \(tile.z)/\(tile.x)/\(tile.y) cannot be read: \(error)")
            return nil
        }
        guard let bytes else { return nil }
        guard ImageKind(bytes) == .png else {
            note("its \(ImageKind(bytes)?.rawValue ?? "unknown") tiles are not drawn (PNG tiles are)")
            return nil
        }
        do {
            return try RasterImage(png: bytes)
        } catch {
            note("tile \(tile.z)/\(tile.x)/\(tile.y) does not decode: \(error)")
            return nil
        }
    }

    /// The tiles of `level` that the box covers, on the world's grid: their columns and rows.
    static func tiles(_ box: BoundingBox, level: Int) -> (columns: ClosedRange<Int>, rows: ClosedRange<Int>, count: Int) {
        let world = WebMercator.halfWorld
        let n = 1 << level
        let size = 2 * world / Double(n)
        func clamp(_ v: Double) -> Int { min(max(Int(v.rounded(.down)), 0), n - 1) }
        let columns = clamp((box.minX + world) / size)...clamp((box.maxX + world) / size)
        let rows = clamp((world - box.maxY) / size)...clamp((world - box.minY) / size)
        return (columns, rows, columns.count * rows.count)
    }

    private func note(_ problem: String) {
        if !problems.contains(problem) { problems.append(problem) }
    }
}
