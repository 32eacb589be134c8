import MapbookData
import MapbookRouting
import MapbookTestSupport
import Testing

/// The real TIGER roads of Manassas Park, Virginia (tippecanoe-edge's tl_2018_51685_roads),
/// whose lines are not split where streets cross.
@Suite(Fixtures.required) struct TigerRoadsTests {
    static func lines() throws -> [StreetLine] {
        let reader = try GeoJSONReader(path: Fixtures.path("tippecanoe-edge/tests/tl_2018_51685_roads/in.json"))
        let name = try #require(reader.schema.fields.firstIndex { $0.name == "FULLNAME" })
        var lines: [StreetLine] = []
        while let feature = try reader.next() {
            guard case .lineString(let points)? = feature.geometry?.shape else { continue }
            var street = ""
            if case .text(let s) = feature.values[name] { street = s }
            lines.append(StreetLine(points: points.map { StreetNetwork.Node(lon: $0.x, lat: $0.y) }, name: street, speed: 40, sourceId: Int64(feature.row)))
        }
        return lines
    }

    /// TIGER lines pass through intersections with a vertex in common, not split there: the
    /// network splits them at those shared vertices.
    @Test func linesAreSplitAtSharedVertices() throws {
        let lines = try Self.lines()
        #expect(lines.count == 256)
        let network = StreetNetworkBuilder.build(lines)
        #expect(network.edges.count > lines.count + 300, "\(lines.count) lines -> \(network.edges.count) edges")
        // Every source line's length is kept: cutting adds none and loses none.
        var source = 0.0
        for line in lines {
            for (a, b) in zip(line.points, line.points.dropFirst()) { source += Geodesic.distance(a.lon, a.lat, b.lon, b.lat) }
        }
        let built = network.edges.reduce(0.0) { $0 + Double($1.millimetres) / 1000 }
        #expect(abs(source - built) < 1, "\(source) m of lines, \(built) m of edges")
        // Most of the city is one part.
        let parts = NetworkComponents.find(network)
        #expect(Double(parts[0].edges) > 0.8 * Double(network.edges.count), "\(parts.prefix(5))")
    }

    @Test(arguments: StreetNetwork.Metric.allCases)
    func hierarchyAnswersEqualDijkstraOnRandomPairs(metric: StreetNetwork.Metric) throws {
        let network = StreetNetworkBuilder.build(try Self.lines(), options: .init(tolerance: 1, splitAtCrossings: true))
        let file = try RoutingNetwork(data: StreetNetworkFile.encode(network, hierarchies: [try ContractionHierarchy.build(network, metric: metric)]), source: "tiger.mnet")
        let hierarchy = try file.hierarchy(metric)
        let dijkstra = Dijkstra(network, metric: metric)
        var rng = SplitMix64(seed: 51685)
        var compared = 0
        for _ in 0..<500 {
            let s = Int32(rng.next() % UInt64(network.nodes.count)), t = Int32(rng.next() % UInt64(network.nodes.count))
            let fast = try HierarchySearch.shortestPath(hierarchy, from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
            let plain = dijkstra.shortestPath(from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
            #expect(fast?.weight == plain?.weight, "\(s) -> \(t)")
            if fast != nil { compared += 1 }
        }
        #expect(compared > 300)
    }
}
