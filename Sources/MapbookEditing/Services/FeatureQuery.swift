import MapbookData
import MapbookSupport

/// A layer's `query` request (the ArcGIS REST API's "Query (Feature Service/Layer)"), every
/// parameter read and checked against the layer before anything runs: a parameter that cannot
/// be read is refused with what to change, never ignored into a different answer.
///
/// `where` is parsed by `FeatureFilter` and bound, never pasted into SQL; `outFields` and
/// `orderByFields` must name the layer's fields. Not done, and refused when asked for:
/// statistics (`outStatistics`, `groupByFieldsForStatistics`), distinct values, buffers
/// (`distance`) and the spatial relations other than intersects.
public struct FeatureQuery {
    public enum Format: String, Sendable { case json, pjson, geojson }

    public var filter: String?
    public var selection = FeatureSelection()
    /// The fields to return (their names in the layer's spelling), nil for all of them.
    public var outFields: [String]? = []
    public var returnGeometry = true
    /// Whether geometries keep their z and m values (the API drops them unless asked).
    public var returnZ = false
    public var returnM = false
    /// The coordinate system of returned geometries (nil: the layer's, WGS84 for GeoJSON).
    public var outCRS: CoordinateReferenceSystem?
    public var format = Format.json
    public var countOnly = false
    public var idsOnly = false
    public var extentOnly = false
    /// The page asked for, clamped to the service's maximum.
    public var recordCount: Int

    /// Reads `parameters` (names as sent, any case) for `layer` of a service answering at
    /// most `maxRecordCount` features a page.
    public init(_ parameters: [String: String], layer: FeatureService.Layer, maxRecordCount: Int) throws(FeatureServiceError) {
        var p: [String: String] = [:]
        for (key, value) in parameters { p[key.lowercased()] = value }
        let features = layer.features
        recordCount = maxRecordCount
        let columns = [features.idColumn] + features.fields.map(\.name)
        func column(_ name: String, _ parameter: String) throws(FeatureServiceError) -> String {
            let trimmed = name.trimming(" \t\r\n")
            guard let found = columns.first(where: { $0.lowercased() == trimmed.lowercased() }) else {
                throw FeatureServiceError(.unknownField, parameter: parameter, "'\(trimmed)' is not a field of \(layer.title); its fields are \(columns.joined(separator: ", "))")
            }
            return found
        }
        for refused in ["outstatistics", "groupbyfieldsforstatistics", "having"] where !(p[refused] ?? "").isEmpty {
            throw FeatureServiceError(.unsupported, parameter: refused, "statistics are not supported by this service (supportsStatistics is false)")
        }
        if Self.flag(p["returndistinctvalues"]) {
            throw FeatureServiceError(.unsupported, parameter: "returnDistinctValues", "distinct values are not supported by this service (supportsDistinct is false)")
        }
        if let distance = p["distance"], !distance.isEmpty, Double(distance) != 0 {
            throw FeatureServiceError(.unsupported, parameter: "distance", "queries by distance are not supported (supportsQueryWithDistance is false); send the area as a polygon")
        }
        if let f = p["f"], !f.isEmpty {
            guard let format = Format(rawValue: f.lowercased()) else {
                throw FeatureServiceError(.badParameter, parameter: "f", "'\(f)' is not a format of this service; use json, pjson or geojson")
            }
            self.format = format
        }
        if let text = p["where"], text.contains(where: { !$0.isWhitespace }) {
            do {
                _ = try FeatureFilter(text, fields: columns)
            } catch {
                throw FeatureServiceError(.badWhere, parameter: "where", error.description)
            }
            filter = text
        }
        if let text = p["objectids"], !text.trimming(" ").isEmpty {
            var ids: [Int64] = []
            for part in text.split(separator: ",") {
                guard let id = Int64(part.trimming(" ")) else {
                    throw FeatureServiceError(.badParameter, parameter: "objectIds", "'\(part)' is not an object id; give whole numbers separated by commas")
                }
                ids.append(id)
            }
            selection.ids = ids
        }
        if let text = p["outfields"] {
            let names = text.split(separator: ",").map { String($0).trimming(" ") }.filter { !$0.isEmpty }
            var out: [String] = []
            for name in names where name != "*" {
                // The object id is always returned, named or not.
                let found = try column(name, "outFields")
                if found != features.idColumn, !out.contains(found) { out.append(found) }
            }
            outFields = names.contains("*") ? nil : out
        }
        if let text = p["orderbyfields"], !text.trimming(" ").isEmpty {
            for part in text.split(separator: ",") {
                let words = part.split(separator: " ").map(String.init)
                guard let name = words.first, words.count <= 2 else {
                    throw FeatureServiceError(.badParameter, parameter: "orderByFields", "'\(part)' is not a field with ASC or DESC")
                }
                let direction = words.count == 2 ? words[1].uppercased() : "ASC"
                guard direction == "ASC" || direction == "DESC" else {
                    throw FeatureServiceError(.badParameter, parameter: "orderByFields", "'\(words[1])' is neither ASC nor DESC")
                }
                selection.order.append((try column(name, "orderByFields"), direction == "DESC"))
            }
        }
        selection.offset = try Self.count(p["resultoffset"], "resultOffset") ?? 0
        if let asked = try Self.count(p["resultrecordcount"], "resultRecordCount"), asked > 0 { recordCount = min(asked, maxRecordCount) }
        returnGeometry = p["returngeometry"].map { !$0.isEmpty ? Self.flag($0) : true } ?? true
        returnZ = Self.flag(p["returnz"])
        returnM = Self.flag(p["returnm"])
        countOnly = Self.flag(p["returncountonly"])
        idsOnly = Self.flag(p["returnidsonly"])
        extentOnly = Self.flag(p["returnextentonly"])
        if let text = p["outsr"], !text.trimming(" ").isEmpty { outCRS = try ServiceSpatialReference.parse(text, parameter: "outSR") }
        if let text = p["geometry"], !text.trimming(" ").isEmpty {
            try readGeometry(text, p, features)
        }
    }

    /// The spatial filter: `geometry` of `geometryType` in `inSR` (or its own
    /// `spatialReference`, else the layer's), in the layer's coordinates, as a box for the
    /// R-tree and, when it is not an envelope, a finer test.
    mutating func readGeometry(_ text: String, _ p: [String: String], _ features: FeatureTable) throws(FeatureServiceError) {
        let type = p["geometrytype"].flatMap { $0.isEmpty ? nil : $0 } ?? "esriGeometryEnvelope"
        let relation = p["spatialrel"].flatMap { $0.isEmpty ? nil : $0 } ?? "esriSpatialRelIntersects"
        let envelopeOnly: Bool
        switch relation {
        case "esriSpatialRelIntersects": envelopeOnly = false
        case "esriSpatialRelEnvelopeIntersects", "esriSpatialRelIndexIntersects": envelopeOnly = true
        default:
            throw FeatureServiceError(
                .unsupported, parameter: "spatialRel", "'\(relation)' is not supported; use esriSpatialRelIntersects or esriSpatialRelEnvelopeIntersects")
        }
        var inCRS = try p["insr"].flatMap { $0.isEmpty ? nil : $0 }.map { (text: String) throws(FeatureServiceError) in try ServiceSpatialReference.parse(text, parameter: "inSR") }
        let geometry: Geometry
        let trimmed = text.trimming(" \t\r\n")
        if trimmed.hasPrefix("{") {
            let json: JSONValue
            do {
                json = try JSONParser.parse(Array(trimmed.utf8))
            } catch {
                throw FeatureServiceError(.badGeometry, parameter: "geometry", "the geometry is not JSON: \(error)")
            }
            if inCRS == nil, let sr = json.objectValue?["spatialReference"], sr != .null {
                inCRS = try ServiceSpatialReference.parse(JSONWriter.string(sr, style: .compact), parameter: "geometry.spatialReference")
            }
            geometry = try Self.geometry(json, type: type)
        } else {
            // The simple syntax: `xmin,ymin,xmax,ymax` for an envelope, `x,y` for a point.
            let numbers = trimmed.split(separator: ",").map { Double($0.trimming(" ")) }
            guard !numbers.contains(nil), let n = numbers as? [Double], n.allSatisfy(\.isFinite) else {
                throw FeatureServiceError(.badGeometry, parameter: "geometry", "'\(trimmed)' is neither JSON nor numbers separated by commas")
            }
            switch (type, n.count) {
            case ("esriGeometryEnvelope", 4): geometry = Self.rectangle(n[0], n[1], n[2], n[3])
            case ("esriGeometryPoint", 2): geometry = Geometry(.point(Position(x: n[0], y: n[1])), hasZ: false, hasM: false)
            default:
                throw FeatureServiceError(.badGeometry, parameter: "geometry", "the simple syntax takes xmin,ymin,xmax,ymax for an envelope or x,y for a point; send other geometries as JSON")
            }
        }
        var placed = geometry
        if let inCRS, let crs = features.crs, inCRS != crs {
            let transform: CoordinateTransform
            do {
                transform = try CoordinateTransform(from: inCRS, to: crs)
            } catch {
                throw FeatureServiceError(.badSpatialReference, parameter: "inSR", error.description)
            }
            guard let projected = transform.apply(type == "esriGeometryEnvelope" ? Self.densified(geometry) : geometry) else {
                throw FeatureServiceError(.badGeometry, parameter: "geometry", "the geometry cannot be placed in the layer's coordinate system")
            }
            placed = projected
        }
        guard let box = placed.envelope else { throw FeatureServiceError(.badGeometry, parameter: "geometry", "the geometry is empty") }
        selection.box = box
        if !envelopeOnly, type != "esriGeometryEnvelope" { selection.test = { [placed] in $0.intersects(placed) } }
    }

    /// A JSON geometry of the declared type.
    static func geometry(_ json: JSONValue, type: String) throws(FeatureServiceError) -> Geometry {
        let family: GeometryFamily
        switch type {
        case "esriGeometryEnvelope":
            let o = json.objectValue ?? [:]
            guard let a = o["xmin"]?.doubleValue, let b = o["ymin"]?.doubleValue, let c = o["xmax"]?.doubleValue, let d = o["ymax"]?.doubleValue,
                [a, b, c, d].allSatisfy(\.isFinite), a <= c, b <= d
            else {
                throw FeatureServiceError(.badGeometry, parameter: "geometry", "an envelope needs numbers xmin <= xmax and ymin <= ymax")
            }
            return rectangle(a, b, c, d)
        case "esriGeometryPoint", "esriGeometryMultipoint": family = .point
        case "esriGeometryPolyline": family = .line
        case "esriGeometryPolygon": family = .polygon
        default:
            throw FeatureServiceError(
                .badParameter, parameter: "geometryType",
                "'\(type)' is not a geometry type; use esriGeometryEnvelope, esriGeometryPoint, esriGeometryMultipoint, esriGeometryPolyline or esriGeometryPolygon")
        }
        do {
            return try Geometry(esriJSON: json, family: family)
        } catch {
            throw FeatureServiceError(.badGeometry, parameter: "geometry", "\(error.message) (geometryType is \(type))")
        }
    }

    static func rectangle(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> Geometry {
        Geometry(.polygon([[Position(x: minX, y: minY), Position(x: maxX, y: minY), Position(x: maxX, y: maxY), Position(x: minX, y: maxY), Position(x: minX, y: minY)]]), hasZ: false, hasM: false)
    }

    /// An envelope's outline with points along its edges, so that its projection's box holds
    /// the whole projected area (edges bend in most projections).
    static func densified(_ rectangle: Geometry) -> Geometry {
        guard let box = rectangle.envelope else { return rectangle }
        var ring: [Position] = []
        let steps = 16
        for i in 0..<steps { ring.append(Position(x: box.minX + box.width * Double(i) / Double(steps), y: box.minY)) }
        for i in 0..<steps { ring.append(Position(x: box.maxX, y: box.minY + box.height * Double(i) / Double(steps))) }
        for i in 0..<steps { ring.append(Position(x: box.maxX - box.width * Double(i) / Double(steps), y: box.maxY)) }
        for i in 0..<steps { ring.append(Position(x: box.minX, y: box.maxY - box.height * Double(i) / Double(steps))) }
        ring.append(ring[0])
        return Geometry(.polygon([ring]), hasZ: false, hasM: false)
    }

    /// `true`/`false` as the API spells them (any case; absent is false).
    static func flag(_ text: String?) -> Bool { text?.lowercased() == "true" }

    /// A whole number of zero or more, or nil when absent.
    static func count(_ text: String?, _ parameter: String) throws(FeatureServiceError) -> Int? {
        guard let text, !text.trimming(" ").isEmpty else { return nil }
        guard let n = Int(text.trimming(" ")), n >= 0 else {
            throw FeatureServiceError(.badParameter, parameter: parameter, "'\(text)' is not a whole number of zero or more")
        }
        return n
    }
}
