import MapbookData
import MapbookPackage
import MapbookRender
import MapbookSupport

/// What the viewer shows of a map as JSON and text lines: the table of contents, legends and
/// identified features. `mapbook toc`, `legend` and `identify` print it, the terminal viewer
/// shows it, and a web page asks for the same JSON.
public enum ViewerReport {
    /// "1:0 to 1:24,000"-style text for a layer's scale range; nil without one.
    public static func scaleRange(_ layer: ViewerLayer) -> String? {
        let outer = layer.minScale.flatMap { $0 > 0 ? $0 : nil }, inner = layer.maxScale.flatMap { $0 > 0 ? $0 : nil }
        switch (outer, inner) {
        case let (o?, i?): return "draws from 1:\(Format.scale(o)) to 1:\(Format.scale(i))"
        case let (o?, nil): return "draws in from 1:\(Format.scale(o))"
        case let (nil, i?): return "draws out from 1:\(Format.scale(i))"
        case (nil, nil): return nil
        }
    }

    /// A layer of the table of contents: its visibility here and in the map, scale range and
    /// whether it draws at `scale`, opacity, depth and legend.
    public static func layer(_ layer: ViewerLayer, scale: Double?) -> JSONValue {
        var o: JSONObject = [
            "id": .string(layer.id), "title": .string(layer.title), "type": .string(layer.type),
            "visible": .bool(layer.isVisible), "mapVisibility": .bool(layer.mapVisibility),
            "changedOnThisDevice": .bool(layer.isChangedByUser), "opacity": .double(layer.opacity), "depth": .int(layer.depth),
        ]
        if let s = layer.minScale { o["minScale"] = .double(s) }
        if let s = layer.maxScale { o["maxScale"] = .double(s) }
        if let scale { o["inScale"] = .bool(layer.isInScale(scale)) }
        o["legend"] = legend(layer.legend)
        return .object(o)
    }

    /// A layer as a table-of-contents row: indented by depth, a checkbox, the title and what
    /// is worth knowing (type, changed here, opacity, scale range, out of scale at `scale`),
    /// then its legend entries under it.
    public static func tocLines(_ layer: ViewerLayer, scale: Double?) -> [String] {
        let indent = String(repeating: "  ", count: layer.depth + 1)
        var facts: [String] = []
        if layer.type != "ArcGISFeatureLayer" { facts.append(layer.type) }
        if layer.isChangedByUser { facts.append(layer.isVisible ? "turned on here" : "turned off here") }
        if layer.opacity < 1 { facts.append("opacity \(Format.number((layer.opacity * 100).rounded()))%") }
        if let range = scaleRange(layer) { facts.append(range) }
        if let scale, !layer.isInScale(scale) { facts.append("out of scale at 1:\(Format.scale(scale))") }
        let row = indent + (layer.isVisible ? "[x] " : "[ ] ") + layer.title + (facts.isEmpty ? "" : "  (" + facts.joined(separator: ", ") + ")")
        return [row] + legendLines(layer.legend, indent: indent + "      ")
    }

    /// A pop-up as `mapbook identify` prints it: a numbered title with its layer and feature,
    /// then its text or its fields with their labels aligned, then its related records.
    public static func popupLines(_ popup: Popup, number: Int) -> [String] {
        var lines = ["\(number). \(popup.title)  (\(popup.layerTitle), feature \(popup.featureID))"]
        if let text = popup.text {
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).map { "   " + $0 }
        } else {
            let width = popup.fields.map(\.label.count).max() ?? 0
            lines += popup.fields.map { "   " + Format.pad($0.label + ":", width + 1) + " " + $0.value }
        }
        return lines + popup.relatedLines.map { "   " + $0 }
    }

    /// A map's bookmarks with what `--bookmark` shows of each at 1024 x 768 and 96 DPI: its
    /// centre in longitude and latitude (to six decimals) and scale, and its extent.
    public static func bookmarks(_ map: ViewerMap) -> JSONValue {
        let items: [JSONValue] = map.bookmarks.map { bookmark in
            var o: JSONObject = ["name": .string(bookmark.name ?? "(unnamed)")]
            if let (center, scale) = bookmarkView(bookmark, map: map) {
                o["center"] = .array([.double(center.x), .double(center.y)])
                o["scale"] = .double(scale)
            }
            if let extent = bookmark.effectiveExtent { o["extent"] = extent.jsonValue }
            return .object(o)
        }
        return .object(["map": .string(map.name), "bookmarks": .array(items)])
    }

    /// The map's name, then a numbered line per bookmark with its centre and scale.
    public static func bookmarkLines(_ map: ViewerMap) -> [String] {
        [map.name + (map.bookmarks.isEmpty ? ": no bookmarks" : "")]
            + map.bookmarks.enumerated().map { i, bookmark in
                let place = bookmarkView(bookmark, map: map).map { "  \(Format.number($0.center.x)), \(Format.number($0.center.y)) at 1:\(Format.scale($0.scale))" }
                return "  \(i + 1). \(bookmark.name ?? "(unnamed)")" + (place ?? "")
            }
    }

    /// Where a bookmark looks at 1024 x 768 and 96 DPI: its centre (longitude and latitude to
    /// six decimals) and its scale, rounded.
    private static func bookmarkView(_ bookmark: Bookmark, map: ViewerMap) -> (center: Position, scale: Double)? {
        guard let view = try? map.view(of: bookmark, width: 1024, height: 768), let center = try? map.toLongitudeLatitude(view.center) else { return nil }
        return (Position(x: (center.x * 1e6).rounded() / 1e6, y: (center.y * 1e6).rounded() / 1e6), view.scale.rounded())
    }

    /// The legend of a map's layers shown here (top first, those with a legend), as
    /// `mapbook legend --json` prints it.
    public static func legends(_ map: ViewerMap) -> JSONValue {
        let items: [JSONValue] = map.legendLayers.map { layer in
            .object(["id": .string(layer.id), "title": .string(layer.title), "legend": legend(layer.legend)])
        }
        return .object(["map": .string(map.name), "layers": .array(items)])
    }

    /// The map's name, then each layer's title with its legend entries under it.
    public static func legendLines(_ map: ViewerMap) -> [String] {
        let layers = map.legendLayers
        return [map.name] + layers.flatMap { ["  " + $0.title] + legendLines($0.legend, indent: "    ") }
            + (layers.isEmpty ? ["  (no visible layer has a legend)"] : [])
    }

    /// A layer's legend: sections with their field and entries, each a label and a symbol.
    public static func legend(_ sections: [LegendSection]) -> JSONValue {
        .array(sections.map { section in
            var o = JSONObject()
            if let heading = section.heading { o["field"] = .string(heading) }
            o["entries"] = .array(section.entries.map { .object(["label": .string($0.label), "symbol": $0.symbol.jsonValue]) })
            return .object(o)
        })
    }

    /// A layer's legend as lines under `indent`: a visual variable's field, then its entries.
    public static func legendLines(_ sections: [LegendSection], indent: String) -> [String] {
        var lines: [String] = []
        for section in sections {
            if let heading = section.heading { lines.append(indent + heading + ":") }
            for entry in section.entries {
                lines.append(indent + entry.symbol.legendDescription + (entry.label.isEmpty ? "" : "  " + entry.label))
            }
        }
        return lines
    }

    /// A feature found by identify: its layer, id, pop-up title, text, fields (shown and raw),
    /// related records and attachments.
    public static func identify(_ result: IdentifyResult) -> JSONValue {
        let popup = result.popup
        var o: JSONObject = [
            "layerId": .string(popup.layerID), "layer": .string(popup.layerTitle), "featureId": .integer(popup.featureID),
            "title": .string(popup.title), "distance": .double((result.distance * 1000).rounded() / 1000),
        ]
        if let text = popup.text { o["text"] = .string(text) }
        func fields(_ list: [Popup.Field]) -> JSONValue {
            .array(list.map { f in .object(["name": .string(f.name), "label": .string(f.label), "value": .string(f.value), "raw": Self.raw(f.raw)]) })
        }
        o["fields"] = fields(popup.fields)
        if !popup.related.isEmpty {
            o["related"] = .array(popup.related.map { group in
                .object(["table": .string(group.table), "records": .array(group.records.map { .object(["id": .integer($0.id), "fields": fields($0.fields)]) })])
            })
        }
        if !popup.attachments.isEmpty {
            o["attachments"] = .array(popup.attachments.map {
                .object(["id": .integer($0.id), "name": .string($0.name), "contentType": .string($0.contentType), "size": .integer($0.size)])
            })
        }
        return .object(o)
    }

    /// A field's value as JSON; blobs are left out.
    public static func raw(_ value: FieldValue) -> JSONValue {
        switch value {
        case .null, .blob: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        }
    }
}
