import MapbookSupport

/// Groups the rings of a shapefile polygon record into polygons, exterior ring first.
///
/// A shapefile polygon is a flat list of rings: exteriors run clockwise, holes
/// counter-clockwise (ESRI Shapefile Technical Description, page 8). Each hole goes to the
/// smallest exterior that contains one of its vertices; a hole that no exterior contains becomes
/// an exterior itself. Writers that ignore orientation and write every ring counter-clockwise
/// are read by nesting instead: a ring inside an odd number of others is a hole.
/// Vertex order is kept as in the file.
enum PolygonRings {
    static func assemble(_ rings: [[Position]]) -> [[[Position]]] {
        if rings.count == 1 { return [rings] }
        let areas = rings.map(Geometry.signedArea)
        let boxes = rings.map(envelope)
        // Positive area is counter-clockwise; a zero-area ring is kept as an exterior.
        let exteriors = rings.indices.filter { areas[$0] <= 0 }
        if exteriors.isEmpty { return byNesting(rings, areas: areas, boxes: boxes) }
        var polygons: [[Int]] = exteriors.map { [$0] }
        var orphans: [Int] = []
        for hole in rings.indices where areas[hole] > 0 {
            var best: Int?
            for (k, outer) in exteriors.enumerated()
            where boxes[outer].contains(boxes[hole]) && contains(rings[outer], ring: rings[hole]) {
                if best.map({ abs(areas[outer]) < abs(areas[exteriors[$0]]) }) ?? true { best = k }
            }
            if let best { polygons[best].append(hole) } else { orphans.append(hole) }
        }
        polygons += orphans.map { [$0] }
        return polygons.map { $0.map { rings[$0] } }
    }

    /// Groups rings into polygons by how deeply they nest alone, whatever their orientation.
    static func assembleByNesting(_ rings: [[Position]]) -> [[[Position]]] {
        if rings.count == 1 { return [rings] }
        return byNesting(rings, areas: rings.map(Geometry.signedArea), boxes: rings.map(envelope))
    }

    /// Classifies rings by how deeply they nest, ignoring orientation.
    private static func byNesting(_ rings: [[Position]], areas: [Double], boxes: [BoundingBox]) -> [[[Position]]] {
        let order = rings.indices.sorted { abs(areas[$0]) > abs(areas[$1]) }
        var depth = [Int](repeating: 0, count: rings.count)
        var polygonOf = [Int](repeating: -1, count: rings.count)
        var polygons: [[Int]] = []
        var placed: [Int] = []
        for r in order {
            // The smallest ring already placed (so at least as large) that contains this one.
            var parent: Int?
            for p in placed where boxes[p].contains(boxes[r]) && contains(rings[p], ring: rings[r]) {
                if parent.map({ abs(areas[p]) < abs(areas[$0]) }) ?? true { parent = p }
            }
            if let parent, depth[parent] % 2 == 0 {
                depth[r] = depth[parent] + 1
                polygonOf[r] = polygonOf[parent]
                polygons[polygonOf[r]].append(r)
            } else {
                depth[r] = parent.map { depth[$0] + 1 } ?? 0
                polygonOf[r] = polygons.count
                polygons.append([r])
            }
            placed.append(r)
        }
        // Keep the exteriors in file order.
        return polygons.sorted { $0[0] < $1[0] }.map { $0.map { rings[$0] } }
    }

    private static func envelope(_ ring: [Position]) -> BoundingBox {
        var box = BoundingBox.empty
        for p in ring { box.include(x: p.x, y: p.y) }
        return box
    }

    /// Whether `ring` lies inside `outer`, judged by its first vertex not on `outer`'s boundary
    /// (a hole may touch its exterior at a vertex).
    static func contains(_ outer: [Position], ring: [Position]) -> Bool {
        for p in ring {
            if let inside = locate(x: p.x, y: p.y, in: outer) { return inside }
        }
        return false
    }

    /// Whether a point is inside a closed ring (even-odd ray casting); nil when it lies on the ring.
    static func locate(x: Double, y: Double, in ring: [Position]) -> Bool? {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            j = i
            // On the segment: collinear and within its box.
            let cross = (b.x - a.x) * (y - a.y) - (b.y - a.y) * (x - a.x)
            if cross == 0, x >= min(a.x, b.x), x <= max(a.x, b.x), y >= min(a.y, b.y), y <= max(a.y, b.y) {
                return nil
            }
            if (a.y > y) != (b.y > y) {
                let crossingX = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y)
                if x < crossingX { inside.toggle() }
            }
        }
        return inside
    }
}
