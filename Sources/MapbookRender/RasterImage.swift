import CCairo
import MapbookPackage
import MapbookSupport

/// An image held in memory as a Cairo ARGB32 image surface: a canvas's pixels or a decoded PNG.
///
/// Owns its surface and destroys it in `deinit`. Not thread-safe: use an image from one task.
public final class RasterImage {
    /// The owned `cairo_surface_t`.
    let surface: OpaquePointer
    public let width: Int
    public let height: Int

    /// The largest width or height `init(png:)` accepts, so an untrusted package cannot make a
    /// tiny PNG claim gigabytes of pixels.
    public static let maximumPNGDimension = 8192

    /// Creates a transparent image of `width` x `height` pixels.
    ///
    /// The corresponding C function is `cairo_image_surface_create`.
    public init(width: Int, height: Int) throws(RenderError) {
        try Self.checkSize(width: width, height: height, operation: "create an image")
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw RenderError(kind: Self.kind(status, else: .cairo), operation: "create an image", message: Self.message(status))
        }
        self.surface = surface
        self.width = width
        self.height = height
    }

    /// Throws unless `width` x `height` is a size Cairo draws: 1 to 32767 pixels a side (its
    /// image surfaces' limit).
    static func checkSize(width: Int, height: Int, operation: String) throws(RenderError) {
        guard width > 0, height > 0, width <= 32767, height <= 32767 else {
            throw RenderError(
                kind: .invalidSize, operation: operation,
                message: "\(width) x \(height) pixels is not a drawable size (each side must be 1 to 32767)")
        }
    }

    /// Decodes a PNG file's bytes.
    ///
    /// Refuses images wider or taller than `maximumDimension` before decoding them.
    /// The corresponding C function is `cairo_image_surface_create_from_png_stream`.
    public init(png bytes: [UInt8], maximumDimension: Int = RasterImage.maximumPNGDimension) throws(RenderError) {
        guard ImageKind(bytes) == .png else {
            throw RenderError(kind: .notAPNG, operation: "decode PNG", message: "the data does not start with the PNG signature")
        }
        // The IHDR chunk comes first (PNG spec 5.6): length, "IHDR", then big-endian width, height.
        guard bytes.count >= 24 else {
            throw RenderError(kind: .damagedPNG, operation: "decode PNG", message: "the data ends inside the PNG header (\(bytes.count) bytes)")
        }
        func bigEndian(_ at: Int) -> Int {
            bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let (w, h) = (bigEndian(16), bigEndian(20))
        guard w <= maximumDimension, h <= maximumDimension else {
            throw RenderError(
                kind: .imageTooLarge, operation: "decode PNG",
                message: "the image is \(w) x \(h) pixels, larger than the \(maximumDimension) allowed a side")
        }
        var source = PNGSource(bytes: bytes, offset: 0)
        let surface = withUnsafeMutablePointer(to: &source) { state in
            cairo_image_surface_create_from_png_stream(
                { closure, data, length in
                    let source = closure!.assumingMemoryBound(to: PNGSource.self)
                    let count = Int(length)
                    guard let data, source.pointee.bytes.count - source.pointee.offset >= count else {
                        return CAIRO_STATUS_READ_ERROR
                    }
                    source.pointee.bytes.withUnsafeBufferPointer { all in
                        data.update(from: all.baseAddress! + source.pointee.offset, count: count)
                    }
                    source.pointee.offset += count
                    return CAIRO_STATUS_SUCCESS
                }, state)
        }!
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw RenderError(kind: Self.kind(status, else: .damagedPNG), operation: "decode PNG", message: Self.message(status))
        }
        self.surface = try Self.argb32(surface)
        self.width = Int(cairo_image_surface_get_width(self.surface))
        self.height = Int(cairo_image_surface_get_height(self.surface))
    }

    /// `surface` itself when it is ARGB32, else an ARGB32 copy of it (Cairo decodes opaque
    /// PNGs as RGB24, and newer Cairo 16-bit PNGs as floating point), so `pixel` reads one
    /// layout. Takes ownership of `surface`.
    ///
    /// The corresponding C functions are `cairo_image_surface_create`, `cairo_set_source_surface`
    /// and `cairo_paint`.
    private static func argb32(_ surface: OpaquePointer) throws(RenderError) -> OpaquePointer {
        guard cairo_image_surface_get_format(surface) != CAIRO_FORMAT_ARGB32 else { return surface }
        defer { cairo_surface_destroy(surface) }
        let copy = cairo_image_surface_create(
            CAIRO_FORMAT_ARGB32, cairo_image_surface_get_width(surface), cairo_image_surface_get_height(surface))!
        let context = cairo_create(copy)!
        cairo_set_operator(context, CAIRO_OPERATOR_SOURCE)
        cairo_set_source_surface(context, surface, 0, 0)
        cairo_paint(context)
        cairo_destroy(context)
        let status = cairo_surface_status(copy)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(copy)
            throw RenderError(kind: Self.kind(status, else: .damagedPNG), operation: "decode PNG", message: Self.message(status))
        }
        return copy
    }

    deinit {
        cairo_surface_destroy(surface)
    }

    /// The colour of the pixel at column `x`, row `y` (row 0 at the top), un-premultiplied;
    /// nil outside the image.
    ///
    /// The corresponding C functions are `cairo_surface_flush` and `cairo_image_surface_get_data`.
    public func pixel(x: Int, y: Int) -> RGBAColor? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        // CAIRO_FORMAT_ARGB32 is a native-endian 32-bit word per pixel, colour premultiplied by alpha.
        let word = UnsafeRawPointer(data + y * stride + x * 4).loadUnaligned(as: UInt32.self)
        let a = Int(word >> 24 & 0xFF)
        guard a > 0 else { return RGBAColor(red: 0, green: 0, blue: 0, alpha: 0) }
        func channel(_ shift: UInt32) -> Int {
            let premultiplied = Int(word >> shift & 0xFF)
            return min(255, (premultiplied * 255 + a / 2) / a)
        }
        return RGBAColor(red: channel(16), green: channel(8), blue: channel(0), alpha: a)
    }

    /// The image encoded as a PNG file; `patchable` for an image a package carries, whose
    /// next version's patch then holds only the changed rows (`PNGEncoder.deflatedByRows`).
    ///
    /// Written by `PNGEncoder` (Cairo's libpng writer only when the pixels cannot be reached).
    public func pngData(patchable: Bool = false) throws(RenderError) -> [UInt8] {
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return try CairoStream.png(surface) }
        return PNGEncoder.encode(data, width: width, height: height, stride: Int(cairo_image_surface_get_stride(surface)), patchable: patchable)
    }

    /// Writes the image as a PNG file at `path`, atomically: a temporary file beside it is
    /// written, flushed and renamed, so `path` never holds a partial image.
    public func write(to path: String) throws(RenderError) {
        let bytes = try pngData()
        do throws(ArchiveError) {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw RenderError(kind: .file(error.kind), operation: "write", path: path, message: error.message)
        }
    }

    /// Cairo's text for a status.
    ///
    /// The corresponding C function is `cairo_status_to_string`.
    static func message(_ status: cairo_status_t) -> String {
        String(cString: cairo_status_to_string(status))
    }

    /// The kind of a failed Cairo status: out of memory, or `otherwise`.
    static func kind(_ status: cairo_status_t, else otherwise: RenderError.Kind) -> RenderError.Kind {
        status == CAIRO_STATUS_NO_MEMORY ? .outOfMemory : otherwise
    }
}

/// The bytes a PNG is decoded from and how far Cairo has read.
private struct PNGSource {
    var bytes: [UInt8]
    var offset: Int
}

@available(*, unavailable)
extension RasterImage: Sendable {}
