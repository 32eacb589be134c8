// Street networks for the routing benchmark (issue 18; tools/bench/route-vs-pgrouting.sh):
//
//   route-queries build LINES.geojson OUT.mnet [TOLERANCE_M [time|distance]]
//       builds the network from a GeoJSON of lines (`name`/`FULLNAME`, `oneway` FT/TF/B,
//       `speed` km/h when present, else 40) as `create` does, and prints nodes, edges, parts,
//       the preprocessing time per metric (one alone with `time` or `distance`), and the sizes of the
//       source and the network.
//   route-queries query NET.mnet PAIRS OUT.csv [SEED [time]]
//       opens NET.mnet in place (mapped), picks PAIRS random pairs of nodes of its largest part,
//       times the hierarchy's query by distance (or `time`) for each (three times, the best kept), counts
//       the nodes it and plain Dijkstra settle, prints p50/p99/max, and writes per pair the two
//       nodes' coordinates, the route's metres and seconds and the settled counts to OUT.csv.
import MapbookData
import MapbookPackage
import MapbookRouting

#if canImport(Glibc)
import Glibc
#endif

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// `v` with `places` decimals.
func fixed(_ v: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let r = (v * scale).rounded() / scale
    if places == 0 { return String(Int64(r)) }
    var text = String(r)
    let dot = text.firstIndex(of: ".").map { text.distance(from: text.startIndex, to: $0) } ?? text.count
    if !text.contains(".") { text += "." }
    while text.count - dot - 1 < places { text += "0" }
    return text
}

func fail(_ message: String) -> Never {
    let text = "route-queries: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(1)
}

func fileSize(_ path: String) -> Int64 {
    var s = stat()
    return stat(path, &s) == 0 ? Int64(s.st_size) : 0
}

func readLines(_ path: String) throws -> [StreetLine] {
    let reader = try GeoJSONReader(path: path)
    let fields = reader.schema.fields.map(\.name)
    let name = fields.firstIndex(of: "name") ?? fields.firstIndex(of: "FULLNAME")
    let oneway = fields.firstIndex(of: "oneway")
    let speed = fields.firstIndex(of: "speed")
    var lines: [StreetLine] = []
    while let feature = try reader.next() {
        guard let geometry = feature.geometry else { continue }
        var text = ""
        if let name, case .text(let s) = feature.values[name] { text = s }
        var direction = TravelDirection.both
        if let oneway, case .text(let s) = feature.values[oneway] { direction = s == "FT" ? .with : s == "TF" ? .against : .both }
        var kmh = 40.0
        if let speed, let v = feature.values[speed].double, v > 0 { kmh = v }
        for part in geometry.flattenedMembers {
            guard case .lineString(let points) = part.shape else { continue }
            lines.append(StreetLine(points: points.map { StreetNetwork.Node(lon: $0.x, lat: $0.y) }, name: text, direction: direction, speed: kmh, sourceId: Int64(feature.row)))
        }
    }
    return lines
}

func build(_ source: String, _ output: String, tolerance: Double, metrics: [StreetNetwork.Metric]) throws {
    var t0 = now()
    let lines = try readLines(source)
    let read = now() - t0
    t0 = now()
    let network = StreetNetworkBuilder.build(lines, options: .init(tolerance: tolerance))
    let graph = now() - t0
    t0 = now()
    let customizable = try CustomizableHierarchy(network)
    let order = now() - t0
    var hierarchies: [ContractionHierarchy] = []
    var times: [Double] = []
    for metric in metrics {
        t0 = now()
        hierarchies.append(try customizable.customise(network, metric: metric))
        times.append(now() - t0)
    }
    let bytes = StreetNetworkFile.encode(network, hierarchies: hierarchies)
    try AtomicFile.write(bytes, to: output)
    let parts = NetworkComponents.find(network)
    print("source: \(lines.count) lines, \(fileSize(source)) bytes (GeoJSON), read in \(fixed(read, 2)) s")
    print("network: \(network.nodes.count) nodes, \(network.edges.count) edges, \(parts.count) parts (largest \(parts.first?.edges ?? 0) edges); graph built in \(fixed(graph, 2)) s")
    print("order (nested dissection) and chordal graph: \(customizable.arcCount) arcs, \(fixed(order, 2)) s")
    for (h, time) in zip(hierarchies, times) {
        print("hierarchy by \(h.metric == .time ? "time" : "distance"): customised in \(fixed(time, 2)) s, \(h.arcs.count) arcs kept, \(h.arcs.filter(\.isShortcut).count) of them shortcuts")
    }
    print("file: \(bytes.count) bytes (\(fixed(Double(bytes.count) / Double(max(fileSize(source), 1)), 2)) of the GeoJSON)")
}

/// A hierarchy that counts the arcs a query looks at.
struct CountingGraph<G: HierarchyGraph>: HierarchyGraph {
    final class Counter { var value = 0 }
    let graph: G
    let scanned = Counter()
    init(_ graph: G) { self.graph = graph }
    func arcs(_ node: Int32, up: Bool) -> Range<Int> { graph.arcs(node, up: up) }
    func arc(at position: Int, up: Bool) -> (id: Int32, end: Int32, weight: UInt32) {
        scanned.value += 1
        return graph.arc(at: position, up: up)
    }
    func arcParts(_ id: Int32) -> (first: Int32, second: Int32) { graph.arcParts(id) }
    var nodeCount: Int { graph.nodeCount }
}

func query(_ path: String, pairs: Int, output: String, seed: UInt64, metric: StreetNetwork.Metric) throws {
    let file = try RandomAccessFile(path: path)
    let network = try RoutingNetwork(range: ByteRange(file: file), source: path)
    let hierarchy = try network.hierarchy(metric)
    // Dijkstra over the same graph, in memory, for the settled counts.
    var copy = StreetNetwork()
    for i in 0..<Int32(network.nodeCount) { copy.nodes.append(try network.node(i)) }
    for e in 0..<Int32(network.edgeCount) { copy.edges.append(try network.edge(e)) }
    let dijkstra = Dijkstra(copy, metric: metric)
    // Nodes of the largest part, so that every pair has a route (ignoring one-way rules).
    let part = NetworkComponents.label(copy)
    var sizes: [Int32: Int] = [:]
    for p in part { sizes[p, default: 0] += 1 }
    let largest = sizes.max { $0.value < $1.value }!.key
    let candidates = (0..<copy.nodes.count).filter { part[$0] == largest }
    var state = seed
    func next() -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(candidates.count))
    }
    var times: [Double] = []
    var settledCH: [Int] = [], settledPlain: [Int] = [], scanned: [Int] = []
    var csv = "from_lon,from_lat,to_lon,to_lat,metres,seconds,settled_hierarchy,settled_dijkstra\n"
    var unreachable = 0
    for _ in 0..<pairs {
        let s = Int32(candidates[next()]), t = Int32(candidates[next()])
        let ends = ([RouteEnd(node: s, cost: 0)], [RouteEnd(node: t, cost: 0)])
        var best = Double.infinity
        var found: NodePath?
        for _ in 0..<3 {
            let t0 = now()
            found = try HierarchySearch.shortestPath(hierarchy, from: ends.0, to: ends.1)
            best = min(best, now() - t0)
        }
        guard let found else { unreachable += 1; continue }
        let plain = dijkstra.shortestPath(from: ends.0, to: ends.1)
        let counting = CountingGraph(hierarchy)
        _ = try HierarchySearch.shortestPath(counting, from: ends.0, to: ends.1)
        scanned.append(counting.scanned.value)
        times.append(best)
        settledCH.append(found.settled)
        settledPlain.append(plain?.settled ?? 0)
        let a = copy.nodes[Int(s)], b = copy.nodes[Int(t)]
        let metres = found.edges.reduce(0.0) { $0 + Double(copy.edges[Int($1 / 2)].millimetres) / 1000 }
        let seconds = found.edges.reduce(0.0) { $0 + Double(copy.edges[Int($1 / 2)].milliseconds) / 1000 }
        csv += "\(a.lon),\(a.lat),\(b.lon),\(b.lat),\(metres),\(seconds),\(found.settled),\(plain?.settled ?? 0)\n"
    }
    try AtomicFile.write(Array(csv.utf8), to: output)
    times.sort()
    func percentile(_ p: Double) -> Double { times.isEmpty ? 0 : times[min(times.count - 1, Int(Double(times.count) * p))] * 1000 }
    let meanCH = Double(settledCH.reduce(0, +)) / Double(max(settledCH.count, 1))
    let meanPlain = Double(settledPlain.reduce(0, +)) / Double(max(settledPlain.count, 1))
    print("\(times.count) queries by \(metric == .time ? "time" : "distance") (\(unreachable) one-way dead ends skipped), network mapped in place: p50 \(fixed(percentile(0.5), 3)) ms, p99 \(fixed(percentile(0.99), 3)) ms, max \(fixed((times.last ?? 0) * 1000, 3)) ms")
    print("arcs looked at per query: \(fixed(Double(scanned.reduce(0, +)) / Double(max(scanned.count, 1)), 0)) on average")
    print("nodes settled per query: hierarchy \(fixed(meanCH, 0)) on average, plain Dijkstra \(fixed(meanPlain, 0)) (\(fixed(meanPlain / max(meanCH, 1), 0))x)")
}

let arguments = CommandLine.arguments
do {
    switch arguments.count > 1 ? arguments[1] : "" {
    case "build" where arguments.count >= 4:
        let metrics: [StreetNetwork.Metric] = arguments.count > 5 ? (arguments[5] == "time" ? [.time] : [.distance]) : StreetNetwork.Metric.allCases
        try build(arguments[2], arguments[3], tolerance: arguments.count > 4 ? Double(arguments[4]) ?? 1 : 1, metrics: metrics)
    case "query" where arguments.count >= 5:
        try query(
            arguments[2], pairs: Int(arguments[3]) ?? 1000, output: arguments[4], seed: arguments.count > 5 ? UInt64(arguments[5]) ?? 18 : 18,
            metric: arguments.count > 6 && arguments[6] == "time" ? .time : .distance)
    default:
        fail("usage: route-queries build LINES.geojson OUT.mnet [TOLERANCE_M [time|distance]] | query NET.mnet PAIRS OUT.csv [SEED [time]]")
    }
} catch {
    fail("\(error)")
}
