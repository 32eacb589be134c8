import MapbookPackage
import MapbookSupport

/// A package's map as an online web map (issue 33, docs/PORTAL.md "Web maps"): the same JSON
/// (renderers, labels, pop-ups, bookmarks, initial view), with each layer that reads a table
/// of the package's data pointing at that table's layer of the feature service instead
/// (`url`, `itemId`), and the backdrop as the package's vector tile service (`styleUrl`).
/// Layers the service does not serve, and base maps other than the backdrop, are left out.
public enum ServiceWebMap {
    /// `map` pointing at the feature service at `serviceURL` (item `serviceItemId`), whose
    /// layers are numbered by table in `layers` (lower case); the backdrop at
    /// `vectorTileServiceURL` when the package has one.
    public static func make(from map: WebMap, layers: [String: Int], serviceURL: String, serviceItemId: String, vectorTileServiceURL: String?) -> JSONValue {
        var o = map.json
        func online(_ items: [OperationalLayer]) -> [JSONValue] {
            items.compactMap { layer in
                var json = layer.json
                if let children = layer.layers {
                    let kept = online(children)
                    guard !kept.isEmpty else { return nil }
                    json["layers"] = .array(kept)
                    return .object(json)
                }
                guard let table = layer.dataPath?.table, let id = layers[table.lowercased()] else { return nil }
                json["path"] = nil
                json["layerType"] = "ArcGISFeatureLayer"
                json["url"] = .string("\(serviceURL)/\(id)")
                json["itemId"] = .string(serviceItemId)
                return .object(json)
            }
        }
        o["operationalLayers"] = .array(online(map.operationalLayers ?? []))
        if let tables = map.tables { o["tables"] = .array(online(tables)) }
        if let baseMap = map.baseMap {
            var json = baseMap.json
            let backdrop = (baseMap.baseMapLayers ?? []).first { $0.layerType == "VectorTileLayer" && ($0.path ?? "").lowercased().hasSuffix(".vtpk") }
            if let backdrop, let vectorTileServiceURL {
                var layer = backdrop.json
                layer["path"] = nil
                layer["styleUrl"] = .string("\(vectorTileServiceURL)/resources/styles/root.json")
                layer["visibility"] = true
                json["baseMapLayers"] = .array([.object(layer)])
            } else {
                json["baseMapLayers"] = .array([])
            }
            o["baseMap"] = .object(json)
        }
        o["authoringApp"] = "Mapbook"
        o["version"] = .string(map.version ?? "2.31")
        return .object(o)
    }
}
