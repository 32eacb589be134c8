/// A customizable contraction hierarchy (Dibbelt, Strasser and Wagner, 2016): the part of a
/// hierarchy that does not depend on the metric, built once for a network and customised for
/// each metric in seconds.
///
/// Nodes are ranked by nested dissection (`NestedDissection`), and contracting them in that
/// order without witness searches gives the chordal graph: every pair of a node's higher
/// neighbours is joined, so the shortcuts of any metric are among its arcs. A metric is then
/// customised in two passes over the graph's triangles. The first, bottom up, gives each arc
/// the shortest path through lower nodes (its lower triangles); the second, top down, the
/// shortest path anywhere (upper and intermediate triangles). An arc the second pass makes
/// shorter has a shorter way over a higher node, which a search takes instead, and an arc no
/// path can travel has no weight: both are left out, and what is left is a
/// `ContractionHierarchy` like one contracted with witness searches (RoutingKit's "perfect
/// witness search"), read and queried the same way. A walking or a truck profile with its own
/// speeds and closed streets is another customisation, not another order (the network's
/// forbidden turns are part of the graph every profile shares).
///
/// Work is in rank space: node `x` here is the node ranked `x`.
public struct CustomizableHierarchy: Sendable {
    /// The graph's arcs, as the network and its forbidden turns give them (`TurnGraph`), both
    /// ways of every edge: a profile may open what another closes.
    let inputs: [TurnGraph.Arc]
    /// Each node's rank, and the node at each rank.
    public let rank: [Int32]
    let node: [Int32]
    /// Arcs of the chordal graph from each rank to higher ranks, sorted:
    /// `upHead[upStart[x]..<upStart[x + 1]]`. An arc's index is its id.
    let upStart: [Int32]
    let upHead: [Int32]
    /// The same arcs by their higher end, lower ends ascending: `lowerTail` and `lowerArc`
    /// (the arc's id) at `lowerStart[y]..<lowerStart[y + 1]`.
    let lowerStart: [Int32]
    let lowerTail: [Int32]
    let lowerArc: [Int32]
    /// For each input arc: the id of its chordal arc times two, plus one when it runs from
    /// the higher rank down; -1 for an arc from a node to itself.
    let inputArc: [Int32]

    public var nodeCount: Int { rank.count }
    /// Arcs of the chordal graph, each both ways: the shortcuts any metric may need.
    public var arcCount: Int { upHead.count }

    public init(_ network: StreetNetwork) throws(RoutingError) {
        try self.init(TurnGraph(network, everyWay: true))
    }

    public init(_ graph: TurnGraph) throws(RoutingError) {
        let n = graph.nodeCount
        inputs = graph.arcs
        let rank = try NestedDissection.order(nodeCount: n, pairs: graph.arcs.map { ($0.source, $0.target) })
        var node = [Int32](repeating: 0, count: n)
        for (v, r) in rank.enumerated() { node[Int(r)] = Int32(v) }
        self.rank = rank
        self.node = node

        // Contraction in rank order (symbolic elimination): a node's higher neighbours, once
        // final, join those of the lowest of them, its parent in the elimination tree.
        var higher = [[Int32]](repeating: [], count: n)
        for arc in graph.arcs {
            let (a, b) = (rank[Int(arc.source)], rank[Int(arc.target)])
            if a != b { higher[Int(min(a, b))].append(max(a, b)) }
        }
        var upStart = [Int32](repeating: 0, count: n + 1)
        var upHead: [Int32] = []
        for x in 0..<n {
            var list = higher[x]
            higher[x] = []
            list.sort()
            var kept = 0
            for (i, y) in list.enumerated() where i == 0 || list[i - 1] != y {
                list[kept] = y
                kept += 1
            }
            list.removeLast(list.count - kept)
            if let parent = list.first { higher[Int(parent)].append(contentsOf: list.dropFirst()) }
            upHead.append(contentsOf: list)
            // Arc ids are Int32, and each arc's two directions are numbered apart (`inputArc`).
            guard upHead.count < 1 << 30 else {
                throw RoutingError(
                    kind: .badSource, source: "",
                    message: "the network's \(n) nodes need over a billion shortcuts in any order; split it into smaller networks")
            }
            upStart[x + 1] = Int32(upHead.count)
        }
        self.upStart = upStart
        self.upHead = upHead

        var lowerStart = [Int32](repeating: 0, count: n + 1)
        for y in upHead { lowerStart[Int(y) + 1] += 1 }
        for y in 0..<n { lowerStart[y + 1] += lowerStart[y] }
        var fill = lowerStart
        var lowerTail = [Int32](repeating: 0, count: upHead.count), lowerArc = lowerTail
        for x in 0..<n {
            for a in Int(upStart[x])..<Int(upStart[x + 1]) {
                let y = Int(upHead[a])
                lowerTail[Int(fill[y])] = Int32(x)
                lowerArc[Int(fill[y])] = Int32(a)
                fill[y] += 1
            }
        }
        self.lowerStart = lowerStart
        self.lowerTail = lowerTail
        self.lowerArc = lowerArc

        var inputArc = [Int32](repeating: -1, count: graph.arcs.count)
        for (i, arc) in graph.arcs.enumerated() {
            let (a, b) = (rank[Int(arc.source)], rank[Int(arc.target)])
            guard a != b, let id = Self.arc(min(a, b), max(a, b), upStart, upHead) else { continue }
            inputArc[i] = id * 2 + (a < b ? 0 : 1)
        }
        self.inputArc = inputArc
    }

    /// The id of the chordal arc from rank `x` up to rank `y`, if there is one.
    static func arc(_ x: Int32, _ y: Int32, _ upStart: [Int32], _ upHead: [Int32]) -> Int32? {
        var lo = Int(upStart[Int(x)]), hi = Int(upStart[Int(x) + 1])
        while lo < hi {
            let mid = (lo + hi) / 2
            if upHead[mid] < y { lo = mid + 1 } else { hi = mid }
        }
        return lo < Int(upStart[Int(x) + 1]) && upHead[lo] == y ? Int32(lo) : nil
    }

    /// The hierarchy for `metric`, the network's lengths or travel times.
    public func customise(
        _ network: StreetNetwork, metric: StreetNetwork.Metric, until deadline: ContinuousClock.Instant? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws(RoutingError) -> ContractionHierarchy {
        try customise(metric: metric, until: deadline, progress: progress) { ref in
            let direction = network.edges[Int(ref / 2)].direction
            return (ref % 2 == 0 ? direction.forward : direction.backward) ? network.weight(Int(ref / 2), metric) : nil
        }
    }

    /// The hierarchy for any weights: `weight` gives the cost of travelling a network arc
    /// (`edge * 2` along the edge, `edge * 2 + 1` against it), or nil where the profile may not
    /// go. The hierarchy is labelled `metric`. Past `deadline` it stops with `timeLimit`;
    /// `progress` hears the steps done and all (two passes over the nodes), every 1,024.
    public func customise(
        metric: StreetNetwork.Metric, until deadline: ContinuousClock.Instant? = nil, progress: ((Int, Int) -> Void)? = nil,
        weight: (Int32) -> UInt32?
    ) throws(RoutingError) -> ContractionHierarchy {
        let n = rank.count, m = upHead.count
        // `up[a]` is the weight from arc a's lower end to its higher, `down[a]` back; infinite
        // is UInt32.max, and sums are taken in 64 bits so that none overflows.
        let up = Scratch<UInt32>(m, .max), down = Scratch<UInt32>(m, .max)
        // The network arc an arc's weight comes from, or -1; the lower node of the triangle
        // that gave it, or -1 when it is the network arc's own.
        let upEdge = Scratch<Int32>(m, -1), downEdge = Scratch<Int32>(m, -1)
        let upMiddle = Scratch<Int32>(m, -1), downMiddle = Scratch<Int32>(m, -1)
        for (i, arc) in inputs.enumerated() where inputArc[i] >= 0 {
            guard let w = weight(arc.ref), w < .max else { continue }
            let a = Int(inputArc[i] >> 1)
            if inputArc[i] & 1 == 0 {
                if w < up[a] { (up[a], upEdge[a]) = (w, arc.ref) }
            } else if w < down[a] {
                (down[a], downEdge[a]) = (w, arc.ref)
            }
        }
        let check = { (step: Int) throws(RoutingError) in
            guard step % 1024 == 0 else { return }
            progress?(step, 2 * n)
            if let deadline, ContinuousClock.now > deadline {
                let done = step < n ? "\(step) of \(n) nodes customised" : "all \(n) nodes customised and \(step - n) made exact"
                throw RoutingError(kind: .timeLimit, source: "", message: "the hierarchy by \(metric.name) was stopped at its time limit with \(done)")
            }
        }

        // Bottom up: the lower triangles x-z-y of each arc x-y, through the arcs of x's lower
        // neighbours z, relaxed in a table by higher end (RoutingKit's and rust_road_router's
        // scheme). Chordality puts every such y among x's higher neighbours.
        let tableUp = Scratch<UInt32>(n, .max), tableDown = Scratch<UInt32>(n, .max)
        let tableUpMiddle = Scratch<Int32>(n, -1), tableDownMiddle = Scratch<Int32>(n, -1)
        for x in 0..<n {
            try check(x)
            let arcs = Int(upStart[x])..<Int(upStart[x + 1])
            for a in arcs {
                let y = Int(upHead[a])
                (tableUp[y], tableDown[y], tableUpMiddle[y], tableDownMiddle[y]) = (up[a], down[a], -1, -1)
            }
            for j in Int(lowerStart[x])..<Int(lowerStart[x + 1]) {
                let z = lowerTail[j], b = Int(lowerArc[j])
                let zx = UInt64(up[b]), xz = UInt64(down[b])
                if zx == UInt64(UInt32.max) && xz == UInt64(UInt32.max) { continue }
                var c = Int(upStart[Int(z) + 1]) - 1
                while c >= Int(upStart[Int(z)]) {
                    let y = Int(upHead[c])
                    if y <= x { break }
                    let across = xz + UInt64(up[c])
                    if across < UInt64(tableUp[y]) { (tableUp[y], tableUpMiddle[y]) = (UInt32(across), z) }
                    let back = UInt64(down[c]) + zx
                    if back < UInt64(tableDown[y]) { (tableDown[y], tableDownMiddle[y]) = (UInt32(back), z) }
                    c -= 1
                }
            }
            for a in arcs {
                let y = Int(upHead[a])
                (up[a], down[a], upMiddle[a], downMiddle[a]) = (tableUp[y], tableDown[y], tableUpMiddle[y], tableDownMiddle[y])
            }
        }

        // Top down: every triangle x < y < z, through x's arcs and its higher neighbours'
        // (whose weights are final: shortest paths anywhere). An arc the pass shortens has a
        // shorter path over a higher node, which the search takes instead.
        let exactUp = Scratch(copying: up), exactDown = Scratch(copying: down)
        let mark = Scratch<Int32>(n, -1), position = Scratch<Int32>(n, -1)
        for x in stride(from: n - 1, through: 0, by: -1) {
            try check(2 * n - 1 - x)
            let arcs = Int(upStart[x])..<Int(upStart[x + 1])
            for a in arcs { (mark[Int(upHead[a])], position[Int(upHead[a])]) = (Int32(x), Int32(a)) }
            for a in arcs {
                let y = Int(upHead[a])
                for t in Int(upStart[y])..<Int(upStart[y + 1]) {
                    let z = Int(upHead[t])
                    guard mark[z] == Int32(x) else { continue }
                    let s = Int(position[z])
                    // a is x-y, s is x-z and t is y-z, each with its up and down weight.
                    let xzy = UInt64(exactUp[s]) + UInt64(exactDown[t])
                    if xzy < UInt64(exactUp[a]) { exactUp[a] = UInt32(xzy) }
                    let yzx = UInt64(exactUp[t]) + UInt64(exactDown[s])
                    if yzx < UInt64(exactDown[a]) { exactDown[a] = UInt32(yzx) }
                    let xyz = UInt64(exactUp[a]) + UInt64(exactUp[t])
                    if xyz < UInt64(exactUp[s]) { exactUp[s] = UInt32(xyz) }
                    let zyx = UInt64(exactDown[t]) + UInt64(exactDown[a])
                    if zyx < UInt64(exactDown[s]) { exactDown[s] = UInt32(zyx) }
                }
            }
        }

        // The arcs kept, numbered; then each with its network arc or the two arcs of its
        // lower triangle, which are kept too (their exact weights add up to its own).
        let upId = Scratch<Int32>(m, -1), downId = Scratch<Int32>(m, -1)
        var count: Int32 = 0
        for a in 0..<m {
            if up[a] < .max && exactUp[a] == up[a] { (upId[a], count) = (count, count + 1) }
            if down[a] < .max && exactDown[a] == down[a] { (downId[a], count) = (count, count + 1) }
        }
        var arcs = [ContractionHierarchy.Arc](repeating: .init(source: 0, target: 0, weight: 0, first: -1, second: -1), count: Int(count))
        // The kept arc from rank `from` to rank `to`: its network arc, or from `from` down to
        // the middle of its lower triangle, then up to `to`.
        func emit(_ id: Int32, from: Int32, to: Int32, weight: UInt32, edge: Int32, middle z: Int32) {
            var arc = ContractionHierarchy.Arc(source: node[Int(from)], target: node[Int(to)], weight: weight, first: edge, second: -1)
            if z >= 0 {
                arc.first = downId[Int(Self.arc(z, from, upStart, upHead)!)]
                arc.second = upId[Int(Self.arc(z, to, upStart, upHead)!)]
            }
            arcs[Int(id)] = arc
        }
        for x in 0..<n {
            for a in Int(upStart[x])..<Int(upStart[x + 1]) {
                let y = upHead[a]
                if upId[a] >= 0 { emit(upId[a], from: Int32(x), to: y, weight: up[a], edge: upEdge[a], middle: upMiddle[a]) }
                if downId[a] >= 0 { emit(downId[a], from: y, to: Int32(x), weight: down[a], edge: downEdge[a], middle: downMiddle[a]) }
            }
        }
        progress?(2 * n, 2 * n)
        return ContractionHierarchy(metric: metric, rank: rank, arcs: arcs)
    }
}

/// A customisation's working array: allocated once, read and written without the bounds and
/// uniqueness checks of an `Array` in loops that run a billion times on a large network
/// (every index is a node or an arc of the graph it was sized for).
final class Scratch<Element: BitwiseCopyable> {
    let base: UnsafeMutablePointer<Element>
    let count: Int

    init(_ count: Int, _ value: Element) {
        self.count = count
        base = .allocate(capacity: max(count, 1))
        base.initialize(repeating: value, count: count)
    }

    init(copying other: Scratch<Element>) {
        count = other.count
        base = .allocate(capacity: max(count, 1))
        base.initialize(from: other.base, count: count)
    }

    deinit { base.deallocate() }

    subscript(_ i: Int) -> Element {
        @inline(__always) get { base[i] }
        @inline(__always) set { base[i] = newValue }
    }
}
