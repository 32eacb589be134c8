/// A part of an edge a route travels: from one fraction of its length to another (0 at its
/// first node, 1 at its second), forward when `from < to`.
public struct RoutePiece: Sendable, Equatable {
    public var edge: Int32
    public var from: Double
    public var to: Double
    public var forward: Bool { to >= from }
}

/// A route through the network: the places it was asked for as snapped to streets, the
/// pieces of edges it travels, their total length and time, and the search's work.
public struct Route: Sendable {
    public var metric: StreetNetwork.Metric
    /// The places asked for, and where each met the network.
    public var places: [StreetNetwork.Node]
    public var stops: [StreetSnap]
    public var pieces: [RoutePiece]
    public var metres: Double
    public var seconds: Double
    /// Nodes the searches settled (all legs).
    public var settled: Int
    /// Where each leg's pieces start, in `pieces` (one per leg).
    public var legStarts: [Int]
}

/// Finds routes on a network read in place: each place snapped to the nearest point of the
/// nearest street (a route starts and ends part-way along edges), then the hierarchy for
/// the metric searched from the edge's ends that may be driven to.
public struct Router {
    public let network: RoutingNetwork

    public init(network: RoutingNetwork) {
        self.network = network
    }

    /// A route visiting `places` in order (at least two), minimising `metric`. Places
    /// farther than `snapDistance` metres from every street are refused.
    public func route(_ places: [StreetNetwork.Node], by metric: StreetNetwork.Metric, snapDistance: Double = 500) throws(RoutingError) -> Route {
        precondition(places.count >= 2, "a route needs a start and a destination")
        let hierarchy = try network.hierarchy(metric)
        var stops: [StreetSnap] = []
        for (i, place) in places.enumerated() {
            guard let snap = try network.snap(place, within: snapDistance) else {
                throw RoutingError(
                    kind: .tooFarFromStreets, source: network.source,
                    message: "\(Self.placeName(i, of: places.count)) (\(place.text)) is more than \(Int(snapDistance)) m from every street of the network")
            }
            stops.append(snap)
        }
        var route = Route(metric: metric, places: places, stops: stops, pieces: [], metres: 0, seconds: 0, settled: 0, legStarts: [])
        for leg in 0..<(stops.count - 1) {
            route.legStarts.append(route.pieces.count)
            let (pieces, settled) = try self.leg(from: stops[leg], to: stops[leg + 1], hierarchy, metric, legIndex: leg, legCount: stops.count - 1)
            route.pieces += pieces
            route.settled += settled
        }
        for piece in route.pieces {
            let edge = try network.edge(piece.edge)
            let share = abs(piece.to - piece.from)
            route.metres += Double(edge.millimetres) / 1000 * share
            route.seconds += Double(edge.milliseconds) / 1000 * share
        }
        return route
    }

    func leg(from s: StreetSnap, to t: StreetSnap, _ hierarchy: StoredHierarchy, _ metric: StreetNetwork.Metric, legIndex: Int, legCount: Int) throws(RoutingError) -> ([RoutePiece], Int) {
        let start = try network.edge(s.edge), end = try network.edge(t.edge)
        if s.edge == t.edge, abs(s.fraction - t.fraction) * Double(start.millimetres) < 500 {
            throw RoutingError(kind: .samePlace, source: network.source, message: "\(legCount > 1 ? "stop \(legIndex + 1) and stop \(legIndex + 2)" : "the start and the destination") are the same place on the network (\(s.point.text))")
        }
        let ws = Double(metric == .time ? start.milliseconds : start.millimetres)
        let wt = Double(metric == .time ? end.milliseconds : end.millimetres)
        func cost(_ share: Double, _ w: Double) -> UInt64 { UInt64((share * w).rounded()) }
        var sources: [RouteEnd] = [], targets: [RouteEnd] = []
        // The search graph's nodes: where a turn is forbidden after the start's edge, its
        // copy of the node; the destination's edge may be reached from every copy of its
        // node that allows the turn onto it.
        if start.direction.forward { sources.append(RouteEnd(node: try network.graphNode(arriving: s.edge * 2), cost: cost(1 - s.fraction, ws))) }
        if start.direction.backward { sources.append(RouteEnd(node: try network.graphNode(arriving: s.edge * 2 + 1), cost: cost(s.fraction, ws))) }
        if end.direction.forward { targets += try network.graphNodes(leaving: t.edge * 2).map { RouteEnd(node: $0, cost: cost(t.fraction, wt)) } }
        if end.direction.backward { targets += try network.graphNodes(leaving: t.edge * 2 + 1).map { RouteEnd(node: $0, cost: cost(1 - t.fraction, wt)) } }

        // Along the one edge, if it may be driven that way.
        var direct: UInt64?
        if s.edge == t.edge {
            if t.fraction >= s.fraction, start.direction.forward { direct = cost(t.fraction - s.fraction, ws) }
            if t.fraction <= s.fraction, start.direction.backward { direct = cost(s.fraction - t.fraction, ws) }
        }
        let found: NodePath?
        do { found = try HierarchySearch.shortestPath(hierarchy, from: sources, to: targets) } catch {
            throw network.damaged("a shortcut of the hierarchy does not unpack into edges")
        }
        if let direct, direct <= found?.weight ?? .max {
            return ([RoutePiece(edge: s.edge, from: s.fraction, to: t.fraction)], found?.settled ?? 0)
        }
        guard let path = found else {
            throw RoutingError(
                kind: .unreachable, source: network.source,
                message: "no way leads from \(s.point.text) to \(t.point.text) (one-way streets, or a part of the network cut off from the rest)")
        }
        var pieces: [RoutePiece] = []
        // Leave the first edge by the end the path starts from, and reach the last by the
        // end it ends at (the cheaper one if the edge is a loop).
        let pathStart = try network.baseNode(path.start), pathEnd = try network.baseNode(path.end)
        let leaveForward = start.direction.forward && pathStart == start.to && (!start.direction.backward || start.from != start.to || s.fraction >= 0.5)
        pieces.append(RoutePiece(edge: s.edge, from: s.fraction, to: leaveForward ? 1 : 0))
        for ref in path.edges {
            let forward = ref % 2 == 0
            pieces.append(RoutePiece(edge: ref / 2, from: forward ? 0 : 1, to: forward ? 1 : 0))
        }
        let arriveForward = end.direction.forward && pathEnd == end.from && (!end.direction.backward || end.from != end.to || t.fraction <= 0.5)
        pieces.append(RoutePiece(edge: t.edge, from: arriveForward ? 0 : 1, to: t.fraction))
        return (pieces.filter { $0.from != $0.to }, path.settled)
    }

    static func placeName(_ i: Int, of count: Int) -> String {
        i == 0 ? "the start" : i == count - 1 ? "the destination" : "stop \(i + 1)"
    }
}
