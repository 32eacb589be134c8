import MapbookSupport

/// A route as the ArcGIS REST `solve` response and as GPX (`mapbook route --json`, `--gpx`).
public enum RouteOutput {
    /// `{"routes": {...features}, "directions": [...]}`: lengths in metres and times in
    /// minutes (ArcGIS's defaults are miles and minutes, set by directionsLengthUnits).
    public static func solveResponse(_ route: Route, _ directions: [Direction], labels: [String], geometry: [StreetNetwork.Node]) -> JSONValue {
        let name = "\(labels.first ?? "") - \(labels.last ?? "")"
        let path: JSONValue = .array(geometry.map { .array([.double($0.lon), .double($0.lat)]) })
        let routeFeature: JSONValue = .object([
            "attributes": .object([
                "ObjectID": .int(1), "Name": .string(name), "Total_Length": .double(rounded(route.metres, 2)),
                "Total_Time": .double(rounded(route.seconds / 60, 4)),
                "Shape_Length": .double(rounded(route.metres, 2)),
            ]),
            "geometry": .object(["paths": .array([path])]),
        ])
        var lons = geometry.map(\.lon), lats = geometry.map(\.lat)
        if lons.isEmpty { lons = [0]; lats = [0] }
        let features: [JSONValue] = directions.map { d in
            .object([
                "attributes": .object([
                    "length": .double(rounded(d.metres, 2)), "time": .double(rounded(d.seconds / 60, 4)), "text": .string(d.text),
                    "maneuverType": .string(d.maneuver.rawValue), "streetName": .string(d.street), "bearing": .double(rounded(d.bearing, 1)),
                ]),
                "geometry": .object(["paths": .array([.array(d.geometry.map { .array([.double($0.lon), .double($0.lat)]) })])]),
            ])
        }
        return .object([
            "routes": .object([
                "fieldAliases": .object(["ObjectID": .string("ObjectID"), "Name": .string("Name"), "Total_Length": .string("Total_Length"), "Total_Time": .string("Total_Time")]),
                "geometryType": .string("esriGeometryPolyline"),
                "spatialReference": .object(["wkid": .int(4326), "latestWkid": .int(4326)]),
                "features": .array([routeFeature]),
            ]),
            "directions": .array([.object([
                "routeId": .int(1), "routeName": .string(name),
                "summary": .object([
                    "totalLength": .double(rounded(route.metres, 2)), "totalTime": .double(rounded(route.seconds / 60, 4)),
                    "totalDriveTime": .double(rounded(route.seconds / 60, 4)),
                    "envelope": .object([
                        "xmin": .double(lons.min()!), "ymin": .double(lats.min()!), "xmax": .double(lons.max()!), "ymax": .double(lats.max()!),
                        "spatialReference": .object(["wkid": .int(4326)]),
                    ]),
                ]),
                "features": .array(features),
            ])]),
            "messages": .array([]),
            "mapbook": .object(["metric": .string(route.metric == .time ? "time" : "distance"), "settledNodes": .int(route.settled)]),
        ])
    }

    /// The route as `mapbook route` prints it: the places, length and time, then the
    /// numbered directions, each with its own length and time.
    public static func lines(_ route: Route, _ directions: [Direction], labels: [String]) -> [String] {
        let metric = route.metric == .time ? "time" : "distance"
        var lines = ["\(labels.first ?? "") to \(labels.last ?? ""): \(length(route.metres)), \(duration(route.seconds)) (shortest by \(metric))"]
        for (i, d) in directions.enumerated() {
            let figures = d.maneuver == .stop ? "" : "  \(length(d.metres)), \(duration(d.seconds))"
            lines.append("\(String(i + 1).leftPadded(3)). \(d.text)\(figures)")
        }
        return lines
    }

    /// "850 m", "12.4 km".
    public static func length(_ metres: Double) -> String {
        metres < 1000 ? "\(Int(metres.rounded())) m" : "\(Format.number((metres / 100).rounded() / 10)) km"
    }

    /// "45 s", "12 min", "1 h 5 min".
    public static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return "\(Int(seconds.rounded())) s" }
        let minutes = Int((seconds / 60).rounded())
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }

    static func rounded(_ v: Double, _ places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (v * scale).rounded() / scale
    }

    /// GPX 1.1: the directions as a route (`rte`, one point per instruction) and the path as
    /// a track (`trk`), written (and escaped) by libxml2.
    public static func gpx(_ route: Route, _ directions: [Direction], labels: [String]) -> [UInt8] {
        func point(_ tag: String, _ p: StreetNetwork.Node, name: String? = nil) -> XMLNode {
            .element(XMLElement(tag, attributes: [("lat", String(p.lat)), ("lon", String(p.lon))], children: name.map { [.element(XMLElement("name", text: $0))] } ?? []))
        }
        let title = "\(labels.first ?? "") to \(labels.last ?? "")"
        let routePoints = directions.compactMap { d in d.geometry.first.map { point("rtept", $0, name: d.text) } }
        var trackPoints: [XMLNode] = []
        var last: StreetNetwork.Node?
        for p in Directions.path(directions) where p != last {
            trackPoints.append(point("trkpt", p))
            last = p
        }
        let gpx = XMLElement("gpx", attributes: [("version", "1.1"), ("creator", "mapbook"), ("xmlns", "http://www.topografix.com/GPX/1/1")], children: [
            .element(XMLElement("rte", children: [.element(XMLElement("name", text: title))] + routePoints)),
            .element(XMLElement("trk", children: [.element(XMLElement("name", text: title)), .element(XMLElement("trkseg", children: trackPoints))])),
        ])
        return XMLDocumentIO.serialize(gpx)
    }
}
