import MapbookData
import MapbookPackage
import MapbookRouting
import MapbookSupport

/// The street networks of a package, for `validate`: each opens, its edges and hierarchies
/// hold together (every arc goes the right way up the hierarchy, every shortcut is the sum of
/// the arcs it stands for, and queries on random pairs give Dijkstra's answer), and it matches
/// the layer it was built from (every edge comes from a feature of it, and each feature's
/// length is the length of its edges).
public enum NetworkCheck {
    /// Random pairs checked against Dijkstra per metric.
    static let pairs = 100

    public static func findings(_ package: MobileMapPackage) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for name in RoutingNetwork.names(in: package) {
            let entry = package.archive.entries.first { $0.name.hasSuffix("network/\(name).mnet") }?.name
            do {
                let network = try RoutingNetwork.open(package, name: name)
                var found = structure(network, entry: entry)
                if let entry { found += matchesSource(network, package: package, entry: entry) }
                if !found.contains(where: { $0.severity == .error }) {
                    let layer = network.builtFrom.map { ", matches its layer \($0.layer)" } ?? ""
                    let count = network.turns.turnCount
                    let turns = count == 0 ? "" : ", \(count) forbidden turn\(count == 1 ? "" : "s")"
                    found.append(Diagnostic(
                        .note, "network.checked", entry: entry,
                        "network '\(name)': \(network.nodeCount) nodes, \(network.edgeCount) edges\(turns); its hierarchies (by \(network.metrics.map { $0 == .time ? "time" : "distance" }.joined(separator: ", by "))) hold together and answer \(min(pairs, network.graphNodeCount)) random pairs as Dijkstra does\(layer)"))
                }
                out += found
            } catch {
                out.append(Diagnostic(.error, "network.invalid", entry: entry, error.description))
            }
        }
        return out
    }

    /// Edges, arcs and shortcuts, and the hierarchies' answers against Dijkstra's.
    static func structure(_ file: RoutingNetwork, entry: String?) -> [Diagnostic] {
        var out: [Diagnostic] = []
        var network = StreetNetwork()
        do {
            for i in 0..<Int32(file.nodeCount) { network.nodes.append(try file.node(i)) }
            for e in 0..<Int32(file.edgeCount) { network.edges.append(try file.edge(e)) }
        } catch {
            return [Diagnostic(.error, "network.invalid", entry: entry, error.description)]
        }
        // Each forbidden turn leaves the node its arc arrives at, by arcs that exist.
        let turns = file.turns
        var turnProblems: [String] = []
        for i in 0..<turns.turnCount {
            let (copy, to) = turns.turn(i)
            guard copy >= 0, Int(copy) < turns.copyCount, i == 0 || turns.turn(i - 1) < (copy, to) else { turnProblems.append("turn \(i) is out of order or names no arc"); break }
            let from = turns.copyArc(Int(copy))
            guard from >= 0, to >= 0, Int(from / 2) < file.edgeCount, Int(to / 2) < file.edgeCount else { turnProblems.append("turn \(i) names an edge that does not exist"); break }
            guard network.arrival(from) == network.departure(to) else { turnProblems.append("turn \(i) does not turn at a node (arc \(from) then arc \(to))"); break }
            network.forbiddenTurns.append(ForbiddenTurn(from: from, to: to))
        }
        if let problem = turnProblems.first {
            return [Diagnostic(.error, "network.invalid", entry: entry, "the forbidden turns: \(problem)")]
        }
        // The network node each copy of the search graph stands for.
        let copyOf = (0..<turns.copyCount).map { network.arrival(turns.copyArc($0)) }
        func base(_ v: Int32) -> Int32 { Int(v) < network.nodes.count ? v : copyOf[Int(v) - network.nodes.count] }
        guard !file.metrics.isEmpty else { return [Diagnostic(.error, "network.hierarchy", entry: entry, "the network has no hierarchy, so no route can be found on it")] }
        for metric in file.metrics {
            let what = metric == .time ? "time" : "distance"
            let hierarchy: StoredHierarchy
            do { hierarchy = try file.hierarchy(metric) } catch {
                out.append(Diagnostic(.error, "network.hierarchy", entry: entry, error.description))
                continue
            }
            var problems: [String] = []
            var ends = [(Int32, Int32)](repeating: (-1, -1), count: hierarchy.arcCount)
            var weights = [UInt32](repeating: 0, count: hierarchy.arcCount)
            for v in 0..<Int32(file.graphNodeCount) {
                hierarchy.forEachUpArc(v) { id, x, w in
                    ends[Int(id)] = (v, x)
                    weights[Int(id)] = w
                    if hierarchy.rank(x) <= hierarchy.rank(v) { problems.append("arc \(id) from node \(v) goes down the hierarchy") }
                }
                hierarchy.forEachDownArc(v) { id, u, w in
                    ends[Int(id)] = (u, v)
                    weights[Int(id)] = w
                    if hierarchy.rank(u) <= hierarchy.rank(v) { problems.append("arc \(id) into node \(v) comes from below") }
                }
            }
            for id in 0..<Int32(hierarchy.arcCount) where ends[Int(id)].0 >= 0 && problems.count < 20 {
                let (first, second) = hierarchy.arcParts(id)
                if second < 0 {
                    let edge = Int(first / 2)
                    guard first >= 0, edge < network.edges.count else { problems.append("arc \(id) names edge \(first / 2), which does not exist"); continue }
                    let e = network.edges[edge]
                    let forward = first % 2 == 0
                    let (u, x) = ends[Int(id)]
                    if (forward ? (e.from, e.to) : (e.to, e.from)) != (base(u), base(x)) || !(forward ? e.direction.forward : e.direction.backward) || weights[Int(id)] != network.weight(edge, metric) {
                        problems.append("arc \(id) does not match edge \(edge) (its ends, its direction or its \(what))")
                    }
                } else {
                    let a = hierarchy.arcWeight(first), b = hierarchy.arcWeight(second)
                    if a == nil || b == nil || UInt64(a!) + UInt64(b!) != UInt64(weights[Int(id)]) {
                        problems.append("shortcut \(id) is not the sum of arcs \(first) and \(second)")
                    }
                }
            }
            if problems.isEmpty {
                // The answers themselves, on pairs picked the same way every time.
                let dijkstra = Dijkstra(network, metric: metric)
                var state: UInt64 = 0x5EED
                func next() -> Int32 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    return Int32(truncatingIfNeeded: (state >> 33) % UInt64(max(1, file.graphNodeCount)))
                }
                for _ in 0..<min(pairs, file.graphNodeCount) {
                    let s = next(), t = next()
                    let ends = ([RouteEnd(node: s, cost: 0)], [RouteEnd(node: t, cost: 0)])
                    let fast = (try? HierarchySearch.shortestPath(hierarchy, from: ends.0, to: ends.1))?.map(\.weight)
                    let plain = dijkstra.shortestPath(from: ends.0, to: ends.1)?.weight
                    if fast != plain {
                        problems.append("from node \(s) to node \(t) the hierarchy answers \(fast.map(String.init) ?? "no way"), Dijkstra \(plain.map(String.init) ?? "no way")")
                        break
                    }
                }
            }
            for problem in problems.prefix(10) {
                out.append(Diagnostic(.error, "network.hierarchy", entry: entry, "the hierarchy by \(what): \(problem)"))
            }
        }
        return out
    }

    /// Every edge comes from a feature of the source layer, and each feature's length equals
    /// its edges' (ends may have moved by the tolerance to meet others).
    static func matchesSource(_ file: RoutingNetwork, package: MobileMapPackage, entry: String) -> [Diagnostic] {
        guard let source = file.builtFrom else {
            return [Diagnostic(.warning, "network.source", entry: entry, "the network does not say which layer it was built from, so it cannot be compared with it")]
        }
        let dataName = LayerDataPath.entryName(source.data, relativeTo: LayerDataPath.folder(of: entry))
        guard let dataEntry = package.archive.entries.first(where: { $0.name == dataName }) else {
            return [Diagnostic(.error, "network.source", entry: entry, "the network was built from \(source.layer) in \(dataName), which the package does not hold")]
        }
        var lengths: [Int64: Double] = [:]
        do {
            let database = try SQLiteDatabase(range: try package.archive.dataRange(of: dataEntry), displayPath: "\(package.archive.displayPath)[\(dataName)]")
            let table = try FeatureTable(database: database, table: source.layer)
            let toWGS84 = try CoordinateTransform(from: table.crs ?? .wgs84, to: .wgs84)
            let cursor = try table.allFeatures(fields: [])
            while let feature = try cursor.next() {
                var metres = 0.0
                if let g = feature.geometry, let wgs = toWGS84.apply(g) {
                    for part in wgs.flattenedMembers {
                        guard case .lineString(let points) = part.shape else { continue }
                        for (a, b) in zip(points, points.dropFirst()) { metres += Geodesic.distance(a.x, a.y, b.x, b.y) }
                    }
                }
                lengths[feature.id] = metres
            }
        } catch {
            return [Diagnostic(.error, "network.source", entry: entry, "cannot read the layer \(source.layer) the network was built from: \(error)")]
        }
        var built: [Int64: (metres: Double, edges: Int)] = [:]
        var strangers: [Int64] = []
        for e in 0..<Int32(file.edgeCount) {
            guard let edge = try? file.edge(e) else { continue }
            guard lengths[edge.sourceId] != nil else {
                strangers.append(edge.sourceId)
                continue
            }
            built[edge.sourceId, default: (0, 0)].metres += Double(edge.millimetres) / 1000
            built[edge.sourceId, default: (0, 0)].edges += 1
        }
        var out: [Diagnostic] = []
        if !strangers.isEmpty {
            out.append(Diagnostic(.error, "network.source", entry: entry, "\(strangers.count) edges come from features \(source.layer) does not have (fid \(strangers.prefix(5).map(String.init).joined(separator: ", "))); build the package again"))
        }
        var differ: [String] = []
        for (fid, metres) in lengths.sorted(by: { $0.key < $1.key }) {
            let (edgeMetres, edges) = built[fid] ?? (0, 0)
            // Each end of each edge may have moved by the tolerance.
            let slack = 2 * source.tolerance * Double(max(edges, 1)) + 0.01 + metres * 0.001
            if abs(edgeMetres - metres) > slack, metres > source.tolerance { differ.append("fid \(fid): \(Int(metres.rounded())) m in the layer, \(Int(edgeMetres.rounded())) m in the network") }
        }
        if !differ.isEmpty {
            out.append(Diagnostic(.error, "network.source", entry: entry, "\(differ.count) features of \(source.layer) differ from their edges (\(differ.prefix(5).joined(separator: "; "))); build the package again"))
        }
        return out
    }
}
