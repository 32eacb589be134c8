import CCairo

/// Files Cairo writes through its stream functions, collected in memory.
///
/// The write function stays private to this file: an internal declaration whose type names a
/// C function pointer typedef makes test modules (built with `-enable-testing`) load Cairo's
/// clang module beside libxml2's, whose ICU headers then clash with Foundation's.
enum CairoStream {
    /// An image surface as a PNG file.
    ///
    /// The corresponding C function is `cairo_surface_write_to_png_stream`.
    static func png(_ surface: OpaquePointer) throws(RenderError) -> [UInt8] {
        try collect(operation: "encode PNG") { closure in cairo_surface_write_to_png_stream(surface, append, closure) }
    }

    /// A recording surface of `width` x `height` pixels replayed into an SVG document of that
    /// many px, or a PDF page of that many pixels at `dpi` (72 points an inch).
    ///
    /// The corresponding C functions are `cairo_svg_surface_create_for_stream`,
    /// `cairo_pdf_surface_create_for_stream` and `cairo_surface_finish`.
    static func vector(_ recording: OpaquePointer, format: PictureFormat, width: Int, height: Int, dpi: Double) throws(RenderError) -> [UInt8] {
        let points = 72 / (dpi > 0 && dpi.isFinite ? dpi : 96)
        return try collect(operation: "encode \(format.rawValue.uppercased())") { closure in
            let surface: OpaquePointer
            if format == .svg {
                surface = cairo_svg_surface_create_for_stream(append, closure, Double(width), Double(height))!
                cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
            } else {
                surface = cairo_pdf_surface_create_for_stream(append, closure, Double(width) * points, Double(height) * points)!
                cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "mapbook")
            }
            defer { cairo_surface_destroy(surface) }
            let context = cairo_create(surface)!
            if format == .pdf { cairo_scale(context, points, points) }
            cairo_set_source_surface(context, recording, 0, 0)
            cairo_paint(context)
            cairo_destroy(context)
            cairo_surface_finish(surface)
            return cairo_surface_status(surface)
        }
    }

    /// The bytes written while `body` runs a stream function with `append` and the closure it
    /// is given; `body` returns the final status.
    private static func collect(operation: String, _ body: (UnsafeMutableRawPointer) -> cairo_status_t) throws(RenderError) -> [UInt8] {
        var out: [UInt8] = []
        let status = withUnsafeMutablePointer(to: &out) { body($0) }
        guard status == CAIRO_STATUS_SUCCESS else {
            throw RenderError(kind: RasterImage.kind(status, else: .cairo), operation: operation, message: RasterImage.message(status))
        }
        return out
    }
}

/// Cairo's write function: appends to the `[UInt8]` its closure points to.
private let append: cairo_write_func_t = { closure, data, length in
    guard let data else { return CAIRO_STATUS_WRITE_ERROR }
    closure!.assumingMemoryBound(to: [UInt8].self).pointee.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return CAIRO_STATUS_SUCCESS
}
