import CCairo
import MapbookPackage
import MapbookSupport

// Simple markers on a PNG canvas are stamped: each marker (symbol and position within a pixel,
// to a quarter pixel) is drawn once by Cairo into a small image, then copied for every point
// that uses it. Copies wait in a queue and are composited front to back (the last point first,
// each under what is already there), so a pixel that later markers already cover is passed
// over: a million overlapping markers cost about what the pixels they show cost, not a million
// Cairo paths (docs/PERFORMANCE.md, "The viewer"). The result is the same as drawing them in
// order, "over" being associative. SVG and PDF canvases keep drawing paths: their markers
// stay vectors.

/// A marker drawn once: its image, where the point falls in it, and the part of it that is
/// not transparent as premultiplied ARGB32 words, which is what is copied per point.
final class Stamp {
    let image: RasterImage
    /// The pixel of the image the point's whole pixel maps to.
    let originX: Int
    let originY: Int
    /// The box of pixels that are not transparent: its top left in the image and its size.
    let left: Int, top: Int, width: Int, height: Int
    /// That box's words, row by row.
    let words: [UInt32]

    init(image: RasterImage, originX: Int, originY: Int) {
        self.image = image
        self.originX = originX
        self.originY = originY
        cairo_surface_flush(image.surface)
        let data = cairo_image_surface_get_data(image.surface)!
        let rowBytes = Int(cairo_image_surface_get_stride(image.surface))
        func word(_ x: Int, _ y: Int) -> UInt32 { UnsafeRawPointer(data + y * rowBytes + x * 4).loadUnaligned(as: UInt32.self) }
        var minX = image.width, minY = image.height, maxX = -1, maxY = -1
        for y in 0..<image.height {
            for x in 0..<image.width where word(x, y) >> 24 != 0 {
                minX = min(minX, x); maxX = max(maxX, x)
                minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        if maxX < 0 { (minX, minY, maxX, maxY) = (0, 0, -1, -1) }
        left = minX
        top = minY
        width = maxX - minX + 1
        height = maxY - minY + 1
        var words: [UInt32] = []
        words.reserveCapacity(max(0, width * height))
        for y in stride(from: minY, through: maxY, by: 1) {
            for x in stride(from: minX, through: maxX, by: 1) { words.append(word(x, y)) }
        }
        self.words = words
    }
}

/// What makes two markers look the same, packed into numbers so that finding a point's stamp
/// hashes no text.
struct MarkerKey: Hashable {
    var style: Int
    var color: UInt32
    var outlineColor: UInt32
    var outlineStyle: Int
    var size: UInt64
    var angle: UInt64
    var xoffset: UInt64
    var yoffset: UInt64
    var outlineWidth: UInt64

    init(_ marker: SimpleMarkerSymbol) {
        func code(_ style: String?) -> Int {
            guard let style else { return -1 }
            switch style {
            case "esriSMSCircle", "esriSLSSolid": return 0
            case "esriSMSSquare", "esriSLSDash": return 1
            case "esriSMSDiamond", "esriSLSDot": return 2
            case "esriSMSTriangle", "esriSLSDashDot": return 3
            case "esriSMSCross", "esriSLSDashDotDot": return 4
            case "esriSMSX", "esriSLSNull": return 5
            default: return 6 &+ style.hashValue
            }
        }
        func packed(_ c: RGBAColor?) -> UInt32 {
            guard let c else { return 0xFFFF_FFFF }
            return UInt32(truncatingIfNeeded: c.red & 0xFF) << 24 | UInt32(truncatingIfNeeded: c.green & 0xFF) << 16
                | UInt32(truncatingIfNeeded: c.blue & 0xFF) << 8 | UInt32(truncatingIfNeeded: c.alpha & 0xFF)
        }
        func bits(_ d: Double?) -> UInt64 { d.map(\.bitPattern) ?? UInt64.max }
        style = code(marker.style)
        color = packed(marker.color)
        outlineColor = packed(marker.outline?.color)
        outlineStyle = marker.outline == nil ? -2 : code(marker.outline?.style)
        size = bits(marker.size)
        angle = bits(marker.angle)
        xoffset = bits(marker.xoffset)
        yoffset = bits(marker.yoffset)
        outlineWidth = bits(marker.outline?.width)
    }
}

extension MapCanvas {
    /// The most stamps a canvas keeps (markers sized per feature by a visual variable make
    /// many); past it, markers are drawn as paths.
    static let maximumStamps = 4096

    /// The number of `marker`'s look on this canvas, the same for markers that look the same;
    /// nil past `maximumStamps` / 16 looks.
    func markerIndex(_ marker: SimpleMarkerSymbol) -> Int? {
        let key = MarkerKey(marker)
        if let known = markerIndices[key] { return known }
        guard markers.count < Self.maximumStamps / 16 else { return nil }
        markers.append(marker)
        markerIndices[key] = markers.count - 1
        stampIndices += [Int32](repeating: -1, count: 16)
        return markers.count - 1
    }

    /// Draws marker number `index` (`markerIndex`) at `point` from its stamp; false when it
    /// cannot be stamped here (a vector canvas, a marker too large to gain from it), for the
    /// caller to draw the path.
    func stampMarker(_ index: Int, at point: PixelPoint) -> Bool {
        guard image != nil, point.x.isFinite, point.y.isFinite, abs(point.x) < 1e9, abs(point.y) < 1e9 else { return false }
        var whole = (x: Int(point.x.rounded(.down)), y: Int(point.y.rounded(.down)))
        var quarter = (x: Int(((point.x - Double(whole.x)) * 4).rounded()), y: Int(((point.y - Double(whole.y)) * 4).rounded()))
        if quarter.x == 4 { whole.x += 1; quarter.x = 0 }
        if quarter.y == 4 { whole.y += 1; quarter.y = 0 }
        let slot = index * 16 + quarter.x * 4 + quarter.y
        var stampIndex = Int(stampIndices[slot])
        if stampIndex == -2 { return false }
        if stampIndex == -1 {
            guard let made = makeStamp(markers[index], quarterX: quarter.x, quarterY: quarter.y) else {
                stampIndices[slot] = -2
                return false
            }
            stampList.append(made)
            stampIndex = stampList.count - 1
            stampIndices[slot] = Int32(stampIndex)
        }
        let stamp = stampList[stampIndex]
        let left = whole.x - stamp.originX, top = whole.y - stamp.originY
        if groupDepth > 0 {
            // Inside a layer drawn at an opacity, Cairo draws into the group, not the image.
            cairo_save(context)
            cairo_set_source_surface(context, stamp.image.surface, Double(left), Double(top))
            cairo_rectangle(context, Double(left), Double(top), Double(stamp.image.width), Double(stamp.image.height))
            cairo_fill(context)
            cairo_restore(context)
            return true
        }
        let x = left + stamp.left, y = top + stamp.top
        // Off the canvas altogether: nothing to queue.
        guard x < width, y < height, x + stamp.width > 0, y + stamp.height > 0, stamp.width > 0 else { return true }
        queuedStamps.append(QueuedStamp(x: Int32(x), y: Int32(y), stamp: Int32(stampIndex)))
        return true
    }

    /// The stamp of `marker` drawn a quarter-pixel offset into its centre pixel; nil for a
    /// marker whose size is not finite and positive or larger than 64 points.
    private func makeStamp(_ marker: SimpleMarkerSymbol, quarterX: Int, quarterY: Int) -> Stamp? {
        let sizePoints = marker.size ?? Self.defaultMarkerSize
        guard sizePoints.isFinite, sizePoints > 0, sizePoints <= 64 else { return nil }
        let outline = (marker.outline?.width ?? 0).finiteOrZero
        let offset = max(abs((marker.xoffset ?? 0).finiteOrZero), abs((marker.yoffset ?? 0).finiteOrZero)) * Self.pixelsPerPoint
        // A turned square reaches √2 times its half side; outlines and antialiasing a little more.
        let reach = (sizePoints / 2 * 1.415 + outline) * Self.pixelsPerPoint + offset + 2
        let half = Int(reach.rounded(.up))
        let side = 2 * half + 1
        guard let canvas = try? MapCanvas(
            width: side, height: side, extent: BoundingBox(minX: 0, minY: 0, maxX: Double(side), maxY: Double(side)),
            background: RGBAColor(red: 0, green: 0, blue: 0, alpha: 0))
        else { return nil }
        canvas.drawMarker(marker, at: PixelPoint(x: Double(half) + Double(quarterX) / 4, y: Double(half) + Double(quarterY) / 4))
        return Stamp(image: canvas.image!, originX: half, originY: half)
    }

    /// Composites the queued stamps onto the image and empties the queue: the last queued
    /// first, each under the layer built so far (pixels already opaque are passed over), then
    /// that layer over the image. Cairo is flushed before and told of the change after.
    ///
    /// The corresponding C functions are `cairo_surface_flush` and `cairo_surface_mark_dirty`.
    public func endDirectDrawing() {
        guard !queuedStamps.isEmpty, let image, let data = cairo_image_surface_get_data(image.surface) else {
            queuedStamps.removeAll(keepingCapacity: true)
            return
        }
        cairo_surface_flush(image.surface)
        let w = image.width, h = image.height
        let rowBytes = Int(cairo_image_surface_get_stride(image.surface))
        // A few stamps (a layer mixing stamped and drawn markers flushes often) go straight
        // over the image, in order; the layer pays off for many.
        if queuedStamps.count <= 256 {
            for queued in queuedStamps {
                let stamp = stampList[Int(queued.stamp)]
                let left = Int(queued.x), top = Int(queued.y)
                guard let (x0, y0, x1, y1) = Self.visible(stamp, left: left, top: top, width: w, height: h) else { continue }
                stamp.words.withUnsafeBufferPointer { source in
                    for y in y0..<y1 {
                        let row = UnsafeMutableRawPointer(data + (top + y) * rowBytes + left * 4).assumingMemoryBound(to: UInt32.self)
                        for x in x0..<x1 { row[x] = Self.over(source[y * stamp.width + x], row[x]) }
                    }
                }
            }
            queuedStamps.removeAll(keepingCapacity: true)
            cairo_surface_mark_dirty(image.surface)
            return
        }
        var layer = [UInt32](repeating: 0, count: w * h)
        // Per 8 x 8 block, how many of its pixels are opaque: a stamp whose blocks are all
        // opaque is hidden and passed over without reading its pixels.
        let blocksWide = (w + 7) / 8
        var opaque = [UInt8](repeating: 0, count: blocksWide * ((h + 7) / 8))
        var minRow = h, maxRow = -1
        layer.withUnsafeMutableBufferPointer { layer in
            opaque.withUnsafeMutableBufferPointer { opaque in
                for queued in queuedStamps.reversed() {
                    let stamp = stampList[Int(queued.stamp)]
                    let left = Int(queued.x), top = Int(queued.y)
                    guard let (x0, y0, x1, y1) = Self.visible(stamp, left: left, top: top, width: w, height: h) else { continue }
                    var hidden = true
                    blocks: for by in (top + y0) / 8...(top + y1 - 1) / 8 {
                        for bx in (left + x0) / 8...(left + x1 - 1) / 8 where opaque[by * blocksWide + bx] < 64 {
                            hidden = false
                            break blocks
                        }
                    }
                    if hidden { continue }
                    minRow = min(minRow, top + y0)
                    maxRow = max(maxRow, top + y1 - 1)
                    stamp.words.withUnsafeBufferPointer { source in
                        for y in y0..<y1 {
                            let row = (top + y) * w + left
                            let from = y * stamp.width
                            let blockRow = (top + y) / 8 * blocksWide
                            for x in x0..<x1 {
                                let d = layer[row + x]
                                let covered = d >> 24
                                if covered == 255 { continue }
                                let s = source[from + x]
                                if s >> 24 == 0 { continue }
                                // Under: what is there stays, the stamp shows through what it lacks.
                                let result = covered == 0 ? s : d &+ Self.scale(s, by: 255 - covered)
                                layer[row + x] = result
                                if result >> 24 == 255 { opaque[blockRow + (left + x) / 8] += 1 }
                            }
                        }
                    }
                }
            }
        }
        queuedStamps.removeAll(keepingCapacity: true)
        guard minRow <= maxRow else { return }
        layer.withUnsafeBufferPointer { layer in
            for y in minRow...maxRow {
                let row = UnsafeMutableRawPointer(data + y * rowBytes).assumingMemoryBound(to: UInt32.self)
                for x in 0..<w { row[x] = Self.over(layer[y * w + x], row[x]) }
            }
        }
        cairo_surface_mark_dirty(image.surface)
    }

    /// The part of a stamp whose box's top left is at (`left`, `top`) that falls on a
    /// `width` x `height` image, as the stamp's columns and rows `x0..<x1`, `y0..<y1`; nil
    /// when none does.
    static func visible(_ stamp: Stamp, left: Int, top: Int, width: Int, height: Int) -> (Int, Int, Int, Int)? {
        let x0 = max(0, -left), y0 = max(0, -top)
        let x1 = min(stamp.width, width - left), y1 = min(stamp.height, height - top)
        return x0 < x1 && y0 < y1 ? (x0, y0, x1, y1) : nil
    }

    /// Porter-Duff "over" of two premultiplied ARGB32 words: `source` on `destination`.
    @inline(__always)
    static func over(_ source: UInt32, _ destination: UInt32) -> UInt32 {
        let alpha = source >> 24
        if alpha == 0 { return destination }
        return alpha == 255 ? source : source &+ scale(destination, by: 255 - alpha)
    }

    /// A premultiplied ARGB32 word with each channel times `factor` / 255, rounded as Cairo
    /// rounds: two channels at a time, (c * factor + 128) / 255.
    @inline(__always)
    static func scale(_ word: UInt32, by factor: UInt32) -> UInt32 {
        var rb = (word & 0x00FF_00FF) &* factor &+ 0x0080_0080
        rb = ((rb &+ ((rb >> 8) & 0x00FF_00FF)) >> 8) & 0x00FF_00FF
        var ag = ((word >> 8) & 0x00FF_00FF) &* factor &+ 0x0080_0080
        ag = (ag &+ ((ag >> 8) & 0x00FF_00FF)) & 0xFF00_FF00
        return rb | ag
    }
}

/// A stamp waiting to be composited: where its box's top left goes, and which stamp.
struct QueuedStamp {
    var x: Int32
    var y: Int32
    var stamp: Int32
}
