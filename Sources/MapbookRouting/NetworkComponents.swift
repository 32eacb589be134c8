/// The parts of a network that are connected when one-way rules are ignored: a street cut
/// off from the rest is almost always a mistake in the data worth a warning.
public enum NetworkComponents {
    public struct Part: Sendable, Equatable {
        public var edges: Int
        /// One of its edges, to say where it is.
        public var sampleEdge: Int32
    }

    /// The parts, largest first.
    public static func find(_ network: StreetNetwork) -> [Part] {
        let part = label(network)
        var parts: [Int32: Part] = [:]
        for (e, edge) in network.edges.enumerated() {
            parts[part[Int(edge.from)], default: Part(edges: 0, sampleEdge: Int32(e))].edges += 1
        }
        return parts.values.sorted { $0.edges != $1.edges ? $0.edges > $1.edges : $0.sampleEdge < $1.sampleEdge }
    }

    /// Each node's part: the smallest node in it.
    public static func label(_ network: StreetNetwork) -> [Int32] {
        var sets = UnionFind(count: network.nodes.count)
        for edge in network.edges { sets.join(Int(edge.from), Int(edge.to)) }
        return (0..<network.nodes.count).map { Int32(sets.root($0)) }
    }
}
