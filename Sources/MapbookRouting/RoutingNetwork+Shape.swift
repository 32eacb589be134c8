extension RoutingNetwork {
    /// The part of an edge's shape a piece travels, in the direction it is travelled.
    public func cut(_ piece: RoutePiece) throws(RoutingError) -> [StreetNetwork.Node] {
        let shape = try shape(piece.edge)
        let lo = min(piece.from, piece.to), hi = max(piece.from, piece.to)
        let lengths = Geodesic.segmentLengths(shape)
        let total = lengths.reduce(0, +)
        func point(at fraction: Double) -> (StreetNetwork.Node, Int) {
            let target = fraction * total
            var walked = 0.0
            for i in 0..<lengths.count {
                if walked + lengths[i] >= target || i == lengths.count - 1 {
                    let t = lengths[i] > 0 ? min(1, max(0, (target - walked) / lengths[i])) : 0
                    let a = shape[i], b = shape[i + 1]
                    return (StreetNetwork.Node(lon: a.lon + t * (b.lon - a.lon), lat: a.lat + t * (b.lat - a.lat)), i)
                }
                walked += lengths[i]
            }
            return (shape[shape.count - 1], shape.count - 2)
        }
        var out: [StreetNetwork.Node]
        if lo <= 0 && hi >= 1 {
            out = shape
        } else {
            let (first, i) = lo <= 0 ? (shape[0], -1) : point(at: lo)
            let (last, j) = hi >= 1 ? (shape[shape.count - 1], shape.count - 1) : point(at: hi)
            out = [first]
            if j > i { out += shape[(i + 1)...j].filter { $0 != first && $0 != last } }
            out.append(last)
        }
        return piece.forward ? out : out.reversed()
    }
}
