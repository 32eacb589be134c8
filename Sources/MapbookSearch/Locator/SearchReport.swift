import MapbookPackage
import MapbookSupport

/// A search as `mapbook search` prints it and a page lists it: how many results, as JSON and
/// as lines.
public struct SearchReport: Sendable {
    public var count: Int
    public var json: JSONValue
    public var lines: [String]

    /// Suggestions for `text`, each with its best feature (where it is, what it is).
    public static func suggestions(_ locator: CompositeLocator, _ text: String, near: (longitude: Double, latitude: Double)?, max: Int) throws -> SearchReport {
        let suggestions = try locator.suggest(text, near: near, max: max)
        var json: [JSONValue] = [], lines: [String] = []
        for (i, s) in suggestions.enumerated() {
            let best = try locator.geocode(suggestion: s, near: near, max: 1).first
            json.append(s.jsonValue(best: best))
            lines.append(s.line(number: i + 1, best: best))
        }
        return SearchReport(count: suggestions.count, json: .array(json), lines: lines)
    }

    /// The features found for `text`, best first; `package` names their fields as identify does.
    public static func features(_ locator: CompositeLocator, _ text: String, near: (longitude: Double, latitude: Double)?, max: Int, package: MobileMapPackage) throws -> SearchReport {
        let candidates = try locator.geocode(text, near: near, max: max)
        let labels = candidates.isEmpty ? [:] : GeocodeCandidate.fieldLabels(package)
        var lines: [String] = []
        for (i, c) in candidates.enumerated() { lines += c.lines(number: i + 1, labels: labels[c.layer] ?? [:]) }
        return SearchReport(count: candidates.count, json: .array(candidates.map(\.jsonValue)), lines: lines)
    }
}
