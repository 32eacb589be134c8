import CMapbookLazy

/// The order a customizable hierarchy contracts nodes in: nested dissection (George, 1973),
/// as METIS computes it. A small set of nodes that cuts the graph in two goes last, and each
/// side is ordered the same way; the shortcuts contraction adds then stay within the parts
/// and their separators, whatever the metric, which is what lets one order serve every
/// metric (and a grid, whose distances have no hierarchy, contract at all).
enum NestedDissection {
    /// Each node's rank in the order, for an undirected graph given as pairs of distinct
    /// nodes (either way round, repeats allowed).
    static func order(nodeCount n: Int, pairs: [(Int32, Int32)]) throws(RoutingError) -> [Int32] {
        // Each pair both ways, sorted and without repeats: the adjacency METIS reads.
        var keys: [UInt64] = []
        keys.reserveCapacity(pairs.count * 2)
        for (u, v) in pairs where u != v {
            keys.append(UInt64(UInt32(u)) << 32 | UInt64(UInt32(v)))
            keys.append(UInt64(UInt32(v)) << 32 | UInt64(UInt32(u)))
        }
        keys.sort()
        var start = [Int32](repeating: 0, count: n + 1)
        var neighbours: [Int32] = []
        neighbours.reserveCapacity(keys.count)
        var previous = UInt64.max
        for key in keys where key != previous {
            previous = key
            start[Int(key >> 32) + 1] += 1
            neighbours.append(Int32(truncatingIfNeeded: key & 0xFFFF_FFFF))
        }
        guard !neighbours.isEmpty else { return (0..<Int32(n)).map { $0 } }
        for v in 0..<n { start[v + 1] += start[v] }
        var rank = [Int32](repeating: 0, count: n)
        let status = mapbook_nested_dissection(Int32(n), &start, &neighbours, &rank)
        guard status == 1 else {
            throw RoutingError(
                kind: .badSource, source: "",
                message: "METIS could not order the network's \(n) nodes (status \(status)\(status == -3 ? ": out of memory" : "")); the network cannot be preprocessed")
        }
        return rank
    }
}
