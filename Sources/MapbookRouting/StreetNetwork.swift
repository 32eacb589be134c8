/// Which ways a street may be driven, relative to the order of its points.
public enum TravelDirection: UInt8, Sendable, Equatable {
    /// The raw values are the network file's (`StreetNetworkFile`).
    case both = 0, with, against, closed

    public var forward: Bool { self == .both || self == .with }
    public var backward: Bool { self == .both || self == .against }
}

/// A street network as built from its source lines: nodes where lines meet, and edges
/// between them with their lengths, travel times, names and shapes. Coordinates are WGS84
/// longitude/latitude.
public struct StreetNetwork: Sendable {
    public struct Node: Sendable, Equatable {
        public var lon: Double
        public var lat: Double

        public init(lon: Double, lat: Double) {
            self.lon = lon
            self.lat = lat
        }

        /// `lon,lat` to six decimals (about 10 cm), as places are typed.
        public var text: String {
            func f(_ d: Double) -> String { String(Double((d * 1e6).rounded()) / 1e6) }
            return "\(f(lon)),\(f(lat))"
        }
    }

    public struct Edge: Sendable {
        public var from: Int32
        public var to: Int32
        /// Geodesic length, in millimetres: integer weights make every shortest-path search
        /// over the network agree exactly.
        public var millimetres: UInt32
        /// Travel time at the street's speed, in milliseconds.
        public var milliseconds: UInt32
        public var direction: TravelDirection
        /// Indexes into `names` and `classes`.
        public var name: Int32
        public var roadClass: Int32
        /// The source feature the edge was cut from.
        public var sourceId: Int64
        /// The edge's points, from `from` to `to`: a range of `points`.
        public var firstPoint: Int32
        public var pointCount: Int32
        public var roundabout: Bool
    }

    public var nodes: [Node] = []
    public var edges: [Edge] = []
    public var points: [Node] = []
    public var names: [String] = []
    public var classes: [String] = []
    /// Turns no route takes, sorted (`StreetNetwork+Turns`).
    public var forbiddenTurns: [ForbiddenTurn] = []

    public init() {}

    /// The node arc `ref` (`edge * 2` along the edge's points, `edge * 2 + 1` against
    /// them) leaves from, and the node it arrives at.
    public func departure(_ ref: Int32) -> Int32 { ref % 2 == 0 ? edges[Int(ref / 2)].from : edges[Int(ref / 2)].to }
    public func arrival(_ ref: Int32) -> Int32 { ref % 2 == 0 ? edges[Int(ref / 2)].to : edges[Int(ref / 2)].from }

    /// The shape of edge `e`, from its first node to its second.
    public func shape(_ e: Int) -> ArraySlice<Node> {
        let edge = edges[e]
        return points[Int(edge.firstPoint)..<Int(edge.firstPoint + edge.pointCount)]
    }

    /// What a route minimises.
    public enum Metric: Int, Sendable, CaseIterable {
        case time = 0, distance = 1

        /// "time" or "distance", as project files name it.
        public var name: String { self == .time ? "time" : "distance" }
    }

    /// The weight of edge `e` by `metric`.
    public func weight(_ e: Int, _ metric: Metric) -> UInt32 {
        metric == .time ? edges[e].milliseconds : edges[e].millimetres
    }
}
