/// A feature's geometry in tile coordinates, as MVT 2.1 section 4.3.4 defines the three types.
///
/// Rings are stored without repeating their first point at the end (MVT closes them with
/// `ClosePath`). Polygon rings follow the spec's winding: an exterior ring has a positive
/// area by the surveyor's formula in tile coordinates (clockwise on screen, y down) and its
/// holes a negative one. The encoder does not rewind rings: whoever builds a `TileGeometry`
/// for encoding guarantees the winding, with `ringArea(_:)` to check it.
public enum TileGeometry: Sendable, Equatable {
    /// One point or several (a multipoint).
    case points([TilePoint])
    /// One line or several, each of two points or more.
    case lines([[TilePoint]])
    /// One polygon or several; each is its exterior ring followed by its holes.
    case polygons([[[TilePoint]]])

    /// The MVT geometry type this geometry is encoded as.
    public var type: VectorTile.GeometryType {
        switch self {
        case .points: return .point
        case .lines: return .lineString
        case .polygons: return .polygon
        }
    }

    public var isEmpty: Bool {
        switch self {
        case .points(let points): return points.isEmpty
        case .lines(let lines): return lines.allSatisfy(\.isEmpty)
        case .polygons(let polygons): return polygons.allSatisfy { $0.allSatisfy(\.isEmpty) }
        }
    }

    /// How many points the geometry holds (rings counted without a closing point).
    public var pointCount: Int {
        switch self {
        case .points(let points): return points.count
        case .lines(let lines): return lines.reduce(0) { $0 + $1.count }
        case .polygons(let polygons): return polygons.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        }
    }

    /// The smallest and largest x and y of all points; nil when empty.
    public var bounds: (min: TilePoint, max: TilePoint)? {
        var low = TilePoint(.max, .max), high = TilePoint(.min, .min)
        func add(_ points: [TilePoint]) {
            for p in points {
                low.x = Swift.min(low.x, p.x); low.y = Swift.min(low.y, p.y)
                high.x = Swift.max(high.x, p.x); high.y = Swift.max(high.y, p.y)
            }
        }
        switch self {
        case .points(let points): add(points)
        case .lines(let lines): lines.forEach(add)
        case .polygons(let polygons): polygons.forEach { $0.forEach(add) }
        }
        return low.x <= high.x ? (low, high) : nil
    }

    /// Twice the signed area of a ring by the surveyor's formula, in tile coordinates:
    /// positive for an exterior ring (clockwise on screen, y down), negative for a hole, zero
    /// for a degenerate ring (MVT 2.1 section 4.3.4.4).
    ///
    /// The ring may or may not repeat its first point at the end. Summed in 128 bits, so no
    /// coordinates can overflow it; the result saturates at Int64's range, keeping its sign.
    public static func ringArea(_ ring: [TilePoint]) -> Int64 {
        ring.withUnsafeBufferPointer { ringArea($0) }
    }

    static func ringArea(_ ring: UnsafeBufferPointer<TilePoint>) -> Int64 {
        guard var previous = ring.last else { return 0 }
        var sum: Int128 = 0
        for p in ring {
            sum += Int128(cross(previous, p))
            previous = p
        }
        return Int64(clamping: sum)
    }

    /// `a.x * b.y - b.x * a.y`, which fits Int64 for any Int32 coordinates: each product lies
    /// in (-2^62, 2^62], and they cannot both reach the extremes with opposite signs.
    @inline(__always)
    static func cross(_ a: TilePoint, _ b: TilePoint) -> Int64 {
        Int64(a.x) * Int64(b.y) - Int64(b.x) * Int64(a.y)
    }
}
