import MapbookSupport

extension Geometry {
    /// The geometry as a GeoJSON geometry object (RFC 7946), x and y only: what a browser
    /// highlights a found feature with. The positions are written as they are; RFC 7946 wants
    /// degrees, so reproject first.
    public var geoJSON: JSONValue {
        func position(_ p: Position) -> JSONValue { .array([.double(p.x), .double(p.y)]) }
        func line(_ positions: [Position]) -> JSONValue { .array(positions.map(position)) }
        func polygon(_ rings: [[Position]]) -> JSONValue { .array(rings.map(line)) }
        switch shape {
        case .point(let p): return ["type": "Point", "coordinates": position(p)]
        case .multiPoint(let ps): return ["type": "MultiPoint", "coordinates": line(ps)]
        case .lineString(let ps): return ["type": "LineString", "coordinates": line(ps)]
        case .multiLineString(let ls): return ["type": "MultiLineString", "coordinates": .array(ls.map(line))]
        case .polygon(let rings): return ["type": "Polygon", "coordinates": polygon(rings)]
        case .multiPolygon(let ps): return ["type": "MultiPolygon", "coordinates": .array(ps.map(polygon))]
        case .geometryCollection(let gs): return ["type": "GeometryCollection", "geometries": .array(gs.map(\.geoJSON))]
        }
    }
}
