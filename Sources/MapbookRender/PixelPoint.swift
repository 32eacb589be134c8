import MapbookSupport

/// A point on a canvas, in fractional pixels from the top-left corner.
///
/// Paths are clipped to a rectangle (`BoundingBox.clipLine`, `clipRing`) when a point lies far
/// outside the canvas (a zoomed-in view of a large polygon), so that such coordinates never
/// reach Cairo, whose 24.8 fixed-point coordinates overflow beyond about 8 million pixels.
struct PixelPoint: Equatable, PlanarPoint {
    var x: Double
    var y: Double

    @usableFromInline
    func interpolated(to other: PixelPoint, at t: Double) -> PixelPoint {
        PixelPoint(x: x + (other.x - x) * t, y: y + (other.y - y) * t)
    }

    /// Whether any point lies beyond `limit` pixels from the origin on either axis.
    static func exceeds(_ points: [PixelPoint], limit: Double) -> Bool {
        points.contains { abs($0.x) > limit || abs($0.y) > limit }
    }

    /// The closed or open ring `ring` clipped to `box`, open: parts outside become runs along
    /// the rectangle's edges, which do not change the filled area inside it.
    static func ring(_ ring: [PixelPoint], clippedTo box: BoundingBox) -> [PixelPoint] {
        var points = ring
        if points.count > 1, points.first == points.last { points.removeLast() }
        return box.clipRing(points)
    }
}
