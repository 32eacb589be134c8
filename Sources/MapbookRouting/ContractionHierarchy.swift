/// A contraction hierarchy (Geisberger, Sanders, Schultes and Delling, 2008) of a street
/// network for one metric: every node gets a rank, and shortcuts stand for the shortest paths
/// through lower-ranked nodes, so that a query searches upward from both ends and settles a
/// few hundred nodes where Dijkstra settles much of the network. `CustomizableHierarchy`
/// builds it, from an order any metric shares.
public struct ContractionHierarchy: Sendable {
    /// An arc of the hierarchy: an original edge, or a shortcut for two arcs in a row.
    public struct Arc: Sendable, Equatable {
        public var source: Int32
        public var target: Int32
        public var weight: UInt32
        /// For an original edge (`second` is -1): the edge, travelled from its first node to
        /// its second (`edge * 2`) or back (`edge * 2 + 1`). For a shortcut: the arcs it
        /// stands for, source to middle then middle to target.
        public var first: Int32
        public var second: Int32

        public var isShortcut: Bool { second >= 0 }
    }

    public var metric: StreetNetwork.Metric
    /// The order nodes were contracted in: a search only goes to higher ranks.
    public var rank: [Int32]
    public var arcs: [Arc]
    /// Arcs to higher ranks by source node (`upArcs[upStart[v]..<upStart[v + 1]]`), for the
    /// search from the start; arcs from higher ranks by target node, for the search back
    /// from the destination.
    public var upStart: [Int32]
    public var upArcs: [Int32]
    public var downStart: [Int32]
    public var downArcs: [Int32]

    /// The hierarchy of `arcs` ranked by `rank` (each node's), with its search lists.
    public init(metric: StreetNetwork.Metric, rank: [Int32], arcs: [Arc]) {
        let n = rank.count
        var upCount = [Int32](repeating: 0, count: n + 1), downCount = [Int32](repeating: 0, count: n + 1)
        for arc in arcs {
            if rank[Int(arc.source)] < rank[Int(arc.target)] { upCount[Int(arc.source) + 1] += 1 } else { downCount[Int(arc.target) + 1] += 1 }
        }
        for v in 0..<n {
            upCount[v + 1] += upCount[v]
            downCount[v + 1] += downCount[v]
        }
        var upArcs = [Int32](repeating: 0, count: Int(upCount[n])), downArcs = [Int32](repeating: 0, count: Int(downCount[n]))
        var upFill = upCount, downFill = downCount
        for (i, arc) in arcs.enumerated() {
            if rank[Int(arc.source)] < rank[Int(arc.target)] {
                upArcs[Int(upFill[Int(arc.source)])] = Int32(i)
                upFill[Int(arc.source)] += 1
            } else {
                downArcs[Int(downFill[Int(arc.target)])] = Int32(i)
                downFill[Int(arc.target)] += 1
            }
        }
        self.init(metric: metric, rank: rank, arcs: arcs, upStart: upCount, upArcs: upArcs, downStart: downCount, downArcs: downArcs)
    }

    public init(
        metric: StreetNetwork.Metric, rank: [Int32], arcs: [Arc], upStart: [Int32], upArcs: [Int32], downStart: [Int32], downArcs: [Int32]
    ) {
        self.metric = metric
        self.rank = rank
        self.arcs = arcs
        self.upStart = upStart
        self.upArcs = upArcs
        self.downStart = downStart
        self.downArcs = downArcs
    }

    /// The hierarchy of `network` by `metric`: a `CustomizableHierarchy` customised once.
    /// With more than one metric, build the customizable hierarchy once and customise it for
    /// each. Past `deadline` it stops with `RoutingError.timeLimit`, saying how far it got;
    /// `progress` hears the steps done and the steps in all, every 1,024 steps.
    public static func build(
        _ network: StreetNetwork, metric: StreetNetwork.Metric, until deadline: ContinuousClock.Instant? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws(RoutingError) -> ContractionHierarchy {
        try CustomizableHierarchy(network).customise(network, metric: metric, until: deadline, progress: progress)
    }
}
