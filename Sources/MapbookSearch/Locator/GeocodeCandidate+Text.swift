import MapbookData
import MapbookPackage
import MapbookSupport

extension GeocodeCandidate {
    /// "-122.566118, 45.575518, 12 m away".
    public var placeText: String? {
        let c = self
        guard let lon = c.longitude, let lat = c.latitude else { return nil }
        var s = "\(Format.number((lon * 1e6).rounded() / 1e6)), \(Format.number((lat * 1e6).rounded() / 1e6))"
        if let d = c.distance { s += d < 1000 ? ", \(Int(d.rounded())) m away" : ", \(Format.number((d / 100).rounded() / 10)) km away" }
        return s
    }

    /// The labels identify gives each layer's fields (the pop-up's labels, else the fields'
    /// aliases), by table and field name, so search results read as identify's do.
    public static func fieldLabels(_ package: MobileMapPackage) -> [String: [String: String]] {
        var labels: [String: [String: String]] = [:]
        guard let entry = package.dataEntry, let data = try? package.database(entry) else { return labels }
        for mapEntry in package.mapEntries {
            guard let map = try? package.map(mapEntry) else { continue }
            for layer in map.map.operationalLayers ?? [] {
                guard let table = layer.path.flatMap(LayerDataPath.init)?.table, labels[table] == nil else { continue }
                var names: [String: String] = [:]
                if let fields = try? FeatureTable(database: data, table: table).fields {
                    for field in fields { if let alias = field.alias, !alias.isEmpty { names[field.name] = alias } }
                }
                for info in layer.popupInfo?.fieldInfos ?? [] {
                    if let name = info.fieldName, let label = info.label, !label.isEmpty { names[name] = label }
                }
                labels[table] = names
            }
        }
        return labels
    }

    /// What `mapbook search` prints of a result numbered `number`: its label, participant,
    /// match and score, its place, and its attributes named by `labels` where they have one.
    public func lines(number: Int, labels: [String: String] = [:]) -> [String] {
        let c = self
        var out: [String] = []
        var head = "\(number). \(c.label)"
        if c.matchedText != c.label { head += " [\(c.matchedText)]" }
        var facts = [c.participant]
        if let kind = c.matchKind { facts.append(kind.description) }
        facts.append("score \(Format.number(c.score))")
        out.append(head + "  (" + facts.joined(separator: ", ") + ")")
        if let place = c.placeText { out.append("   " + place) }
        let attributes = c.attributes.compactMap { key, value -> String? in
            switch value {
            case .null: return nil
            case .string(let s): return "\(labels[key] ?? key): \(s)"
            default: return "\(labels[key] ?? key): \(JSONWriter.string(value).trimmingTrailingNewline())"
            }
        }
        if !attributes.isEmpty { out.append("   " + attributes.joined(separator: " · ")) }
        return out
    }
}

extension GeocodeCandidate {
    /// What `mapbook reverse` prints: the features near the place, numbered, and the areas it
    /// is in ("in Arbor Lodge  (neighbourhoods)").
    public static func reverseLines(_ results: [GeocodeCandidate]) -> [String] {
        var number = 0
        return results.flatMap { result -> [String] in
            if result.relation == .within { return ["in \(result.label)  (\(result.participant))"] }
            number += 1
            return result.lines(number: number)
        }
    }
}

extension SearchSuggestion {
    /// As `mapbook search --suggest --json` prints it: its best feature as a candidate, with
    /// the suggestion's label, score, participant, count and key over it.
    public func jsonValue(best: GeocodeCandidate?) -> JSONValue {
        var o = best?.jsonValue.objectValue ?? JSONObject()
        o["label"] = .string(text)
        o["score"] = .double(score)
        o["participant"] = .string(participant)
        o["count"] = .int(count)
        o["key"] = .string(key)
        return .object(o)
    }

    /// "2. Arbor Lodge  (parks, 3 features, score 0.92)  -122.69, 45.57": the text, where it
    /// comes from, how many features carry it, and where its best feature is.
    public func line(number: Int, best: GeocodeCandidate?) -> String {
        let place = best.flatMap(\.placeText).map { "  \($0)" } ?? ""
        let features = count > 1 ? ", \(Format.count(count)) features" : ""
        return "\(number). \(text)  (\(participant)\(features), score \(Format.number(score)))\(place)"
    }
}
