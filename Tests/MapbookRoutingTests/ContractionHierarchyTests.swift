import MapbookRouting
import MapbookTestSupport
import Testing

/// The hierarchy's shortest paths against plain Dijkstra's on the same graph.
@Suite struct ContractionHierarchyTests {
    /// A town-like grid, about 100 m blocks, with some one-way streets, missing blocks and
    /// faster avenues, so that time and distance disagree.
    static func town(size: Int, seed: UInt64) -> StreetNetwork {
        var rng = SplitMix64(seed: seed)
        var lines: [StreetLine] = []
        let step = 0.001
        for row in 0..<size {
            for col in 0..<size {
                let here = StreetNetwork.Node(lon: -88.15 + Double(col) * step, lat: 41.77 + Double(row) * step * 0.75)
                let east = StreetNetwork.Node(lon: here.lon + step, lat: here.lat)
                let north = StreetNetwork.Node(lon: here.lon, lat: here.lat + step * 0.75)
                for (to, avenue, name) in [(east, row % 5 == 0, "Row \(row)"), (north, col % 7 == 0, "Col \(col)")] {
                    if rng.next() % 10 == 0 { continue }
                    let oneway: TravelDirection = rng.next() % 6 == 0 ? (rng.next() % 2 == 0 ? .with : .against) : .both
                    lines.append(StreetLine(points: [here, to], name: name, roadClass: avenue ? "arterial" : "local", direction: oneway, speed: avenue ? 60 : 30, sourceId: Int64(lines.count)))
                }
            }
        }
        return StreetNetworkBuilder.build(lines)
    }

    /// A hierarchy that runs past its deadline stops with `timeLimit`, saying how far it got,
    /// and reports its progress while it runs.
    @Test func aHierarchyPastItsTimeLimitStopsAndSaysHowFarItGot() throws {
        let network = Self.town(size: 40, seed: 7)
        #expect {
            _ = try ContractionHierarchy.build(network, metric: .distance, until: ContinuousClock.now - .seconds(1))
        } throws: { error in
            guard let error = error as? RoutingError, error.kind == .timeLimit else { return false }
            return error.message.contains("0 of \(network.nodes.count) nodes")
        }
        var heard: [Int] = []
        let built = try ContractionHierarchy.build(network, metric: .distance, until: ContinuousClock.now + .seconds(600)) { done, all in
            #expect(all == 2 * network.nodes.count)
            heard.append(done)
        }
        #expect(heard.first == 0 && heard.last == 2 * network.nodes.count && heard == heard.sorted())
        #expect(built.rank.count == network.nodes.count)
    }

    @Test(arguments: StreetNetwork.Metric.allCases)
    func shortestPathsMatchDijkstraOnRandomPairs(metric: StreetNetwork.Metric) throws {
        let network = Self.town(size: 40, seed: 7)
        let built = try ContractionHierarchy.build(network, metric: metric)
        // Queries run on the hierarchy as a package stores it: written, then read in place.
        let file = try RoutingNetwork(data: StreetNetworkFile.encode(network, hierarchies: [built]), source: "town.mnet")
        let hierarchy = try file.hierarchy(metric)
        let dijkstra = Dijkstra(network, metric: metric)
        var rng = SplitMix64(seed: 11)
        var found = 0, settledCH = 0, settledDijkstra = 0
        for _ in 0..<300 {
            let s = Int32(rng.next() % UInt64(network.nodes.count)), t = Int32(rng.next() % UInt64(network.nodes.count))
            let fast = try HierarchySearch.shortestPath(hierarchy, from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
            let plain = dijkstra.shortestPath(from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
            #expect(fast?.weight == plain?.weight, "\(s) -> \(t)")
            guard let fast, let plain else { continue }
            found += 1
            settledCH += fast.settled
            settledDijkstra += plain.settled
            // The unpacked edges are a walk from s to t whose weights add up to the answer.
            var at = s, total: UInt64 = 0
            for ref in fast.edges {
                let edge = network.edges[Int(ref / 2)]
                let forward = ref % 2 == 0
                #expect(forward ? edge.direction != .against && edge.direction != .closed : edge.direction != .with && edge.direction != .closed)
                #expect((forward ? edge.from : edge.to) == at)
                at = forward ? edge.to : edge.from
                total += UInt64(network.weight(Int(ref / 2), metric))
            }
            #expect(at == t && total == fast.weight)
        }
        #expect(found > 200)
        // The preprocessing shows: the hierarchy settles a fraction of Dijkstra's nodes.
        #expect(settledCH * 4 < settledDijkstra, "settled: hierarchy \(settledCH), Dijkstra \(settledDijkstra)")
    }
}

/// One order, several metrics: the customizable hierarchy built once answers for a profile
/// it was not ordered for as Dijkstra does on the network that profile describes.
@Suite struct CustomizableHierarchyTests {
    /// Every pair of nodes of a small town, both metrics from one order, in memory as built.
    @Test func everyPairOfASmallTownIsAsDijkstraFindsIt() throws {
        let network = ContractionHierarchyTests.town(size: 12, seed: 29)
        let customizable = try CustomizableHierarchy(network)
        #expect(customizable.nodeCount == network.nodes.count)
        for metric in StreetNetwork.Metric.allCases {
            let hierarchy = try customizable.customise(network, metric: metric)
            let dijkstra = Dijkstra(network, metric: metric)
            var differ = 0, found = 0
            for s in 0..<Int32(network.nodes.count) {
                for t in 0..<Int32(network.nodes.count) {
                    let fast = try HierarchySearch.shortestPath(hierarchy, from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
                    let plain = dijkstra.shortestPath(from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
                    if fast?.weight != plain?.weight { differ += 1 }
                    if fast != nil { found += 1 }
                }
            }
            #expect(differ == 0, "\(metric.name): \(differ) pairs differ")
            #expect(found > network.nodes.count * network.nodes.count / 2)
        }
    }

    /// Walking and a truck on the town: their own speeds, streets closed to them, one-way
    /// rules that do (truck) or do not (walking) apply.
    @Test(arguments: ["truck", "walking"])
    func aNewProfileIsACustomisationNotANewOrder(profile: String) throws {
        let network = ContractionHierarchyTests.town(size: 40, seed: 7)
        let customizable = try CustomizableHierarchy(network)
        var other = network
        for e in other.edges.indices {
            let local = other.classes[Int(other.edges[e].roadClass)] == "local"
            if profile == "truck" {
                // No trucks on one local block in four; slower than cars elsewhere.
                if local && e % 4 == 0 { other.edges[e].direction = .closed }
                other.edges[e].milliseconds = other.edges[e].milliseconds / 3 * 4
            } else {
                // 5 km/h both ways on every street; no walking on the arterials.
                if !local { other.edges[e].direction = .closed } else if other.edges[e].direction != .closed { other.edges[e].direction = .both }
                other.edges[e].milliseconds = UInt32(Double(other.edges[e].millimetres) / 1000 / (5 / 3.6) * 1000)
            }
        }
        let hierarchy = try customizable.customise(metric: .time) { ref in
            let edge = other.edges[Int(ref / 2)]
            return (ref % 2 == 0 ? edge.direction.forward : edge.direction.backward) ? edge.milliseconds : nil
        }
        let file = try RoutingNetwork(data: StreetNetworkFile.encode(other, hierarchies: [hierarchy]), source: "\(profile).mnet")
        let stored = try file.hierarchy(.time)
        let dijkstra = Dijkstra(other, metric: .time)
        var rng = SplitMix64(seed: 23)
        var found = 0
        for _ in 0..<300 {
            let s = Int32(rng.next() % UInt64(network.nodes.count)), t = Int32(rng.next() % UInt64(network.nodes.count))
            let fast = try HierarchySearch.shortestPath(stored, from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
            let plain = dijkstra.shortestPath(from: [RouteEnd(node: s, cost: 0)], to: [RouteEnd(node: t, cost: 0)])
            #expect(fast?.weight == plain?.weight, "\(profile): \(s) -> \(t)")
            guard let fast else { continue }
            found += 1
            // The route uses only streets open to the profile, the right way.
            for ref in fast.edges {
                let edge = other.edges[Int(ref / 2)]
                #expect(ref % 2 == 0 ? edge.direction.forward : edge.direction.backward, "\(profile): edge \(ref / 2)")
            }
        }
        #expect(found > 150)
    }
}

/// How lines become nodes and edges.
@Suite struct StreetNetworkBuilderTests {
    static func p(_ x: Double, _ y: Double) -> StreetNetwork.Node { StreetNetwork.Node(lon: -88 + x * 0.001, lat: 41 + y * 0.001) }

    /// An X of two lines without a shared vertex: apart unless crossings are asked for, and
    /// apart anyway when one passes over the other (another level).
    @Test func crossingsAreSplitWhenAskedAndOnTheSameLevel() {
        let x = [StreetLine(points: [Self.p(0, 0), Self.p(2, 2)], name: "A St", speed: 30, sourceId: 1),
                 StreetLine(points: [Self.p(0, 2), Self.p(2, 0)], name: "B St", speed: 30, sourceId: 2)]
        let plain = StreetNetworkBuilder.build(x)
        #expect(plain.nodes.count == 4 && plain.edges.count == 2)
        let split = StreetNetworkBuilder.build(x, options: .init(splitAtCrossings: true))
        #expect(split.nodes.count == 5 && split.edges.count == 4)
        var bridge = x
        bridge[1].level = 1
        let over = StreetNetworkBuilder.build(bridge, options: .init(splitAtCrossings: true))
        #expect(over.nodes.count == 4 && over.edges.count == 2)
    }

    /// Ends a little apart meet within the tolerance, not beyond it.
    @Test func endsWithinTheToleranceMeet() {
        let gap = 0.5 / 111_000 * 1000 // half a metre, in the units of p()
        let lines = [StreetLine(points: [Self.p(0, 0), Self.p(1, 0)], speed: 30, sourceId: 1),
                     StreetLine(points: [Self.p(1, gap), Self.p(1, 1)], speed: 30, sourceId: 2)]
        #expect(StreetNetworkBuilder.build(lines, options: .init(tolerance: 1)).nodes.count == 3)
        #expect(StreetNetworkBuilder.build(lines, options: .init(tolerance: 0.2)).nodes.count == 4)
    }
}
