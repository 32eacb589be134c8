/// Finds where street lines of the same level cross between their vertices, and puts a
/// vertex there in both, so that the network builder makes it a node.
enum CrossingSplitter {
    /// Cells of a grid over the segments; a crossing is kept by the cell it lies in, so that
    /// a pair of segments sharing several cells gives it once.
    static let cellDegrees = 0.002

    struct Cell: Hashable { var x: Int; var y: Int }
    struct Segment { var line: Int; var index: Int }

    static func insertCrossings(_ lines: [StreetLine]) -> [StreetLine] {
        func cell(_ lon: Double, _ lat: Double) -> Cell {
            Cell(x: Int((lon / cellDegrees).rounded(.down)), y: Int((lat / cellDegrees).rounded(.down)))
        }
        var grid: [Cell: [Segment]] = [:]
        for (l, line) in lines.enumerated() {
            for i in 0..<(line.points.count - 1) {
                let a = line.points[i], b = line.points[i + 1]
                let lo = cell(min(a.lon, b.lon), min(a.lat, b.lat)), hi = cell(max(a.lon, b.lon), max(a.lat, b.lat))
                for x in lo.x...hi.x { for y in lo.y...hi.y { grid[Cell(x: x, y: y), default: []].append(Segment(line: l, index: i)) } }
            }
        }
        // Per segment, the crossings on it: where along it (0-1) and the point.
        var cuts: [Int: [Int: [(Double, StreetNetwork.Node)]]] = [:]
        for (c, segments) in grid where segments.count > 1 {
            for i in 0..<segments.count {
                for j in (i + 1)..<segments.count {
                    let s = segments[i], t = segments[j]
                    if s.line == t.line, abs(s.index - t.index) <= 1 { continue }
                    guard lines[s.line].level == lines[t.line].level else { continue }
                    let a = lines[s.line].points[s.index], b = lines[s.line].points[s.index + 1]
                    let p = lines[t.line].points[t.index], q = lines[t.line].points[t.index + 1]
                    guard let (u, v) = properCrossing(a, b, p, q) else { continue }
                    let point = StreetNetwork.Node(lon: a.lon + u * (b.lon - a.lon), lat: a.lat + u * (b.lat - a.lat))
                    guard cell(point.lon, point.lat) == c else { continue }
                    cuts[s.line, default: [:]][s.index, default: []].append((u, point))
                    cuts[t.line, default: [:]][t.index, default: []].append((v, point))
                }
            }
        }
        return lines.enumerated().map { l, line in
            guard let lineCuts = cuts[l] else { return line }
            var line = line
            var points: [StreetNetwork.Node] = []
            points.reserveCapacity(line.points.count + lineCuts.count * 2)
            for i in 0..<line.points.count {
                points.append(line.points[i])
                if let onSegment = lineCuts[i] { points += onSegment.sorted { $0.0 < $1.0 }.map(\.1) }
            }
            line.points = points
            return line
        }
    }

    /// Where segments a-b and p-q cross strictly inside both (as fractions along each), or
    /// nil if they touch at an end, are parallel or do not meet.
    static func properCrossing(_ a: StreetNetwork.Node, _ b: StreetNetwork.Node, _ p: StreetNetwork.Node, _ q: StreetNetwork.Node) -> (Double, Double)? {
        let rx = b.lon - a.lon, ry = b.lat - a.lat, sx = q.lon - p.lon, sy = q.lat - p.lat
        let denominator = rx * sy - ry * sx
        guard denominator != 0 else { return nil }
        let u = ((p.lon - a.lon) * sy - (p.lat - a.lat) * sx) / denominator
        let v = ((p.lon - a.lon) * ry - (p.lat - a.lat) * rx) / denominator
        let margin = 1e-9
        guard u > margin, u < 1 - margin, v > margin, v < 1 - margin else { return nil }
        return (u, v)
    }
}
