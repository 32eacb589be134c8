#if canImport(Glibc)
import Glibc
#endif

/// One instruction of a route's directions.
public struct Direction: Sendable, Equatable {
    /// The ArcGIS REST API's maneuver types (`esriDMT...`), which `--json` carries.
    public enum Maneuver: String, Sendable {
        case depart = "esriDMTDepart"
        case straight = "esriDMTStraight"
        case bearLeft = "esriDMTBearLeft", bearRight = "esriDMTBearRight"
        case turnLeft = "esriDMTTurnLeft", turnRight = "esriDMTTurnRight"
        case sharpLeft = "esriDMTSharpLeft", sharpRight = "esriDMTSharpRight"
        case uTurn = "esriDMTUTurn"
        case roundabout = "esriDMTRoundabout"
        case stop = "esriDMTStop"
    }

    public var maneuver: Maneuver
    public var text: String
    /// The street this instruction goes along ("" when unnamed).
    public var street: String
    /// Metres and seconds to the next instruction.
    public var metres: Double
    public var seconds: Double
    /// Compass bearing (degrees) at the start of the instruction.
    public var bearing: Double
    /// The instruction's stretch of the route.
    public var geometry: [StreetNetwork.Node]
}

/// Turn-by-turn directions from a route: a stretch per street (consecutive pieces on one
/// street, or around one roundabout, merged), each turn named by its angle.
public enum Directions {
    /// Metres looked ahead and back from a turn to take the street's bearing, so that a
    /// bend in the last metres of a line does not read as the turn.
    static let bearingReach = 15.0

    struct Stretch {
        var name: Int32
        var roundabout: Bool
        var metres = 0.0
        var seconds = 0.0
        var geometry: [StreetNetwork.Node] = []
        /// The nodes the stretch passes, to count a roundabout's exits.
        var nodes: [Int32] = []
    }

    public static func make(_ route: Route, network: RoutingNetwork) throws(RoutingError) -> [Direction] {
        var directions: [Direction] = []
        let legEnds = route.legStarts.dropFirst() + [route.pieces.count]
        for (leg, (start, end)) in zip(route.legStarts, legEnds).enumerated() {
            let stretches = try self.stretches(Array(route.pieces[start..<end]), network)
            guard let first = stretches.first else { continue }
            let heading = bearing(first.geometry, fromStart: true)
            directions.append(Direction(
                maneuver: .depart, text: "\(leg == 0 ? "Start" : "Leave stop \(leg + 1)") heading \(compass(heading)) on \(streetName(network.name(first.name)))",
                street: network.name(first.name), metres: first.metres, seconds: first.seconds, bearing: heading, geometry: first.geometry))
            for i in 1..<stretches.count {
                let previous = stretches[i - 1], stretch = stretches[i]
                let entering = bearing(stretch.geometry, fromStart: true), leaving = bearing(previous.geometry, fromStart: false)
                let street = network.name(stretch.name)
                let (maneuver, text): (Direction.Maneuver, String)
                if stretch.roundabout {
                    // The stretch after the roundabout is where its exit leads.
                    continue
                } else if previous.roundabout {
                    let exits = try exitCount(previous, network)
                    maneuver = .roundabout
                    text = "At the roundabout, take the \(ordinal(exits)) exit onto \(streetName(street))"
                } else {
                    (maneuver, text) = turn(angle(from: leaving, to: entering), onto: streetName(street))
                }
                directions.append(Direction(maneuver: maneuver, text: text, street: street, metres: stretch.metres, seconds: stretch.seconds, bearing: entering, geometry: stretch.geometry))
            }
            let last = stretches[stretches.count - 1]
            let destination = route.stops[leg + 1]
            let side = sideOf(route.places[leg + 1], destination, along: last.geometry)
            let place = leg + 1 == route.stops.count - 1 ? "the destination" : "stop \(leg + 2)"
            directions.append(Direction(
                maneuver: .stop, text: "Arrive at \(place)\(side.map { ", on the \($0)" } ?? "")", street: network.name(last.name),
                metres: 0, seconds: 0, bearing: bearing(last.geometry, fromStart: false), geometry: [last.geometry.last ?? destination.point]))
        }
        return directions
    }

    /// The whole route's line, instruction after instruction.
    public static func path(_ directions: [Direction]) -> [StreetNetwork.Node] {
        directions.flatMap { $0.maneuver == .stop ? [] : $0.geometry }
    }

    /// The route's pieces merged into stretches of one street.
    static func stretches(_ pieces: [RoutePiece], _ network: RoutingNetwork) throws(RoutingError) -> [Stretch] {
        var stretches: [Stretch] = []
        for piece in pieces {
            let edge = try network.edge(piece.edge)
            let share = abs(piece.to - piece.from)
            let shape = try network.cut(piece)
            var sameStreet = stretches.last.map { $0.roundabout ? edge.roundabout : (!edge.roundabout && $0.name == edge.name && !network.name(edge.name).isEmpty) } ?? false
            // Back along the same street (a U-turn, as a forbidden turn may ask) is an
            // instruction of its own.
            if sameStreet, let last = stretches.last, !last.roundabout,
                abs(angle(from: bearing(last.geometry, fromStart: false), to: bearing(shape, fromStart: true))) >= 170
            {
                sameStreet = false
            }
            if !sameStreet { stretches.append(Stretch(name: edge.name, roundabout: edge.roundabout)) }
            stretches[stretches.count - 1].metres += Double(edge.millimetres) / 1000 * share
            stretches[stretches.count - 1].seconds += Double(edge.milliseconds) / 1000 * share
            let geometry = stretches[stretches.count - 1].geometry
            stretches[stretches.count - 1].geometry += geometry.isEmpty ? shape : Array(shape.dropFirst())
            if piece.to == 1 || piece.to == 0 { stretches[stretches.count - 1].nodes.append(piece.forward ? edge.to : edge.from) }
        }
        return stretches
    }

    /// Which exit of a roundabout a stretch around it leaves by: one for each node it
    /// passes where a street other than the roundabout's meets it, counting the last.
    static func exitCount(_ stretch: Stretch, _ network: RoutingNetwork) throws(RoutingError) -> Int {
        var exits = 0
        for node in stretch.nodes {
            for e in try network.incidentEdges(node) where !(try network.edge(e).roundabout) {
                exits += 1
                break
            }
        }
        return max(1, exits)
    }

    static func turn(_ angle: Double, onto street: String) -> (Direction.Maneuver, String) {
        let side = angle < 0 ? "left" : "right"
        switch abs(angle) {
        case ..<20: return (.straight, "Continue onto \(street)")
        case ..<60: return (angle < 0 ? .bearLeft : .bearRight, "Bear \(side) onto \(street)")
        case ..<120: return (angle < 0 ? .turnLeft : .turnRight, "Turn \(side) onto \(street)")
        case ..<170: return (angle < 0 ? .sharpLeft : .sharpRight, "Make a sharp \(side) onto \(street)")
        default: return (.uTurn, "Make a U-turn onto \(street)")
        }
    }

    /// The turn from one bearing to another, -180 (left) to 180 (right).
    static func angle(from a: Double, to b: Double) -> Double {
        var d = b - a
        while d > 180 { d -= 360 }
        while d <= -180 { d += 360 }
        return d
    }

    /// The bearing at a line's start (looking ahead) or end (arriving), over the first or
    /// last `bearingReach` metres.
    static func bearing(_ line: [StreetNetwork.Node], fromStart: Bool) -> Double {
        guard line.count >= 2 else { return 0 }
        let points = fromStart ? line : line.reversed()
        var far = points[1]
        var travelled = 0.0
        for i in 1..<points.count {
            travelled += Geodesic.distance(points[i - 1].lon, points[i - 1].lat, points[i].lon, points[i].lat)
            far = points[i]
            if travelled >= bearingReach { break }
        }
        let b = Geodesic.bearing(points[0].lon, points[0].lat, far.lon, far.lat)
        return fromStart ? b : (b + 180).truncatingRemainder(dividingBy: 360)
    }

    static func compass(_ bearing: Double) -> String {
        ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"][Int(((bearing + 22.5) / 45).rounded(.down)) % 8]
    }

    static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }

    static func streetName(_ name: String) -> String { name.isEmpty ? "an unnamed street" : name }

    /// Whether the place asked for lies left or right of the street where the route ends
    /// (nil when it is on the street).
    static func sideOf(_ place: StreetNetwork.Node, _ snap: StreetSnap, along line: [StreetNetwork.Node]) -> String? {
        guard snap.distance >= 3, line.count >= 2 else { return nil }
        let a = line[line.count - 2], b = line[line.count - 1]
        let k = cos(b.lat * .pi / 180)
        let cross = (b.lon - a.lon) * k * (place.lat - a.lat) - (b.lat - a.lat) * (place.lon - a.lon) * k
        return cross > 0 ? "left" : cross < 0 ? "right" : nil
    }
}
