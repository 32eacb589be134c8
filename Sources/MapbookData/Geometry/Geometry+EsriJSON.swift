import MapbookSupport

/// Geometries as the ArcGIS REST API writes them (the "Geometry objects" of the API
/// reference): what a feature service's `query` answers and `applyEdits` takes.
///
/// - point `{"x", "y"[, "z"][, "m"]}` (an empty point has `"x": null`);
/// - multipoint `{"points": [[x, y], ...]}`;
/// - polyline `{"paths": [[[x, y], ...], ...]}`;
/// - polygon `{"rings": [...]}`: one flat list, exterior rings clockwise and holes
///   counter-clockwise, each closed. Reading, each hole goes to the smallest exterior that
///   holds it (as a shapefile's rings are read); rings all in one direction are read by nesting.
///
/// With `hasZ` and `hasM`, positions carry z then m (`[x, y, z, m]`, or `[x, y, m]` with m only).
/// True curves (`curvePaths`, `curveRings`) are refused, not approximated.
extension Geometry {
    /// The geometry as an ArcGIS JSON geometry, with `spatialReference` when given.
    public func esriJSON(spatialReference: JSONValue? = nil) -> JSONValue {
        var o = JSONObject()
        func array(_ p: Position) -> JSONValue {
            var values: [JSONValue] = [.double(p.x), .double(p.y)]
            if hasZ { values.append(p.z.isFinite ? .double(p.z) : .null) }
            if hasM { values.append(p.m.isFinite ? .double(p.m) : .null) }
            return .array(values)
        }
        func path(_ ps: [Position]) -> JSONValue { .array(ps.map(array)) }
        // Exterior rings clockwise (negative area with y up), holes counter-clockwise.
        func rings(_ polygon: [[Position]]) -> [JSONValue] {
            polygon.enumerated().map { i, ring in
                let clockwise = Geometry.signedArea(ring) < 0
                return path(clockwise == (i == 0) ? ring : ring.reversed())
            }
        }
        switch shape {
        case .point(let p):
            o["x"] = p.x.isFinite ? .double(p.x) : .null
            o["y"] = p.y.isFinite ? .double(p.y) : .null
            if hasZ { o["z"] = p.z.isFinite ? .double(p.z) : .null }
            if hasM { o["m"] = p.m.isFinite ? .double(p.m) : .null }
        case .multiPoint(let ps): o["points"] = path(ps)
        case .lineString(let ps): o["paths"] = .array([path(ps)])
        case .multiLineString(let ls): o["paths"] = .array(ls.map(path))
        case .polygon(let polygon): o["rings"] = .array(rings(polygon))
        case .multiPolygon(let polygons): o["rings"] = .array(polygons.flatMap(rings))
        case .geometryCollection(let parts):
            // The API has no collections: the parts of the first family, joined.
            let family = parts.lazy.compactMap(\.type.family).first ?? .point
            return Geometry.joining(parts.filter { $0.type.family == family }, as: family, hasZ: hasZ, hasM: hasM).esriJSON(spatialReference: spatialReference)
        }
        if hasZ && !o.keys.contains("z") { o["hasZ"] = true }
        if hasM && !o.keys.contains("m") { o["hasM"] = true }
        if let spatialReference { o["spatialReference"] = spatialReference }
        return .object(o)
    }

    /// Reads an ArcGIS JSON geometry; `family`, when given, is the only kind accepted (a
    /// point layer takes points and multipoints).
    public init(esriJSON value: JSONValue, family: GeometryFamily? = nil) throws(EsriGeometryError) {
        guard let o = value.objectValue else { throw EsriGeometryError(.notAGeometry, "a geometry must be a JSON object, not \(value.kindName)") }
        if o["curvePaths"] != nil || o["curveRings"] != nil {
            throw EsriGeometryError(.curves, "true curves (curvePaths, curveRings) are not read; send the geometry densified, as paths or rings")
        }
        let declaredM = o["hasM"]?.boolValue ?? false
        let found: Geometry
        if let x = o["x"] {
            let hasZ = o["z"].map { !$0.isNull } ?? false, hasM = o["m"].map { !$0.isNull } ?? false
            if x.isNull || x.stringValue == "NaN" {
                found = Geometry(.point(Position(x: .nan, y: .nan)))
            } else {
                func number(_ key: String) throws(EsriGeometryError) -> Double {
                    guard let v = o[key]?.doubleValue, v.isFinite else {
                        throw EsriGeometryError(.invalidCoordinate, "the point's \(key) must be a finite number, not \(o[key].map { "\($0)" } ?? "missing")")
                    }
                    return v
                }
                found = Geometry(
                    .point(Position(x: try number("x"), y: try number("y"), z: hasZ ? try number("z") : .nan, m: hasM ? try number("m") : .nan)),
                    hasZ: hasZ, hasM: hasM)
            }
        } else {
            // Positions: [x, y], [x, y, z], [x, y, m] (hasM without hasZ) or [x, y, z, m].
            let hasZ = o["hasZ"]?.boolValue ?? false
            func position(_ v: JSONValue, _ where_: String) throws(EsriGeometryError) -> Position {
                guard let a = v.arrayValue, a.count >= 2, a.count <= 4 else {
                    throw EsriGeometryError(.invalidCoordinate, "\(where_) must be [x, y] with z and m after them, not \(v)")
                }
                var n: [Double] = []
                for item in a {
                    if item.isNull { n.append(.nan); continue }
                    guard let d = item.doubleValue, d.isFinite else { throw EsriGeometryError(.invalidCoordinate, "\(where_) has \(item), not a finite number") }
                    n.append(d)
                }
                guard n[0].isFinite, n[1].isFinite else { throw EsriGeometryError(.invalidCoordinate, "\(where_) has no x or y") }
                let z = hasZ && n.count > 2 ? n[2] : .nan
                let m = declaredM ? (n.count > (hasZ ? 3 : 2) ? n[hasZ ? 3 : 2] : .nan) : .nan
                return Position(x: n[0], y: n[1], z: z, m: m)
            }
            func list(_ v: JSONValue, _ name: String) throws(EsriGeometryError) -> [Position] {
                guard let a = v.arrayValue else { throw EsriGeometryError(.notAGeometry, "\(name) must be an array of positions") }
                var out: [Position] = []
                for (i, p) in a.enumerated() { out.append(try position(p, "\(name) position \(i)")) }
                return out
            }
            func lists(_ key: String) throws(EsriGeometryError) -> [[Position]] {
                guard let a = o[key]?.arrayValue else { throw EsriGeometryError(.notAGeometry, "\(key) must be an array of arrays of positions") }
                var out: [[Position]] = []
                for (i, part) in a.enumerated() { out.append(try list(part, "\(key)[\(i)]")) }
                return out
            }
            if let points = o["points"] {
                found = Geometry(.multiPoint(try list(points, "points")), hasZ: hasZ, hasM: declaredM)
            } else if o["paths"] != nil {
                let paths = try lists("paths")
                for (i, p) in paths.enumerated() where p.count < 2 {
                    throw EsriGeometryError(.tooFewPositions, "paths[\(i)] has \(p.count) position\(p.count == 1 ? "" : "s"); a path needs two")
                }
                found = Geometry(paths.count == 1 ? .lineString(paths[0]) : .multiLineString(paths), hasZ: hasZ, hasM: declaredM)
            } else if o["rings"] != nil {
                var rings = try lists("rings")
                for i in rings.indices {
                    if let first = rings[i].first, rings[i].last.map({ $0.x != first.x || $0.y != first.y }) ?? false { rings[i].append(first) }
                    guard rings[i].count >= 4 else {
                        throw EsriGeometryError(.tooFewPositions, "rings[\(i)] has \(rings[i].count) positions closed; a ring needs three corners")
                    }
                }
                let polygons = PolygonRings.assemble(rings)
                found = Geometry(polygons.count == 1 ? .polygon(polygons[0]) : .multiPolygon(polygons), hasZ: hasZ, hasM: declaredM)
            } else {
                throw EsriGeometryError(.notAGeometry, "a geometry needs x and y (a point), points, paths or rings")
            }
        }
        if let family, let got = found.type.family, got != family {
            throw EsriGeometryError(.wrongType, "a \(got.esriGeometryType) was sent where the layer holds \(family.esriGeometryType)")
        }
        self = found
    }
}
