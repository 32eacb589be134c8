import MapbookSupport

/// A search-quality file: queries with the result each should find (DESIGN.md section 3.5).
/// `validate` runs them against the package's locator and reports hit@1 and hit@5.
///
/// In the package it is JSON beside the composite (`<Composite>.quality.json`, named by the
/// composite's `quality` key):
/// ```json
/// {"queries": [{"text": "HYD-00123", "expect": "HYD-00123", "participant": "Hydrants",
///               "near": [-88.15, 41.77], "suggest": false}]}
/// ```
/// `expect` is compared, folded (case, accents, punctuation), with a result's label and its
/// matched text; `participant` (optional) must match too. `suggest: true` checks suggestions
/// instead of geocode candidates.
public struct SearchQuality: Sendable, Equatable {
    public struct Query: Sendable, Equatable {
        public var text: String
        public var expect: String
        public var participant: String?
        public var near: (longitude: Double, latitude: Double)?
        public var suggest: Bool

        public init(text: String, expect: String, participant: String? = nil, near: (longitude: Double, latitude: Double)? = nil, suggest: Bool = false) {
            self.text = text
            self.expect = expect
            self.participant = participant
            self.near = near
            self.suggest = suggest
        }

        public static func == (a: Query, b: Query) -> Bool {
            a.text == b.text && a.expect == b.expect && a.participant == b.participant && a.suggest == b.suggest
                && a.near?.longitude == b.near?.longitude && a.near?.latitude == b.near?.latitude
        }
    }

    public var queries: [Query]

    public init(queries: [Query]) {
        self.queries = queries
    }

    /// The quality file of a package cut to an area (issue 33): without the queries that
    /// find nothing at all in `locator`, whose features the area left out.
    public func keepingFound(_ locator: CompositeLocator) throws -> SearchQuality {
        let lost = try run(locator).misses.filter { $0.first == nil }.map(\.query)
        return SearchQuality(queries: queries.filter { !lost.contains($0) })
    }

    public var jsonValue: JSONValue {
        .object(["queries": .array(queries.map { q in
            var o = JSONObject()
            o["text"] = .string(q.text)
            o["expect"] = .string(q.expect)
            o.set("participant", q.participant)
            if let near = q.near { o["near"] = .array([.double(near.longitude), .double(near.latitude)]) }
            if q.suggest { o["suggest"] = .bool(true) }
            return .object(o)
        })])
    }

    /// Reads the JSON form; `path` names the file in errors. Every problem is reported with
    /// the query's number.
    public static func parse(_ value: JSONValue, path: String) throws -> SearchQuality {
        guard let queries = value.objectValue?.array("queries") ?? value.arrayValue else {
            throw LocatorError(kind: .invalidValue, path: path, message: "a search-quality file is {\"queries\": [...]} (or a list of queries)")
        }
        var out: [Query] = []
        for (i, item) in queries.enumerated() {
            guard let o = item.objectValue else { throw LocatorError(kind: .invalidValue, path: path, message: "query \(i + 1) is not an object") }
            for key in o.keys where !["text", "expect", "participant", "near", "suggest"].contains(key) {
                throw LocatorError(kind: .unknownKey, path: path, message: "query \(i + 1): unknown key '\(key)' (queries have text, expect, participant, near, suggest)")
            }
            guard let text = o.string("text") else { throw LocatorError(kind: .missingKey, path: path, message: "query \(i + 1) has no 'text'") }
            guard let expect = o.string("expect"), !SearchText.tokens(expect).isEmpty else {
                throw LocatorError(kind: .missingKey, path: path, message: "query \(i + 1) ('\(text)') has no 'expect' (the label or text it should find)")
            }
            var query = Query(text: text, expect: expect, participant: o.string("participant"), suggest: o.bool("suggest") ?? false)
            if let near = o.doubles("near") {
                guard near.count == 2, (-180...180).contains(near[0]), (-90...90).contains(near[1]) else {
                    throw LocatorError(kind: .invalidValue, path: path, message: "query \(i + 1) ('\(text)'): 'near' is [longitude, latitude] in degrees")
                }
                query.near = (near[0], near[1])
            }
            out.append(query)
        }
        return SearchQuality(queries: out)
    }

    /// What running the queries found.
    public struct Outcome: Sendable {
        public var total: Int
        public var hitsAt1: Int
        public var hitsAt5: Int
        /// Queries whose expected result was not among the first five, with what came first.
        public var misses: [(query: Query, first: String?)]
        /// Queries found, but not first.
        public var late: [(query: Query, position: Int)]
    }

    /// Runs every query against `locator`.
    public func run(_ locator: CompositeLocator) throws -> Outcome {
        var outcome = Outcome(total: queries.count, hitsAt1: 0, hitsAt5: 0, misses: [], late: [])
        for q in queries {
            let want = SearchText.normalized(q.expect)
            var results: [(texts: [String], participant: String)]
            if q.suggest {
                results = try locator.suggest(q.text, near: q.near, max: 5).map { ([$0.text], $0.participant) }
            } else {
                results = try locator.geocode(q.text, near: q.near, max: 5).map { ([$0.label, $0.matchedText], $0.participant) }
            }
            let position = results.firstIndex { r in
                (q.participant == nil || q.participant == r.participant) && r.texts.contains { SearchText.normalized($0) == want }
            }
            switch position {
            case 0?:
                outcome.hitsAt1 += 1
                outcome.hitsAt5 += 1
            case let p?:
                outcome.hitsAt5 += 1
                outcome.late.append((q, p + 1))
            case nil:
                outcome.misses.append((q, results.first?.texts.first))
            }
        }
        return outcome
    }
}
