/// How the tiler cuts, simplifies and limits tiles. Distances are in layer units of a tile
/// `extent` units wide; a tile is drawn 512 px wide (DESIGN 3.4), so at the default extent of
/// 4096 one screen pixel is 8 units.
public struct TilerOptions: Sendable {
    public var minZoom: Int = 0
    /// The deepest zoom; nil guesses it from the spacing of the features (`Tiler.guessMaxZoom`).
    public var maxZoom: Int?
    public var extent: Int = 4096
    /// How far beyond its edges a tile carries geometry, so strokes and labels join seamlessly:
    /// 80 units, 10 screen pixels, the same share of a tile as tippecanoe's default 5 of 256.
    public var buffer: Int = 80
    /// Douglas-Peucker tolerance in layer units: 4 is half a screen pixel.
    public var tolerance: Double = 4
    /// Points closer than this many screen pixels at a zoom are thinned there, keeping the
    /// first in source order: dense areas stay dense, sparse points all stay.
    public var pointSpacing: Double = 2
    /// The largest gzip-compressed tile; past it the tile is thinned or simplified further.
    public var maxTileBytes: Int = 500_000
    public var maxTileFeatures: Int = 200_000
    /// Worker threads; the default uses every core.
    public var threads: Int = 0
    /// The memory the tiler may use for its sorting and its batches of tiles, in bytes; more
    /// goes to temporary files. Beyond it the tiler keeps one byte a feature.
    public var memory: Int = 1 << 30
    /// Where the temporary files go (nil: `TMPDIR`, else /tmp); best on the output's disk.
    public var workDirectory: String?

    public init() {}

    /// Screen pixels per tile side.
    public static let tilePixels = 512.0

    /// Layer units per screen pixel.
    var unitsPerPixel: Double { Double(extent) / Self.tilePixels }
}
