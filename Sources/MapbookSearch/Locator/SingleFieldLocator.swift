#if canImport(Glibc)
import Glibc
#endif
import MapbookData
import MapbookSupport

/// One searchable layer's locator: its index and its layer, both read in place.
///
/// Not Sendable: it caches what it has read. Use one from one task at a time.
public final class SingleFieldLocator {
    public let definition: LocatorDefinition
    public let index: LocatorIndex
    let layer: LocatorLayer
    let query: IndexQuery
    /// The fields of the layer that results report: the locator's output fields, else every
    /// field of the layer (results never come without what the feature holds).
    let outputFields: [String]
    /// The field a result's label shows: the locator's display field, else a name beside a
    /// code (`defaultDisplayField`), else the search field.
    let displayField: String

    public var name: String { definition.name }

    init(definition: LocatorDefinition, index: LocatorIndex, layer: LocatorLayer) throws {
        self.definition = definition
        self.index = index
        self.layer = layer
        query = IndexQuery(index: index)
        for field in [definition.field] + [definition.displayField, definition.rankField].compactMap({ $0 }) where !layer.hasField(field) {
            throw LocatorError(kind: .missingField, path: index.path, message: "the locator's field '\(field)' is not in layer '\(definition.layer)'")
        }
        let fields = layer.features.fields.map(\.name)
        outputFields = definition.outputFields.isEmpty ? fields : definition.outputFields.filter(layer.hasField)
        displayField = definition.displayField ?? LocatorDefinition.defaultDisplayField(searchField: definition.field, fields: fields) ?? definition.field
    }

    /// Opens a locator from its files: the index and the GeoPackage holding its layer.
    public convenience init(definition: LocatorDefinition, index: LocatorIndex, data: SQLiteDatabase) throws {
        try self.init(definition: definition, index: index, layer: try LocatorLayer(database: data, table: definition.layer))
    }

    /// The query as tokens: a word may match as a prefix (abbreviations, typing); a number
    /// only when the user is still typing it (it is last and not followed by a space).
    static func queryTokens(_ text: String) -> [QueryToken] {
        // A query longer than anyone types is cut rather than refused.
        let tokens = Array(SearchText.tokens(String(text.unicodeScalars.prefix(1000))).prefix(32))
        let typing = SearchText.endsInToken(text)
        return tokens.enumerated().map { i, t in
            QueryToken(token: t, allowsPrefix: t.isNumber ? (typing && i == tokens.count - 1) : (i == tokens.count - 1 || t.scalars.count >= 2))
        }
    }

    func groups(_ text: String, near: (longitude: Double, latitude: Double)?, limit: Int) throws -> [GroupMatch] {
        try query.run(Self.queryTokens(text), near: near, limit: limit) { g in try self.groupText(g) }
    }

    /// The search text of a group: its first feature's value.
    func groupText(_ g: UInt32) throws -> String? {
        let range = try index.group(g).entries
        let fid = try index.fid(range.lowerBound)
        return try layer.values(fid, [definition.field])?.first?.text
    }

    /// Distinct texts that match what has been typed so far, best first.
    public func suggest(_ text: String, near: (longitude: Double, latitude: Double)? = nil, max: Int = 10) throws -> [SearchSuggestion] {
        try suggestions(text, near: near, max: max, participant: 0)
    }

    func suggestions(_ text: String, near: (longitude: Double, latitude: Double)?, max: Int, participant: Int) throws -> [SearchSuggestion] {
        try groups(text, near: near, limit: max).map { m in
            SearchSuggestion(
                text: try groupText(m.group) ?? "", participant: name, score: m.score, count: try index.group(m.group).entries.count,
                key: "\(participant):\(m.group)")
        }
    }

    /// Features matching `text`, best first.
    public func geocode(_ text: String, near: (longitude: Double, latitude: Double)? = nil, max: Int = 10) throws -> [GeocodeCandidate] {
        try candidates(from: try groups(text, near: near, limit: max), near: near, max: max)
    }

    /// The features of a suggestion's group, nearest first.
    func geocode(group: UInt32, score: Double, near: (longitude: Double, latitude: Double)?, max: Int) throws -> [GeocodeCandidate] {
        guard Int(group) < index.groupCount else { return [] }
        let m = GroupMatch(group: group, score: score, kind: .exact, edits: 0, rank: nil, distance: nil)
        return try candidates(from: [m], near: near, max: max)
    }

    /// Expands matched groups into features: those of the best groups, ordered by score, then
    /// rank, then distance.
    func candidates(from groups: [GroupMatch], near: (longitude: Double, latitude: Double)?, max: Int) throws -> [GeocodeCandidate] {
        // The best `max` entries by score, rank, distance, entry: kept in order as they come
        // (a frequent name has thousands of features).
        var top: [GroupMatch] = []
        let meter = near.map { index.distanceMeter(near: $0) }
        var positions = LocatorIndex.PositionReader(index)
        for m in groups {
            if top.count >= max, let last = top.last, last.score > m.score { break }
            for e in try index.group(m.group).entries {
                var candidate = m
                candidate.group = UInt32(e)
                candidate.rank = index.hasRank ? try index.entryRank(e) : nil
                if let meter, let p = try positions.position(e) { candidate.distance = meter.squared(p.x, p.y) }
                if top.count == max, !IndexQuery.before(candidate, top[max - 1]) { continue }
                top.insert(candidate, at: top.firstIndex { IndexQuery.before(candidate, $0) } ?? top.count)
                if top.count > max { top.removeLast() }
            }
        }
        var out: [GeocodeCandidate] = []
        for p in top {
            let fid = try index.fid(Int(p.group))
            if var c = try candidate(fid: fid, score: p.score, kind: p.kind) {
                if let near, let lon = c.longitude, let lat = c.latitude {
                    c.distance = IndexQuery.metres(near.longitude, near.latitude, lon, lat)
                }
                out.append(c)
            }
        }
        return out
    }

    /// A feature as a result.
    func candidate(fid: Int64, score: Double, kind: MatchKind?) throws -> GeocodeCandidate? {
        guard let values = try layer.values(fid, [definition.field, displayField] + outputFields) else { return nil }
        var attributes = JSONObject()
        for (i, field) in outputFields.enumerated() { attributes[field] = Self.json(values[2 + i]) }
        let location = try layer.location(fid)
        return GeocodeCandidate(
            label: values[1].text ?? values[0].text ?? "", matchedText: values[0].text ?? "",
            longitude: location?.x, latitude: location?.y, score: score, matchKind: kind, participant: name,
            layer: definition.layer, fid: fid, attributes: attributes, distance: nil)
    }

    static func json(_ v: SQLiteValue) -> JSONValue {
        switch v {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return d.isFinite ? .double(d) : .null
        case .text(let s): return .string(s)
        case .blob(let b): return .string(Base64.encode(b))
        }
    }

    /// What is at a WGS84 point: the point and line features within `maxDistance` metres,
    /// nearest first (true distances on the ground, ties by feature id), at most `max` of
    /// them; and the polygons that contain the point, as context. A polygon near the point
    /// but not around it is neither.
    public func reverseGeocode(longitude: Double, latitude: Double, maxDistance: Double, max: Int = 1) throws -> ReverseGeocodeResult {
        let dLat = maxDistance / 111_194.93
        let dLon = maxDistance / (111_194.93 * Swift.max(0.01, cos(latitude * .pi / 180)))
        let box = (longitude - dLon, Swift.max(-90, latitude - dLat), longitude + dLon, Swift.min(90, latitude + dLat))
        var near: [(fid: Int64, distance: Double)] = []
        var containing: [Int64] = []
        for feature in try layer.features(near: box) {
            guard let g = feature.geometry, let w = layer.wgs84(g) else { continue }
            let d = GeometryDistance.metres(from: (longitude, latitude), to: w)
            if Self.isAreal(w.shape) {
                if d == 0 { containing.append(feature.id) }
            } else if d <= maxDistance {
                near.append((feature.id, d))
            }
        }
        near.sort { ($0.distance, $0.fid) < ($1.distance, $1.fid) }
        var result = ReverseGeocodeResult()
        for hit in near.prefix(Swift.max(max, 0)) {
            guard var c = try candidate(fid: hit.fid, score: 100, kind: nil) else { continue }
            c.distance = hit.distance
            c.relation = .near
            result.near.append(c)
        }
        for fid in containing.sorted() {
            guard var c = try candidate(fid: fid, score: 100, kind: nil) else { continue }
            c.distance = 0
            c.relation = .within
            result.containing.append(c)
        }
        return result
    }

    /// Whether a shape covers an area (polygons, or a collection holding one).
    static func isAreal(_ shape: Geometry.Shape) -> Bool {
        switch shape {
        case .polygon, .multiPolygon: return true
        case .geometryCollection(let members): return members.contains { isAreal($0.shape) }
        default: return false
        }
    }
}
