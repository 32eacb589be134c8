import MapbookSupport

/// Reads a GeoJSON file (RFC 7946): a FeatureCollection, a single Feature or a bare geometry,
/// feature by feature with bounded memory.
///
/// Policies, stated once:
/// - `Feature.id` is kept as an attribute named `id`; when `properties` also has an `id`, the
///   property keeps that name and `Feature.id` becomes `feature_id`. Row ids in the package
///   (`fid`) are always 1, 2, 3... in file order, whatever the ids say.
/// - Coordinates are WGS 84 longitude/latitude (RFC 7946 section 4), unless the file carries
///   the pre-RFC `crs` member naming an EPSG code, which is honoured as GDAL does.
/// - A layer holds one family (points, lines or polygons): the most frequent one; features of
///   another family are dropped and reported. Polygon and MultiPolygon together make a
///   MultiPolygon layer. GeometryCollections keep their members of the layer's family.
/// - Rings are rewound to the right-hand rule, unclosed rings closed, positions beyond three
///   numbers cut to x, y, z; each is reported. Malformed members (bbox, properties, id) are
///   ignored and reported; features that cannot be read are dropped and reported.
public final class GeoJSONReader: FeatureReader {
    public let path: String
    public private(set) var schema: LayerSchema
    public private(set) var report = ImportReport()

    /// The file, read value by value (JSONLexer states the JSON rules).
    private var lexer: JSONLexer
    private var family: GeometryFamily?
    /// Points, lines and polygons together: kept as they are in a layer of generic type, as
    /// GDAL does ("Unknown (any)"); the project can pick one family per layer.
    private var mixed = false
    /// Problems of the root object, found by the first pass and reported once.
    private var rootReport = ImportReport()
    /// The root value when it is a Feature or a geometry (read by the first pass).
    private var rootFeature: JSONValue?
    private var idField: String?
    /// The one feature of a file whose root is a Feature or a geometry.
    private var single: JSONValue?
    private var singleDone = false
    private var inFeatures = false
    private var finished = false
    private var index = 0

    /// Reads the whole file once to learn its fields and geometry type.
    public init(path: String, layerName: String? = nil) throws {
        self.path = path
        do throws(JSONError) {
            lexer = try JSONLexer(contentsOf: path)
        } catch {
            throw DataError(error)
        }
        schema = LayerSchema(name: layerName ?? "layer", fields: [], geometryType: nil, crs: .wgs84)
        var scan = SchemaScan()
        try walk { value, row in
            scan.add(self.interpretForScan(value, row: row))
        }
        family = scan.familyCounts.count == 1 ? scan.dominantFamily : nil
        mixed = scan.familyCounts.count > 1
        idField = scan.sawFeatureID ? (scan.fieldOrder.contains("id") ? "feature_id" : "id") : nil
        var fields: [Field] = []
        if let idField { fields.append(Field(name: idField, type: scan.featureIDsAllIntegers ? .integer : .text)) }
        for name in scan.fieldOrder { fields.append(Field(name: name, type: scan.kinds[name]!.fieldType)) }
        schema.fields = fields
        schema.geometryType = mixed ? .geometry : family.map { $0.type(multi: scan.multi[$0] ?? false) }
        schema.hasZ = scan.hasZ
        schema.crs = rootCRS ?? .wgs84
        // The scan's findings about features are reported again, once, by the second pass;
        // those about the root object only by the first.
        report = rootReport
        lexer.rewind()
        if let rootFeature {
            single = rootFeature
        } else {
            do throws(JSONError) {
                try openFeatures()
            } catch {
                throw DataError(error)
            }
        }
    }

    // MARK: - Walking the document

    /// Calls `body` with each feature value and its 1-based position, in one pass.
    private func walk(_ body: (JSONValue, Int) -> Void) throws(DataError) {
        let document: Root
        do throws(JSONError) {
            document = try readRoot(body)
        } catch {
            throw DataError(error)
        }
        let root: JSONObject, sawFeatures: Bool
        switch document {
        case .object(let object, let saw): (root, sawFeatures) = (object, saw)
        case .other(let kind): throw DataError(kind: .invalidGeoJSON, path: path, message: "the root of a GeoJSON file must be an object, not \(kind)")
        }
        let type = root["type"]
        if let crs = root["crs"] { rootCRS = Self.crs(from: crs) }
        guard case .string(let typeName)? = type else {
            throw DataError(kind: .invalidGeoJSON, path: path, message: type == nil ? "the root object has no \"type\" member" : "the root \"type\" member must be a string, not \(type!.kindName)")
        }
        switch typeName {
        case "FeatureCollection":
            guard sawFeatures else {
                if let f = root["features"] {
                    throw DataError(kind: .invalidGeoJSON, path: path, message: "\"features\" must be an array, not \(f.kindName)")
                }
                throw DataError(kind: .invalidGeoJSON, path: path, message: "a FeatureCollection needs a \"features\" array")
            }
            for reserved in ["properties", "coordinates", "geometry", "geometries"] where root[reserved] != nil {
                rootReport.note(.badMember, row: 0, "a FeatureCollection cannot contain a \"\(reserved)\" member")
            }
        case "Feature":
            rootFeature = .object(root)
            body(.object(root), 1)
        case _ where Self.geometryTypes.contains(typeName):
            let feature: JSONValue = ["type": "Feature", "properties": nil, "geometry": .object(root)]
            rootFeature = feature
            body(feature, 1)
        default:
            let known = (["FeatureCollection", "Feature"] + Self.geometryTypes).first { $0.lowercased() == typeName.lowercased() }
            throw DataError(kind: .invalidGeoJSON, path: path, message: known.map { "expected \($0) but got \(typeName) (GeoJSON types are case-sensitive)" } ?? "unknown GeoJSON type \"\(typeName)\"")
        }
    }

    private enum Root {
        /// The root object's members but its "features" array, and whether it had one.
        case object(JSONObject, sawFeatures: Bool)
        /// Another value, by the name of its kind.
        case other(String)
    }

    /// Reads the whole document, passing each element of the root's "features" array to `body`
    /// as it is read.
    private func readRoot(_ body: (JSONValue, Int) -> Void) throws(JSONError) -> Root {
        try lexer.startDocument()
        guard try lexer.peek() == UInt8(ascii: "{") else {
            // Not GeoJSON; but first whether it is JSON at all, an array element by element.
            guard try lexer.peek() == UInt8(ascii: "[") else {
                let value = try lexer.value()
                try lexer.finishDocument()
                return .other(value.kindName)
            }
            try lexer.beginArray()
            while try lexer.nextElement() { _ = try lexer.value() }
            try lexer.finishDocument()
            return .other(JSONValue.array([]).kindName)
        }
        try lexer.beginObject()
        var root = JSONObject()
        var sawFeatures = false
        while let key = try lexer.nextKey() {
            if key == "features", try lexer.peek() == UInt8(ascii: "[") {
                sawFeatures = true
                try lexer.beginArray()
                var row = 0
                while try lexer.nextElement() {
                    row += 1
                    lexer.duplicateKeys.removeAll()
                    body(try lexer.value(), row)
                }
            } else {
                if root.contains(key) || (key == "features" && sawFeatures) {
                    rootReport.note(.badMember, row: 0, "the root object contains the member \"\(key)\" twice; the last one is used")
                }
                root[key] = try lexer.value()
            }
        }
        try lexer.finishDocument()
        return .object(root, sawFeatures: sawFeatures)
    }

    private var rootCRS: CoordinateReferenceSystem?

    /// Positions the lexer inside the features array (or keeps the single feature).
    private func openFeatures() throws(JSONError) {
        try lexer.startDocument()
        try lexer.beginObject()
        var root = JSONObject()
        while let key = try lexer.nextKey() {
            if key == "features", try lexer.peek() == UInt8(ascii: "[") {
                try lexer.beginArray()
                inFeatures = true
                return
            }
            root[key] = try lexer.value()
        }
        if case .string(let t)? = root["type"], t == "Feature" {
            single = .object(root)
        } else if case .string(let t)? = root["type"], Self.geometryTypes.contains(t) {
            single = ["type": "Feature", "properties": nil, "geometry": .object(root)]
        } else {
            finished = true
        }
    }

    public func next() throws -> Feature? {
        while true {
            guard let (value, row) = try nextValue() else { return nil }
            if let feature = makeFeature(value, row: row) { return feature }
        }
    }

    private func nextValue() throws(DataError) -> (JSONValue, Int)? {
        if let single {
            guard !singleDone else { return nil }
            singleDone = true
            return (single, 1)
        }
        guard inFeatures, !finished else { return nil }
        do throws(JSONError) {
            guard try lexer.nextElement() else {
                finished = true
                return nil
            }
            index += 1
            lexer.duplicateKeys.removeAll()
            return (try lexer.value(), index)
        } catch {
            throw DataError(error)
        }
    }

    // MARK: - Features

    static let geometryTypes = ["Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection"]

    private struct ScanResult {
        var properties = JSONObject()
        var featureID: JSONValue?
        var geometry: Geometry?
        var families: [GeometryFamily] = []
    }

    private func interpretForScan(_ value: JSONValue, row: Int) -> ScanResult? {
        guard let (properties, id, geometryValue) = checkFeature(value, row: row) else { return nil }
        var result = ScanResult(properties: properties, featureID: id)
        if let geometryValue, let g = geometry(geometryValue, row: row, depth: 0) {
            result.geometry = g
            result.families = Self.families(of: g)
        }
        return result
    }

    /// Checks the Feature object; nil (reported) when it is not one.
    private func checkFeature(_ value: JSONValue, row: Int) -> (JSONObject, JSONValue?, JSONValue?)? {
        guard case .object(let members) = value else {
            report.note(.badFeature, row: row, "every feature must be an object, not \(value.kindName)")
            return nil
        }
        for key in lexer.duplicateKeys {
            report.note(.badMember, row: row, "an object contains the member \"\(key)\" twice; the last one is used")
        }
        guard case .string(let type)? = value["type"], type == "Feature" else {
            report.note(.badFeature, row: row, "a feature needs \"type\": \"Feature\"")
            return nil
        }
        for reserved in ["features", "coordinates", "geometries"] where members.contains(reserved) {
            report.note(.badMember, row: row, "a Feature cannot contain a \"\(reserved)\" member")
        }
        var properties = JSONObject()
        switch value["properties"] {
        case .object(let p)?: properties = p
        case .null?: break
        case nil: report.note(.badMember, row: row, "the \"properties\" member is missing")
        case let other?: report.note(.badMember, row: row, "\"properties\" must be an object, not \(other.kindName)")
        }
        var id = value["id"]
        switch id {
        case .string?, .integer?, .number?, nil: break
        case let other?:
            report.note(.badMember, row: row, "a feature \"id\" must be a string or a number, not \(other.kindName)")
            id = nil
        }
        if let bbox = value["bbox"] { checkBBox(bbox, row: row) }
        let geometryValue = value["geometry"]
        if geometryValue == nil { report.note(.badMember, row: row, "the \"geometry\" member is missing") }
        if case .null? = geometryValue { return (properties, id, nil) }
        return (properties, id, geometryValue)
    }

    private func checkBBox(_ bbox: JSONValue, row: Int) {
        guard case .array(let items) = bbox else {
            report.note(.badMember, row: row, "bbox must be an array of numbers, not \(bbox.kindName)")
            return
        }
        if !items.allSatisfy({ $0.doubleValue != nil }) {
            report.note(.badMember, row: row, "every element of a bbox must be a number")
        } else if items.count != 4 && items.count != 6 {
            report.note(.badMember, row: row, "a bbox has 4 elements (2D) or 6 (3D), not \(items.count)")
        }
    }

    private func makeFeature(_ value: JSONValue, row: Int) -> Feature? {
        guard let (properties, id, geometryValue) = checkFeature(value, row: row) else { return nil }
        var shape: Geometry?
        if let geometryValue {
            guard let g = geometry(geometryValue, row: row, depth: 0) else { return nil }
            guard let fitted = fit(g, row: row) else { return nil }
            shape = fitted
        } else if schema.geometryType != nil {
            report.note(.nullGeometry, row: row, "the feature has no geometry")
        }
        var values = [FieldValue](repeating: .null, count: schema.fields.count)
        if idField != nil {
            if let id { values[0] = convert(id, to: schema.fields[0], row: row) }
        }
        for (key, v) in properties {
            if let i = fieldPositions[key] { values[i] = convert(v, to: schema.fields[i], row: row) }
        }
        return Feature(row: row, geometry: shape, values: values)
    }

    private lazy var fieldPositions: [String: Int] = {
        var positions: [String: Int] = [:]
        for (i, f) in schema.fields.enumerated() where i > 0 || idField == nil { positions[f.name] = i }
        return positions
    }()

    /// The geometry as the layer's family and multi-ness, or nil (reported) when it cannot be.
    private func fit(_ g: Geometry, row: Int) -> Geometry? {
        if mixed {
            if g.isEmpty {
                report.note(.emptyGeometry, row: row, "the geometry has no coordinates")
                return nil
            }
            return g.withDimensions(z: schema.hasZ, m: false)
        }
        guard let family, let layerType = schema.geometryType else { return g }
        var g = g
        if case .geometryCollection = g.shape {
            let flat = g.flattenedMembers
            let kept = flat.filter { $0.type.family == family }
            guard !kept.isEmpty else {
                report.note(.unsupportedGeometry, row: row, "a GeometryCollection without \(family.rawValue)s in a \(family.rawValue) layer")
                return nil
            }
            if kept.count < flat.count {
                report.note(.coercedValue, row: row, "GeometryCollection members that are not \(family.rawValue)s were dropped")
            }
            g = Geometry.joining(kept, as: family, hasZ: g.hasZ)
        }
        guard g.type.family == family else {
            report.note(.unsupportedGeometry, row: row, "a \(g.type.gpkgName) in a layer of \(family.rawValue)s")
            return nil
        }
        if g.isEmpty {
            report.note(.emptyGeometry, row: row, "the geometry has no coordinates")
            return nil
        }
        if layerType.isMulti { g = g.promotedToMulti() }
        return g.withDimensions(z: schema.hasZ, m: false)
    }

    static func families(of g: Geometry) -> [GeometryFamily] {
        if case .geometryCollection = g.shape { return g.flattenedMembers.compactMap(\.type.family) }
        return g.type.family.map { [$0] } ?? []
    }

    private func convert(_ v: JSONValue, to field: Field, row: Int) -> FieldValue {
        switch (v, field.type) {
        case (.null, _): return .null
        case (.integer(let i), .integer): return .integer(i)
        case (.integer(let i), .real): return .real(Double(i))
        case (.number(let d), .real): return .real(d)
        case (.bool(let b), .boolean): return .integer(b ? 1 : 0)
        case (.string(let s), .text), (.string(let s), .date), (.string(let s), .dateTime): return .text(s)
        case (_, .text): return .text(Self.jsonText(v))
        default:
            report.note(.coercedValue, row: row, "\(field.name): \(v.kindName) stored as text")
            return .text(Self.jsonText(v))
        }
    }

    /// A value stored as text (objects, arrays, mixed columns): a string as it is, anything
    /// else as compact JSON.
    static func jsonText(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return s
        case .number(let d): return String(d)
        default: return JSONWriter.string(v, style: .compact)
        }
    }

    // MARK: - Geometry

    /// Reads a geometry object; nil (reported) when it cannot be used.
    private func geometry(_ value: JSONValue, row: Int, depth: Int) -> Geometry? {
        guard case .object(let members) = value else {
            report.note(.invalidGeometry, row: row, "a geometry must be an object, not \(value.kindName)")
            return nil
        }
        guard case .string(let type)? = value["type"] else {
            report.note(.invalidGeometry, row: row, "a geometry needs a \"type\" string")
            return nil
        }
        for reserved in ["properties", "geometry", "features"] where members.contains(reserved) {
            report.note(.badMember, row: row, "a geometry cannot contain a \"\(reserved)\" member")
        }
        if let bbox = value["bbox"] { checkBBox(bbox, row: row) }
        if type == "GeometryCollection" {
            guard case .array(let items)? = value["geometries"] else {
                report.note(.invalidGeometry, row: row, "a GeometryCollection needs a \"geometries\" array")
                return nil
            }
            var children: [Geometry] = []
            for item in items {
                guard case .object = item else {
                    report.note(.invalidGeometry, row: row, "the geometries of a GeometryCollection must be geometry objects")
                    return nil
                }
                if case .string("GeometryCollection")? = item["type"] {
                    report.note(.coercedValue, row: row, "a GeometryCollection nested in another was flattened")
                }
                guard depth < 16, let child = geometry(item, row: row, depth: depth + 1) else { return nil }
                children.append(child)
            }
            if children.count == 1 {
                report.note(.coercedValue, row: row, "a GeometryCollection of one geometry was stored as that geometry")
                return children[0]
            }
            return Geometry(.geometryCollection(children), hasZ: children.contains { $0.hasZ })
        }
        guard Self.geometryTypes.contains(type) else {
            report.note(.invalidGeometry, row: row, "unknown geometry type \"\(type)\"")
            return nil
        }
        guard let coordinates = value["coordinates"] else {
            report.note(.invalidGeometry, row: row, "a \(type) needs a \"coordinates\" member")
            return nil
        }
        var hasZ = false
        func position(_ v: JSONValue) -> Position? {
            guard case .array(let items) = v else {
                report.note(.badCoordinate, row: row, "a position must be an array, not \(v.kindName)")
                return nil
            }
            guard items.count >= 2 else {
                report.note(.badCoordinate, row: row, "a position needs 2 or more numbers")
                return nil
            }
            var numbers: [Double] = []
            for item in items {
                guard let d = item.doubleValue else {
                    report.note(.badCoordinate, row: row, "each element of a position must be a number, not \(item.kindName)")
                    return nil
                }
                guard d.isFinite else {
                    report.note(.badCoordinate, row: row, "a position holds a number too large for a 64-bit float")
                    return nil
                }
                numbers.append(d)
            }
            if numbers.count > 3 { report.note(.coercedValue, row: row, "a position of \(numbers.count) numbers cut to x, y, z") }
            if numbers.count >= 3 { hasZ = true }
            return Position(x: numbers[0], y: numbers[1], z: numbers.count >= 3 ? numbers[2] : .nan)
        }
        func positions(_ v: JSONValue) -> [Position]? {
            guard case .array(let items) = v else {
                report.note(.invalidGeometry, row: row, "a number was found where an array of positions belongs")
                return nil
            }
            var out: [Position] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard let p = position(item) else { return nil }
                out.append(p)
            }
            return out
        }
        func nested(_ v: JSONValue) -> [JSONValue]? {
            guard case .array(let items) = v else {
                report.note(.invalidGeometry, row: row, "a number was found where a coordinate array belongs: this needs to be nested more deeply")
                return nil
            }
            for item in items {
                if case .array = item { continue }
                report.note(.invalidGeometry, row: row, "a number was found where a coordinate array belongs: this needs to be nested more deeply")
                return nil
            }
            return items
        }
        func line(_ v: JSONValue) -> [Position]? {
            guard let a = positions(v) else { return nil }
            guard a.count >= 2 else {
                report.note(.invalidGeometry, row: row, "a line needs two or more positions")
                return nil
            }
            return a
        }
        func polygon(_ v: JSONValue) -> [[Position]]? {
            guard let ringValues = nested(v) else { return nil }
            var rings: [[Position]] = []
            for (i, rv) in ringValues.enumerated() {
                guard let items = nested(rv) else { return nil }
                guard var ring = positions(.array(items)) else { return nil }
                let given = ring.count
                if let first = ring.first, first != ring.last! {
                    report.note(.unclosedRing, row: row, "the first and last positions of a ring differ; the ring was closed")
                    ring.append(first)
                }
                if given < 4 {
                    report.note(.invalidGeometry, row: row, "a linear ring needs four or more positions")
                    return nil
                }
                // RFC 7946 section 3.1.6: exteriors counterclockwise, holes clockwise.
                let ccw = Geometry.signedArea(ring) > 0
                if ccw != (i == 0) {
                    report.note(.windingOrder, row: row, "a ring did not follow the right-hand rule")
                    ring.reverse()
                }
                rings.append(ring)
            }
            return rings
        }
        let shape: Geometry.Shape
        switch type {
        case "Point":
            if case .array(let items) = coordinates, items.isEmpty {
                shape = .point(Position(x: .nan, y: .nan))
            } else {
                guard let p = position(coordinates) else { return nil }
                shape = .point(p)
            }
        case "MultiPoint":
            guard let a = positions(coordinates) else { return nil }
            shape = .multiPoint(a)
        case "LineString":
            if case .array(let items) = coordinates, items.isEmpty { shape = .lineString([]) } else {
                guard let a = line(coordinates) else { return nil }
                shape = .lineString(a)
            }
        case "MultiLineString":
            guard let parts = nested(coordinates) else { return nil }
            var lines: [[Position]] = []
            for part in parts {
                guard let a = line(part) else { return nil }
                lines.append(a)
            }
            shape = .multiLineString(lines)
        case "Polygon":
            guard let rings = polygon(coordinates) else { return nil }
            shape = .polygon(rings)
        default:
            guard let parts = nested(coordinates) else { return nil }
            var polygons: [[[Position]]] = []
            for part in parts {
                guard let rings = polygon(part) else { return nil }
                polygons.append(rings)
            }
            shape = .multiPolygon(polygons)
        }
        return Geometry(shape, hasZ: hasZ)
    }

    static func crs(from value: JSONValue) -> CoordinateReferenceSystem? {
        guard case .string(let name)? = value["properties"]?["name"] else { return nil }
        let upper = name.uppercased()
        if upper.contains("CRS84") { return .wgs84 }
        if let range = upper.firstRange(of: "EPSG") {
            let digits = upper[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
            if let code = Int(digits) { return CoordinateReferenceSystem(epsg: code) }
        }
        return nil
    }

    // MARK: - Schema inference

    private struct SchemaScan {
        var fieldOrder: [String] = []
        var kinds: [String: Kind] = [:]
        var familyCounts: [GeometryFamily: Int] = [:]
        var firstFamily: [GeometryFamily] = []
        var multi: [GeometryFamily: Bool] = [:]
        var hasZ = false
        var sawFeatureID = false
        var featureIDsAllIntegers = true
        struct Kind {
            var integer = false, real = false, string = false, bool = false, complex = false
            var allDates = true, allDateTimes = true, nonNull = 0

            var fieldType: FieldType {
                if complex || (string && (integer || real || bool)) { return .text }
                if string { return nonNull > 0 && allDates ? .date : (nonNull > 0 && allDateTimes ? .dateTime : .text) }
                if real { return bool ? .text : .real }
                if integer { return bool ? .text : .integer }
                if bool { return .boolean }
                return .text
            }
        }

        mutating func add(_ result: ScanResult?) {
            guard let result else { return }
            if let id = result.featureID {
                sawFeatureID = true
                if case .integer = id {} else { featureIDsAllIntegers = false }
            }
            for (key, value) in result.properties {
                if kinds[key] == nil {
                    fieldOrder.append(key)
                    kinds[key] = Kind()
                }
                switch value {
                case .null: continue
                case .integer: kinds[key]!.integer = true
                case .number: kinds[key]!.real = true
                case .bool: kinds[key]!.bool = true
                case .string(let s):
                    kinds[key]!.string = true
                    if kinds[key]!.allDates && !Self.isDate(s) { kinds[key]!.allDates = false }
                    if kinds[key]!.allDateTimes && !Self.isDateTime(s) { kinds[key]!.allDateTimes = false }
                case .array, .object: kinds[key]!.complex = true
                }
                kinds[key]!.nonNull += 1
            }
            if let g = result.geometry {
                if g.hasZ { hasZ = true }
                let fams = result.families
                for f in fams {
                    if familyCounts[f] == nil { firstFamily.append(f) }
                    familyCounts[f, default: 0] += 1
                }
                if g.type.isMulti || fams.count > 1, let f = fams.first { multi[f] = true }
                if g.type.isMulti, let f = g.type.family { multi[f] = true }
            }
        }

        var dominantFamily: GeometryFamily? {
            firstFamily.max { a, b in
                let (ca, cb) = (familyCounts[a]!, familyCounts[b]!)
                return ca != cb ? ca < cb : firstFamily.firstIndex(of: a)! > firstFamily.firstIndex(of: b)!
            }
        }

        static func isDate(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard u.count == 10, u[4] == 45, u[7] == 45 else { return false }
            return [0, 1, 2, 3, 5, 6, 8, 9].allSatisfy { u[$0] >= 48 && u[$0] <= 57 }
        }

        static func isDateTime(_ s: String) -> Bool {
            let u = Array(s.utf8)
            guard u.count >= 19, isDate(String(decoding: u[0..<10], as: UTF8.self)), u[10] == 84 || u[10] == 32, u[13] == 58, u[16] == 58 else { return false }
            return true
        }
    }
}

extension JSONValue {
    /// The member `key` of an object; nil for other values.
    fileprivate subscript(key: String) -> JSONValue? { objectValue?[key] }
}
