#if canImport(Glibc)
import Glibc
#endif
import Synchronization

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
    /// Where `node`'s arcs to higher ranks (`up`), or from higher ranks (not `up`), lie: the
    /// positions `arc(at:up:)` reads.
    func arcs(_ node: Int32, up: Bool) -> Range<Int>
    /// The arc at `position`: its id, the node at its other end (-1 for a node that does not
    /// exist, which a search skips) and its weight.
    func arc(at position: Int, up: Bool) -> (id: Int32, end: Int32, weight: UInt32)
    /// An arc's children (a shortcut) or its edge (`second` is -1).
    func arcParts(_ id: Int32) -> (first: Int32, second: Int32)
    /// The number of nodes: no shortest path has more edges.
    var nodeCount: Int { get }
}

extension HierarchyGraph {
    /// Calls `body` with each arc from `node` to a higher rank: its id, target and weight.
    public func forEachUpArc(_ node: Int32, _ body: (Int32, Int32, UInt32) -> Void) {
        for i in arcs(node, up: true) {
            let a = arc(at: i, up: true)
            if a.end >= 0 { body(a.id, a.end, a.weight) }
        }
    }

    /// Calls `body` with each arc into `node` from a higher rank: its id, source and weight.
    public func forEachDownArc(_ node: Int32, _ body: (Int32, Int32, UInt32) -> Void) {
        for i in arcs(node, up: false) {
            let a = arc(at: i, up: false)
            if a.end >= 0 { body(a.id, a.end, a.weight) }
        }
    }
}

extension ContractionHierarchy: HierarchyGraph {
    public func arcs(_ node: Int32, up: Bool) -> Range<Int> {
        guard node >= 0, Int(node) < rank.count else { return 0..<0 }
        return up ? Int(upStart[Int(node)])..<Int(upStart[Int(node) + 1]) : Int(downStart[Int(node)])..<Int(downStart[Int(node) + 1])
    }

    public func arc(at position: Int, up: Bool) -> (id: Int32, end: Int32, weight: UInt32) {
        let id = up ? upArcs[position] : downArcs[position]
        let a = arcs[Int(id)]
        return (id, up ? a.target : a.source, a.weight)
    }

    public func arcParts(_ id: Int32) -> (first: Int32, second: Int32) { (arcs[Int(id)].first, arcs[Int(id)].second) }

    public var nodeCount: Int { rank.count }
}

/// The query on a contraction hierarchy: Dijkstra upward from the start and, alternating,
/// upward from the destination over reversed arcs, until neither side can improve on the
/// best meeting node; then the shortcuts on the path are unpacked into edges.
public enum HierarchySearch {
    /// A shortcut that does not unpack into a path of edges: the hierarchy is damaged.
    public struct Damaged: Error {}

    /// The query on a hierarchy read in place, compiled for it here: callers in other
    /// modules would otherwise run the generic one, reaching each arc through a witness table.
    public static func shortestPath(_ graph: StoredHierarchy, from sources: [RouteEnd], to targets: [RouteEnd]) throws(Damaged) -> NodePath? {
        try search(graph, from: sources, to: targets)
    }

    public static func shortestPath<G: HierarchyGraph>(_ graph: G, from sources: [RouteEnd], to targets: [RouteEnd]) throws(Damaged) -> NodePath? {
        try search(graph, from: sources, to: targets)
    }

    static func search<G: HierarchyGraph>(_ graph: G, from sources: [RouteEnd], to targets: [RouteEnd]) throws(Damaged) -> NodePath? {
        let space = SearchSpace.take(graph.nodeCount)
        defer { SearchSpace.give(space) }
        var forward = Side(labels: space.forward, up: true), backward = Side(labels: space.backward, up: false)
        for s in sources where s.node >= 0 && Int(s.node) < graph.nodeCount && s.cost < forward.labels.cost(s.node) {
            forward.labels.label(s.node, s.cost, arc: -1, parent: -1)
            forward.heap.push(s.cost, s.node)
        }
        for t in targets where t.node >= 0 && Int(t.node) < graph.nodeCount && t.cost < backward.labels.cost(t.node) {
            backward.labels.label(t.node, t.cost, arc: -1, parent: -1)
            backward.heap.push(t.cost, t.node)
        }
        var meet = Meeting()
        while true {
            let f = forward.heap.minKey.map { $0 < meet.best } ?? false
            let b = backward.heap.minKey.map { $0 < meet.best } ?? false
            if !f && !b { break }
            if f && (!b || forward.heap.minKey! <= backward.heap.minKey!) {
                forward.step(graph, other: backward.labels, &meet)
            } else {
                backward.step(graph, other: forward.labels, &meet)
            }
        }
        let meeting = meet.node
        guard meeting >= 0 else { return nil }
        let (forwardLabels, backwardLabels) = (forward.labels, backward.labels)

        // Arcs from the start to the meeting node, then from there to the destination.
        var arcs: [Int32] = []
        var start = meeting
        while forwardLabels.arc(start) >= 0 {
            arcs.append(forwardLabels.arc(start))
            start = forwardLabels.parent(start)
        }
        arcs.reverse()
        var end = meeting
        while backwardLabels.arc(end) >= 0 {
            arcs.append(backwardLabels.arc(end))
            end = backwardLabels.parent(end)
        }
        let edges = try unpack(graph, arcs)
        return NodePath(weight: meet.best, edges: edges, start: start, end: end, settled: meet.settled)
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

    /// The best meeting of the two sides so far, and the nodes both have settled.
    struct Meeting {
        var best = UInt64.max
        var node: Int32 = -1
        var settled = 0
    }

    /// One side of the search: upward from the start (`up`), or from the destination
    /// against the arcs.
    struct Side {
        let labels: Labels
        let up: Bool
        var heap = MinHeap()

        init(labels: Labels, up: Bool) {
            self.labels = labels
            self.up = up
        }

        /// Settles the nearest node, meets the other side there if it has been, and relaxes
        /// its arcs. (Stall-on-demand, which skips nodes reached more cheaply from above, saves
        /// a node in twenty on a grid's customised hierarchy and costs a look at every arc
        /// from above: 1.4 times slower there.)
        mutating func step<G: HierarchyGraph>(_ graph: G, other: Labels, _ meet: inout Meeting) {
            guard let (d, v) = heap.pop(), d == labels.cost(v) else { return }
            meet.settled += 1
            let there = other.cost(v)
            if there < .max, d + there < meet.best {
                meet.best = d + there
                meet.node = v
            }
            for i in graph.arcs(v, up: up) {
                let a = graph.arc(at: i, up: up)
                guard a.end >= 0 else { continue }
                let nd = d + UInt64(a.weight)
                if nd < labels.cost(a.end) {
                    labels.label(a.end, nd, arc: a.id, parent: v)
                    heap.push(nd, a.end)
                }
            }
        }
    }

    /// One side's labels: cost, arc and parent per node, valid where the node's stamp is the
    /// current query's, so that a query clears nothing and costs nothing per node it misses.
    /// Cost, stamp and arc share 16 bytes: a node looked at is one cache line.
    final class Labels {
        struct Entry {
            var cost: UInt64
            var stamp: UInt32
            var arc: Int32
        }

        let entries: UnsafeMutablePointer<Entry>
        let parents: UnsafeMutablePointer<Int32>
        let count: Int
        var stamp: UInt32 = 0

        /// Zeroed memory: stamp 0 is no query's, so every entry starts unlabelled, and the pages
        /// a query never reaches are never touched. Filling 2 x 8.4 MB on the grid's first
        /// route cost its process 13 ms of page faults (issue 36).
        init(_ count: Int) {
            self.count = count
            entries = calloc(max(1, count), MemoryLayout<Entry>.stride)!.bindMemory(to: Entry.self, capacity: count)
            parents = .allocate(capacity: count)
        }

        deinit {
            free(entries)
            parents.deallocate()
        }

        func next() {
            stamp &+= 1
            if stamp == 0 {
                memset(entries, 0, count * MemoryLayout<Entry>.stride)
                stamp = 1
            }
        }

        @inline(__always) func cost(_ v: Int32) -> UInt64 {
            let e = entries[Int(v)]
            return e.stamp == stamp ? e.cost : .max
        }
        @inline(__always) func arc(_ v: Int32) -> Int32 {
            let e = entries[Int(v)]
            return e.stamp == stamp ? e.arc : -1
        }
        @inline(__always) func parent(_ v: Int32) -> Int32 { parents[Int(v)] }
        @inline(__always) func label(_ v: Int32, _ cost: UInt64, arc: Int32, parent: Int32) {
            entries[Int(v)] = Entry(cost: cost, stamp: stamp, arc: arc)
            parents[Int(v)] = parent
        }
    }

    /// Both sides' labels for a graph of some size, kept between queries (a few kept per
    /// size, for queries on several threads): a query touches a few thousand nodes, and
    /// clearing arrays of all of them would cost more than the search.
    final class SearchSpace: @unchecked Sendable {
        let forward: Labels
        let backward: Labels

        init(_ count: Int) {
            forward = Labels(count)
            backward = Labels(count)
        }

        static let kept = Mutex<[SearchSpace]>([])

        static func take(_ count: Int) -> SearchSpace {
            let found = kept.withLock { list -> SearchSpace? in
                guard let i = list.lastIndex(where: { $0.forward.count == count }) else { return nil }
                return list.remove(at: i)
            }
            let space = found ?? SearchSpace(count)
            space.forward.next()
            space.backward.next()
            return space
        }

        static func give(_ space: SearchSpace) {
            kept.withLock { list in
                list.append(space)
                if list.count > 8 { list.removeFirst() }
            }
        }
    }
}
