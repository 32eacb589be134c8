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
