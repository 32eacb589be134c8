/// A contraction hierarchy (Geisberger, Sanders, Schultes and Delling, 2008) of a street
/// network for one metric: every node gets a rank, and shortcuts stand for the shortest paths
/// through lower-ranked nodes, so that a query searches upward from both ends and settles a
/// few hundred nodes where Dijkstra settles much of the network.
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

    /// Nodes a witness search may settle before it gives up and the shortcut is kept (which
    /// is always correct, only larger).
    static let witnessLimit = 500
    static let simulationLimit = 100
    /// Above this many arcs, a node's priority is estimated without witness searches.
    static let simulatedDegree = 24

    public static func build(_ network: StreetNetwork, metric: StreetNetwork.Metric) -> ContractionHierarchy {
        var builder = Builder(network, metric: metric)
        try! builder.contractAll(until: nil, progress: nil)
        return builder.hierarchy()
    }

    /// Builds the hierarchy unless it takes past `deadline`: then `RoutingError.timeLimit`,
    /// saying how far it got. `progress` hears the nodes contracted and the nodes in all,
    /// every 1,024 nodes.
    public static func build(
        _ network: StreetNetwork, metric: StreetNetwork.Metric, until deadline: ContinuousClock.Instant, progress: ((Int, Int) -> Void)? = nil
    ) throws(RoutingError) -> ContractionHierarchy {
        var builder = Builder(network, metric: metric)
        try builder.contractAll(until: deadline, progress: progress)
        return builder.hierarchy()
    }
}

extension ContractionHierarchy {
    struct Builder {
        let metric: StreetNetwork.Metric
        let n: Int
        var arcs: [Arc] = []
        var superseded: [Bool] = []
        var outs: [[Int32]]
        var ins: [[Int32]]
        var contracted: [Bool]
        var rank: [Int32]
        var deletedNeighbours: [Int32]
        var level: [Int32]
        // Witness search state, reset through `touched`.
        var distance: [UInt64]
        var touched: [Int32] = []
        var heap = MinHeap()
        /// The witness search's targets are marked with the search's stamp.
        var targetStamp: [UInt32]
        var stamp: UInt32 = 0

        init(_ network: StreetNetwork, metric: StreetNetwork.Metric) {
            self.metric = metric
            let graph = TurnGraph(network)
            n = graph.nodeCount
            outs = Array(repeating: [], count: n)
            ins = Array(repeating: [], count: n)
            contracted = Array(repeating: false, count: n)
            rank = Array(repeating: -1, count: n)
            deletedNeighbours = Array(repeating: 0, count: n)
            level = Array(repeating: 0, count: n)
            distance = Array(repeating: .max, count: n)
            targetStamp = Array(repeating: 0, count: n)
            // The lightest of parallel arcs is the only one a shortest path uses.
            var lightest: [UInt64: Int32] = [:]
            for arc in graph.arcs {
                let (u, v, ref) = (arc.source, arc.target, arc.ref)
                let w = network.weight(Int(ref / 2), metric)
                let key = UInt64(UInt32(u)) << 32 | UInt64(UInt32(v))
                if let a = lightest[key] {
                    if arcs[Int(a)].weight > w { arcs[Int(a)] = Arc(source: u, target: v, weight: w, first: ref, second: -1) }
                } else {
                    lightest[key] = Int32(arcs.count)
                    outs[Int(u)].append(Int32(arcs.count))
                    ins[Int(v)].append(Int32(arcs.count))
                    arcs.append(Arc(source: u, target: v, weight: w, first: ref, second: -1))
                }
            }
            superseded = Array(repeating: false, count: arcs.count)
        }

        /// Dijkstra from `source` over nodes not yet contracted, without `avoid`, up to
        /// `limit` in distance, `settleLimit` nodes settled, or until the `targets` nodes
        /// marked with the current stamp are all settled (their distances are then final).
        mutating func witnessSearch(from source: Int32, avoid: Int32, limit: UInt64, settleLimit: Int, targets: Int) {
            var remaining = targets
            for t in touched { distance[Int(t)] = .max }
            touched.removeAll(keepingCapacity: true)
            heap.removeAll()
            distance[Int(source)] = 0
            touched.append(source)
            heap.push(0, source)
            var settled = 0
            while let (d, u) = heap.pop() {
                guard d == distance[Int(u)] else { continue }
                if d > limit { break }
                settled += 1
                if settled > settleLimit { break }
                if targetStamp[Int(u)] == stamp {
                    remaining -= 1
                    if remaining == 0 { break }
                }
                for a in outs[Int(u)] {
                    let arc = arcs[Int(a)]
                    let x = arc.target
                    if x == avoid || contracted[Int(x)] { continue }
                    let nd = d + UInt64(arc.weight)
                    if nd < distance[Int(x)] {
                        if distance[Int(x)] == .max { touched.append(x) }
                        distance[Int(x)] = nd
                        heap.push(nd, x)
                    }
                }
            }
        }

        /// The shortcuts contracting `v` needs (added when `apply`), and the arcs it removes.
        mutating func contract(_ v: Int32, apply: Bool) -> (added: Int, removed: Int) {
            var added = 0
            let incoming = ins[Int(v)].filter { !contracted[Int(arcs[Int($0)].source)] }
            let outgoing = outs[Int(v)].filter { !contracted[Int(arcs[Int($0)].target)] }
            for inArc in incoming {
                let u = arcs[Int(inArc)].source
                let w1 = UInt64(arcs[Int(inArc)].weight)
                var limit: UInt64 = 0
                stamp &+= 1
                if stamp == 0 {
                    for i in targetStamp.indices { targetStamp[i] = 0 }
                    stamp = 1
                }
                var targets = 0
                for outArc in outgoing where arcs[Int(outArc)].target != u {
                    limit = max(limit, w1 + UInt64(arcs[Int(outArc)].weight))
                    let x = Int(arcs[Int(outArc)].target)
                    if targetStamp[x] != stamp {
                        targetStamp[x] = stamp
                        targets += 1
                    }
                }
                if limit == 0 { continue }
                witnessSearch(from: u, avoid: v, limit: limit, settleLimit: apply ? ContractionHierarchy.witnessLimit : ContractionHierarchy.simulationLimit, targets: targets)
                for outArc in outgoing {
                    let x = arcs[Int(outArc)].target
                    if x == u { continue }
                    let total = w1 + UInt64(arcs[Int(outArc)].weight)
                    if distance[Int(x)] <= total { continue }
                    added += 1
                    if apply { addShortcut(u, x, weight: total, inArc, outArc) }
                }
            }
            return (added, incoming.count + outgoing.count)
        }

        mutating func addShortcut(_ u: Int32, _ x: Int32, weight: UInt64, _ first: Int32, _ second: Int32) {
            guard weight < UInt64(UInt32.max) else { return }
            // An arc u->x already there is either lighter (no shortcut) or superseded.
            if let old = outs[Int(u)].first(where: { arcs[Int($0)].target == x }) {
                if UInt64(arcs[Int(old)].weight) <= weight { return }
                superseded[Int(old)] = true
                outs[Int(u)].removeAll { $0 == old }
                ins[Int(x)].removeAll { $0 == old }
            }
            let id = Int32(arcs.count)
            arcs.append(Arc(source: u, target: x, weight: UInt32(weight), first: first, second: second))
            superseded.append(false)
            outs[Int(u)].append(id)
            ins[Int(x)].append(id)
        }

        mutating func priority(_ v: Int32) -> Int {
            // Near the top the remaining graph is dense (on a grid by distance, degrees pass
            // 50), and simulating a contraction costs degree squared witness searches, redone
            // for every neighbour after every contraction. There the priority counts every
            // pair as a shortcut, as a minimum-degree elimination order does: 4.6 times faster
            // on a 100,000-edge grid by distance, 6% more shortcuts (docs/PERFORMANCE.md).
            let degree = ins[Int(v)].count + outs[Int(v)].count
            if degree > ContractionHierarchy.simulatedDegree {
                let i = ins[Int(v)].count, o = outs[Int(v)].count
                return 2 * (i * o - degree) + Int(deletedNeighbours[Int(v)]) + Int(level[Int(v)])
            }
            let (added, removed) = contract(v, apply: false)
            return 2 * (added - removed) + Int(deletedNeighbours[Int(v)]) + Int(level[Int(v)])
        }

        mutating func contractAll(until deadline: ContinuousClock.Instant?, progress: ((Int, Int) -> Void)?) throws(RoutingError) {
            // Lazy updates: a node's priority is checked again when it comes up, and it goes
            // back if it got worse than the next one's.
            var queue = PriorityQueue()
            var current = [Int](repeating: 0, count: n)
            for v in 0..<n {
                current[v] = priority(Int32(v))
                queue.push(current[v], Int32(v))
            }
            var next: Int32 = 0
            while let (p, v) = queue.pop() {
                if contracted[Int(v)] || p != current[Int(v)] { continue }
                if next % 1024 == 0 {
                    progress?(Int(next), n)
                    if let deadline, ContinuousClock.now > deadline {
                        throw RoutingError(
                            kind: .timeLimit, source: "",
                            message: "the hierarchy by \(metric.name) was stopped at its time limit with \(next) of \(n) nodes contracted")
                    }
                }
                let fresh = priority(v)
                if fresh > p, let top = queue.minPriority, fresh > top {
                    current[Int(v)] = fresh
                    queue.push(fresh, v)
                    continue
                }
                _ = contract(v, apply: true)
                contracted[Int(v)] = true
                rank[Int(v)] = next
                next += 1
                // Neighbours lose their arcs to v and are looked at again, in node order so
                // that the same network always gives the same hierarchy (and package bytes).
                var neighbours = ins[Int(v)].map { arcs[Int($0)].source } + outs[Int(v)].map { arcs[Int($0)].target }
                neighbours.sort()
                for (i, u) in neighbours.enumerated() where !contracted[Int(u)] && (i == 0 || neighbours[i - 1] != u) {
                    outs[Int(u)].removeAll { arcs[Int($0)].target == v }
                    ins[Int(u)].removeAll { arcs[Int($0)].source == v }
                    deletedNeighbours[Int(u)] += 1
                    level[Int(u)] = max(level[Int(u)], level[Int(v)] + 1)
                    current[Int(u)] = priority(u)
                    queue.push(current[Int(u)], u)
                }
            }
        }

        func hierarchy() -> ContractionHierarchy {
            var upCount = [Int32](repeating: 0, count: n + 1), downCount = [Int32](repeating: 0, count: n + 1)
            for (i, arc) in arcs.enumerated() where !superseded[i] {
                if rank[Int(arc.source)] < rank[Int(arc.target)] { upCount[Int(arc.source) + 1] += 1 } else { downCount[Int(arc.target) + 1] += 1 }
            }
            for v in 0..<n {
                upCount[v + 1] += upCount[v]
                downCount[v + 1] += downCount[v]
            }
            var upArcs = [Int32](repeating: 0, count: Int(upCount[n])), downArcs = [Int32](repeating: 0, count: Int(downCount[n]))
            var upFill = upCount, downFill = downCount
            for (i, arc) in arcs.enumerated() where !superseded[i] {
                if rank[Int(arc.source)] < rank[Int(arc.target)] {
                    upArcs[Int(upFill[Int(arc.source)])] = Int32(i)
                    upFill[Int(arc.source)] += 1
                } else {
                    downArcs[Int(downFill[Int(arc.target)])] = Int32(i)
                    downFill[Int(arc.target)] += 1
                }
            }
            return ContractionHierarchy(metric: metric, rank: rank, arcs: arcs, upStart: upCount, upArcs: upArcs, downStart: downCount, downArcs: downArcs)
        }
    }

    /// A min-queue of node priorities, which may be negative.
    struct PriorityQueue {
        private var heap = MinHeap()
        static let offset = Int(Int32.max)
        var minPriority: Int? { heap.minKey.map { Int($0) - Self.offset } }
        mutating func push(_ priority: Int, _ node: Int32) { heap.push(UInt64(priority + Self.offset), node) }
        mutating func pop() -> (Int, Int32)? { heap.pop().map { (Int($0.key) - Self.offset, $0.node) } }
    }
}
