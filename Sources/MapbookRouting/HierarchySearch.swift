/// Where a route may start or end: a node, and what it costs to get from the route's start
/// to it (or from it to the destination), in the metric's units.
public struct RouteEnd: Sendable, Equatable {
    public var node: Int32
    public var cost: UInt64

    public init(node: Int32, cost: UInt64) {
        self.node = node
        self.cost = cost
    }
}

/// A shortest path between nodes: its weight, the original edges it travels (`edge * 2`
/// forward, `edge * 2 + 1` backward), the nodes it starts and ends at, and how many nodes
/// the search settled to find it.
public struct NodePath: Sendable, Equatable {
    public var weight: UInt64
    public var edges: [Int32]
    public var start: Int32
    public var end: Int32
    public var settled: Int
}

/// What a query needs of a hierarchy, in memory or read in place from a package.
public protocol HierarchyGraph {
    /// Calls `body` with each arc from `node` to a higher rank: its id, target and weight.
    func forEachUpArc(_ node: Int32, _ body: (Int32, Int32, UInt32) -> Void)
    /// Calls `body` with each arc into `node` from a higher rank: its id, source and weight.
    func forEachDownArc(_ node: Int32, _ body: (Int32, Int32, UInt32) -> Void)
    /// An arc's children (a shortcut) or its edge (`second` is -1).
    func arcParts(_ id: Int32) -> (first: Int32, second: Int32)
    /// The number of nodes: no shortest path has more edges.
    var nodeCount: Int { get }
}

extension ContractionHierarchy: HierarchyGraph {
    public func forEachUpArc(_ node: Int32, _ body: (Int32, Int32, UInt32) -> Void) {
        for i in Int(upStart[Int(node)])..<Int(upStart[Int(node) + 1]) {
            let id = upArcs[i]
            body(id, arcs[Int(id)].target, arcs[Int(id)].weight)
        }
    }

    public func forEachDownArc(_ node: Int32, _ body: (Int32, Int32, UInt32) -> Void) {
        for i in Int(downStart[Int(node)])..<Int(downStart[Int(node) + 1]) {
            let id = downArcs[i]
            body(id, arcs[Int(id)].source, arcs[Int(id)].weight)
        }
    }

    public func arcParts(_ id: Int32) -> (first: Int32, second: Int32) { (arcs[Int(id)].first, arcs[Int(id)].second) }

    public var nodeCount: Int { rank.count }
}

/// The query on a contraction hierarchy: Dijkstra upward from the start and, alternating,
/// upward from the destination over reversed arcs, until neither side can improve on the
/// best meeting node; then the shortcuts on the path are unpacked into edges.
public enum HierarchySearch {
    struct Label { var cost: UInt64; var arc: Int32; var parent: Int32 }

    /// A shortcut that does not unpack into a path of edges: the hierarchy is damaged.
    public struct Damaged: Error {}

    public static func shortestPath<G: HierarchyGraph>(_ graph: G, from sources: [RouteEnd], to targets: [RouteEnd]) throws(Damaged) -> NodePath? {
        var forward: [Int32: Label] = [:], backward: [Int32: Label] = [:]
        var forwardHeap = MinHeap(), backwardHeap = MinHeap()
        for s in sources where s.cost < (forward[s.node]?.cost ?? .max) {
            forward[s.node] = Label(cost: s.cost, arc: -1, parent: -1)
            forwardHeap.push(s.cost, s.node)
        }
        for t in targets where t.cost < (backward[t.node]?.cost ?? .max) {
            backward[t.node] = Label(cost: t.cost, arc: -1, parent: -1)
            backwardHeap.push(t.cost, t.node)
        }
        var best = UInt64.max, meeting: Int32 = -1, settled = 0
        func step(_ heap: inout MinHeap, _ mine: inout [Int32: Label], _ other: [Int32: Label], up: Bool) {
            guard let (d, v) = heap.pop() else { return }
            guard d == mine[v]?.cost else { return }
            settled += 1
            if let o = other[v], d + o.cost < best {
                best = d + o.cost
                meeting = v
            }
            let visit: (Int32, Int32, UInt32) -> Void = { id, x, w in
                let nd = d + UInt64(w)
                if nd < (mine[x]?.cost ?? .max) {
                    mine[x] = Label(cost: nd, arc: id, parent: v)
                    heap.push(nd, x)
                }
            }
            if up { graph.forEachUpArc(v, visit) } else { graph.forEachDownArc(v, visit) }
        }
        while true {
            let f = forwardHeap.minKey.map { $0 < best } ?? false
            let b = backwardHeap.minKey.map { $0 < best } ?? false
            if !f && !b { break }
            if f && (!b || forwardHeap.minKey! <= backwardHeap.minKey!) {
                step(&forwardHeap, &forward, backward, up: true)
            } else {
                step(&backwardHeap, &backward, forward, up: false)
            }
        }
        guard meeting >= 0 else { return nil }

        // Arcs from the start to the meeting node, then from there to the destination.
        var arcs: [Int32] = []
        var start = meeting
        while let label = forward[start], label.arc >= 0 {
            arcs.append(label.arc)
            start = label.parent
        }
        arcs.reverse()
        var end = meeting
        while let label = backward[end], label.arc >= 0 {
            arcs.append(label.arc)
            end = label.parent
        }
        let edges = try unpack(graph, arcs)
        return NodePath(weight: best, edges: edges, start: start, end: end, settled: settled)
    }

    /// The edges the arcs stand for, in order. A shortest path visits no node twice, so a
    /// shortcut that unpacks into more edges than there are nodes is damage, not a path.
    static func unpack<G: HierarchyGraph>(_ graph: G, _ arcs: [Int32]) throws(Damaged) -> [Int32] {
        var edges: [Int32] = []
        var stack = Array(arcs.reversed())
        var steps = 0
        while let arc = stack.popLast() {
            steps += 1
            guard steps <= 2 * graph.nodeCount + 2 * arcs.count + 2 else { throw Damaged() }
            let (first, second) = graph.arcParts(arc)
            if second < 0 {
                guard first >= 0 else { throw Damaged() }
                edges.append(first)
            } else {
                stack.append(second)
                stack.append(first)
            }
        }
        return edges
    }
}
