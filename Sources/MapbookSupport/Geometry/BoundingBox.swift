/// A plain axis-aligned rectangle with no spatial reference attached: a package or layer
/// extent, a geometry's envelope, a query window, a canvas's view.
///
/// `isEmpty` means no point is included (`minX > maxX` or `minY > maxY`, as in `empty`); a
/// single point or a line still includes points. Ask `hasArea` for a rectangle with a positive
/// width and height. `description` is `[minX, minY, maxX, maxY]` as JSON numbers.
public struct BoundingBox: Sendable, Hashable, CustomStringConvertible {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// The box that includes no point; `include` grows it.
    public static let empty = BoundingBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    /// True when no point is included: a minimum above its maximum.
    public var isEmpty: Bool { minX > maxX || minY > maxY }
    /// True when the width and the height are both positive (false for a point, a line, an
    /// inverted box or a NaN corner).
    public var hasArea: Bool { maxX > minX && maxY > minY }
    public var width: Double { maxX - minX }
    public var height: Double { maxY - minY }
    public var center: (x: Double, y: Double) { ((minX + maxX) / 2, (minY + maxY) / 2) }

    public mutating func include(x: Double, y: Double) {
        if x < minX { minX = x }
        if x > maxX { maxX = x }
        if y < minY { minY = y }
        if y > maxY { maxY = y }
    }

    /// Grows this box to include `other`; an empty `other` changes nothing.
    public mutating func include(_ other: BoundingBox) {
        guard !other.isEmpty else { return }
        include(x: other.minX, y: other.minY)
        include(x: other.maxX, y: other.maxY)
    }

    /// The smallest box holding the corners of both, taken as they are (an inverted or empty
    /// box is not skipped, unlike `include`).
    public func union(_ other: BoundingBox) -> BoundingBox {
        BoundingBox(
            minX: min(minX, other.minX), minY: min(minY, other.minY),
            maxX: max(maxX, other.maxX), maxY: max(maxY, other.maxY))
    }

    public func intersects(_ other: BoundingBox) -> Bool {
        !(other.minX > maxX || other.maxX < minX || other.minY > maxY || other.maxY < minY)
    }

    /// Whether the insides of the two boxes overlap: boxes that only touch along an edge or
    /// at a corner do not (unlike `intersects`).
    public func overlaps(_ other: BoundingBox) -> Bool {
        minX < other.maxX && other.minX < maxX && minY < other.maxY && other.minY < maxY
    }

    /// The box grown by `margin` on every side (shrunk for a negative margin).
    public func padded(by margin: Double) -> BoundingBox {
        BoundingBox(minX: minX - margin, minY: minY - margin, maxX: maxX + margin, maxY: maxY + margin)
    }

    public func contains(_ other: BoundingBox) -> Bool {
        other.minX >= minX && other.maxX <= maxX && other.minY >= minY && other.maxY <= maxY
    }

    public func contains(x: Double, y: Double) -> Bool {
        x >= minX && x <= maxX && y >= minY && y <= maxY
    }

    public var description: String {
        "[\(JSONWriter.formatNumber(minX)), \(JSONWriter.formatNumber(minY)), \(JSONWriter.formatNumber(maxX)), \(JSONWriter.formatNumber(maxY))]"
    }

    /// `west,south,east,north` in degrees, west < east and south < north within the world;
    /// nil when the text is not that.
    public static func degrees(_ text: String) -> BoundingBox? {
        let n = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimming(" \t")) }
        guard n.count == 4, let w = n[0], let s = n[1], let e = n[2], let north = n[3],
            w < e, s < north, w >= -180, e <= 180, s >= -90, north <= 90
        else { return nil }
        return BoundingBox(minX: w, minY: s, maxX: e, maxY: north)
    }
}
