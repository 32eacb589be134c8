import MapbookLibrary
import MapbookPackage
import MapbookRouting
import MapbookSupport

/// A route between places as people give them (`LON,LAT` or text the locator finds), on a
/// package's street network: what `mapbook route`, the terminal viewer and a map page's
/// directions all ask for.
public struct SolvedRoute: Sendable {
    /// Each place as it was found, in order.
    public let labels: [String]
    public let route: Route
    public let directions: [Direction]
    /// The route's line, start to end.
    public var path: [StreetNetwork.Node] { Directions.path(directions) }

    /// Routes through `places` (two or more) by `metric` on the network `network` (the
    /// package's only or first one when nil), each place snapped within `snapDistance` metres.
    public init(
        _ places: [String], package: MobileMapPackage, library: DeviceLibrary, network: String? = nil, by metric: StreetNetwork.Metric, snapDistance: Double = 500
    ) throws {
        let routing = try RoutingNetwork.open(package, name: network)
        let found = try RoutePlaces.resolve(places, package: package, library: library)
        labels = found.map(\.label)
        route = try Router(network: routing).route(found.map(\.node), by: metric, snapDistance: snapDistance)
        directions = try Directions.make(route, network: routing)
    }

    /// The ArcGIS REST `solve` response.
    public var solveResponse: JSONValue { RouteOutput.solveResponse(route, directions, labels: labels, geometry: path) }
    /// The directions as numbered lines.
    public var lines: [String] { RouteOutput.lines(route, directions, labels: labels) }
}
