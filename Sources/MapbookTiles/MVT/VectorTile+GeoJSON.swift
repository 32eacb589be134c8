import MapbookPackage
import MapbookSupport

extension VectorTile {
    /// The tile as tippecanoe-decode writes it: a FeatureCollection of one FeatureCollection
    /// per layer (`layer`, `version`, `extent` in its properties) of GeoJSON features.
    ///
    /// Coordinates are in the layer's tile units (y down) without `tile`, and in longitude and
    /// latitude (rounded to 7 decimals, about a centimetre) on the Web Mercator grid with it.
    /// Rings are closed, as GeoJSON wants. In tile units they keep MVT's winding; in longitude
    /// and latitude they are reversed to follow RFC 7946's right-hand rule (exteriors
    /// counterclockwise on the map), where MVT's exteriors are clockwise on screen and so on the
    /// map (tippecanoe-decode leaves them so). A feature whose geometry does not decode, or of
    /// type UNKNOWN, gets `"geometry": null`.
    public func geoJSON(tile: TileCoordinate? = nil, compressed: Bool? = nil) -> JSONValue {
        var properties = JSONObject()
        if let tile {
            properties["zoom"] = .int(tile.z)
            properties["x"] = .int(tile.x)
            properties["y"] = .int(tile.y)
        }
        if let compressed { properties["compressed"] = .bool(compressed) }
        let collections = layers.map { layer -> JSONValue in
            let project = Projection(tile: tile, extent: layer.extent)
            let features = layer.features.map { feature -> JSONValue in
                var object = JSONObject()
                object["type"] = "Feature"
                if let id = feature.id { object["id"] = Self.json(.uint(id)) }
                object["properties"] = .object(layer.attributes(of: feature).reduce(into: JSONObject()) { $0[$1.key] = Self.json($1.value) })
                object["geometry"] = (try? feature.decodeGeometry()).map { project.geoJSON($0) } ?? .null
                return .object(object)
            }
            return [
                "type": "FeatureCollection",
                "properties": ["layer": .string(layer.name), "version": .integer(Int64(layer.version)), "extent": .integer(Int64(layer.extent))],
                "features": .array(features),
            ]
        }
        return ["type": "FeatureCollection", "properties": .object(properties), "features": .array(collections)]
    }

    /// A value as JSON: floats by their shortest decimal form (3.1, not 3.0999999046325684).
    static func json(_ value: Value) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .float(let f): return f.isFinite ? .double(Double("\(f)") ?? Double(f)) : .null
        case .double(let d): return .double(d)
        case .int(let i), .sint(let i): return .integer(i)
        case .uint(let u): return u <= UInt64(Int64.max) ? .integer(Int64(u)) : .number(Double(u))
        case .bool(let b): return .bool(b)
        }
    }

    /// Tile units to JSON coordinates.
    struct Projection {
        let tile: TileCoordinate?
        let extent: UInt32

        init(tile: TileCoordinate?, extent: UInt32) {
            self.tile = tile
            self.extent = extent
        }

        func position(_ p: TilePoint) -> JSONValue {
            guard let tile else { return [.integer(Int64(p.x)), .integer(Int64(p.y))] }
            let (lon, lat) = tile.location(of: p, extent: extent)
            return [.double((lon * 1e7).rounded() / 1e7), .double((lat * 1e7).rounded() / 1e7)]
        }

        func line(_ points: [TilePoint]) -> JSONValue { .array(points.map(position)) }

        func ring(_ points: [TilePoint]) -> JSONValue {
            let closed = points + points.prefix(1)
            return .array(tile == nil ? closed.map(position) : closed.reversed().map(position))
        }

        func geoJSON(_ geometry: TileGeometry) -> JSONValue {
            switch geometry {
            case .points(let points):
                if points.count == 1 { return ["type": "Point", "coordinates": position(points[0])] }
                return ["type": "MultiPoint", "coordinates": line(points)]
            case .lines(let lines):
                if lines.count == 1 { return ["type": "LineString", "coordinates": line(lines[0])] }
                return ["type": "MultiLineString", "coordinates": .array(lines.map(line))]
            case .polygons(let polygons):
                if polygons.count == 1 { return ["type": "Polygon", "coordinates": .array(polygons[0].map(ring))] }
                return ["type": "MultiPolygon", "coordinates": .array(polygons.map { .array($0.map(ring)) })]
            }
        }
    }
}
