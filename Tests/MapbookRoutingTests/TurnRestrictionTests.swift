@testable import MapbookRouting
import MapbookTestSupport
import Testing

/// Forbidden turns: no route takes one, and the hierarchy still finds the shortest route that
/// obeys them (against a search over arcs, which knows turns without splitting nodes).
@Suite struct TurnRestrictionTests {
    /// Two by two blocks of about 83 m, each block side its own line (source id), so that
    /// restrictions can name the arms of the middle crossing.
    static func blocks() -> (lines: [StreetLine], id: (Int, Int, Int, Int) -> Int64) {
        func p(_ x: Int, _ y: Int) -> StreetNetwork.Node { StreetNetwork.Node(lon: -88.15 + Double(x) * 0.001, lat: 41.77 + Double(y) * 0.00075) }
        var lines: [StreetLine] = []
        func id(_ x1: Int, _ y1: Int, _ x2: Int, _ y2: Int) -> Int64 { Int64(x1 * 1000 + y1 * 100 + x2 * 10 + y2) }
        for x in 0...2 {
            for y in 0...2 {
                if x < 2 { lines.append(StreetLine(points: [p(x, y), p(x + 1, y)], name: "Row \(y)", speed: 30, sourceId: id(x, y, x + 1, y))) }
                if y < 2 { lines.append(StreetLine(points: [p(x, y), p(x, y + 1)], name: "Col \(x)", speed: 30, sourceId: id(x, y, x, y + 1))) }
            }
        }
        return (lines, id)
    }

    @Test func aForbiddenTurnIsNotTakenAndTheRouteGoesRound() throws {
        let (lines, id) = Self.blocks()
        var network = StreetNetworkBuilder.build(lines)
        // From the middle of the west arm of the middle crossing to the middle of its north arm.
        let start = StreetNetwork.Node(lon: -88.1495, lat: 41.77075), end = StreetNetwork.Node(lon: -88.149, lat: 41.771125)
        let free = try Router(network: try RouterTests.file(network)).route([start, end], by: .distance)
        // No left turn from the west arm onto the north arm.
        let counts = network.forbid([.init(from: id(0, 1, 1, 1), to: id(1, 1, 1, 2))])
        #expect(counts == [1])
        let file = try RouterTests.file(network)
        #expect(file.turns.turnCount == 1 && file.graphNodeCount == file.nodeCount + 1)
        let route = try Router(network: file).route([start, end], by: .distance)
        #expect(abs(free.metres - 83.3) < 1, "\(free.metres)")
        // Round the north-west block instead: back half a block, a block north, a block
        // east, half a block south: three blocks.
        #expect(abs(route.metres - 3 * 83.3) < 3, "\(route.metres)")
        let west = network.edges.firstIndex { $0.sourceId == id(0, 1, 1, 1) }!, north = network.edges.firstIndex { $0.sourceId == id(1, 1, 1, 2) }!
        for (a, b) in zip(route.pieces, route.pieces.dropFirst()) {
            #expect(!(a.edge == west && a.forward && b.edge == north && b.forward), "the forbidden turn was taken")
        }
        // The other way, north arm to west arm, is still a right turn away.
        let back = try Router(network: file).route([end, start], by: .distance)
        #expect(abs(back.metres - 83.3) < 1, "\(back.metres)")
    }

    /// No left turn from Main St (northbound) onto Elm St: the route goes on to the end of
    /// Main St and comes back, and the directions say so.
    @Test func theWayRoundIsAUTurnAndTheDirectionsSayIt() throws {
        func p(_ x: Double, _ y: Double) -> StreetNetwork.Node { StreetNetwork.Node(lon: -88.15 + x * 0.001, lat: 41.77 + y * 0.00075) }
        var network = StreetNetworkBuilder.build([
            StreetLine(points: [p(0, 0), p(0, 1)], name: "Main St", speed: 30, sourceId: 1),
            StreetLine(points: [p(0, 1), p(0, 2)], name: "Main St", speed: 30, sourceId: 2),
            StreetLine(points: [p(0, 1), p(-1, 1)], name: "Elm St", speed: 30, sourceId: 3),
        ])
        _ = network.forbid([.init(from: 1, to: 3)])
        let file = try RouterTests.file(network)
        let route = try Router(network: file).route([p(0, 0.5), p(-0.5, 1)], by: .time)
        let directions = try Directions.make(route, network: file)
        #expect(directions.map(\.text) == ["Start heading north on Main St", "Make a U-turn onto Main St", "Turn right onto Elm St", "Arrive at the destination"], "\(directions.map(\.text))")
        #expect(abs(route.metres - 3 * 83.4) < 2, "\(route.metres)")
    }

    @Test func aLineToItselfForbidsTheUTurnOnIt() {
        let (lines, id) = Self.blocks()
        var network = StreetNetworkBuilder.build(lines)
        let counts = network.forbid([.init(from: id(0, 1, 1, 1), to: id(0, 1, 1, 1)), .init(from: id(0, 0, 1, 0), to: id(2, 1, 2, 2))])
        // Both its ends, arriving either way; the second pair's lines do not meet.
        #expect(counts == [2, 0])
        #expect(network.forbiddenTurns.allSatisfy { $0.to == $0.from ^ 1 })
    }

    /// Random restrictions on a town: the hierarchy's answers against a Dijkstra over arcs
    /// (which knows the turn it arrives by), and no path takes a forbidden turn.
    @Test(arguments: StreetNetwork.Metric.allCases)
    func shortestPathsObeyRandomRestrictions(metric: StreetNetwork.Metric) throws {
        var network = ContractionHierarchyTests.town(size: 25, seed: 13)
        var rng = SplitMix64(seed: 17)
        var lineTurns: [StreetNetwork.LineTurn] = []
        for edge in network.edges where rng.next() % 4 == 0 {
            // Turns from this street onto another that meets it, and some U-turns.
            let meeting = network.edges.filter { $0.sourceId != edge.sourceId && ($0.from == edge.to || $0.to == edge.to) }
            if let other = meeting.first { lineTurns.append(.init(from: edge.sourceId, to: other.sourceId)) }
            if rng.next() % 3 == 0 { lineTurns.append(.init(from: edge.sourceId, to: edge.sourceId)) }
        }
        _ = network.forbid(lineTurns)
        #expect(network.forbiddenTurns.count > 100)
        let hierarchy = try ContractionHierarchy.build(network, metric: metric)
        let file = try RoutingNetwork(data: StreetNetworkFile.encode(network, hierarchies: [hierarchy]), source: "town.mnet")
        let stored = try file.hierarchy(metric)
        let forbidden = Set(network.forbiddenTurns)
        var differ = 0, found = 0
        for _ in 0..<300 {
            let s = Int32(rng.next() % UInt64(network.nodes.count)), t = Int32(rng.next() % UInt64(network.nodes.count))
            guard s != t else { continue }
            let copies = (0..<file.turns.copyCount).filter { network.arrival(file.turns.copyArc($0)) == t }.map { Int32(file.nodeCount + $0) }
            let fast = try HierarchySearch.shortestPath(stored, from: [RouteEnd(node: s, cost: 0)], to: ([t] + copies).map { RouteEnd(node: $0, cost: 0) })
            let plain = Self.arcDijkstra(network, metric, forbidden, from: s, to: t)
            if fast?.weight != plain { differ += 1 }
            guard let fast else { continue }
            found += 1
            for (a, b) in zip(fast.edges, fast.edges.dropFirst()) {
                let taken = forbidden.contains(ForbiddenTurn(from: a, to: b))
                #expect(!taken, "\(s) -> \(t) turns from arc \(a) to arc \(b)")
            }
        }
        #expect(differ == 0)
        #expect(found > 200)
    }

    /// Dijkstra whose states are arcs (the turn it arrived by), not nodes.
    static func arcDijkstra(_ network: StreetNetwork, _ metric: StreetNetwork.Metric, _ forbidden: Set<ForbiddenTurn>, from s: Int32, to t: Int32) -> UInt64? {
        var leaving: [Int32: [Int32]] = [:]
        for (e, edge) in network.edges.enumerated() where edge.from != edge.to {
            if edge.direction.forward { leaving[edge.from, default: []].append(Int32(e * 2)) }
            if edge.direction.backward { leaving[edge.to, default: []].append(Int32(e * 2 + 1)) }
        }
        var cost: [Int32: UInt64] = [:]
        var heap = MinHeap()
        for arc in leaving[s] ?? [] {
            let w = UInt64(network.weight(Int(arc / 2), metric))
            if w < cost[arc] ?? .max { cost[arc] = w; heap.push(w, arc) }
        }
        while let (d, arc) = heap.pop() {
            guard d == cost[arc] else { continue }
            let node = network.arrival(arc)
            if node == t { return d }
            for next in leaving[node] ?? [] where !forbidden.contains(ForbiddenTurn(from: arc, to: next)) {
                let nd = d + UInt64(network.weight(Int(next / 2), metric))
                if nd < cost[next] ?? .max { cost[next] = nd; heap.push(nd, next) }
            }
        }
        return nil
    }
}
