/// Plain Dijkstra over a street network's arcs (its `TurnGraph`): what the hierarchy's answers are checked
/// against, and the count of settled nodes its preprocessing is measured by.
public struct Dijkstra {
    let network: StreetNetwork
    let metric: StreetNetwork.Metric
    let nodeCount: Int
    /// Arcs of the `TurnGraph` by source node: `(target, weight, edge * 2 or edge * 2 + 1)`.
    let start: [Int32]
    let arcs: [(Int32, UInt32, Int32)]
    let sourceOf: [Int32]

    public init(_ network: StreetNetwork, metric: StreetNetwork.Metric) {
        self.network = network
        self.metric = metric
        let graph = TurnGraph(network)
        nodeCount = graph.nodeCount
        var lists = [[(Int32, UInt32, Int32)]](repeating: [], count: graph.nodeCount)
        for arc in graph.arcs {
            lists[Int(arc.source)].append((arc.target, network.weight(Int(arc.ref / 2), metric), arc.ref))
        }
        var start: [Int32] = [0]
        var arcs: [(Int32, UInt32, Int32)] = []
        var sourceOf: [Int32] = []
        for (v, list) in lists.enumerated() {
            arcs += list
            sourceOf += Array(repeating: Int32(v), count: list.count)
            start.append(Int32(arcs.count))
        }
        self.start = start
        self.arcs = arcs
        self.sourceOf = sourceOf
    }

    public func shortestPath(from sources: [RouteEnd], to targets: [RouteEnd]) -> NodePath? {
        var cost = [UInt64](repeating: .max, count: nodeCount)
        var via = [Int32](repeating: -1, count: nodeCount)
        var heap = MinHeap()
        for s in sources where s.cost < cost[Int(s.node)] {
            cost[Int(s.node)] = s.cost
            heap.push(s.cost, s.node)
        }
        var targetCost: [Int32: UInt64] = [:]
        for t in targets { targetCost[t.node] = min(targetCost[t.node] ?? .max, t.cost) }
        var best = UInt64.max, end: Int32 = -1, settled = 0
        while let (d, v) = heap.pop() {
            guard d == cost[Int(v)] else { continue }
            if d >= best { break }
            settled += 1
            if let t = targetCost[v], d + t < best {
                best = d + t
                end = v
            }
            for i in Int(start[Int(v)])..<Int(start[Int(v) + 1]) {
                let (x, w, _) = arcs[i]
                let nd = d + UInt64(w)
                if nd < cost[Int(x)] {
                    cost[Int(x)] = nd
                    via[Int(x)] = Int32(i)
                    heap.push(nd, x)
                }
            }
        }
        guard end >= 0 else { return nil }
        var edges: [Int32] = []
        var v = end
        while via[Int(v)] >= 0 {
            let i = Int(via[Int(v)])
            edges.append(arcs[i].2)
            v = sourceOf[i]
        }
        return NodePath(weight: best, edges: edges.reversed(), start: v, end: end, settled: settled)
    }
}
