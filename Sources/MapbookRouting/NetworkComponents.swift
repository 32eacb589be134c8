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
        var parent = Array(0..<network.nodes.count)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for edge in network.edges {
            let a = root(Int(edge.from)), b = root(Int(edge.to))
            if a != b { parent[max(a, b)] = min(a, b) }
        }
        var parts: [Int: Part] = [:]
        for (e, edge) in network.edges.enumerated() {
            parts[root(Int(edge.from)), default: Part(edges: 0, sampleEdge: Int32(e))].edges += 1
        }
        return parts.values.sorted { $0.edges != $1.edges ? $0.edges > $1.edges : $0.sampleEdge < $1.sampleEdge }
    }
}
