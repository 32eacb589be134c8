import MapbookRouting
import MapbookTestSupport
import Testing

/// Routes between places part-way along streets, and their directions.
@Suite struct RouterTests {
    static func file(_ network: StreetNetwork) throws -> RoutingNetwork {
        let customizable = try CustomizableHierarchy(network)
        let hierarchies = try StreetNetwork.Metric.allCases.map { try customizable.customise(network, metric: $0) }
        return try RoutingNetwork(data: StreetNetworkFile.encode(network, hierarchies: hierarchies), source: "test.mnet")
    }

    /// Places snapped part-way along edges: the route's weight equals Dijkstra's from the
    /// same snapped points (the partial edges as costs to and from their ends).
    @Test(arguments: StreetNetwork.Metric.allCases)
    func routesBetweenPlacesMatchDijkstra(metric: StreetNetwork.Metric) throws {
        let network = ContractionHierarchyTests.town(size: 30, seed: 3)
        let file = try Self.file(network)
        let router = Router(network: file)
        let dijkstra = Dijkstra(network, metric: metric)
        var rng = SplitMix64(seed: 5)
        var routed = 0
        for _ in 0..<150 {
            func place() -> StreetNetwork.Node {
                StreetNetwork.Node(lon: -88.15 + Double(rng.next() % 30_000) / 1e6, lat: 41.77 + Double(rng.next() % 22_000) / 1e6)
            }
            let a = place(), b = place()
            let route: Route
            switch Self.attempt(router, [a, b], metric) {
            case .success(let found): route = found
            case .failure(let error):
                #expect(error.kind == .unreachable || error.kind == .samePlace, "\(error)")
                continue
            }
            routed += 1
            let s = route.stops[0], t = route.stops[1]
            let se = network.edges[Int(s.edge)], te = network.edges[Int(t.edge)]
            let ws = Double(network.weight(Int(s.edge), metric)), wt = Double(network.weight(Int(t.edge), metric))
            var sources: [RouteEnd] = [], targets: [RouteEnd] = []
            if se.direction != .against && se.direction != .closed { sources.append(RouteEnd(node: se.to, cost: UInt64(((1 - s.fraction) * ws).rounded()))) }
            if se.direction != .with && se.direction != .closed { sources.append(RouteEnd(node: se.from, cost: UInt64((s.fraction * ws).rounded()))) }
            if te.direction != .against && te.direction != .closed { targets.append(RouteEnd(node: te.from, cost: UInt64((t.fraction * wt).rounded()))) }
            if te.direction != .with && te.direction != .closed { targets.append(RouteEnd(node: te.to, cost: UInt64(((1 - t.fraction) * wt).rounded()))) }
            var expected = dijkstra.shortestPath(from: sources, to: targets)?.weight ?? .max
            if s.edge == t.edge {
                if t.fraction >= s.fraction, se.direction == .both || se.direction == .with { expected = min(expected, UInt64(((t.fraction - s.fraction) * ws).rounded())) }
                if t.fraction <= s.fraction, se.direction == .both || se.direction == .against { expected = min(expected, UInt64(((s.fraction - t.fraction) * ws).rounded())) }
            }
            let got = metric == .time ? route.seconds * 1000 : route.metres * 1000
            #expect(abs(got - Double(expected)) <= 2, "\(a) -> \(b): route \(got), Dijkstra \(expected)")
            // The pieces join up: each starts where the one before ended.
            for (p, q) in zip(route.pieces, route.pieces.dropFirst()) {
                let pe = network.edges[Int(p.edge)], qe = network.edges[Int(q.edge)]
                #expect((p.forward ? pe.to : pe.from) == (q.forward ? qe.from : qe.to))
            }
        }
        #expect(routed > 100)
    }

    static func attempt(_ router: Router, _ places: [StreetNetwork.Node], _ metric: StreetNetwork.Metric) -> Result<Route, RoutingError> {
        do { return .success(try router.route(places, by: metric)) } catch { return .failure(error) }
    }

    /// An L: east along Ogden Ave, then north up Main St; a one-way street the wrong way
    /// is not taken.
    static func corner() throws -> RoutingNetwork {
        func p(_ x: Double, _ y: Double) -> StreetNetwork.Node { StreetNetwork.Node(lon: -88.15 + x * 0.001, lat: 41.77 + y * 0.00075) }
        let lines = [
            StreetLine(points: [p(0, 0), p(1, 0), p(2, 0)], name: "Ogden Ave", speed: 50, sourceId: 1),
            StreetLine(points: [p(2, 0), p(2, 1), p(2, 2)], name: "Main St", speed: 30, sourceId: 2),
            // A one-way shortcut from the corner's far end back, which may not be driven west-to-north.
            StreetLine(points: [p(2, 2), p(0, 0)], name: "Diagonal Rd", direction: .with, speed: 30, sourceId: 3),
        ]
        return try file(StreetNetworkBuilder.build(lines))
    }

    @Test func directionsNameTheTurnsAndStreets() throws {
        let network = try Self.corner()
        let router = Router(network: network)
        let start = StreetNetwork.Node(lon: -88.15 + 0.0002, lat: 41.77 - 0.00002)
        let end = StreetNetwork.Node(lon: -88.148 + 0.00004, lat: 41.77 + 0.0012)
        let route = try router.route([start, end], by: .distance)
        let directions = try Directions.make(route, network: network)
        #expect(directions.map(\.maneuver) == [.depart, .turnLeft, .stop], "\(directions.map(\.text))")
        #expect(directions.map(\.text) == ["Start heading east on Ogden Ave", "Turn left onto Main St", "Arrive at the destination, on the right"])
        // Ogden Ave from 0.2 to 2 blocks, Main St 1.6 blocks of 83 m.
        #expect(abs(directions[0].metres - 1.8 * 83.1) < 2, "\(directions[0].metres)")
        #expect(abs(route.metres - directions.map(\.metres).reduce(0, +)) < 0.01)
    }

    /// A one-way roundabout (counterclockwise) with a street at each of its four nodes: from
    /// the west to the east is the second exit.
    @Test func roundaboutsAreTakenByTheirExits() throws {
        let r = 0.0003
        func p(_ x: Double, _ y: Double) -> StreetNetwork.Node { StreetNetwork.Node(lon: -88.15 + x * r, lat: 41.77 + y * r) }
        let ring = [p(1, 0), p(0, 1), p(-1, 0), p(0, -1)]
        var lines = (0..<4).map { i in
            StreetLine(points: [ring[i], ring[(i + 1) % 4]], name: "Circle", direction: .with, speed: 20, roundabout: true, sourceId: Int64(i))
        }
        lines += [
            StreetLine(points: [p(-3, 0), p(-1, 0)], name: "West Rd", speed: 40, sourceId: 10),
            StreetLine(points: [p(0, 1), p(0, 3)], name: "North Rd", speed: 40, sourceId: 11),
            StreetLine(points: [p(1, 0), p(3, 0)], name: "East Rd", speed: 40, sourceId: 12),
            StreetLine(points: [p(0, -1), p(0, -3)], name: "South Rd", speed: 40, sourceId: 13),
        ]
        let network = try Self.file(StreetNetworkBuilder.build(lines))
        let route = try Router(network: network).route([p(-2.5, 0), p(2.5, 0)], by: .distance)
        let directions = try Directions.make(route, network: network)
        #expect(directions.map(\.maneuver) == [.depart, .roundabout, .stop], "\(directions.map(\.text))")
        #expect(directions[1].text == "At the roundabout, take the 2nd exit onto East Rd")
        // From the south, the first exit is the east.
        let fromSouth = try Directions.make(try Router(network: network).route([p(0, -2.5), p(2.5, 0)], by: .distance), network: network)
        #expect(fromSouth.map(\.text).contains("At the roundabout, take the 1st exit onto East Rd"), "\(fromSouth.map(\.text))")
    }

    @Test func placesOffTheNetworkOrUnreachableAreTold() throws {
        let network = try Self.corner()
        let router = Router(network: network)
        let far = StreetNetwork.Node(lon: -88.0, lat: 41.9)
        let near = StreetNetwork.Node(lon: -88.1495, lat: 41.77)
        #expect(Self.attempt(router, [near, far], .time).failureKind == .tooFarFromStreets)
        #expect(Self.attempt(router, [near, near], .time).failureKind == .samePlace)
    }
}

extension Result where Failure == RoutingError {
    var failureKind: RoutingError.Kind? {
        if case .failure(let error) = self { return error.kind }
        return nil
    }
}
