import MapbookSupport

/// A suggestion while typing: a distinct text to pick, which `geocode(suggestion:)` turns
/// into candidates.
public struct SearchSuggestion: Sendable, Hashable {
    /// The text shown (the search field's value as the data spells it).
    public var text: String
    public var participant: String
    public var score: Double
    /// How many features carry this text.
    public var count: Int
    /// Identifies the suggestion for `geocode(suggestion:)`: participant and group.
    public var key: String

    public var jsonValue: JSONValue {
        .object(["text": .string(text), "participant": .string(participant), "score": .double(score), "count": .int(count), "key": .string(key)])
    }
}

/// A search result: one feature of a searchable layer.
public struct GeocodeCandidate: Sendable, Equatable {
    /// What to show: the display field, or the search field when the locator has none.
    public var label: String
    /// The search field's value that matched.
    public var matchedText: String
    /// Where the feature is, WGS84: a point as it is, a line or polygon's label point.
    public var longitude: Double?
    public var latitude: Double?
    public var score: Double
    /// How the worst token matched (`nil` for reverse geocoding).
    public var matchKind: MatchKind?
    public var participant: String
    public var layer: String
    public var fid: Int64
    /// The output fields, in the locator's order.
    public var attributes: JSONObject
    /// Metres from the preferred location (geocode) or the query point (reverse), when known.
    public var distance: Double?
    /// For reverse geocoding: a feature near the place, or a polygon the place is in.
    public var relation: ReverseRelation?

    public var jsonValue: JSONValue {
        var o = JSONObject()
        o["label"] = .string(label)
        o["matchedText"] = .string(matchedText)
        if let longitude, let latitude {
            o["location"] = .object(["x": .double(Self.round(longitude)), "y": .double(Self.round(latitude)), "spatialReference": .object(["wkid": .int(4326)])])
        } else {
            o["location"] = .null
        }
        o["score"] = .double(score)
        if let matchKind { o["match"] = .string(matchKind.description) }
        o["participant"] = .string(participant)
        o["layer"] = .string(layer)
        o["fid"] = .integer(fid)
        o["attributes"] = .object(attributes)
        if let distance { o["distance"] = .double((distance * 10).rounded() / 10) }
        if let relation { o["relation"] = .string(relation.rawValue) }
        return .object(o)
    }

    /// Nine decimals: a tenth of a millimetre, and no binary noise in the JSON.
    static func round(_ v: Double) -> Double { (v * 1e9).rounded() / 1e9 }
}

/// How a reverse geocoding result stands to the place asked about.
public enum ReverseRelation: String, Sendable {
    /// A point or line feature within the distance looked.
    case near
    /// A polygon the place is in: context for what is near ("in Arbor Lodge").
    case within
}

/// What one locator finds at a place (`SingleFieldLocator.reverseGeocode`).
public struct ReverseGeocodeResult: Sendable {
    /// Point and line features in range, nearest first.
    public var near: [GeocodeCandidate] = []
    /// Polygons that contain the place.
    public var containing: [GeocodeCandidate] = []
}
