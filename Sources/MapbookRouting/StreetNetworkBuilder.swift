#if canImport(Glibc)
import Glibc
#endif

/// One street line from the network's source layer, in WGS84 longitude/latitude.
public struct StreetLine: Sendable {
    public var points: [StreetNetwork.Node]
    public var name: String
    public var roadClass: String
    public var direction: TravelDirection
    /// km/h; over 0.
    public var speed: Double
    public var roundabout: Bool
    /// Lines cross without meeting when their levels differ (bridges, tunnels).
    public var level: Int
    public var sourceId: Int64

    public init(points: [StreetNetwork.Node], name: String = "", roadClass: String = "", direction: TravelDirection = .both, speed: Double, roundabout: Bool = false, level: Int = 0, sourceId: Int64) {
        self.points = points
        self.name = name
        self.roadClass = roadClass
        self.direction = direction
        self.speed = speed
        self.roundabout = roundabout
        self.level = level
        self.sourceId = sourceId
    }
}

/// Builds a `StreetNetwork` from street lines: a node wherever lines share a vertex or end
/// (ends within `tolerance` metres of each other, or of a shared vertex, are joined), and,
/// when asked, wherever two lines cross; an edge for each piece of a line between nodes.
public struct StreetNetworkBuilder {
    public struct Options: Sendable {
        /// Ends closer than this (metres) to another end or shared vertex meet there.
        public var tolerance: Double = 1
        /// Split lines where they cross without a shared vertex (same level only: lines of
        /// different `level` values pass over each other).
        public var splitAtCrossings = false
        public init(tolerance: Double = 1, splitAtCrossings: Bool = false) {
            self.tolerance = tolerance
            self.splitAtCrossings = splitAtCrossings
        }
    }

    /// A vertex position rounded to 1e-7 degrees (about a centimetre), so that lines that
    /// share a vertex in their source share it here.
    struct Key: Hashable {
        var x: Int64
        var y: Int64
        init(_ p: StreetNetwork.Node) {
            x = Int64((p.lon * 1e7).rounded())
            y = Int64((p.lat * 1e7).rounded())
        }
    }

    public static func build(_ input: [StreetLine], options: Options = Options()) -> StreetNetwork {
        var lines = input.map { line -> StreetLine in
            var line = line
            line.points = dedupe(line.points)
            return line
        }.filter { $0.points.count >= 2 }
        if options.splitAtCrossings { lines = CrossingSplitter.insertCrossings(lines) }

        // Where a vertex is used: twice or more, or at a line's end, it is a node.
        var uses: [Key: Int] = [:]
        var ends = Set<Key>()
        for line in lines {
            for p in line.points { uses[Key(p), default: 0] += 1 }
            ends.insert(Key(line.points[0]))
            ends.insert(Key(line.points[line.points.count - 1]))
        }
        var nodeOf: [Key: Int32] = [:]
        var network = StreetNetwork()
        var candidates: [(Key, StreetNetwork.Node)] = []
        for line in lines {
            for p in line.points {
                let k = Key(p)
                if nodeOf[k] == nil, (uses[k] ?? 0) >= 2 || ends.contains(k) {
                    nodeOf[k] = Int32(network.nodes.count)
                    network.nodes.append(p)
                    candidates.append((k, p))
                }
            }
        }
        // Ends within the tolerance of another node join it (the first made stands for both).
        if options.tolerance > 0 { snapEnds(&network, &nodeOf, candidates, ends: ends, tolerance: options.tolerance) }

        var nameIndex: [String: Int32] = [:], classIndex: [String: Int32] = [:]
        func index(_ s: String, _ table: inout [String: Int32], _ list: inout [String]) -> Int32 {
            if let i = table[s] { return i }
            let i = Int32(list.count)
            table[s] = i
            list.append(s)
            return i
        }
        for line in lines {
            let name = index(line.name, &nameIndex, &network.names)
            let roadClass = index(line.roadClass, &classIndex, &network.classes)
            var start = 0
            for i in 1..<line.points.count {
                guard let to = nodeOf[Key(line.points[i])] else { continue }
                let from = nodeOf[Key(line.points[start])]!
                var shape = Array(line.points[start...i])
                shape[0] = network.nodes[Int(from)]
                shape[shape.count - 1] = network.nodes[Int(to)]
                shape = dedupe(shape)
                start = i
                guard shape.count >= 2 else { continue }
                let metres = Geodesic.segmentLengths(shape).reduce(0, +)
                let millimetres = UInt32(min(Double(UInt32.max - 1), max(1, (metres * 1000).rounded())))
                let seconds = metres / (line.speed / 3.6)
                let milliseconds = UInt32(min(Double(UInt32.max - 1), max(1, (seconds * 1000).rounded())))
                network.edges.append(StreetNetwork.Edge(
                    from: from, to: to, millimetres: millimetres, milliseconds: milliseconds, direction: line.direction,
                    name: name, roadClass: roadClass, sourceId: line.sourceId,
                    firstPoint: Int32(network.points.count), pointCount: Int32(shape.count), roundabout: line.roundabout))
                network.points += shape
            }
        }
        return network
    }

    /// Points without repeats in a row.
    static func dedupe(_ points: [StreetNetwork.Node]) -> [StreetNetwork.Node] {
        var out: [StreetNetwork.Node] = []
        out.reserveCapacity(points.count)
        for p in points where out.last.map({ Key($0) != Key(p) }) ?? true { out.append(p) }
        return out
    }

    /// Joins every line end to the nearest other node within `tolerance` metres, on a grid of
    /// cells the tolerance wide.
    static func snapEnds(_ network: inout StreetNetwork, _ nodeOf: inout [Key: Int32], _ candidates: [(Key, StreetNetwork.Node)], ends: Set<Key>, tolerance: Double) {
        let cellLat = tolerance / 111_000
        func cell(_ p: StreetNetwork.Node) -> (Int, Int) {
            let cellLon = cellLat / max(0.01, cos(p.lat * .pi / 180))
            return (Int((p.lon / cellLon).rounded(.down)), Int((p.lat / cellLat).rounded(.down)))
        }
        struct Cell: Hashable { var x: Int; var y: Int }
        var grid: [Cell: [Int]] = [:]
        for (i, (_, p)) in candidates.enumerated() {
            let (x, y) = cell(p)
            grid[Cell(x: x, y: y), default: []].append(i)
        }
        // The smallest index of a group stands for it.
        var groups = UnionFind(count: candidates.count)
        for (i, (k, p)) in candidates.enumerated() where ends.contains(k) {
            let (x, y) = cell(p)
            var best: (Int, Double)?
            for dx in -1...1 {
                for dy in -1...1 {
                    for j in grid[Cell(x: x + dx, y: y + dy)] ?? [] where j != i {
                        let d = Geodesic.distance(p.lon, p.lat, candidates[j].1.lon, candidates[j].1.lat)
                        if d <= tolerance, d < (best?.1 ?? .infinity) { best = (j, d) }
                    }
                }
            }
            if let (j, _) = best { groups.join(i, j) }
        }
        // Renumber: one node per group, at its first member's place.
        var newIndex = [Int32](repeating: -1, count: candidates.count)
        var nodes: [StreetNetwork.Node] = []
        for i in 0..<candidates.count where groups.root(i) == i {
            newIndex[i] = Int32(nodes.count)
            nodes.append(candidates[i].1)
        }
        for (i, (k, _)) in candidates.enumerated() { nodeOf[k] = newIndex[groups.root(i)] }
        network.nodes = nodes
    }
}
