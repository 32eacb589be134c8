/// The graph routes are searched on. Without forbidden turns it is the network itself: its
/// nodes, and an arc for each way each edge may be driven. A forbidden turn splits the node
/// it is at (turn restrictions by node splitting, as in Gutiérrez and Medaglia, 2008, and
/// OSRM's first graphs): the arc before the turn arrives at a copy of the node, which the
/// node's other arcs leave from but the forbidden ones do not. Only nodes with forbidden
/// turns grow, so the hierarchy and its queries stay node-based and as fast.
///
/// Nodes `0..<network.nodes.count` are the network's; copy `i` (of the `TurnTable`) is node
/// `network.nodes.count + i`.
public struct TurnGraph: Sendable {
    public struct Arc: Sendable {
        public var source: Int32
        public var target: Int32
        /// The network's arc: `edge * 2` along the edge, `edge * 2 + 1` against it.
        public var ref: Int32
    }

    public let nodeCount: Int
    public let arcs: [Arc]

    /// The graph of the ways each edge may be driven; with `everyWay`, of both ways of every
    /// edge, closed or one-way or not (a customizable hierarchy's, whose profiles say which
    /// they may travel).
    public init(_ network: StreetNetwork, everyWay: Bool = false) {
        let table = TurnList(network.forbiddenTurns)
        let n = Int32(network.nodes.count)
        var copiesAt: [Int32: [Int32]] = [:]
        for (i, arc) in table.copies.enumerated() { copiesAt[network.arrival(arc), default: []].append(Int32(i)) }
        var arcs: [Arc] = []
        for (e, edge) in network.edges.enumerated() where edge.from != edge.to {
            for (ref, allowed) in [(Int32(e * 2), edge.direction.forward), (Int32(e * 2 + 1), edge.direction.backward)] where allowed || everyWay {
                let target = table.copy(arriving: ref).map { n + $0 } ?? network.arrival(ref)
                let u = network.departure(ref)
                arcs.append(Arc(source: u, target: target, ref: ref))
                for c in copiesAt[u] ?? [] where !table.forbids(copy: c, to: ref) {
                    arcs.append(Arc(source: n + c, target: target, ref: ref))
                }
            }
        }
        self.arcs = arcs
        nodeCount = network.nodes.count + table.copyCount
    }
}
