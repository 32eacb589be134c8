#if canImport(Glibc)
import Glibc
#endif

/// Where a place meets the network: the nearest point of the nearest edge.
public struct StreetSnap: Sendable, Equatable {
    public var edge: Int32
    /// How far along the edge the point lies, as a fraction of its length (0 at its first
    /// node, 1 at its second).
    public var fraction: Double
    public var point: StreetNetwork.Node
    /// Metres from the place to the point.
    public var distance: Double
    /// The shape's segment the point lies on, and how far along it (0-1).
    public var segment: Int
    public var along: Double
}

extension RoutingNetwork {
    /// Metres per degree of latitude on the local sphere the search works in.
    static let metresPerDegree = 111_195.08

    /// The nearest point of any edge to `place`, within `maximum` metres; nil if none is.
    /// A best-first search of the edge index, by the distance to each box, so only the
    /// boxes nearer than the best edge found are opened.
    public func snap(_ place: StreetNetwork.Node, within maximum: Double) throws(RoutingError) -> StreetSnap? {
        guard let range = sections[.index], range.count >= 8, edgeCount > 0 else { return nil }
        let levels = Int(u32(range.lowerBound)), boxCount = Int(u32(range.lowerBound + 4))
        let levelEnds = range.lowerBound + 8, boxes = levelEnds + levels * 4, entries = boxes + boxCount * 32
        guard levels >= 1, levels <= 32, entries + boxCount * 4 == range.upperBound else { throw damaged("the edge index's size does not match its counts") }
        let leafCount = Int(u32(levelEnds))
        let kx = cos(place.lat * .pi / 180) * Self.metresPerDegree, ky = Self.metresPerDegree
        func boxDistance(_ i: Int) -> Double {
            let at = boxes + i * 32
            let dx = max(f64(at) - place.lon, 0, place.lon - f64(at + 16)) * kx
            let dy = max(f64(at + 8) - place.lat, 0, place.lat - f64(at + 24)) * ky
            return (dx * dx + dy * dy).squareRoot()
        }
        func levelEnd(containing i: Int) -> (level: Int, end: Int) {
            for level in 0..<levels where i < Int(u32(levelEnds + level * 4)) { return (level, Int(u32(levelEnds + level * 4))) }
            return (levels, boxCount)
        }
        var heap = MinHeap()
        let root = boxCount - 1
        guard root >= 0 else { return nil }
        heap.push(boxDistance(root).bitPattern, Int32(root))
        var best: StreetSnap?
        var opened = 0
        while let (key, item) = heap.pop() {
            let bound = Double(bitPattern: key)
            if bound > maximum || bound >= (best?.distance ?? .infinity) { break }
            opened += 1
            guard opened <= boxCount * 2 else { throw damaged("the edge index has a cycle") }
            let i = Int(item)
            guard i >= 0, i < boxCount else { throw damaged("the edge index points outside itself") }
            let entry = Int(u32(entries + i * 4))
            if i < leafCount {
                guard entry < edgeCount else { throw damaged("the edge index names edge \(entry), which does not exist") }
                let snap = try snap(place, toEdge: Int32(entry), kx: kx, ky: ky)
                if snap.distance < (best?.distance ?? .infinity) { best = snap }
            } else {
                let (level, _) = levelEnd(containing: i)
                guard level >= 1 else { throw damaged("the edge index's levels are out of order") }
                let childEnd = Int(u32(levelEnds + (level - 1) * 4))
                guard entry < childEnd else { throw damaged("the edge index points outside itself") }
                for child in entry..<min(entry + EdgeIndex.nodeSize, childEnd) {
                    heap.push(boxDistance(child).bitPattern, Int32(child))
                }
            }
        }
        guard let best, best.distance <= maximum else { return nil }
        // The fraction along the edge and the distance told are geodesic, worked out once,
        // for the edge that won.
        let lengths = Geodesic.segmentLengths(try shape(best.edge))
        let before = lengths[..<best.segment].reduce(0, +) + lengths[best.segment] * best.along
        let total = lengths.reduce(0, +)
        var told = best
        told.fraction = total > 0 ? before / total : 0
        told.distance = Geodesic.distance(place.lon, place.lat, best.point.lon, best.point.lat)
        return told
    }

    /// The nearest point of edge `e` to `place`, in a local plane around the place (its
    /// `fraction` is left for the caller to work out for the edge that wins).
    func snap(_ place: StreetNetwork.Node, toEdge e: Int32, kx: Double, ky: Double) throws(RoutingError) -> StreetSnap {
        let shape = try shape(e)
        var best = (distance: Double.infinity, segment: 0, t: 0.0)
        for i in 0..<(shape.count - 1) {
            let ax = (shape[i].lon - place.lon) * kx, ay = (shape[i].lat - place.lat) * ky
            let bx = (shape[i + 1].lon - place.lon) * kx, by = (shape[i + 1].lat - place.lat) * ky
            let dx = bx - ax, dy = by - ay
            let lengthSquared = dx * dx + dy * dy
            let t = lengthSquared == 0 ? 0 : min(1, max(0, -(ax * dx + ay * dy) / lengthSquared))
            let px = ax + t * dx, py = ay + t * dy
            let d = (px * px + py * py).squareRoot()
            if d < best.distance { best = (d, i, t) }
        }
        let a = shape[best.segment], b = shape[best.segment + 1]
        let point = StreetNetwork.Node(lon: a.lon + best.t * (b.lon - a.lon), lat: a.lat + best.t * (b.lat - a.lat))
        return StreetSnap(edge: e, fraction: 0, point: point, distance: best.distance, segment: best.segment, along: best.t)
    }
}
