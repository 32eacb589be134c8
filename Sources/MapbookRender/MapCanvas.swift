import CCairo
import MapbookData
import MapbookPackage

/// A map view being drawn: an ARGB32 image of `width` x `height` pixels showing a world
/// envelope, with symbols drawn antialiased by Cairo.
///
/// The envelope is fitted into the image keeping its aspect ratio and centred, so one axis may
/// show more of the world than asked (`visibleExtent`). World y grows up, pixel y grows down.
/// Sizes in symbols are points and are drawn at 96 dpi (one point is 4/3 pixel).
///
/// Owns its Cairo context and image surface and destroys them in `deinit`. Not thread-safe:
/// create, draw and encode a canvas in one task.
public final class MapCanvas {
    /// The pixels drawn so far.
    public let image: RasterImage
    /// The owned `cairo_t`, drawing into `image`.
    let context: OpaquePointer
    /// The envelope asked for.
    public let extent: BoundingBox
    /// The envelope the pixels cover: `extent` grown on one axis to the image's aspect ratio.
    public let visibleExtent: BoundingBox
    /// Pixels per world unit.
    public let pixelsPerUnit: Double
    public let background: RGBAColor
    /// What could not be drawn as asked (an undecodable picture marker, a symbol type this
    /// module does not draw), each message once, in the order first met.
    public private(set) var warnings: [String] = []
    /// Picture marker images by their `imageData` (or `url`), decoded once; nil when undecodable.
    var pictures: [String: RasterImage?] = [:]

    public var width: Int { image.width }
    public var height: Int { image.height }
    /// World units per pixel.
    public var resolution: Double { 1 / pixelsPerUnit }

    /// Creates a canvas showing `extent` on `width` x `height` pixels painted with `background`.
    ///
    /// Throws when the size is not drawable or the envelope is empty, not finite, or a single
    /// point. An envelope with zero width or zero height (a vertical or horizontal line) is
    /// fitted by its other side.
    /// The corresponding C functions are `cairo_image_surface_create`, `cairo_create` and `cairo_paint`.
    public init(
        width: Int, height: Int, extent: BoundingBox,
        background: RGBAColor = RGBAColor(red: 255, green: 255, blue: 255)
    ) throws(RenderError) {
        let corners = [extent.minX, extent.minY, extent.maxX, extent.maxY]
        guard corners.allSatisfy(\.isFinite), !extent.isEmpty else {
            throw RenderError(
                kind: .invalidExtent, operation: "create a canvas",
                message: "the extent [\(extent.minX), \(extent.minY), \(extent.maxX), \(extent.maxY)] is empty or not finite; give xmin <= xmax and ymin <= ymax")
        }
        guard extent.width > 0 || extent.height > 0 else {
            throw RenderError(
                kind: .invalidExtent, operation: "create a canvas",
                message: "the extent is the single point (\(extent.minX), \(extent.minY)); give an extent with a width or a height")
        }
        let image = try RasterImage(width: width, height: height)
        let context = cairo_create(image.surface)!
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(context)
            throw RenderError(kind: RasterImage.kind(status, else: .cairo), operation: "create a canvas", message: RasterImage.message(status))
        }
        self.image = image
        self.context = context
        self.extent = extent
        self.background = background

        let scaleX = extent.width > 0 ? Double(width) / extent.width : .infinity
        let scaleY = extent.height > 0 ? Double(height) / extent.height : .infinity
        pixelsPerUnit = min(scaleX, scaleY)
        let halfWidth = Double(width) / pixelsPerUnit / 2
        let halfHeight = Double(height) / pixelsPerUnit / 2
        let centreX = extent.minX + extent.width / 2
        let centreY = extent.minY + extent.height / 2
        visibleExtent = BoundingBox(
            minX: centreX - halfWidth, minY: centreY - halfHeight, maxX: centreX + halfWidth, maxY: centreY + halfHeight)

        cairo_save(context)
        cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
        setSource(background)
        cairo_paint(context)
        cairo_restore(context)
    }

    deinit {
        cairo_destroy(context)
    }

    /// The pixel position of a world position, as fractional pixels from the top-left corner.
    public func pixelPosition(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x - visibleExtent.minX) * pixelsPerUnit, (visibleExtent.maxY - y) * pixelsPerUnit)
    }

    /// The colour of the pixel at column `x`, row `y` (row 0 at the top); nil outside the canvas.
    public func pixel(x: Int, y: Int) -> RGBAColor? {
        image.pixel(x: x, y: y)
    }

    /// The canvas encoded as a PNG file.
    ///
    /// The corresponding C function is `cairo_surface_write_to_png_stream`.
    public func pngData() throws(RenderError) -> [UInt8] {
        try image.pngData()
    }

    /// Writes the canvas as a PNG file at `path`, atomically (temporary file, fsync, rename).
    public func write(to path: String) throws(RenderError) {
        try image.write(to: path)
    }

    /// Runs `body`, whose drawing is composited onto the canvas at `opacity` (0 to 1) as one
    /// layer, so overlapping features of the layer do not show through each other.
    ///
    /// The corresponding C functions are `cairo_push_group`, `cairo_pop_group_to_source` and
    /// `cairo_paint_with_alpha`.
    public func withOpacity<T>(_ opacity: Double, _ body: () throws -> T) rethrows -> T {
        let alpha = opacity.isNaN ? 1 : max(0, min(1, opacity))
        guard alpha < 1 else { return try body() }
        cairo_push_group(context)
        defer {
            cairo_pop_group_to_source(context)
            cairo_paint_with_alpha(context, alpha)
        }
        return try body()
    }

    /// Records a warning once.
    func warn(_ message: String) {
        if !warnings.contains(message) { warnings.append(message) }
    }

    /// Sets the source to a colour given as 0-255 channels.
    ///
    /// The corresponding C function is `cairo_set_source_rgba`.
    func setSource(_ color: RGBAColor) {
        func unit(_ v: Int) -> Double { Double(max(0, min(255, v))) / 255 }
        cairo_set_source_rgba(context, unit(color.red), unit(color.green), unit(color.blue), unit(color.alpha))
    }
}

@available(*, unavailable)
extension MapCanvas: Sendable {}
