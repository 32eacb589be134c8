extension StreetNetwork {
    /// A turn restriction as a street layer states it: no turn from one source line onto
    /// another (their feature ids).
    public struct LineTurn: Sendable, Equatable {
        public var from: Int64
        public var to: Int64

        public init(from: Int64, to: Int64) {
            self.from = from
            self.to = to
        }
    }

    /// Forbids each turn wherever its two lines meet: arriving at a node they share by an
    /// edge of `from`, leaving it by an edge of `to`. A line to itself forbids the U-turn,
    /// back along the edge one came by, at each of its nodes. A line that runs on through
    /// the node is turned from whichever way it is driven: to forbid one way only, the
    /// lines must end at the node (as OpenStreetMap's restrictions ask of their ways).
    /// Returns the turns each restriction forbade: 0 where its lines do not meet.
    public mutating func forbid(_ restrictions: [LineTurn]) -> [Int] {
        var edgesOf: [Int64: [Int32]] = [:]
        for (e, edge) in edges.enumerated() { edgesOf[edge.sourceId, default: []].append(Int32(e)) }
        var forbidden = Set(forbiddenTurns)
        var counts: [Int] = []
        for restriction in restrictions {
            let before = forbidden.count
            let toEdges = edgesOf[restriction.to] ?? []
            for e in edgesOf[restriction.from] ?? [] {
                for arriving in [e * 2, e * 2 + 1] {
                    let node = arrival(arriving)
                    if restriction.from == restriction.to {
                        forbidden.insert(ForbiddenTurn(from: arriving, to: arriving ^ 1))
                        continue
                    }
                    for f in toEdges {
                        for leaving in [f * 2, f * 2 + 1] where departure(leaving) == node {
                            forbidden.insert(ForbiddenTurn(from: arriving, to: leaving))
                        }
                    }
                }
            }
            counts.append(forbidden.count - before)
        }
        forbiddenTurns = forbidden.sorted()
        return counts
    }
}
