import CCairo
import MapbookData
import MapbookPackage
import MapbookSupport

/// A map view being drawn: `width` x `height` pixels showing a world envelope, with symbols
/// drawn antialiased by Cairo, into an ARGB32 image (`PictureFormat.png`) or, for SVG and PDF,
/// into a Cairo recording surface written out as vectors: paths stay paths and text stays text.
///
/// The envelope is fitted into the image keeping its aspect ratio and centred, so one axis may
/// show more of the world than asked (`visibleExtent`). World y grows up, pixel y grows down.
/// Sizes in symbols are points and are drawn at 96 dpi (one point is 4/3 pixel).
///
/// Owns its Cairo context and surface and destroys them in `deinit`. Not thread-safe: create,
/// draw and encode a canvas in one task.
public final class MapCanvas {
    /// What the canvas is written as.
    public let format: PictureFormat
    /// The pixels drawn so far, for PNG canvases; nil for vector ones (see `raster()`).
    let image: RasterImage?
    /// The owned recording `cairo_surface_t` of a vector canvas; nil for PNG ones.
    let recording: OpaquePointer?
    /// The owned `cairo_t`, drawing into `image` or `recording`.
    let context: OpaquePointer
    /// A vector canvas's pixels, drawn from the recording when first asked for.
    private var rasterized: RasterImage?
    public let width: Int
    public let height: Int
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
    /// Simple markers drawn once and copied per point (`MapCanvas+Stamps`): each look's
    /// number, the looks, and per look and quarter-pixel position (16 slots) the stamp's index
    /// in `stampList`, -1 before it is made, -2 when it cannot be.
    var markerIndices: [MarkerKey: Int] = [:]
    var markers: [SimpleMarkerSymbol] = []
    var stampIndices: [Int32] = []
    var stampList: [Stamp] = []
    /// Stamps waiting to be composited, in drawing order.
    var queuedStamps: [QueuedStamp] = []
    /// How many `withOpacity` groups are open: stamps copied into the image would miss them.
    var groupDepth = 0
    /// Whether a caller (`MapDrawing`) draws many features before Cairo draws again, so
    /// stamps may wait in the queue between calls to `draw(_:symbol:)`.
    var batching = false

    /// World units per pixel.
    public var resolution: Double { 1 / pixelsPerUnit }
    /// The surface drawn into: the image's, or the recording.
    var surface: OpaquePointer { recording ?? image!.surface }

    /// Creates a canvas showing `extent` on `width` x `height` pixels painted with `background`.
    ///
    /// Throws when the size is not drawable or the envelope is empty, not finite, or a single
    /// point. An envelope with zero width or zero height (a vertical or horizontal line) is
    /// fitted by its other side.
    /// The corresponding C functions are `cairo_image_surface_create`,
    /// `cairo_recording_surface_create`, `cairo_create` and `cairo_paint`.
    public init(
        width: Int, height: Int, extent: BoundingBox,
        background: RGBAColor = RGBAColor(red: 255, green: 255, blue: 255), format: PictureFormat = .png
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
        let target: OpaquePointer
        if format == .png {
            image = try RasterImage(width: width, height: height)
            recording = nil
            target = image!.surface
        } else {
            try RasterImage.checkSize(width: width, height: height, operation: "create a canvas")
            var bounds = cairo_rectangle_t(x: 0, y: 0, width: Double(width), height: Double(height))
            let surface = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &bounds)!
            let status = cairo_surface_status(surface)
            guard status == CAIRO_STATUS_SUCCESS else {
                cairo_surface_destroy(surface)
                throw RenderError(kind: RasterImage.kind(status, else: .cairo), operation: "create a canvas", message: RasterImage.message(status))
            }
            image = nil
            recording = surface
            target = surface
        }
        let context = cairo_create(target)!
        let status = cairo_status(context)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_destroy(context)
            if let recording { cairo_surface_destroy(recording) }
            throw RenderError(kind: RasterImage.kind(status, else: .cairo), operation: "create a canvas", message: RasterImage.message(status))
        }
        self.format = format
        self.context = context
        self.width = width
        self.height = height
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
        if format == .png {
            cairo_paint(context)
        } else {
            // A vector page's background is one rectangle, not an unbounded paint.
            cairo_rectangle(context, 0, 0, Double(width), Double(height))
            cairo_fill(context)
        }
        cairo_restore(context)
    }

    deinit {
        cairo_destroy(context)
        if let recording { cairo_surface_destroy(recording) }
    }

    /// The pixel position of a world position, as fractional pixels from the top-left corner.
    public func pixelPosition(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x - visibleExtent.minX) * pixelsPerUnit, (visibleExtent.maxY - y) * pixelsPerUnit)
    }

    /// The colour of the pixel at column `x`, row `y` (row 0 at the top); nil outside the canvas.
    public func pixel(x: Int, y: Int) -> RGBAColor? {
        (try? raster())?.pixel(x: x, y: y)
    }

    /// The canvas as pixels: the image itself, or a vector canvas's recording drawn into one
    /// (once; drawing more afterwards is not seen).
    ///
    /// The corresponding C functions are `cairo_set_source_surface` and `cairo_paint`.
    public func raster() throws(RenderError) -> RasterImage {
        if let image {
            endDirectDrawing()
            return image
        }
        if let rasterized { return rasterized }
        let image = try RasterImage(width: width, height: height)
        let target = cairo_create(image.surface)!
        cairo_set_source_surface(target, recording!, 0, 0)
        cairo_paint(target)
        cairo_destroy(target)
        rasterized = image
        return image
    }

    /// The canvas encoded in its format. A PDF page is `width` x `height` pixels at `dpi`
    /// (72 points an inch); an SVG document is `width` x `height` px.
    ///
    public func encoded(dpi: Double = 96) throws(RenderError) -> [UInt8] {
        guard let recording else { return try raster().pngData() }
        return try CairoStream.vector(recording, format: format, width: width, height: height, dpi: dpi)
    }

    /// The canvas encoded as a PNG file, whatever its format (`patchable`: see `RasterImage.pngData`).
    public func pngData(patchable: Bool = false) throws(RenderError) -> [UInt8] {
        try raster().pngData(patchable: patchable)
    }

    /// Writes the canvas in its format at `path`, atomically (temporary file, fsync, rename).
    public func write(to path: String, dpi: Double = 96) throws(RenderError) {
        let bytes = try encoded(dpi: dpi)
        do throws(ArchiveError) {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw RenderError(kind: .file(error.kind), operation: "write", path: path, message: error.message)
        }
    }

    /// Writes the canvas (`write(to:dpi:)`) and returns what a command says of the picture
    /// of a map at 1:`scale`: "PATH: W x H at 1:SCALE".
    public func write(to path: String, dpi: Double, scale: Double) throws(RenderError) -> String {
        try write(to: path, dpi: dpi)
        return "\(path): \(width) x \(height) at 1:\(Format.scale(scale.rounded()))"
    }

    /// Runs `body`, whose drawing is composited onto the canvas at `opacity` (0 to 1) as one
    /// layer, so overlapping features of the layer do not show through each other.
    ///
    /// The corresponding C functions are `cairo_push_group`, `cairo_pop_group_to_source` and
    /// `cairo_paint_with_alpha`.
    public func withOpacity<T>(_ opacity: Double, _ body: () throws -> T) rethrows -> T {
        let alpha = opacity.isNaN ? 1 : max(0, min(1, opacity))
        guard alpha < 1 else { return try body() }
        endDirectDrawing()
        cairo_push_group(context)
        groupDepth += 1
        defer {
            groupDepth -= 1
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
