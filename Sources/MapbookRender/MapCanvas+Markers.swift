import CCairo
import MapbookPackage
import MapbookSupport

// Point symbols: esriSMS shapes and esriPMS pictures, centred on the point, moved by their
// offsets (points; y up) and turned by their angle (degrees counter-clockwise from east).

extension MapCanvas {
    /// Esri's default marker size, in points.
    static let defaultMarkerSize = 8.0

    /// What a picture marker whose image cannot be decoded draws instead: a grey circle with a
    /// dark outline, so the feature stays visible.
    static func fallbackMarker(size: Double) -> SimpleMarkerSymbol {
        SimpleMarkerSymbol(
            style: "esriSMSCircle", color: RGBAColor(red: 128, green: 128, blue: 128), size: size,
            outline: SimpleLineSymbol(color: RGBAColor(red: 64, green: 64, blue: 64), width: 0.75))
    }

    /// Moves the origin to the marker's anchor and turns the axes by its angle.
    ///
    /// The corresponding C functions are `cairo_translate` and `cairo_rotate`.
    private func placeMarker(at point: PixelPoint, xoffset: Double?, yoffset: Double?, angle: Double?) {
        let dx = (xoffset ?? 0).finiteOrZero * Self.pixelsPerPoint
        let dy = (yoffset ?? 0).finiteOrZero * Self.pixelsPerPoint
        cairo_translate(context, point.x + dx, point.y - dy)
        let degrees = (angle ?? 0).finiteOrZero
        if degrees != 0 { cairo_rotate(context, -degrees * Double.pi / 180) }
    }

    /// Draws an `esriSMS` marker centred on `point`.
    func drawMarker(_ marker: SimpleMarkerSymbol, at point: PixelPoint) {
        let sizePoints = marker.size ?? Self.defaultMarkerSize
        guard sizePoints.isFinite, sizePoints > 0 else { return }
        let size = sizePoints * Self.pixelsPerPoint
        let r = size / 2
        cairo_save(context)
        defer { cairo_restore(context) }
        cairo_new_path(context)
        placeMarker(at: point, xoffset: marker.xoffset, yoffset: marker.yoffset, angle: marker.angle)

        switch marker.style ?? "esriSMSCircle" {
        case "esriSMSCross", "esriSMSX":
            if marker.style == "esriSMSCross" {
                cairo_move_to(context, -r, 0)
                cairo_line_to(context, r, 0)
                cairo_move_to(context, 0, -r)
                cairo_line_to(context, 0, r)
            } else {
                cairo_move_to(context, -r, -r)
                cairo_line_to(context, r, r)
                cairo_move_to(context, -r, r)
                cairo_line_to(context, r, -r)
            }
            // A cross or an x has no inside: it is drawn with its outline, or with its colour
            // when the outline draws nothing.
            if let outline = marker.outline, Self.strokeWidth(outline) != nil, (outline.color?.alpha ?? 0) > 0 {
                stroke(outline)
            } else if let color = marker.color {
                stroke(SimpleLineSymbol(color: color, width: max(0.75, sizePoints / 8)))
            }
            return
        case "esriSMSSquare":
            cairo_rectangle(context, -r, -r, size, size)
        case "esriSMSDiamond":
            cairo_move_to(context, 0, -r)
            cairo_line_to(context, r, 0)
            cairo_line_to(context, 0, r)
            cairo_line_to(context, -r, 0)
            cairo_close_path(context)
        case "esriSMSTriangle":
            cairo_move_to(context, 0, -r)
            cairo_line_to(context, r, r)
            cairo_line_to(context, -r, r)
            cairo_close_path(context)
        default:
            // esriSMSCircle, and styles this module does not know.
            cairo_arc(context, 0, 0, r, 0, 2 * Double.pi)
            cairo_close_path(context)
        }
        if let color = marker.color, color.alpha > 0 {
            setSource(color)
            if marker.outline != nil { cairo_fill_preserve(context) } else { cairo_fill(context) }
        }
        if let outline = marker.outline { stroke(outline) }
        cairo_new_path(context)
    }

    /// Draws an `esriPMS` marker centred on `point`, scaled to its width and height in points
    /// (the image's own size in pixels when they are absent).
    ///
    /// A picture that cannot be decoded (not a PNG, damaged, only a `url`) draws
    /// `fallbackMarker` and records a warning.
    /// The corresponding C functions are `cairo_clip`, `cairo_set_source_surface` and `cairo_paint`.
    func drawPicture(_ symbol: PictureMarkerSymbol, at point: PixelPoint) {
        let widthPoints = symbol.width.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        let heightPoints = symbol.height.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
        guard let picture = pictureImage(symbol) else {
            let size = [widthPoints, heightPoints].compactMap { $0 }.min() ?? Self.defaultMarkerSize
            var fallback = Self.fallbackMarker(size: min(size, 64))
            fallback.xoffset = symbol.xoffset
            fallback.yoffset = symbol.yoffset
            drawMarker(fallback, at: point)
            return
        }
        let imageWidth = Double(picture.width)
        let imageHeight = Double(picture.height)
        let width = widthPoints.map { $0 * Self.pixelsPerPoint } ?? imageWidth
        let height = heightPoints.map { $0 * Self.pixelsPerPoint } ?? imageHeight
        cairo_save(context)
        defer { cairo_restore(context) }
        placeMarker(at: point, xoffset: symbol.xoffset, yoffset: symbol.yoffset, angle: symbol.angle)
        cairo_scale(context, width / imageWidth, height / imageHeight)
        // Padding the image and clipping to its rectangle keeps the edges of an enlarged
        // picture sharp, where filtering against the transparent outside would blur them.
        cairo_rectangle(context, -imageWidth / 2, -imageHeight / 2, imageWidth, imageHeight)
        cairo_clip(context)
        cairo_set_source_surface(context, picture.surface, -imageWidth / 2, -imageHeight / 2)
        cairo_pattern_set_filter(cairo_get_source(context), CAIRO_FILTER_GOOD)
        cairo_pattern_set_extend(cairo_get_source(context), CAIRO_EXTEND_PAD)
        cairo_paint(context)
    }

    /// The decoded image of a picture marker, decoded once per canvas; nil when it cannot be.
    func pictureImage(_ symbol: PictureMarkerSymbol) -> RasterImage? {
        let key = symbol.imageData ?? symbol.url ?? ""
        if let cached = pictures[key] { return cached }
        var image: RasterImage?
        // `imageData` is plain base64; some writers put a data: URI there or in `url`.
        let bytes = symbol.imageData.flatMap { DataURI.decode($0) ?? Base64.decode($0) } ?? symbol.url.flatMap(DataURI.decode)
        if let bytes {
            do throws(RenderError) {
                image = try RasterImage(png: bytes)
            } catch {
                warn("a picture marker's image cannot be drawn (\(error.message)); a grey circle is drawn instead")
            }
        } else {
            warn("a picture marker has no embedded image (url '\(symbol.url ?? "")' is not fetched); a grey circle is drawn instead")
        }
        pictures[key] = .some(image)
        return image
    }
}

extension Double {
    var finiteOrZero: Double { isFinite ? self : 0 }
}
