/// Plain Dijkstra over a street network's edges: what the hierarchy's answers are checked
/// against, and the count of settled nodes its preprocessing is measured by.
public struct Dijkstra {
    let network: StreetNetwork
    let metric: StreetNetwork.Metric
    /// Directed arcs by source node: `(target, weight, edge * 2 or edge * 2 + 1)`.
    let start: [Int32]
    let arcs: [(Int32, UInt32, Int32)]

    public init(_ network: StreetNetwork, metric: StreetNetwork.Metric) {
        self.network = network
        self.metric = metric
        var lists = [[(Int32, UInt32, Int32)]](repeating: [], count: network.nodes.count)
        for (e, edge) in network.edges.enumerated() where edge.from != edge.to {
            let w = network.weight(e, metric)
            if edge.direction.forward { lists[Int(edge.from)].append((edge.to, w, Int32(e * 2))) }
            if edge.direction.backward { lists[Int(edge.to)].append((edge.from, w, Int32(e * 2 + 1))) }
        }
        var start: [Int32] = [0]
        var arcs: [(Int32, UInt32, Int32)] = []
        for list in lists {
            arcs += list
            start.append(Int32(arcs.count))
        }
        self.start = start
        self.arcs = arcs
    }

    public func shortestPath(from sources: [RouteEnd], to targets: [RouteEnd]) -> NodePath? {
        var cost = [UInt64](repeating: .max, count: network.nodes.count)
        var via = [Int32](repeating: -1, count: network.nodes.count)
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
            let edge = network.edges[Int(arcs[i].2 / 2)]
            v = arcs[i].2 % 2 == 0 ? edge.from : edge.to
        }
        return NodePath(weight: best, edges: edges.reversed(), start: v, end: end, settled: settled)
    }
}
