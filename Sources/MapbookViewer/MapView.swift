#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MapbookData
import MapbookSupport

/// What a map view shows: a centre and a scale in the map's spatial reference, on a picture
/// of `width` x `height` pixels at `dpi`.
///
/// A scale counts map units as Esri's tiling schemes do: one map unit per pixel is
/// 1:(dpi x 39.37) for a map in metres (Web Mercator included, whatever the latitude), and a
/// degree is 111,319.49 m for a map in longitude and latitude. So zoom level n of a Web
/// Mercator backdrop (156,543.03 m per pixel at level 0) is 1:591,657,527.59 / 2^n at 96 DPI,
/// the convention of the packages' centre-and-scale bookmarks.
public struct MapView: Sendable, Equatable {
    /// The largest picture side the viewer draws.
    public static let maximumSide = 16_384
    /// Metres in an inch as Esri's tiling schemes count them (39.37 inches a metre, the US
    /// survey inch), so that zoom level 0 is 1:591,657,527.59 at 96 DPI as the packages say.
    public static let metresPerInch = 1 / 39.37
    /// Metres per degree at the equator, as Esri's geographic tiling schemes count a degree.
    public static let metresPerDegree = 111_319.490_793_273_57

    public var center: Position
    public var scale: Double
    public var width: Int
    public var height: Int
    public var dpi: Double
    /// Metres per map unit: 1 for projected maps in metres, `metresPerDegree` for geographic.
    public var metresPerUnit: Double

    /// A view centred on `center` at `scale`; throws `invalidView` for a size past
    /// `maximumSide`, a scale that is not positive, a DPI that is not.
    public init(center: Position, scale: Double, width: Int, height: Int, dpi: Double = 96, metresPerUnit: Double = 1) throws(ViewerError) {
        try Self.check(width: width, height: height, dpi: dpi)
        guard scale.isFinite, scale > 0 else {
            throw ViewerError(kind: .invalidView, path: "", message: "a scale of \(scale) cannot be drawn; give a positive scale such as 24000 for 1:24,000")
        }
        guard center.x.isFinite, center.y.isFinite else {
            throw ViewerError(kind: .invalidView, path: "", message: "the centre (\(center.x), \(center.y)) is not on the map")
        }
        self.center = center
        self.scale = scale
        self.width = width
        self.height = height
        self.dpi = dpi
        self.metresPerUnit = metresPerUnit
    }

    /// The view that shows all of `extent` (in map units), centred on it: the scale is the
    /// larger of the two that fit its width and its height.
    public init(extent: BoundingBox, width: Int, height: Int, dpi: Double = 96, metresPerUnit: Double = 1) throws(ViewerError) {
        try Self.check(width: width, height: height, dpi: dpi)
        guard extent.minX.isFinite, extent.minY.isFinite, extent.maxX.isFinite, extent.maxY.isFinite,
            extent.maxX >= extent.minX, extent.maxY >= extent.minY, extent.maxX > extent.minX || extent.maxY > extent.minY
        else {
            throw ViewerError(kind: .invalidView, path: "", message: "(\(extent.minX), \(extent.minY), \(extent.maxX), \(extent.maxY)) is not a box: give XMIN,YMIN,XMAX,YMAX with XMIN < XMAX and YMIN < YMAX")
        }
        let resolution = max((extent.maxX - extent.minX) / Double(width), (extent.maxY - extent.minY) / Double(height))
        let scale = resolution * metresPerUnit * dpi / Self.metresPerInch
        try self.init(center: Position(x: (extent.minX + extent.maxX) / 2, y: (extent.minY + extent.maxY) / 2), scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
    }

    static func check(width: Int, height: Int, dpi: Double) throws(ViewerError) {
        guard (1...maximumSide).contains(width), (1...maximumSide).contains(height) else {
            throw ViewerError(kind: .invalidView, path: "", message: "a picture of \(width) x \(height) pixels cannot be drawn; each side must be 1 to \(maximumSide) pixels")
        }
        guard dpi.isFinite, dpi > 0, dpi <= 2400 else {
            throw ViewerError(kind: .invalidView, path: "", message: "\(dpi) DPI cannot be drawn; give 1 to 2400 (96 is a screen's)")
        }
    }

    /// Map units per pixel.
    public var resolution: Double { scale * Self.metresPerInch / dpi / metresPerUnit }

    /// The rectangle the view shows, in map units.
    public var extent: BoundingBox {
        let halfWidth = Double(width) / 2 * resolution, halfHeight = Double(height) / 2 * resolution
        return BoundingBox(minX: center.x - halfWidth, minY: center.y - halfHeight, maxX: center.x + halfWidth, maxY: center.y + halfHeight)
    }

    /// The map position under pixel (`x`, `y`), counted from the top left corner.
    public func position(pixelX x: Double, pixelY y: Double) -> Position {
        Position(x: center.x + (x - Double(width) / 2) * resolution, y: center.y - (y - Double(height) / 2) * resolution)
    }

    /// The pixel a map position falls on, from the top left corner.
    public func pixel(of p: Position) -> (x: Double, y: Double) {
        ((p.x - center.x) / resolution + Double(width) / 2, (center.y - p.y) / resolution + Double(height) / 2)
    }

    /// The zoom level of a Web Mercator tiling scheme with 256-pixel tiles at this scale
    /// (fractional): level 0 is 1:591,657,527.59 at 96 DPI.
    public var zoom: Double {
        let levelZero = 156_543.033_928_041 * dpi / Self.metresPerInch
        return log2(levelZero / scale)
    }
}

extension MapView {
    /// This view resized to fill a terminal of `cells` (less a line for the prompt), at the
    /// same centre and scale: `mapbook render --terminal` without -o. The terminal's pixels
    /// when it says them, else 8 x 16 a cell.
    public func fitted(to cells: (columns: Int, rows: Int, width: Int, height: Int)) throws(ViewerError) -> MapView {
        let rows = max(cells.rows - 1, 1)
        let width = cells.width > 0 ? cells.width : cells.columns * 8
        let height = cells.height > 0 ? cells.height * rows / cells.rows : rows * 16
        return try MapView(center: center, scale: scale, width: width, height: height, dpi: dpi, metresPerUnit: metresPerUnit)
    }
}
